#!/bin/sh
# The perf_summary example on the corpus recording: both CPUs' traces
# decode without an error, with the branch counts the query decoder finds
# (corpora.perf), over a span of perf time around the README's anchor
# (TSC 0xbc4cbefc32 is 641.256845844 s), and the turns of echo (3174) at
# the enable events: 1 on CPU 0, 9 on CPU 3.
#
# usage: check-perf-summary.sh <perf_summary> <perf.data>
# Exit status 0, 1 on a mismatch, 77 if the file is absent.
set -u
prog=$1 file=$2
if [ ! -f "$file" ]; then
	echo "skipped: $file is absent"
	exit 77
fi
out=$("$prog" "$file") || { echo "FAIL: exit status $?"; exit 1; }
echo "$out"
fail=0
for re in \
	': GenuineIntel,6,78,3, 149968 bytes of trace in 2 AUX areas$' \
	'^cpu 0: 12240 bytes, 47456 conditional and [0-9]+ indirect branches, [0-9]+ events, 0 errors, from 641\.[0-9]{9} s to 641\.[0-9]{9} s$' \
	'^cpu 3: 137728 bytes, 329792 conditional and [0-9]+ indirect branches, [0-9]+ events, 0 errors, from 641\.[0-9]{9} s to 641\.[0-9]{9} s$' \
	'^  echo \(3174\): 1 turn$' \
	'^  echo \(3174\): 9 turns$'; do
	if ! echo "$out" | grep -Eq -- "$re"; then
		echo "FAIL: no line matches '$re'"
		fail=1
	fi
done
exit $fail
