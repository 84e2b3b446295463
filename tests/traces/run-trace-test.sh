#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Run one tool's part of a ptasm trace test:
#
#   run-trace-test.sh <tool> <ptasm> <program> <file>.pta <workdir>
#
# Compiles <file>.pta with ptasm into <workdir>/<tool>/<file>/, runs <program> with
# the arguments ptasm wrote for <tool> (the "; opt:", "; cpu:" and
# "; range:" lines of the test), and compares its output with the
# "expect <tool>" block, ignoring changes in the amount of white space.
# Prints the difference and exits non-zero on failure.
#
#   ptdump  <program> is ptdump; it must exit with status 0.
#   query   <program> is ptqry; it makes the calls the expectation names on
#           ptdecode's query decoder, and then on libipt 2.0.5's
#           (ptqry --libipt), so that the expectation is confirmed to be
#           libipt's answer.  The results of ptd_qry_next_batch() on the
#           trace must be those of the pull API (ptqry --batch, --steps).  A test whose "; opt(query):" line says
#           --no-libipt differs on purpose and is not confirmed; neither is
#           any test when libipt.so.2 cannot be loaded.
#   events  <program> is ptqry; its --events output (ptdecode's event
#           decoder, pt_evt_*) is compared with the "expect events" block.
#           libipt 2.0.5 has no event decoder to confirm it with.
#   ptxed   <program> is "<ptxed>:<ptxed_ref>", where <ptxed> is "none"
#           while there is no ptxed.  The expectation is first confirmed
#           against libipt 2.0.5's instruction-flow decoder (ptxed_ref
#           --libipt, same arguments; "; opt(ptxed): --no-libipt" opts out
#           and is not passed to ptxed), then ptxed's output is compared,
#           also with --insn-decoder unless the test chooses a decoder;
#           without ptxed the test is skipped (exit status 77) after the
#           confirmation.
#   flow    <program> is ptxed_ref; the "expect ptxed" block is compared with
#           the flow of ptdecode's instruction-flow decoder (ptxed_ref
#           --ptdecode, the ptxed arguments), and the batch flow decoder
#           must give that flow (ptxed_ref --batch).
#
# Tests with x86 code (an "org" line) need nasm; without it they are
# skipped (exit status 77).
set -u

if [ $# -ne 5 ]; then
	echo "usage: $0 <tool> <ptasm> <program> <file>.pta <workdir>" >&2
	exit 2
fi

tool=$1
ptasm=$2
prog=$3
pta=$4
name=$(basename "$pta" .pta)
# One folder per test and tool: tests run in parallel, and one test's name
# can be the prefix of another's.
work=$5/$tool/$name
out=$work/$name

case $tool in
ptdump | query | events | ptxed | flow) ;;
*)
	echo "$0: unknown tool $tool" >&2
	exit 2
	;;
esac

if [ "$tool" = ptxed ]; then
	ref=${prog##*:}
	prog=${prog%:*}
fi
if grep -q '^[[:space:]]*org[[:space:]]' "$pta" &&
	! command -v nasm > /dev/null 2>&1; then
	echo "SKIP: $name.pta contains x86 code and nasm is not installed" \
		"(sh scripts/deps.sh)"
	exit 77
fi

rm -rf "$work"
mkdir -p "$work" || exit 1

if ! "$ptasm" -q -o "$out" "$pta"; then
	echo "FAIL: ptasm could not compile $pta"
	exit 1
fi
# The tools run in the output folder: ptasm names sideband files, and the
# code files that sideband maps, without their folder.
cd "$work" || exit 1
block=$tool
[ "$tool" = flow ] && block=ptxed
exp=$out-$block.exp
if [ ! -f "$exp" ]; then
	echo "FAIL: $pta has no 'expect $block' block"
	exit 1
fi

# The arguments, one per line.
set --
while IFS= read -r arg || [ -n "$arg" ]; do
	set -- "$@" "$arg"
done < "$out-$block.args"

# run <label> <output> <command>...: run the command, then compare its
# output with the expectation; prints what differs.  Returns 0 if equal, 1 if
# not, 77 if the command exited with 77.
run() {
	label=$1
	result=$2
	shift 2
	"$@" > "$result.out" 2> "$result.err"
	status=$?
	if [ "$status" -eq 77 ]; then
		cat "$result.out" "$result.err"
		return 77
	fi
	fail=0
	if ! diff -u -b "$exp" "$result.out" > "$result.diff"; then
		echo "FAIL: $label differs from the expectation" \
			"(- expected, + actual):"
		cat "$result.diff"
		fail=1
	fi
	if [ "$tool" != ptxed ] && [ "$tool" != flow ] &&
		[ "$status" -ne 0 ]; then
		echo "FAIL: $label: the program exited with status $status"
		fail=1
	fi
	if [ "$fail" -ne 0 ]; then
		if [ -s "$result.err" ]; then
			echo "its standard error:"
			cat "$result.err"
		fi
		echo "command: $*"
		return 1
	fi
	return 0
}

case $tool in
ptdump)
	run "the output of ptdump" "$out-ptdump" "$prog" "$@"
	exit $?
	;;
ptxed)
	run "libipt 2.0.5's instruction flow" "$out-ptxed-libipt" "$ref" \
		--libipt "$@"
	status=$?
	if [ "$status" -eq 77 ]; then
		echo "note: the expectation was not confirmed against libipt"
	elif [ "$status" -ne 0 ]; then
		echo "(the expectation must be libipt's answer where libipt" \
			"gives one; see docs/ptasm.md)"
		exit 1
	fi
	if [ "$prog" = none ] || [ ! -x "$prog" ]; then
		echo "SKIP: ptxed is not built yet; the flow expectation of" \
			"$name.pta is not checked against it"
		exit 77
	fi
	# --no-libipt is for ptxed_ref only.
	for arg in "$@"; do
		shift
		[ "$arg" = --no-libipt ] || set -- "$@" "$arg"
	done
	run "the output of ptxed" "$out-ptxed" "$prog" "$@" || exit 1
	# ptxed's default is the block decoder; without a choice in the test,
	# the instruction-flow decoder must print the same.
	case " $* " in
	*" --insn-decoder "* | *" --block-decoder "*) ;;
	*)
		run "the output of ptxed --insn-decoder" "$out-ptxed-insn" \
			"$prog" --insn-decoder "$@" || exit 1
		;;
	esac
	exit 0
	;;
flow)
	run "the flow of ptdecode's instruction-flow decoder" "$out-flow" \
		"$prog" --ptdecode "$@" || exit $?
	# The batch flow decoder must give the same flow.
	"$prog" --batch "$@" > "$out-flow-batch.out" 2>&1
	status=$?
	if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
		echo "FAIL: the batch flow decoder differs from pt_insn_next():"
		cat "$out-flow-batch.out"
		exit 1
	fi
	exit 0
	;;
events)
	# libipt 2.0.5 has no event decoder: ptdecode's alone.
	run "what ptdecode's event decoder returned" "$out-events" \
		"$prog" --events "$@"
	exit $?
	;;
query)
	run "what ptdecode's query decoder returned" "$out-query" \
		"$prog" --script "$exp" "$@" || exit 1
	# The batch interface must give the results of the pull API.
	"$prog" --steps "$@" > "$out-steps.out" 2>&1
	"$prog" --batch "$@" > "$out-batch.out" 2>&1
	if ! diff -u "$out-steps.out" "$out-batch.out" > "$out-batch.diff"; then
		echo "FAIL: ptd_qry_next_batch() differs from the pull API" \
			"(- pull, + batch):"
		cat "$out-batch.diff"
		exit 1
	fi
	run "what libipt 2.0.5's query decoder returned" "$out-query-libipt" \
		"$prog" --libipt --script "$exp" "$@"
	status=$?
	if [ "$status" -eq 77 ]; then
		echo "note: the expectation was not confirmed against libipt"
		exit 0
	fi
	[ "$status" -eq 0 ] || {
		echo "(the expectation must be libipt's answer where libipt" \
			"gives one; see docs/ptasm.md)"
		exit 1
	}
	exit 0
	;;
esac
