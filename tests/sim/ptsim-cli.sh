#!/bin/sh
# Command-line tests of ptsim and ptsim-accuracy.
#
# usage: ptsim-cli.sh <ptsim> <ptsim-accuracy> <sim_check> <workdir>
set -u
PTSIM=$1
ACCURACY=$2
CHECK=$3
WORK=$4
fail=0

mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1

# expect <status> <description> <command>...
expect() {
	want=$1
	what=$2
	shift 2
	"$@" >out.txt 2>err.txt
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $what: exit status $got, expected $want"
		sed 's/^/  stdout: /' out.txt
		sed 's/^/  stderr: /' err.txt
		fail=1
	else
		echo "ok   $what"
	fi
}

expect 0 "ptsim --help" "$PTSIM" --help
grep -q '^usage: ' out.txt || { echo "FAIL --help prints no usage"; fail=1; }
expect 0 "ptsim --version" "$PTSIM" --version
expect 0 "ptsim --list" "$PTSIM" --list
for s in steady freq dropmtc sparsecyc sleep vmx mtc0 mtc3 mtc9 nocyc mixed; do
	grep -q "^$s " out.txt || { echo "FAIL --list lacks $s"; fail=1; }
done
expect 0 "ptsim --params" "$PTSIM" --params --mtc_freq 9 steady
grep -q '^  mtc_freq  *9 ' out.txt || { echo "FAIL --params lacks mtc_freq 9"; fail=1; }
expect 2 "no scenario" "$PTSIM"
expect 2 "unknown scenario" "$PTSIM" no-such-scenario
expect 2 "unknown option" "$PTSIM" --no-such-option steady
expect 2 "unknown parameter" "$PTSIM" --set bogus=1 steady
expect 2 "value out of range" "$PTSIM" --set mtc_freq=16 steady
# A duration whose run would not fit memory (about 1.3 bytes a tick).
expect 2 "duration above 2^30" "$PTSIM" -o huge --duration 1073741825 steady
grep -q "duration: '1073741825' is not a number in \[1000, 1073741824\]" err.txt ||
	{ echo "FAIL the duration's bound is not said"; fail=1; }
expect 2 "not a number" "$PTSIM" --cbr fast steady
expect 1 "inconsistent parameters" "$PTSIM" --set gap_min=500 -o bad steady

# Files, determinism, and the self-checks on the files.
expect 0 "ptsim writes files" "$PTSIM" -q -o a --seed 7 --duration 300000 mixed
for ext in pt truth cfg; do
	[ -s "a.$ext" ] || { echo "FAIL a.$ext missing"; fail=1; }
done
grep -q '^mtc_freq 3$' a.cfg || { echo "FAIL a.cfg lacks mtc_freq"; fail=1; }
grep -q '^cpuid_0x15_ebx ' a.cfg || { echo "FAIL a.cfg lacks cpuid_0x15_ebx"; fail=1; }
expect 0 "same seed" "$PTSIM" -q -o b --seed 7 --duration 300000 mixed
expect 0 "other seed" "$PTSIM" -q -o c --seed 8 --duration 300000 mixed
for ext in pt truth; do
	cmp -s "a.$ext" "b.$ext" || { echo "FAIL same seed, different a.$ext"; fail=1; }
	cmp -s "a.$ext" "c.$ext" && { echo "FAIL other seed, same a.$ext"; fail=1; }
done
expect 0 "self-checks of the files" "$CHECK" --files a
expect 0 "vmx files" "$PTSIM" -q -o v --duration 300000 vmx
grep -q '^vmx_tsc_multiplier 0x1400000000000$' v.cfg || { echo "FAIL v.cfg lacks the multiplier"; fail=1; }
expect 0 "self-checks of the vmx files" "$CHECK" --files v

# A corrupted truth file is caught.
sed '20s/^\(0x[0-9a-f]* [a-z.0-9]*\) 0x\([0-9a-f]*\)/\1 0x1\2/' a.truth >d.truth
cp a.pt d.pt
cp a.cfg d.cfg
expect 1 "self-checks catch a wrong truth" "$CHECK" --files d

# The report on files, without libipt.
expect 0 "ptsim-accuracy --help" "$ACCURACY" --help
expect 2 "ptsim-accuracy bad option" "$ACCURACY" --bogus
expect 0 "ptsim-accuracy on files" "$ACCURACY" --no-libipt --check-truth --files a v
grep -q '^| mixed | ' out.txt || { echo "FAIL no table row for a"; fail=1; }

exit $fail
