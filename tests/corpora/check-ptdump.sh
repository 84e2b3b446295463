#!/bin/sh
# Run ptdump once and check its exit status and output.
#
# usage: check-ptdump.sh <ptdump> <workdir> <status> <stdout> <stderr> [<ptdump arguments>...]
#
#   <workdir>  directory to run in (the generated traces are there)
#   <status>   the expected exit status
#   <stdout>   a file with the exact expected output, re:<regex> for a line
#              that must match the extended regular expression <regex>,
#              none for no output at all, or - to not check
#   <stderr>   the same for the error output
set -u
ptdump=$1 workdir=$2 want_status=$3 want_out=$4 want_err=$5
shift 5

out=$(mktemp) && err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT

(cd "$workdir" && "$ptdump" "$@") >"$out" 2>"$err"
status=$?
fail=0

# check <name> <file with what ptdump printed> <expectation>
check() {
	case $3 in
	-) ;;
	none)
		if [ -s "$2" ]; then
			echo "FAIL: unexpected $1:"
			cat "$2"
			fail=1
		fi
		;;
	re:*)
		if ! grep -Eq -- "${3#re:}" "$2"; then
			echo "FAIL: no line of $1 matches '${3#re:}'; $1 was:"
			cat "$2"
			fail=1
		fi
		;;
	*)
		if ! diff -u "$3" "$2"; then
			echo "FAIL: $1 differs from $3 (- expected, + actual)"
			fail=1
		fi
		;;
	esac
}

if [ "$status" -ne "$want_status" ]; then
	echo "FAIL: ptdump $* exited with status $status, expected $want_status"
	fail=1
fi
check "output" "$out" "$want_out"
check "error output" "$err" "$want_err"

[ "$fail" -eq 0 ] && echo "ok: ptdump $* (status $status)"
exit $fail
