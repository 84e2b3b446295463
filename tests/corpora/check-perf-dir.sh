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
# shellcheck source=perf-outputs.sh
. "$(dirname "$0")/perf-outputs.sh"
perf_start "$@"
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
	perf_outputs "$d" "$out/d$n"
	same=1
	perf_outputs_differ "$out/orig" "$out/d$n" "directory ($how)" || {
		fail=1
		same=0
	}
	[ $same -eq 1 ] && echo "ok: directory ($how): $(ls "$d" | tr '\n' ' ')- the tools' output unchanged"
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
