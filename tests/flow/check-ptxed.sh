#!/bin/sh
# ptxed on a generated code + trace pair (flow_write): the instructions it
# prints are the generator's ground truth with both decoders; --elf (ELF64,
# ELF32, relocated with :<base>) gives the same listing as --raw; the line
# formats of --offset, --time, --raw-insn and --block:show-blocks; the
# statistics; and the exit status of bad command lines.
#
# usage: check-ptxed.sh <ptxed> <flow_write> <seed> <work-dir>
set -u
ptxed=$1 write=$2 seed=$3 dir=$4
fail=0

rm -rf "$dir" && mkdir -p "$dir" || exit 1
"$write" "$seed" 3000 "$dir" || exit 1
base=$(cat "$dir/base.txt")
raw="--raw $dir/code.bin:$base"
pt="--pt $dir/trace.pt"

check() { # <what> <expected file> <actual file>
	if ! cmp -s "$2" "$3"; then
		echo "FAIL: $1"
		diff "$2" "$3" | head -10
		fail=1
	fi
}

# The instructions against the ground truth.
for dec in --insn-decoder --block-decoder; do
	$ptxed $dec --no-inst $raw $pt >"$dir/out" 2>"$dir/err" ||
		{ echo "FAIL: $dec: exit status $?"; cat "$dir/err"; fail=1; }
	grep -v '^\[' "$dir/out" >"$dir/insns"
	check "$dec: instructions differ from the ground truth" \
		"$dir/truth.txt" "$dir/insns"
	if grep -q 'error' "$dir/out"; then
		echo "FAIL: $dec: errors on a valid trace"
		grep 'error' "$dir/out" | head -5
		fail=1
	fi
done

# ELF files give the listing --raw gives.
$ptxed --insn-decoder $raw $pt >"$dir/raw.txt"
$ptxed --insn-decoder --elf "$dir/code64.elf" $pt >"$dir/elf64.txt"
check "--elf (ELF64) differs from --raw" "$dir/raw.txt" "$dir/elf64.txt"
$ptxed --insn-decoder --elf "$dir/pic64.elf:$base" $pt >"$dir/pic.txt"
check "--elf <file>:<base> differs from --raw" "$dir/raw.txt" "$dir/pic.txt"
# As libipt's ptxed: a --raw range past the end of the file is cut there,
# and --elf <file>:0 is no relocation.
$ptxed --insn-decoder --raw "$dir/code.bin:0-0x10000000:$base" $pt \
	>"$dir/rawcut.txt"
check "--raw with a range past the end differs from --raw" "$dir/raw.txt" \
	"$dir/rawcut.txt"
$ptxed --insn-decoder --elf "$dir/code64.elf:0" $pt >"$dir/elf0.txt"
check "--elf <file>:0 differs from --raw" "$dir/raw.txt" "$dir/elf0.txt"
if [ -f "$dir/code32.elf" ]; then
	$ptxed --insn-decoder --elf "$dir/code32.elf" $pt >"$dir/elf32.txt"
	check "--elf (ELF32) differs from --raw" "$dir/raw.txt" "$dir/elf32.txt"
fi

# The trace from standard input or a pipe (read to the end, no seeking):
# the same listing.
$ptxed --insn-decoder $raw --pt - <"$dir/trace.pt" >"$dir/stdin.txt"
check "--pt - (standard input) differs from --pt <file>" "$dir/raw.txt" \
	"$dir/stdin.txt"
cat "$dir/trace.pt" | $ptxed --insn-decoder $raw --pt /dev/stdin \
	>"$dir/pipe.txt"
check "--pt /dev/stdin (a pipe) differs from --pt <file>" "$dir/raw.txt" \
	"$dir/pipe.txt"
# ... and a range of it: what the same range of the file gives.
n=$(wc -c <"$dir/trace.pt")
half=$((n / 2))
$ptxed --insn-decoder $raw --pt "$dir/trace.pt:0-$half" >"$dir/file-half.txt"
$ptxed --insn-decoder $raw --pt "-:0-$half" <"$dir/trace.pt" \
	>"$dir/stdin-half.txt"
check "--pt -:0-<n> differs from --pt <file>:0-<n>" "$dir/file-half.txt" \
	"$dir/stdin-half.txt"
$ptxed --insn-decoder $raw --pt "$dir/trace.pt:$half" >"$dir/file-tail.txt"
$ptxed --insn-decoder $raw --pt "-:$half" <"$dir/trace.pt" >"$dir/stdin-tail.txt"
check "--pt -:<from> differs from --pt <file>:<from>" "$dir/file-tail.txt" \
	"$dir/stdin-tail.txt"
if [ ! -s "$dir/stdin-tail.txt" ] || [ ! -s "$dir/stdin-half.txt" ] ||
	cmp -s "$dir/raw.txt" "$dir/stdin-half.txt" ||
	cmp -s "$dir/raw.txt" "$dir/stdin-tail.txt"; then
	echo "FAIL: --pt with a range of standard input: nothing, or the whole"
	fail=1
fi

# The block decoder prints the same listing, plus [block] lines.
$ptxed --block:show-blocks $raw $pt >"$dir/blk.txt"
grep -v '^\[block\]$' "$dir/blk.txt" >"$dir/blk-noblocks.txt"
check "block and instruction listings differ" "$dir/raw.txt" \
	"$dir/blk-noblocks.txt"
grep -q '^\[block\]$' "$dir/blk.txt" || { echo "FAIL: no [block]"; fail=1; }

# Line formats.
n=$(wc -l <"$dir/truth.txt")
$ptxed --insn-decoder --offset --time --raw-insn $raw $pt |
	grep -v '^\[' >"$dir/fmt.txt"
if grep -qv '^[0-9a-f]\{16\}  [0-9a-f]\{16\}  [0-9a-f]\{16\}\( [0-9a-f][0-9a-f]\)\{1,15\} *  [a-z]' "$dir/fmt.txt"; then
	echo "FAIL: --offset --time --raw-insn line format"
	grep -v '^[0-9a-f]\{16\}  [0-9a-f]\{16\}  [0-9a-f]\{16\}' "$dir/fmt.txt" | head -3
	fail=1
fi
stat=$($ptxed --quiet --stat $raw $pt)
echo "$stat" | grep -qx "insn: $n\." ||
	{ echo "FAIL: --stat: '$stat', expected $n instructions"; fail=1; }
echo "$stat" | grep -q "^blocks:	[0-9]*\.$" ||
	{ echo "FAIL: --stat: no block count"; fail=1; }
stat=$($ptxed --insn-decoder --quiet --stat:insn $raw $pt)
[ "$stat" = "insn: $n." ] ||
	{ echo "FAIL: --stat:insn: '$stat'"; fail=1; }

# Exit status (libipt's): 0 for --help/--version, 1 for bad command lines.
expect_status() { # <status> <args>...
	want=$1
	shift
	$ptxed "$@" >/dev/null 2>&1
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: ptxed $*: exit status $got, expected $want"
		fail=1
	fi
}
expect_status 0 --help
expect_status 0 --version
expect_status 1 --no-such-option $raw $pt
expect_status 1 $raw
expect_status 1 $raw --pt "$dir/no-such-file"
expect_status 1 $raw $pt --cpu 6/85
expect_status 1 $raw $pt --insn-decoder
expect_status 1 $raw $pt $pt
expect_status 1 --raw "$dir/code.bin" $pt
expect_status 1 --elf "$dir/trace.pt" $pt
expect_status 1 --page-dump "$dir/code.bin" $pt
expect_status 1 --mtc-freq 256 $raw $pt
expect_status 1 --filter:addr0_cfg 16 $raw $pt
expect_status 0 --time-libipt $raw $pt
# Numbers as libipt's ptxed reads them (strtoull(): -1 is the largest).
expect_status 0 --filter:addr0_cfg 1 --filter:addr0_a 0 --filter:addr0_b -1 \
	$raw $pt
expect_status 1 $raw $pt --time-libipt
expect_status 0 --cpu 6/85 --mtc-freq 3 --nom-freq 12 --cpuid-0x15.eax 2 \
	--cpuid-0x15.ebx 100 --filter:addr0_cfg 1 --filter:addr0_a 0 \
	--filter:addr0_b 0xffffffffffff $raw $pt

# Input with nothing to decode: an empty file is refused (status 1, the
# file named); a file without a PSB decodes to nothing (status 0, as
# libipt's ptxed) with a warning that says so.
expect_stderr() { # <status> <regex> <args>...
	want=$1 re=$2
	shift 2
	$ptxed "$@" >"$dir/out" 2>"$dir/err"
	got=$?
	if [ "$got" -ne "$want" ] || ! grep -Eq -- "$re" "$dir/err"; then
		echo "FAIL: ptxed $*: status $got (expected $want), error output:"
		cat "$dir/err"
		fail=1
	fi
}
expect_stderr 0 "warning: --mtc-freq 16 is no MTCFreq" --mtc-freq 16 $raw $pt
# A section beyond the end of the address space is cut there, with a
# warning (addresses do not wrap).
expect_stderr 0 "code\.bin at 0xffffffffffffff00: 0x[0-9a-f]+ bytes extend beyond the end of the address space; cut there" \
	--verbose --raw "$dir/code.bin:0xffffffffffffff00" $pt
if ! grep -q "at 0xffffffffffffff00-0x10000000000000000, isid" "$dir/out"; then
	echo "FAIL: the cut section's verbose line:"
	head -2 "$dir/out"
	fail=1
fi
# --cpu: ptdump's messages (libipt's ptxed says "cpu must be specified as
# f/m[/s]" for all of these).
expect_stderr 1 "--cpu: bad processor: 999/999 \(expected none or family/model" \
	--cpu 999/999 $raw $pt
expect_stderr 1 "--cpu auto is not supported" --cpu auto $raw $pt
expect_stderr 1 "--cpu: missing argument" --cpu --pt "$dir/trace.pt"
# Bad ranges: libipt's message, and why.
expect_stderr 1 "bad file .*trace\.pt:10-5: invalid argument \(the range's end, 0x5, must lie after its start, 0xa\)" \
	$raw --pt "$dir/trace.pt:10-5"
expect_stderr 1 "bad offset 0x10000000 into .*trace\.pt: the file has 0x[0-9a-f]+ bytes" \
	$raw --pt "$dir/trace.pt:0x10000000"
expect_stderr 1 "bad range 0x10000000 in .*trace\.pt: the file has 0x[0-9a-f]+ bytes" \
	$raw --pt "$dir/trace.pt:0-0x10000000"
: >"$dir/empty.pt"
expect_stderr 1 "bad range in .*empty\.pt: the file is empty" \
	--raw "$dir/empty.pt:$base" $pt
expect_stderr 0 "warning: --page-dump .*empty\.pt:.*code\.bin: the address file maps no page: nothing loaded" \
	--page-dump "$dir/empty.pt:$dir/code.bin" $pt
head -c 300 "$dir/code.bin" >"$dir/no-psb.pt"
# libipt's sideband options (their output: tests/traces/sbx-*.pta): ptxed
# has no plain --pevent (ptdump's spelling), loads files as it sees them.
expect_stderr 1 "unknown option: --pevent\." --pevent "$dir/code.bin" $raw $pt
expect_stderr 1 "--pevent:primary: missing argument" $raw $pt --pevent:primary
expect_stderr 1 "--pevent:kcore: missing argument" $raw $pt --pevent:kcore
expect_stderr 1 "error loading $dir/no-such\.pevent: bad file" $raw $pt \
	--pevent:secondary "$dir/no-such.pevent"
expect_stderr 1 "not an ELF file" $raw $pt --pevent:kcore "$dir/code.bin"
expect_stderr 1 "--pevent:sample-type: bad argument: x" $raw $pt \
	--pevent:sample-type x
expect_stderr 1 "--pevent files go with --pt" \
	--pevent:primary "$dir/code.bin" --perf "$dir/code.bin"
# A file of zero bytes has no records: decoding as without it.
$ptxed --insn-decoder $raw $pt --sb --pevent:primary "$dir/empty.pt" \
	>"$dir/out" 2>&1
cmp -s "$dir/out" "$dir/raw.txt" || {
	echo "FAIL: ptxed with an empty sideband file differs from without"
	fail=1
}
expect_stderr 1 "empty\.pt is empty" $raw --pt "$dir/empty.pt"
expect_stderr 0 "warning: no PSB packet in the trace" $raw --pt "$dir/no-psb.pt"
expect_stderr 0 "warning: no PSB packet in the trace" --block-decoder $raw \
	--pt "$dir/no-psb.pt"
if [ -s "$dir/out" ]; then
	echo "FAIL: ptxed printed something for a trace without a PSB:"
	head -5 "$dir/out"
	fail=1
fi
# An ELF file cut short: its segment is cut at the end of the file, with a
# warning, and ptxed decodes on (status 0), as libipt's does.
size=$(wc -c <"$dir/code64.elf")
head -c $((size - 16)) "$dir/code64.elf" >"$dir/cut.elf"
expect_stderr 0 "warning: .*cut\.elf: segment .* extends beyond the end of the file; cut there" \
	--elf "$dir/cut.elf" $pt
# A trace with PSBs has no such warning.
$ptxed $raw $pt >/dev/null 2>"$dir/err"
if grep -q "no PSB" "$dir/err"; then
	echo "FAIL: ptxed warned about a missing PSB on a trace with PSBs"
	fail=1
fi

[ $fail -eq 0 ] && echo "ptxed seed $seed: $n instructions, all checks passed"
exit $fail
