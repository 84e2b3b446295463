#!/bin/sh
# The corpus recording in the directory format of `perf record --threads`
# (tests/support/pz_compress --dir): "data" with the header, perf's own
# records and the features, the kernel's records and the trace in data.<n>
# files.  Three ways: two thread files; three, their sideband compressed
# as with -z; three with the trace left in "data".  ptdump --perf:sideband,
# ptdump --perf and ptxed --perf:images --perf:tasks on each AUX area must
# print what they print for the file as perf wrote it.  Where perf is
# installed, it must read the last directory to the same sideband records
# as the file (so the directories are perf's format, not only ptdecode's).
#
# usage: check-perf-dir.sh <pz_compress> <ptdump> <ptxed> <perf.data>
# Exit status 0, 1 on a difference, 77 if the file is absent.
set -u
pz=$1 ptdump=$2 ptxed=$3 file=$4
if [ ! -f "$file" ]; then
	echo "skipped: $file is absent"
	exit 77
fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
fail=0

# What the tools print for @1, into files @2.*, with @1 replaced by FILE.
run() {
	"$ptdump" --perf:sideband "$1" >"$2.sideband" 2>&1 || echo "status $?" >>"$2.sideband"
	"$ptdump" --perf "$1" >"$2.dump" 2>&1 || echo "status $?" >>"$2.dump"
	for idx in 0 3; do
		"$ptxed" --perf:images --perf:tasks --no-inst --perf "$1:$idx" \
			>"$2.ptxed$idx" 2>&1 || echo "status $?" >>"$2.ptxed$idx"
	done
	for part in sideband dump ptxed0 ptxed3; do
		sed "s|$1|FILE|g" "$2.$part" >"$2.$part.n"
	done
}

run "$file" "$out/orig"
n=0
for how in "--dir 2" "--dir 3 @ 100 0 0 1" "--dir-aux-in-data 3"; do
	n=$((n + 1))
	d="$out/d$n.data"
	opt=${how%% *}
	rest=${how#* }
	threads=${rest%% *}
	z=""
	case $rest in *@*) z=${rest#*@ } ;; esac
	# shellcheck disable=SC2086
	if ! "$pz" "$opt" "$threads" "$file" "$d" $z; then
		echo "FAIL: pz_compress $how"
		fail=1
		continue
	fi
	run "$d" "$out/d$n"
	for part in sideband dump ptxed0 ptxed3; do
		if ! cmp -s "$out/orig.$part.n" "$out/d$n.$part.n"; then
			echo "FAIL: directory ($how): $part differs:"
			diff "$out/orig.$part.n" "$out/d$n.$part.n" | head -20
			fail=1
		fi
	done
	echo "ok: directory ($how): $(ls "$d" | tr '\n' ' ')- the tools' output unchanged"
done
if command -v perf >/dev/null 2>&1; then
	for f in "$file" "$out/d3.data"; do
		perf report -D -i "$f" 2>/dev/null |
			grep -E 'PERF_RECORD_(MMAP|COMM|SWITCH|FORK|EXIT|ITRACE|AUX )' |
			sed 's/^.*\]: //' | sort >"$out/$(basename "$f").perf"
	done
	if [ ! -s "$out/d3.data.perf" ] ||
		! cmp -s "$out/$(basename "$file").perf" "$out/d3.data.perf"; then
		echo "FAIL: perf reads the directory otherwise"
		fail=1
	else
		echo "ok: perf report -D reads the same $(wc -l <"$out/d3.data.perf") sideband records from the directory"
	fi
fi
exit $fail
