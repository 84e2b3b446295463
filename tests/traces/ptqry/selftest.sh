#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Self-test of the query-expectation driver:
#
#   selftest.sh <ptqry> <ptasm> <workdir>
#
# --help prints a usage text; bad command lines exit with 2; a script line
# that names no call exits with 2 and names the line; a missing trace exits
# with 1; --libipt with --no-libipt exits with 77 at once; --auto on a
# small trace prints a sync line first and "sync error eos" last; --steps
# and --batch print the same.
set -u

fail() {
	echo "FAIL: $*"
	exit 1
}

[ $# -eq 3 ] || { echo "usage: $0 <ptqry> <ptasm> <workdir>" >&2; exit 2; }
ptqry=$1
ptasm=$2
work=$3/ptqry-selftest
rm -rf "$work"
mkdir -p "$work" || exit 1

text=$("$ptqry" --help) || fail "ptqry --help exited with $?"
case $text in
*usage:*--script*) ;;
*) fail "ptqry --help printed no usage text: $text" ;;
esac

for args in "" "--bogus x.pt" "--script" "--auto" "--script s --auto x.pt" \
	"--auto a.pt b.pt" "--cpu 6/x --auto x.pt" "--mtc-freq 99 --auto x.pt" \
	"--steps --batch x.pt" "--libipt --batch x.pt"; do
	# shellcheck disable=SC2086
	"$ptqry" $args > /dev/null 2>&1
	status=$?
	[ "$status" -eq 2 ] || fail "ptqry $args exited with $status, not 2"
done

"$ptqry" --auto "$work/missing.pt" > /dev/null 2>&1
status=$?
[ "$status" -eq 1 ] || fail "ptqry on a missing trace exited with $status"

cat > "$work/t.pta" <<'PTA'
p0: psb
p1: fup 3: 0x1000
p2: psbend
p3: tnt 1
p4: tip.pgd
PTA
"$ptasm" -q -o "$work/t" "$work/t.pta" || fail "ptasm exited with $?"

printf 'sync\ncond\nbogus call\n' > "$work/bad.exp"
"$ptqry" --script "$work/bad.exp" "$work/t.pt" > "$work/bad.out" \
	2> "$work/bad.err"
status=$?
[ "$status" -eq 2 ] || fail "an unknown call exited with $status, not 2"
grep -q "bad.exp:3: unknown call 'bogus'" "$work/bad.err" ||
	fail "no message for the unknown call: $(cat "$work/bad.err")"

"$ptqry" --libipt --no-libipt --auto "$work/t.pt" > /dev/null 2>&1
status=$?
[ "$status" -eq 77 ] || fail "--libipt --no-libipt exited with $status"

"$ptqry" --auto "$work/t.pt" > "$work/auto.out" || fail "--auto exited with $?"
head -n 1 "$work/auto.out" | grep -q '^sync 0000000000000000 ip 0000000000001000' ||
	fail "--auto: first line: $(head -n 1 "$work/auto.out")"
[ "$(tail -n 1 "$work/auto.out")" = "sync error eos" ] ||
	fail "--auto: last line: $(tail -n 1 "$work/auto.out")"

"$ptqry" --steps "$work/t.pt" > "$work/steps.out" || fail "--steps: $?"
"$ptqry" --batch "$work/t.pt" > "$work/batch.out" || fail "--batch: $?"
[ "$(head -n 1 "$work/steps.out")" = "sync ip 0000000000001000" ] ||
	fail "--steps: first line: $(head -n 1 "$work/steps.out")"
cmp -s "$work/steps.out" "$work/batch.out" ||
	fail "--steps and --batch differ: $(diff "$work/steps.out" "$work/batch.out")"
exit 0
