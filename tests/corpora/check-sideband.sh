#!/bin/sh
# libipt's perf_event sideband options on the DynamoRIO corpus's sideband
# files (dynamorio/<dir>/test_simple.raw: primary.sideband.pevent of the
# traced CPU, secondary.sideband.pevent with perf's own records), with the
# settings of the corpora README:
#
#   ptdump  every record of both files is printed once, each where the
#           trace's time (--time) first reaches it: after the last timing
#           packet before its time and before the first one at or after it
#           (records without a time, perf's own, at the first timing
#           packet);
#   ptxed   the records printed and applied at the decoder's events, the
#           switch to the traced process, and the errors the missing
#           binaries make (the corpus has none): the listing is
#           expected/sideband-<dir>-ptxed.txt.
#
# usage: check-sideband.sh <ptdump> <ptxed> <corpora> <expected> <dir>
# Exit status 0, 1 on a mismatch, 77 if the corpus is absent.
set -u
ptdump=$1 ptxed=$2 corpora=$3 expected=$4 dir=$5
here=$(cd "$(dirname "$0")" && pwd)
raw=$corpora/dynamorio/$dir/test_simple.raw
if [ ! -f "$raw/pt.bin" ]; then
	echo "skipped: $raw is absent"
	exit 77
fi
cd "$raw" || exit 1
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
cfg="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2
	--cpuid-0x15.ebx 308 --pevent:sample-type 0x10086
	--pevent:time-shift 31 --pevent:time-mult 581029125
	--pevent:time-zero 18444502336406842448"
fail=0

# shellcheck disable=SC2086
"$ptdump" $cfg --time --no-pad --sb --sb:offset --sb:time --sb:filename \
	--pevent:primary primary.sideband.pevent \
	--pevent:secondary secondary.sideband.pevent pt.bin > "$out" 2>/dev/null ||
	{
		echo "FAIL: ptdump exited with status $?"
		exit 1
	}
result=$(awk -f "$here/sb-placement.awk" "$out")
case $dir in
ad6a637b) want=12 ;;
d9e0e666) want=16 ;;
*) want=? ;;
esac
if [ "$result" != "$want 0 0 0 0" ]; then
	echo "FAIL: ptdump: records, duplicates, printed after a packet that" \
		"reached their time, printed before their time, untimed ones" \
		"after a timing packet: $result (expected $want 0 0 0 0)"
	fail=1
fi

# Without the timing configuration the trace's time stands still between
# its TSCs and the records gather there: the timing summary on standard
# error says why, also without --time.
"$ptdump" --pevent:sample-type 0x10086 --pevent:time-shift 31 \
	--pevent:time-mult 581029125 --pevent:time-zero 18444502336406842448 \
	--sb --pevent:primary primary.sideband.pevent pt.bin >/dev/null \
	2>"$out"
if ! grep -q '^ptdump: timing: MTC/TMA packets need the CPUID 0x15' "$out"
then
	echo "FAIL: ptdump: no timing summary with sideband but no timing" \
		"configuration:"
	cat "$out"
	fail=1
fi

# shellcheck disable=SC2086
"$ptxed" $cfg --sb --sb:switch --sb:warn --event:tick \
	--pevent:primary primary.sideband.pevent \
	--pevent:secondary secondary.sideband.pevent --pt pt.bin > "$out" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
	echo "FAIL: ptxed exited with status $status"
	fail=1
fi
if ! diff -u "$expected/sideband-$dir-ptxed.txt" "$out"; then
	echo "FAIL: ptxed's listing differs (- expected, + actual)"
	fail=1
fi
exit $fail
