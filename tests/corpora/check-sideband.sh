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
# Records: "<file>:<offset>  [<tsc>  ]<name> ..."; timing packets: "... tsc
# <16 digits>" at the end (or <unavailable> before the first TSC).
result=$(awk '
	function hex(s,  v, i, c) {
		v = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	$1 ~ /\.pevent:/ {
		n[$1 ~ /^primary/ ? "p" : "s"]++
		if (seen[$1]++)
			dup++
		if ($2 ~ /^[0-9a-f]+$/ && length($2) == 16) {
			t = hex($2)
			if (have_last && last >= t)
				late++
			wait[++nw] = t
		} else if (have_last)
			late_untimed++
		next
	}
	$(NF - 1) == "tsc" && $NF ~ /^[0-9a-f]+$/ {
		now = hex($NF)
		for (i = 1; i <= nw; i++)
			if (wait[i] > now)
				early++
		nw = 0
		last = now
		have_last = 1
	}
	END {
		printf "%d %d %d %d %d %d", n["p"], n["s"], dup, late, early,
			late_untimed
	}' "$out")
case $dir in
ad6a637b) want_p=7 ;;
d9e0e666) want_p=11 ;;
*) want_p=? ;;
esac
if [ "$result" != "$want_p 5 0 0 0 0" ]; then
	echo "FAIL: ptdump: primary and secondary records, duplicates," \
		"printed after a packet that reached their time, printed" \
		"before their time, untimed ones after a timing packet:" \
		"$result (expected $want_p 5 0 0 0 0)"
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
