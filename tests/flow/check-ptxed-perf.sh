#!/bin/sh
# ptxed --perf (a ptdecode extension) on a generated code + trace pair
# (flow_write) wrapped into perf.data files (perf_wrap): the listing of
# --perf <file>:<idx> must be that of --pt with the configuration the file
# holds (6/78/3, mtc_freq 3, nominal ratio 12, CPUID 0x15 2/100), with both
# decoders, with --time, from the file and the pipe format; options given
# before --perf win over the file's; without an AUX area, each in turn; and
# the errors for an absent AUX area and a file that is not perf.data.
#
# With <pz_compress>, the --perf:images file with its sideband compressed
# (untimed records that share a compressed record's offset: their order is
# their place in the file, not the offset) gives the same listing and
# sideband.
#
# usage: check-ptxed-perf.sh <ptxed> <flow_write> <perf_wrap> <seed> <work-dir>
#        [<pz_compress>]
set -u
ptxed=$1 write=$2 wrap=$3 seed=$4 dir=$5 pz=${6:-}
fail=0

rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$write" "$seed" 3000 "$dir" >/dev/null || exit 1
"$wrap" "$dir/trace.pt" "$dir/file.data" 5 || exit 1
"$wrap" "$dir/trace.pt" "$dir/pipe.data" 5 --pipe || exit 1
base=$(cat "$dir/base.txt")
raw="--raw $dir/code.bin:$base"
cfg="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100"

same() { # <what> <ptxed arguments a> -- <ptxed arguments b>
	what=$1
	shift
	a="" b="" side=a
	for x in "$@"; do
		if [ "$x" = "--" ]; then side=b; continue; fi
		if [ $side = a ]; then a="$a $x"; else b="$b $x"; fi
	done
	# shellcheck disable=SC2086 # the argument lists are split on purpose
	$ptxed $a >"$dir/a" 2>"$dir/ae"
	sa=$?
	# shellcheck disable=SC2086
	$ptxed $b >"$dir/b" 2>"$dir/be"
	sb=$?
	if [ $sa -ne $sb ] || ! cmp -s "$dir/a" "$dir/b" ||
		! cmp -s "$dir/ae" "$dir/be"; then
		echo "FAIL: $what (status $sa / $sb)"
		diff "$dir/a" "$dir/b" | head -5
		diff "$dir/ae" "$dir/be" | head -5
		fail=1
	elif [ ! -s "$dir/a" ]; then
		echo "FAIL: $what: no output"
		fail=1
	else
		echo "ok: $what: $(wc -l <"$dir/a") lines"
	fi
}

for fmt in file pipe; do
	for dec in --insn-decoder --block-decoder; do
		same "$fmt $dec" $dec $raw --perf "$dir/$fmt.data:5" -- \
			$dec $cfg $raw --pt "$dir/trace.pt"
		same "$fmt $dec --time --offset" $dec --time --offset --event:time \
			$raw --perf "$dir/$fmt.data:5" -- \
			$dec --time --offset --event:time $cfg $raw --pt "$dir/trace.pt"
	done
done
# Options before --perf win over the file's values.
same "--cpu none --mtc-freq 0 before --perf" --cpu none --mtc-freq 0 --time \
	$raw --perf "$dir/file.data:5" -- \
	--cpu none --mtc-freq 0 --nom-freq 12 --cpuid-0x15.eax 2 \
	--cpuid-0x15.ebx 100 --time $raw --pt "$dir/trace.pt"

# ... and they matter: the times differ from those with the file's values.
$ptxed --time $raw --perf "$dir/file.data:5" >"$dir/t1" 2>/dev/null
$ptxed --mtc-freq 0 --time $raw --perf "$dir/file.data:5" >"$dir/t2" 2>/dev/null
if cmp -s "$dir/t1" "$dir/t2"; then
	echo "FAIL: --mtc-freq 0 before --perf changed no time"
	fail=1
else
	echo "ok: --mtc-freq 0 before --perf changes the times"
fi

# --perf:images: the code from the sideband's memory maps of the traced
# process (after its exec; not another process's), as --raw gives it.
"$wrap" "$dir/trace.pt" "$dir/img.data" 5 --mmap "$dir/code.bin:$base" || exit 1
for dec in --insn-decoder --block-decoder; do
	same "--perf:images $dec" $dec --perf:images --perf "$dir/img.data:5" -- \
		$dec $raw --perf "$dir/img.data:5"
done
if [ -n "$pz" ]; then
	"$pz" "$dir/img.data" "$dir/img-z.data" >/dev/null || exit 1
	for dec in --insn-decoder --block-decoder; do
		same "--perf:images $dec, compressed sideband" $dec --perf:images \
			--perf "$dir/img-z.data:5" -- $dec --perf:images \
			--perf "$dir/img.data:5"
	done
	ptdump=$(dirname "$ptxed")/../ptdump/ptdump
	"$ptdump" --perf:sideband "$dir/img.data" >"$dir/sb" 2>&1
	"$ptdump" --perf:sideband "$dir/img-z.data" >"$dir/sb-z" 2>&1
	if ! cmp -s "$dir/sb" "$dir/sb-z" || [ ! -s "$dir/sb" ]; then
		echo "FAIL: ptdump --perf:sideband of the compressed file:"
		diff "$dir/sb" "$dir/sb-z"
		fail=1
	else
		echo "ok: ptdump --perf:sideband of the compressed file: $(wc -l <"$dir/sb") lines"
	fi
fi

# No AUX area given on a file of several: each in turn (0, whose trace has
# no PSB, then 5), after a heading; the file's warnings once.
for fmt in file pipe; do
	for dec in --insn-decoder --block-decoder; do
		{
			echo "[aux area 0: cpu 0, tid 3174]"
			echo "[aux area 5: cpu 5, tid 3174]"
			$ptxed $dec --time $raw --perf "$dir/$fmt.data:5" 2>/dev/null
		} >"$dir/want"
		$ptxed $dec --time $raw --perf "$dir/$fmt.data" >"$dir/out" 2>"$dir/err"
		st=$?
		if [ $st -ne 0 ] || ! cmp -s "$dir/want" "$dir/out" ||
			[ "$(grep -c 'no PSB packet' "$dir/err")" -ne 1 ]; then
			echo "FAIL: every AUX area, $fmt $dec (status $st)"
			diff "$dir/want" "$dir/out" | head -5
			cat "$dir/err"
			fail=1
		else
			echo "ok: every AUX area, $fmt $dec: $(wc -l <"$dir/out") lines"
		fi
	done
done
# ... each area's messages on stderr after its heading (area 0 has no PSB).
$ptxed $raw --perf "$dir/file.data" >"$dir/out" 2>&1
if [ "$(sed -n '1,3p' "$dir/out" | cut -c1-40 | tr '\n' '|')" != \
	"[aux area 0: cpu 0, tid 3174]|ptxed: warning: no PSB packet in the tra|[aux area 5: cpu 5, tid 3174]|" ]; then
	echo "FAIL: every AUX area, messages after their heading:"
	head -3 "$dir/out"
	fail=1
else
	echo "ok: every AUX area, messages after their heading"
fi
# ... with the warnings of loading --raw, --elf and --page-dump once, not
# again for each area (the command line is loaded again for each).
: >"$dir/empty.addr"
$ptxed --quiet --page-dump "$dir/empty.addr:$dir/code.bin" \
	--raw "$dir/code.bin:0xfffffffffffffff0" --perf "$dir/file.data" \
	>/dev/null 2>"$dir/err"
if [ "$(grep -c 'maps no page' "$dir/err")" -ne 1 ] ||
	[ "$(grep -c 'beyond the end of the address space' "$dir/err")" -ne 1 ]
then
	echo "FAIL: every AUX area: loading warnings not once:"
	cat "$dir/err"
	fail=1
else
	echo "ok: every AUX area: loading warnings once"
fi
# ... without headings under --quiet, but with --stat each area's heading
# before its statistics, to say whose they are.
$ptxed --quiet $raw --perf "$dir/file.data" >"$dir/out" 2>/dev/null
if [ -s "$dir/out" ]; then
	echo "FAIL: every AUX area with --quiet prints:"
	cat "$dir/out"
	fail=1
else
	echo "ok: every AUX area with --quiet: nothing"
fi
$ptxed --quiet --stat $raw --perf "$dir/file.data" >"$dir/out" 2>/dev/null
if [ "$(grep -c '^\[aux area' "$dir/out")" -ne 2 ] ||
	[ "$(grep -c '^insn:' "$dir/out")" -ne 2 ] ||
	[ "$(sed -n 1p "$dir/out")" != "[aux area 0: cpu 0, tid 3174]" ]; then
	echo "FAIL: every AUX area with --quiet --stat:"
	cat "$dir/out"
	fail=1
else
	echo "ok: every AUX area with --quiet --stat: $(tr '\n' ' ' <"$dir/out")"
fi

# Errors: exit status 1 and a message naming the problem.
err() { # <what> <regex> <ptxed arguments>
	what=$1 re=$2
	shift 2
	"$ptxed" "$@" >"$dir/out" 2>"$dir/err"
	st=$?
	if [ $st -ne 1 ] || ! grep -Eq -- "$re" "$dir/err"; then
		echo "FAIL: $what: status $st, error output:"
		cat "$dir/err"
		fail=1
	else
		echo "ok: $what"
	fi
}
# Without an AUX area, standard input can be read once: one area of it.
err "every AUX area of standard input" \
	"standard input has several AUX areas \(0, 5\): choose one with --perf -:<idx>" \
	$raw --perf - <"$dir/file.data"
err "an absent AUX area" "has no AUX area 7 \(it has 0, 5\)" \
	$raw --perf "$dir/file.data:7"
err "not a perf.data file" "trace.pt:0: not a perf.data file" \
	$raw --perf "$dir/trace.pt"
err "--perf:images without maps" "has no memory map or name of thread 3174" \
	--perf:images --perf "$dir/file.data:5"
err "--perf after --pt" "duplicate pt sources" \
	$raw --pt "$dir/trace.pt" --perf "$dir/file.data:5"
exit $fail
