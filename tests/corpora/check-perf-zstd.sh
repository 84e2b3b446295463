#!/bin/sh
# The corpus recording with its sideband compressed as `perf record -z`
# does (tests/support/pz_compress), four ways: one zstd frame per run of
# records; frames of 100 bytes of records (records span compressed
# records); frames cut into compressed records of 7 bytes (blocks span
# them too); COMPRESSED2 records.  ptdump --perf:sideband, ptdump --perf
# and ptxed --perf:images --perf:tasks on each AUX area must print what
# they print for the file as perf wrote it.  Where perf is installed, it
# must read the first two as well, to the same sideband records (so the
# compressed files are perf's format, not only ptdecode's).
#
# usage: check-perf-zstd.sh <pz_compress> <ptdump> <ptxed> <perf.data>
# Exit status 0, 1 on a difference, 77 if the file is absent.
set -u
# shellcheck source=perf-outputs.sh
. "$(dirname "$0")/perf-outputs.sh"
perf_start "$@"
n=0
for how in "0 0 0 1 1" "100 0 0 3 1" "100 7 0 1 0" "64 0 1 1 0"; do
	n=$((n + 1))
	z="$out/z$n.data"
	# shellcheck disable=SC2086
	if ! "$pz" "$file" "$z" $how >"$out/pz"; then
		echo "FAIL: pz_compress $how"
		fail=1
		continue
	fi
	perf_outputs "$z" "$out/z$n"
	same=1
	perf_outputs_differ "$out/orig" "$out/z$n" "compressed ($how)" || {
		fail=1
		same=0
	}
	# Every record of the kernel's is compressed: the corpus file has 249
	# (224 of the kinds ptdecode reads, 10 AUX, 15 samples).
	case $(cat "$out/pz") in
	"249 records in "*) ;;
	*)
		echo "FAIL: compressed ($how): $(cat "$out/pz"), not 249 records"
		fail=1
		;;
	esac
	[ $same -eq 1 ] &&
		echo "ok: compressed ($how): $(cat "$out/pz"), the tools' output unchanged"
	case $how in *" 1") ;; *) continue ;; esac
	if command -v perf >/dev/null 2>&1; then
		# (Written in $out: the corpus may not be writable.)
		perf report -D -i "$file" 2>/dev/null |
			grep -E 'PERF_RECORD_(MMAP|COMM|SWITCH|FORK|EXIT|ITRACE|AUX )' |
			sed 's/^.*\]: //' >"$out/orig.perf"
		perf report -D -i "$z" 2>/dev/null |
			grep -E 'PERF_RECORD_(MMAP|COMM|SWITCH|FORK|EXIT|ITRACE|AUX )' |
			sed 's/^.*\]: //' >"$z.perf"
		if [ ! -s "$out/orig.perf" ] || ! cmp -s "$out/orig.perf" "$z.perf"; then
			echo "FAIL: perf reads compressed ($how) otherwise"
			diff "$out/orig.perf" "$z.perf" | head -10
			fail=1
		else
			echo "ok: perf report -D reads the same $(wc -l <"$z.perf") sideband records"
		fi
	fi
done
exit $fail
