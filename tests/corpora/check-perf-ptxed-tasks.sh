#!/bin/sh
# ptxed --perf:images --perf:tasks on the corpus perf.data file: the tasks
# the trace of each CPU runs, by the file's context switches and the
# trace's enable events.  perf traced echo (pid 3174), which started as
# perf's child and exec'd echo while CPU 3 traced it: CPU 3's trace starts
# in "perf" and goes on in "echo"; CPU 0's is echo's.  (The traced programs'
# files are not in the corpus, so only the task lines are compared; the
# code is missing.)
#
# usage: check-perf-ptxed-tasks.sh <ptxed> <perf.data>
# Exit status 0, 1 on a difference, 77 if the file is absent.
set -u
ptxed=$1 file=$2
if [ ! -f "$file" ]; then
	echo "skipped: $file is absent"
	exit 77
fi
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
fail=0

printf '[task 3174/3174: perf]\n[task 3174/3174: echo]\n' >"$out/exp3"
printf '[task 3174/3174: echo]\n' >"$out/exp0"
for idx in 0 3; do
	for dec in --insn-decoder --block-decoder; do
		"$ptxed" $dec --perf:images --perf:tasks --no-inst \
			--perf "$file:$idx" >"$out/all" 2>"$out/err"
		st=$?
		grep '^\[task ' "$out/all" >"$out/tasks"
		if [ $st -ne 0 ] || ! cmp -s "$out/exp$idx" "$out/tasks"; then
			echo "FAIL: AUX area $idx $dec (status $st):"
			diff "$out/exp$idx" "$out/tasks"
			cat "$out/err"
			fail=1
		else
			echo "ok: AUX area $idx $dec: $(tr '\n' ' ' <"$out/tasks")"
		fi
	done
done
# Without an AUX area: both in turn, each after its heading.
{
	echo "[aux area 0: cpu 0, tid 3174]"
	cat "$out/exp0"
	echo "[aux area 3: cpu 3, tid 3174]"
	cat "$out/exp3"
} >"$out/expall"
"$ptxed" --perf:images --perf:tasks --no-inst --perf "$file" >"$out/all" 2>"$out/err"
st=$?
grep -E '^\[(task|aux area) ' "$out/all" >"$out/tasks"
if [ $st -ne 0 ] || ! cmp -s "$out/expall" "$out/tasks"; then
	echo "FAIL: every AUX area (status $st):"
	diff "$out/expall" "$out/tasks"
	cat "$out/err"
	fail=1
else
	echo "ok: every AUX area: $(tr '\n' ' ' <"$out/tasks")"
fi
exit $fail
