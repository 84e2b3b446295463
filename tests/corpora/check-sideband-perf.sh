#!/bin/sh
# libipt's perf workflow on the perf-data corpus recording: its sideband
# records split into one file per CPU as libipt's perf-read-sideband.bash
# does (perf_split_sideband, with the settings perf-get-opts.bash would
# print), then ptdump with CPU 3's file as primary and the others as
# secondary on the trace of CPU 3 (the corpus's auxtrace-idx3-cpu3.bin):
#
#   * the records are those that the perf.data reader finds in the file
#     (check-perf-sideband.sh: 56 MMAP, 10 MMAP2, 3 COMM, 152
#     SWITCH_CPU_WIDE, 2 ITRACE_START, 1 EXIT), read now by the sideband
#     reader;
#   * each is printed once, where the trace's time (--time) first reaches
#     it (sb-placement.awk);
#   * ptxed --sb:switch follows CPU 3's tasks: [context: pid-<pid>] lines
#     for echo's process (c66) at its ITRACE_START and after its exec, for
#     the task that runs in between and for echo again; exit status 0.
#
# usage: check-sideband-perf.sh <perf_split_sideband> <ptdump> <ptxed>
#                               <perf-data dir>
# Exit status 0, 1 on a mismatch, 77 if the corpus is absent.
set -u
split=$1 ptdump=$2 ptxed=$3 dir=$4
file=$dir/perf.data.intel_pt-4.14
trace=$dir/perf.data.intel_pt-4.14.auxtrace-idx3-cpu3.bin
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$file" ] || [ ! -f "$trace" ]; then
	echo "skipped: the perf-data corpus is absent"
	exit 77
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
opts=$("$split" "$file" "$work/pd") || {
	echo "FAIL: perf_split_sideband exited with status $?"
	exit 1
}
cfg="--cpu 6/78/3 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2
	--cpuid-0x15.ebx 100"
files="--pevent:primary $work/pd-sideband-cpu3.pevent"
for f in "$work"/pd-sideband-cpu[0-2].pevent "$work/pd-sideband.pevent"; do
	[ -f "$f" ] && files="$files --pevent:secondary $f"
done
fail=0

# shellcheck disable=SC2086
"$ptdump" $cfg $opts --time --no-pad --sb --sb:offset --sb:time \
	--sb:filename $files "$trace" > "$work/out" 2>/dev/null || {
	echo "FAIL: ptdump exited with status $?"
	exit 1
}
counts=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^PERF_RECORD_/) n[$i]++ }
	END {
		comm = n["PERF_RECORD_COMM"] + n["PERF_RECORD_COMM.EXEC"]
		sw = n["PERF_RECORD_SWITCH_CPU_WIDE.IN"]
		sw += n["PERF_RECORD_SWITCH_CPU_WIDE.OUT"]
		printf "%d %d %d %d %d %d", n["PERF_RECORD_MMAP"],
		       n["PERF_RECORD_MMAP2"], comm, sw,
		       n["PERF_RECORD_ITRACE_START"], n["PERF_RECORD_EXIT"]
	}' "$work/out")
if [ "$counts" != "56 10 3 152 2 1" ]; then
	echo "FAIL: MMAP, MMAP2, COMM, SWITCH_CPU_WIDE, ITRACE_START, EXIT" \
		"records: $counts (expected 56 10 3 152 2 1)"
	fail=1
fi
placement=$(awk -f "$here/sb-placement.awk" "$work/out")
case $placement in
*" 0 0 0 0") ;;
*)
	echo "FAIL: records, duplicates, late, early, untimed late:" \
		"$placement"
	fail=1
	;;
esac

# shellcheck disable=SC2086
"$ptxed" $cfg $opts --sb:switch --quiet $files --pt "$trace" \
	> "$work/xed" 2>&1
status=$?
switches=$(sed -n 's/^\[context: \(pid-[0-9a-f]*\)\]$/\1/p' "$work/xed" |
	tr '\n' ' ')
# echo's process at its ITRACE_START, its new context at the exec, the
# task that runs in between (pid 0x6e0), echo again.
if [ "$status" -ne 0 ] ||
	[ "$switches" != "pid-c66 pid-c66 pid-6e0 pid-c66 " ]; then
	echo "FAIL: ptxed: exit status $status, switches '$switches'" \
		"(expected 0, 'pid-c66 pid-c66 pid-6e0 pid-c66 '):"
	head -30 "$work/xed"
	fail=1
fi
exit $fail
