#!/bin/sh
# Trace in samples (perf record --aux-sample): recordings written by
# tests/support/pz_compress --aux-sample, three samples of 378 bytes of
# PSB periods cut [0, 200), [100, 340), [270, 378), in the sample layouts
# 1 (what perf --aux-sample sets), 2 (every field perf 6.1 reads) and 3
# (with Linux 6.8's branch counters).  ptdump --perf must dump the one
# stream of 382 bytes (378 and the last sample's padding, 170 repeated
# bytes left out) with the samples warning; with the first sample's AUX size
# 4096 too large, ptdump must fail on that record.  Where perf is installed,
# perf script -D must read layouts 1 and 2 and fail on their bad variants
# ("Can't parse sample"): it reads the AUX size where ptdecode does.
#
# usage: check-perf-aux-sample.sh <pz_compress> <ptdump> <work-dir>
set -u
pz=$1 ptdump=$2 dir=$3
fail=0
rm -rf "$dir" && mkdir -p "$dir" || exit 1

for layout in 1 2 3; do
	f="$dir/s$layout.data"
	"$pz" --aux-sample $layout "$f" && "$pz" --aux-sample $layout "$f.bad" bad || exit 1
	"$ptdump" --perf "$f" >"$dir/out" 2>"$dir/err"
	st=$?
	if [ $st -ne 0 ] ||
		! head -1 "$dir/out" | grep -q '^# AUX area 4 (cpu 4, tid 3174): 382 bytes in 3 buffers (170 repeated bytes left out, 0 gaps)$' ||
		! grep -q 'holds its trace in 3 samples' "$dir/err" ||
		[ "$(grep -c ' psb$' "$dir/out")" -ne 9 ]; then
		echo "FAIL: layout $layout (status $st):"
		head -3 "$dir/out"
		cat "$dir/err"
		fail=1
	else
		echo "ok: layout $layout: $(head -1 "$dir/out")"
	fi
	"$ptdump" --perf "$f.bad" >/dev/null 2>"$dir/err"
	st=$?
	if [ $st -eq 0 ] || ! grep -q 'SAMPLE record of .* ends inside its AUX field' "$dir/err"; then
		echo "FAIL: layout $layout, AUX size too large (status $st):"
		cat "$dir/err"
		fail=1
	else
		echo "ok: layout $layout, AUX size too large: $(cat "$dir/err")"
	fi
	[ $layout -eq 3 ] && continue
	command -v perf >/dev/null 2>&1 || continue
	if perf script -D -i "$f" 2>&1 | grep -q "Can't parse sample" ||
		[ "$(perf script -D -i "$f" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(')" -ne 3 ] ||
		! perf script -D -i "$f.bad" 2>&1 | grep -q "Can't parse sample"; then
		echo "FAIL: perf reads layout $layout otherwise"
		fail=1
	else
		echo "ok: perf script -D reads layout $layout's 3 samples and fails on the AUX size too large"
	fi
done
exit $fail
