#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Self-tests of the ptasm tool itself:
#
#   ptasm-selftest.sh <ptasm> help
#       --help and -h exit 0 and print a usage text.
#   ptasm-selftest.sh <ptasm> version
#       --version exits 0 and names ptasm.
#   ptasm-selftest.sh <ptasm> usage
#       bad command lines exit 2 with a message.
#   ptasm-selftest.sh <ptasm> error <file>.pta <workdir>
#       <file>.pta must be rejected: ptasm exits 1, writes no files and
#       reports "<file>.pta:<line>: error: <text>" for every line
#       "; want-error: <line>: <text>" of the file.
#   ptasm-selftest.sh <ptasm> args <file>.pta <workdir>
#       the <file>-<tool>.args files ptasm writes hold, one per line, the
#       words of every "; want-args(<tool>): <words>" line of the file, with
#       <prefix> for the output prefix.
#   ptasm-selftest.sh <ptasm> bytes <file>.pta <file>.hex <workdir>
#       <file>.pta compiles to exactly the bytes listed in <file>.hex
#       (hex numbers separated by blanks; '#' starts a comment).
# Files with x86 code are skipped (exit status 77) when nasm is missing.
set -u

fail() {
	echo "FAIL: $*"
	exit 1
}

[ $# -ge 2 ] || { echo "usage: $0 <ptasm> <mode> [<args>]" >&2; exit 2; }
ptasm=$1
mode=$2
shift 2

# Files with x86 code (an org line) need nasm.
need_nasm() {
	if grep -q '^[[:space:]]*org[[:space:]]' "$1" &&
		! command -v nasm > /dev/null 2>&1; then
		echo "SKIP: $1 contains x86 code and nasm is not installed" \
			"(sh scripts/deps.sh)"
		exit 77
	fi
}

case $mode in
help)
	for opt in --help -h; do
		text=$("$ptasm" "$opt") || fail "ptasm $opt exited with $?"
		case $text in
		*usage:*ptasm*) ;;
		*) fail "ptasm $opt printed no usage text: $text" ;;
		esac
	done
	;;

version)
	text=$("$ptasm" --version) || fail "ptasm --version exited with $?"
	case $text in
	ptasm-[0-9]*) ;;
	*) fail "ptasm --version printed: $text" ;;
	esac
	;;

usage)
	for args in "" "--no-such-option x.pta" "-o" "a.pta b.pta"; do
		# shellcheck disable=SC2086
		"$ptasm" $args > /dev/null 2>&1
		status=$?
		[ "$status" -eq 2 ] ||
			fail "ptasm $args exited with $status, not 2"
	done
	"$ptasm" /nonexistent/file.pta > /dev/null 2>&1
	status=$?
	[ "$status" -eq 1 ] ||
		fail "ptasm on a missing file exited with $status, not 1"
	;;

error)
	[ $# -eq 2 ] || fail "error: expected <file>.pta <workdir>"
	pta=$1
	work=$2
	need_nasm "$pta"
	name=$(basename "$pta" .pta)
	# Each test works in a folder of its own: tests run in parallel, and
	# one test's name can be the prefix of another's.
	work="$work/$name.d"
	mkdir -p "$work" || exit 1
	rm -f "$work/$name".* "$work/$name"-*
	"$ptasm" -o "$work/$name" "$pta" > "$work/$name.stdout" \
		2> "$work/$name.stderr"
	status=$?
	echo "ptasm's messages:"
	cat "$work/$name.stderr"
	[ "$status" -eq 1 ] || fail "ptasm exited with $status, not 1"
	[ ! -e "$work/$name.pt" ] || fail "ptasm left $work/$name.pt behind"
	[ -s "$work/$name.stderr" ] || fail "ptasm printed no error"
	wants=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"; want-error: "*) ;;
		*) continue ;;
		esac
		want=${line#"; want-error: "}
		num=${want%%:*}
		text=${want#*: }
		wants=$((wants + 1))
		grep -F -q -- "$pta:$num: error: $text" "$work/$name.stderr" ||
			fail "missing error '$pta:$num: error: $text'"
	done < "$pta"
	[ "$wants" -gt 0 ] || fail "$pta has no '; want-error:' line"
	count=$(grep -c ': error: ' "$work/$name.stderr")
	[ "$count" -eq "$wants" ] ||
		fail "ptasm reported $count errors, the test wants $wants"
	;;

bytes)
	[ $# -eq 3 ] || fail "bytes: expected <file>.pta <file>.hex <workdir>"
	pta=$1
	hex=$2
	work=$3
	need_nasm "$pta"
	name=$(basename "$pta" .pta)
	mkdir -p "$work" || exit 1
	"$ptasm" -q -o "$work/$name" "$pta" || fail "ptasm exited with $?"
	sed -e 's/#.*//' "$hex" | tr -s ' \t\n' '\n\n\n' | sed -e '/^$/d' \
		> "$work/$name.want"
	od -An -v -tx1 "$work/$name.pt" | tr -s ' \t\n' '\n\n\n' |
		sed -e '/^$/d' > "$work/$name.got"
	diff -u "$work/$name.want" "$work/$name.got" ||
		fail "the trace bytes differ (- expected, + actual)"
	;;

args)
	[ $# -eq 2 ] || fail "args: expected <file>.pta <workdir>"
	pta=$1
	work=$2
	need_nasm "$pta"
	name=$(basename "$pta" .pta)
	work="$work/$name.d"
	mkdir -p "$work" || exit 1
	rm -f "$work/$name".* "$work/$name"-*
	"$ptasm" -q -o "$work/$name" "$pta" || fail "ptasm exited with $?"
	wants=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"; want-args("*"): "*) ;;
		*) continue ;;
		esac
		want=${line#"; want-args("}
		tool=${want%%)*}
		want=${want#*): }
		wants=$((wants + 1))
		[ -f "$work/$name-$tool.args" ] ||
			fail "ptasm wrote no $name-$tool.args"
		got=$(sed -e "s|^$work/$name|<prefix>|" \
			"$work/$name-$tool.args" | tr '\n' ' ' | sed -e 's/ $//')
		[ "$got" = "$want" ] ||
			fail "$tool: arguments '$got', the test wants '$want'"
	done < "$pta"
	[ "$wants" -gt 0 ] || fail "$pta has no '; want-args(<tool>):' line"
	;;

*)
	echo "$0: unknown mode $mode" >&2
	exit 2
	;;
esac
exit 0
