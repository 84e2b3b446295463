#!/bin/sh
# ptdump --perf:aux <idx> on the corpus perf.data file must print exactly
# what ptdump prints for the AUX area's trace extracted beside it
# (<file>.auxtrace-idx<N>-cpu<C>.bin) with the configuration given on the
# command line: plain and with --time.
#
# usage: check-perf-ptdump.sh <ptdump> <perf.data> <cpu f/m/s> <mtc-freq>
#                             <nom-freq> <eax> <ebx> <idx>-<cpu>...
# Exit status 0, 1 on a difference, 77 if the file is absent.
set -u
ptdump=$1 file=$2 cpu=$3 mtc=$4 nom=$5 eax=$6 ebx=$7
shift 7
if [ ! -f "$file" ]; then
	echo "skipped: $file is absent"
	exit 77
fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
fail=0
for area in "$@"; do
	idx=${area%-*} c=${area#*-}
	bin="$file.auxtrace-idx$idx-cpu$c.bin"
	for opt in "" --time; do
		"$ptdump" $opt --perf:aux "$idx" "$file" >"$out/a" 2>"$out/ae"
		sa=$?
		"$ptdump" $opt --cpu "$cpu" --mtc-freq "$mtc" --nom-freq "$nom" \
			--cpuid-0x15.eax "$eax" --cpuid-0x15.ebx "$ebx" \
			"$bin" >"$out/b" 2>"$out/be"
		sb=$?
		if [ "$sa" -ne "$sb" ] || ! cmp -s "$out/a" "$out/b" ||
			! cmp -s "$out/ae" "$out/be"; then
			echo "FAIL: AUX area $idx ${opt:-plain}: status $sa/$sb"
			diff "$out/a" "$out/b" | head -n 10
			diff "$out/ae" "$out/be" | head -n 10
			fail=1
		else
			echo "ok: AUX area $idx ${opt:-plain}: $(wc -l <"$out/a") lines"
		fi
	done
done
exit $fail
