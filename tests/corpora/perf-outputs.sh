# Sourced by check-perf-zstd.sh and check-perf-dir.sh: what the tools print
# for a perf.data file of the corpus recording, to compare the file as perf
# wrote it with the same recording written otherwise.

# perf_start <pz_compress> <ptdump> <ptxed> <perf.data>: set $pz, $ptdump,
# $ptxed, $file, $fail (0) and $out (a folder removed at exit), or exit 77
# if the file is absent; then the tools' outputs for the file as perf wrote
# it, into $out/orig.*.
perf_start() {
	pz=$1 ptdump=$2 ptxed=$3 file=$4
	if [ ! -f "$file" ]; then
		echo "skipped: $file is absent"
		exit 77
	fi
	out=$(mktemp -d) || exit 1
	trap 'rm -rf "$out"' EXIT
	fail=0
	perf_outputs "$file" "$out/orig"
}
#
# perf_outputs <file> <prefix>: ptdump --perf:sideband, ptdump --perf and
# ptxed --perf:images --perf:tasks on AUX areas 0 and 3, into
# <prefix>.sideband, .dump, .ptxed0 and .ptxed3 (a failure's status
# appended), and each with <file> replaced by FILE into <prefix>.<part>.n.
perf_outputs() {
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

# perf_outputs_differ <prefix a> <prefix b> <what>: 0 if all four outputs
# are the same, else 1 after printing the differences.
perf_outputs_differ() {
	differ=0
	for part in sideband dump ptxed0 ptxed3; do
		if ! cmp -s "$1.$part.n" "$2.$part.n"; then
			echo "FAIL: $3: $part differs:"
			diff "$1.$part.n" "$2.$part.n" | head -20
			differ=1
		fi
	done
	return $differ
}
