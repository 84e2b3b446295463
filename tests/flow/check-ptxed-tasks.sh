#!/bin/sh
# ptxed --perf:images with context switches (a ptdecode extension): the
# trace of one CPU on which three processes take turns, each with its own
# code at the same address (perf_tasks.c).  Each turn must be decoded with
# the code of the process the switches say runs then: alpha's a.bin, beta's
# b.bin after its exec (not its missing file from before), and a.bin for
# 303, which alpha forked; with both decoders, with and without
# --perf:tasks; also with records out of time order in the file, after a
# resynchronization into another task, at a paging event, and (with a
# warning) without time.  Without the switches the whole-CPU recording
# names no process, which --perf:images reports.
#
# usage: check-ptxed-tasks.sh <ptxed> <perf_tasks> <work-dir>
set -u
ptxed=$1 gen=$2 dir=$3
fail=0

rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$gen" "$dir" || exit 1

# (The first task line comes with the synchronization, at the first PSB's
# time; the others with the enable events.)
cat >"$dir/expected-tasks" <<END
[task 101/101: alpha]
[enabled]
0000000000400000  nop
0000000000400001  nop
[disabled]
[enabled]
[task 202/203: beta]
0000000000400000  xor eax, eax
0000000000400002  nop
[disabled]
[enabled]
[task 303/303: alpha]
0000000000400000  nop
0000000000400001  nop
[disabled]
END
grep -v '^\[task ' "$dir/expected-tasks" >"$dir/expected"

check() { # <what> <expected file> <ptxed arguments>
	what=$1 exp=$2
	shift 2
	"$ptxed" "$@" >"$dir/out" 2>"$dir/err"
	st=$?
	if [ $st -ne 0 ] || ! cmp -s "$exp" "$dir/out"; then
		echo "FAIL: $what (status $st)"
		diff "$exp" "$dir/out" | head -20
		cat "$dir/err"
		fail=1
	else
		echo "ok: $what"
	fi
}

for dec in --insn-decoder --block-decoder; do
	check "--perf:tasks $dec" "$dir/expected-tasks" $dec --perf:images \
		--perf:tasks --perf "$dir/tasks.data:5"
	check "$dec" "$dir/expected" $dec --perf:images \
		--perf "$dir/tasks.data:5"
done

# PERF_RECORD_SWITCH records (a traced thread's): a switch out names no
# task, and each task's switch in comes after its tracing starts.
for dec in --insn-decoder --block-decoder; do
	check "PERF_RECORD_SWITCH $dec" "$dir/expected-tasks" $dec \
		--perf:images --perf:tasks --perf "$dir/tasks-thread.data:5"
done

# The MMAP2 of beta's b.bin before its exec's COMM in the file, after it in
# time (records of two CPUs): the map belongs to the era after the exec.
for dec in --insn-decoder --block-decoder; do
	check "records out of time order $dec" "$dir/expected-tasks" $dec \
		--perf:images --perf:tasks --perf "$dir/tasks-swap.data:5"
done

# A resynchronization into beta's turn (alpha's ends in a bad packet; beta's
# PSB+ has tracing on, no enable event): beta's code, as the switches say
# away from any switch.
cat >"$dir/expected-resync" <<END
[task 101/101: alpha]
[23, 0: error: unknown opcode]
[task 202/203: beta]
0000000000400000  xor eax, eax
0000000000400002  nop
[disabled]
[enabled]
[task 303/303: alpha]
0000000000400000  nop
0000000000400001  nop
[disabled]
END
for dec in --insn-decoder --block-decoder; do
	check "resynchronization into another task $dec" \
		"$dir/expected-resync" $dec --perf:images --perf:tasks \
		--perf "$dir/tasks-resync.data:5"
done

# A paging event (kernel-style tracing): alpha's MOV CR3 loads beta's page
# tables at t1, after the switch; the next instruction is beta's.
cat >"$dir/expected-paging" <<END
[task 101/101: alpha]
[enabled]
0000000000400000  nop
0000000000400001  nop
0000000000400002  mov cr3, rax
[paging, cr3: 0000000000002000]
[task 202/203: beta]
0000000000400005  xor eax, eax
[disabled]
END
for dec in --insn-decoder --block-decoder; do
	check "paging event $dec" "$dir/expected-paging" $dec --perf:images \
		--perf:tasks --perf "$dir/tasks-paging.data:5"
done

# The directory of perf record --kcore: the kernel's code from
# kcore_dir/kcore goes into every task's image (alpha runs in the kernel).
cat >"$dir/expected-kcore" <<END
[task 101/101: alpha]
[enabled]
ffffffff81000000  nop
ffffffff81000001  nop
ffffffff81000002  xor eax, eax
[disabled]
END
for dec in --insn-decoder --block-decoder; do
	check "kernel code from kcore_dir $dec" "$dir/expected-kcore" $dec \
		--perf:images --perf:tasks --perf "$dir/tasks-kcore.data:5"
done
# ... and only with --perf:images.
"$ptxed" --perf "$dir/tasks-kcore.data:5" >"$dir/out" 2>&1
if grep -q '^ffffffff8100' "$dir/out" ||
	! grep -q 'ffffffff81000000: error: no memory mapped' "$dir/out"; then
	echo "FAIL: kcore_dir without --perf:images:"
	cat "$dir/out"
	fail=1
else
	echo "ok: kcore_dir without --perf:images: no kernel code"
fi

# Every AUX area (no <idx>): area 0 (a whole-CPU trace of a CPU without
# switches) cannot be loaded with --perf:images, which does not keep area 5
# from being decoded; the exit status says that one failed.
{
	echo "[aux area 5: cpu 5, tid -1]"
	cat "$dir/expected-tasks"
} >"$dir/expected-all"
"$ptxed" --perf:images --perf:tasks --perf "$dir/tasks.data" >"$dir/out" 2>"$dir/err"
st=$?
if [ $st -ne 1 ] || ! cmp -s "$dir/expected-all" "$dir/out" ||
	! grep -q 'AUX area 0 traced whole CPUs' "$dir/err"; then
	echo "FAIL: every AUX area, one that cannot be loaded (status $st):"
	diff "$dir/expected-all" "$dir/out" | head
	cat "$dir/err"
	fail=1
else
	echo "ok: every AUX area, one that cannot be loaded: the other decoded, status 1"
fi

# A trace without time: the switches cannot say who runs; the traced
# thread's process (alpha) is used, with a warning.
"$ptxed" --perf:images --perf:tasks --perf "$dir/tasks-notsc.data:5" \
	>"$dir/out" 2>"$dir/err"
if ! grep -q 'no time where decoding starts.*process 101' "$dir/err" ||
	[ "$(head -5 "$dir/out" | tr '\n' '|')" != \
	"[task 101: alpha]|[enabled]|0000000000400000  nop|0000000000400001  nop|[disabled]|" ]; then
	echo "FAIL: a trace without time:"
	cat "$dir/out" "$dir/err"
	fail=1
else
	echo "ok: a trace without time: alpha's code, and a warning"
fi

# --perf:time: the times of --time and --event:time in perf time (t0 is
# 641.256845844 s, t1 a million TSC ticks later).
"$ptxed" --perf:images --perf:time --time --event:time \
	--perf "$dir/tasks.data:5" >"$dir/out" 2>"$dir/err"
if [ "$(sed -n '1,3p;5p' "$dir/out" | tr '\n' '|')" != \
	"[641.256845844  enabled]|641.256845844  0000000000400000  nop|641.256845844  0000000000400001  nop|[641.257679178  enabled]|" ]; then
	echo "FAIL: --perf:time:"
	cat "$dir/out" "$dir/err"
	fail=1
else
	echo "ok: --perf:time"
fi

# ... and before the trace's first time (no TSC at all here) the hex TSC 0,
# not perf time's conversion of 0.
"$ptxed" --perf:images --perf:time --time --perf "$dir/tasks-notsc.data:5" \
	>"$dir/out" 2>/dev/null
if [ "$(sed -n 2p "$dir/out")" != "0000000000000000  0000000000400000  nop" ]; then
	echo "FAIL: --perf:time without a time:"
	head -3 "$dir/out"
	fail=1
else
	echo "ok: --perf:time without a time"
fi

# --perf:tasks without task images says so.
"$ptxed" --perf:tasks --perf "$dir/tasks.data:5" >/dev/null 2>"$dir/err"
if ! grep -q -- '--perf:tasks prints nothing' "$dir/err"; then
	echo "FAIL: --perf:tasks without --perf:images:"
	cat "$dir/err"
	fail=1
else
	echo "ok: --perf:tasks without --perf:images warns"
fi

# --help after a --perf whose first area cannot be loaded: the help once
# (from the next area's run, which gets to it), and the end.
"$ptxed" --perf:images --perf "$dir/tasks.data" --help >"$dir/out" 2>&1
if [ "$(grep -c '^usage: ' "$dir/out")" -ne 1 ]; then
	echo "FAIL: --help after --perf of several areas, not once:"
	grep -c '^usage: ' "$dir/out"
	fail=1
else
	echo "ok: --help after --perf of several areas: once"
fi

# A perf.data file given to --pt: a note that --perf reads it.
"$ptxed" --pt "$dir/tasks.data" >/dev/null 2>"$dir/err"
if ! grep -q 'tasks\.data is a perf\.data file; --perf decodes' "$dir/err"
then
	echo "FAIL: no note for a perf.data file given to --pt:"
	cat "$dir/err"
	fail=1
else
	echo "ok: a perf.data file given to --pt gets a note"
fi

# --perf:images changes how --perf loads the file: after it, an error (exit
# 1, nothing decoded); without --perf at all, a warning.
"$ptxed" --perf "$dir/tasks.data:5" --perf:images >"$dir/out" 2>"$dir/err"
st=$?
if [ $st -ne 1 ] || [ -s "$dir/out" ] ||
	! grep -q -- '--perf:images before --perf' "$dir/err"; then
	echo "FAIL: --perf:images after --perf (status $st):"
	cat "$dir/err"
	fail=1
else
	echo "ok: --perf:images after --perf is an error"
fi
"$ptxed" --perf:images --raw "$dir/a.bin:0x400000" --pt "$dir/a.bin" \
	>/dev/null 2>"$dir/err"
st=$?
"$ptxed" --raw "$dir/a.bin:0x400000" --pt "$dir/a.bin" --perf:images \
	>/dev/null 2>>"$dir/err"
st2=$?
if [ "$(grep -c -- '--perf:images does nothing without --perf' "$dir/err")" -ne 2 ] ||
	[ $st -ne 0 ] || [ $st2 -ne 0 ]; then
	echo "FAIL: --perf:images without --perf:"
	cat "$dir/err"
	fail=1
else
	echo "ok: --perf:images without --perf warns"
fi

# beta's map from before its exec is missing: one warning, when its image
# is made.
"$ptxed" --perf:images --perf "$dir/tasks.data:5" >/dev/null 2>"$dir/err"
if [ "$(grep -c 'missing-before-exec' "$dir/err")" -ne 0 ] ||
	[ -s "$dir/err" ]; then
	echo "FAIL: warnings for the maps of the turns' processes:"
	cat "$dir/err"
	fail=1
else
	echo "ok: no warning (only the maps of each turn's generation)"
fi

# Without --perf:images, no code: no instruction, and the turns decoded
# fail at their first (the error's offset is past the next PSB, where the
# query decoder has read ahead to, so the resynchronization skips a turn,
# as in libipt's ptxed).
"$ptxed" --perf "$dir/tasks.data:5" >"$dir/out" 2>&1
if grep -q '^0000000000400' "$dir/out" ||
	! grep -q '400000: error: no memory mapped' "$dir/out"; then
	echo "FAIL: without --perf:images:"
	cat "$dir/out"
	fail=1
else
	echo "ok: without --perf:images no turn has code"
fi

# Without switches, a whole-CPU recording names no process.
"$ptxed" --perf:images --perf "$dir/tasks-noswitch.data:5" >"$dir/out" \
	2>"$dir/err"
st=$?
if [ $st -ne 1 ] || ! grep -q 'context switches' "$dir/err"; then
	echo "FAIL: --perf:images without switches (status $st):"
	cat "$dir/err"
	fail=1
else
	echo "ok: --perf:images without switches: $(cat "$dir/err")"
fi
exit $fail
