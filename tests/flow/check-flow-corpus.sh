#!/bin/sh
# Decode one libxdc corpus trace with ptxed and check the instruction count
# and the number of errors:
#
#   check-flow-corpus.sh <ptxed> <folder> <trace> <addr-file> <dump-file>
#                        <exact|min> <insns> <max-errors> <ptxed options>...
#
# The image is the folder's page dump (ptxed --page-dump), no errata, and
# ptxed resynchronizes at the next PSB after an error.  <exact>: the count
# must be <insns>; <min>: at least <insns> (the robustness cases, where
# libipt 2.0.5's count is the bar).  Errors are ptxed's "[<offset>, <ip>:
# ...error...]" lines.  Exits 77 (ctest: skipped) when the files are absent.
set -u
ptxed=$1 dir=$2 trace=$3 addr=$4 dump=$5 mode=$6 insns=$7 maxerr=$8
shift 8

for f in "$dir/$trace" "$dir/$addr" "$dir/$dump"; do
	if [ ! -f "$f" ]; then
		echo "SKIP: corpus file $f not found; the flow corpus tests" \
		     "need the corpora folder (CMake cache variable" \
		     "PTD_CORPORA_DIR)."
		exit 77
	fi
done

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

"$ptxed" "$@" --quiet --stat --page-dump "$dir/$addr:$dir/$dump" \
	--pt "$dir/$trace" >"$out"
status=$?
got=$(sed -n 's/^insn: \([0-9]*\)\.$/\1/p' "$out")
errors=$(grep -c '^\[.*error' "$out")

echo "$trace: $got instructions, $errors errors (exit status $status)"
grep '^\[.*error' "$out" | head -5

fail=0
if [ "$status" -ne 0 ]; then
	echo "FAIL: ptxed exited with status $status"
	fail=1
fi
if [ -z "$got" ]; then
	echo "FAIL: no instruction count in the output"
	exit 1
fi
case $mode in
exact)
	if [ "$got" -ne "$insns" ]; then
		echo "FAIL: expected $insns instructions"
		fail=1
	fi ;;
min)
	if [ "$got" -lt "$insns" ]; then
		echo "FAIL: expected at least $insns instructions"
		fail=1
	fi ;;
esac
if [ "$errors" -gt "$maxerr" ]; then
	echo "FAIL: expected at most $maxerr errors"
	fail=1
fi
exit $fail
