#!/bin/sh
# Dump one real hardware trace with ptdump and check the listing:
#   - ptdump exits with status 0;
#   - there is no diagnostic line ("[<offset>: ...]"): the corpus traces are
#     all valid Intel PT, and what precedes the first PSB (a foreign header,
#     say) is skipped by synchronization, not reported;
#   - the number of PSB packets is the expected one (- to skip the check);
#   - there are at least <min-packets> packet lines.
#
# usage: check-corpus.sh <ptdump> <trace> <psbs|-> <min-packets> [<ptdump options>...]
#
# Exits 77 (ctest: skipped) when the trace file is absent.
set -u
ptdump=$1 trace=$2 psbs=$3 min=$4
shift 4

if [ ! -f "$trace" ]; then
	echo "SKIP: corpus trace $trace not found; the real-trace tests need" \
	     "the corpora folder (CMake cache variable PTD_CORPORA_DIR)."
	exit 77
fi

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

"$ptdump" "$@" "$trace" >"$out"
status=$?
fail=0

if [ "$status" -ne 0 ]; then
	echo "FAIL: ptdump $* $trace exited with status $status"
	fail=1
fi

diags=$(grep -c '^\[' "$out")
if [ "$diags" -ne 0 ]; then
	echo "FAIL: $diags diagnostic line(s), first ones:"
	grep '^\[' "$out" | head -5
	fail=1
fi

packets=$(grep -vc '^\[' "$out")
if [ "$packets" -lt "$min" ]; then
	echo "FAIL: $packets packet lines, expected at least $min"
	fail=1
fi

found=$(grep -Ec '(^| )psb$' "$out")
if [ "$psbs" != "-" ] && [ "$found" -ne "$psbs" ]; then
	echo "FAIL: $found PSB packets, expected $psbs"
	fail=1
fi

opts="$*"
echo "ptdump ${opts:+$opts }$(basename "$trace"): status $status," \
     "$packets packets, $found PSBs, $diags diagnostics"
exit $fail
