#!/bin/sh
# ptdump --perf:sideband on the corpus perf.data file: the records the
# independent summary counts (56 MMAP, 10 MMAP2, 3 COMM, 152
# SWITCH_CPU_WIDE + 2 ITRACE_START, 1 EXIT), those without a time first
# (perf's synthesized kernel maps and first COMM: 57), the rest in time
# order; echo's exec at 641.256847598 s, after CPU 3's tracing started
# (641.256844131 s) and before CPU 0's (641.257926901 s).
#
# usage: check-perf-sideband.sh <ptdump> <perf.data>
# Exit status 0, 1 on a mismatch, 77 if the file is absent.
set -u
ptdump=$1 file=$2
if [ ! -f "$file" ]; then
	echo "skipped: $file is absent"
	exit 77
fi
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"$ptdump" --perf:sideband "$file" >"$out" || {
	echo "FAIL: exit status $?"
	exit 1
}
fail=0
counts=$(awk '{ n[$2]++ } END { printf "%d %d %d %d %d", n["mmap"], n["mmap2"], n["comm"], n["switch"], n["exit"] }' "$out")
if [ "$counts" != "56 10 3 154 1" ]; then
	echo "FAIL: mmap, mmap2, comm, switch, exit: $counts"
	fail=1
fi
# Untimed first, then times that do not go down.
order=$(awk 'BEGIN { u = 0; last = ""; bad = 0 }
	$1 == "-" { if (last != "") bad = 1; u++; next }
	{ if (last != "" && $1 < last) bad = 1; last = $1 }
	END { printf "%d %d", u, bad }' "$out")
if [ "$order" != "57 0" ]; then
	echo "FAIL: untimed records and order: $order"
	fail=1
fi
for re in \
	'^ *641\.256844131  switch cpu 3  start 3174/3174$' \
	'^ *641\.256847598  comm   3174/3174  echo  \(exec\)$' \
	'^ *641\.257926901  switch cpu 0  start 3174/3174$' \
	'^ *641\.256032286  switch cpu 0  out 0/0 -> 3174/3174$' \
	'^       641\.256847598  comm   3174/3174  echo  \(exec\)$' \
	'^                   -  comm   3174/3174  perf$'; do
	if ! grep -Eq -- "$re" "$out"; then
		echo "FAIL: no line matches '$re'"
		fail=1
	fi
done
[ $fail -eq 0 ] && echo "ok: $(wc -l <"$out") sideband records"
exit $fail
