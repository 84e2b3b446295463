#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Run one ptasm trace test:
#
#   run-trace-test.sh <ptasm> <ptdump> <file>.pta <workdir>
#
# Compiles <file>.pta with ptasm into <workdir>, runs ptdump with the
# arguments ptasm wrote (the "; opt:", "; cpu:" and "; range:" lines of the
# test), and compares ptdump's output with the "expect ptdump" block,
# ignoring changes in the amount of white space.  ptdump must exit with
# status 0.  Prints the difference and exits non-zero on failure.
set -u

if [ $# -ne 4 ]; then
	echo "usage: $0 <ptasm> <ptdump> <file>.pta <workdir>" >&2
	exit 2
fi

ptasm=$1
ptdump=$2
pta=$3
work=$4

name=$(basename "$pta" .pta)
out=$work/$name

mkdir -p "$work" || exit 1
rm -f "$out.pt" "$out-ptdump.exp" "$out-ptdump.args" "$out-ptdump.out" \
	"$out-ptdump.err" "$out-ptdump.diff"

if ! "$ptasm" -q -o "$out" "$pta"; then
	echo "FAIL: ptasm could not compile $pta"
	exit 1
fi
if [ ! -f "$out-ptdump.exp" ]; then
	echo "FAIL: $pta has no 'expect ptdump' block"
	exit 1
fi

# The arguments, one per line; the last one is the trace file.
set --
while IFS= read -r arg || [ -n "$arg" ]; do
	set -- "$@" "$arg"
done < "$out-ptdump.args"

"$ptdump" "$@" > "$out-ptdump.out" 2> "$out-ptdump.err"
status=$?

fail=0
if ! diff -u -b "$out-ptdump.exp" "$out-ptdump.out" > "$out-ptdump.diff"; then
	echo "FAIL: the output of ptdump differs from the expectation" \
		"(- expected, + actual):"
	cat "$out-ptdump.diff"
	fail=1
fi
if [ "$status" -ne 0 ]; then
	echo "FAIL: ptdump exited with status $status"
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	if [ -s "$out-ptdump.err" ]; then
		echo "ptdump's standard error:"
		cat "$out-ptdump.err"
	fi
	echo "command: $ptdump $*"
	exit 1
fi
exit 0
