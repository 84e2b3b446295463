#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Compare two builds of a benchmark in alternating rounds.
#
# A change of a few per cent is smaller than the drift of a shared host over
# a minute, so two builds are compared by running them one after the other,
# round after round, and taking the best and the mean of each.  This is the
# "alternating rounds" of docs/benchmarks-query.md and docs/flow-batch.md.
#
# usage: bench/ab.sh [-r ROUNDS] [-c CPU] -p PATTERN [-f FIELD] A B [-- ARGS]
#
#   A, B        two benchmark binaries (e.g. an old and a new build of
#               build/bench/qry_bench), both run with ARGS
#   -p PATTERN  the output line to read (a grep -E pattern, e.g. 'concat' or
#               '^mruby x N .*batch block'); the first match is taken
#   -f FIELD    which '|'-separated field of that line holds the figure, and
#               its first number is taken (default 3: qry_bench's batch
#               column; flow_batch_bench's MB/s is field 2)
#   -r ROUNDS   rounds (default 3); each round runs A, then B
#   -c CPU      the CPU to pin to with taskset (default 1; '' for none)
#
# Prints, for each binary, the best and the mean of the figures and the
# figure of every round.  Example (the concatenation, batch decoder):
#
#   bench/ab.sh -r 4 -p concat /tmp/old/bench/qry_bench build/bench/qry_bench \
#       -- --large-only --reps 3 --large-mb 32 --cpu-time --only batch
set -eu

rounds=3
cpu=1
pattern=
field=3

usage() {
	sed -n '/^# usage:/,/^#       --/p' "$0" | sed 's/^# \{0,1\}//'
	exit "$1"
}

while getopts r:c:p:f:h opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	c) cpu=$OPTARG ;;
	p) pattern=$OPTARG ;;
	f) field=$OPTARG ;;
	h) usage 0 ;;
	*) usage 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ] || [ -z "$pattern" ]; then
	usage 2
fi
a=$1
b=$2
shift 2
if [ $# -gt 0 ] && [ "$1" = "--" ]; then
	shift
fi
for bin in "$a" "$b"; do
	if [ ! -x "$bin" ]; then
		echo "ab.sh: $bin: not an executable" >&2
		exit 2
	fi
done

run() {
	if [ -n "$cpu" ]; then
		taskset -c "$cpu" "$@"
	else
		"$@"
	fi
}

# One figure of binary $1 (the rest are its arguments).
figure() {
	line=$(run "$@" 2>&1 | grep -E -m 1 -- "$pattern" || true)
	if [ -z "$line" ]; then
		echo "ab.sh: no line matches '$pattern' in the output of $1" >&2
		exit 1
	fi
	echo "$line" | awk -F'|' -v f="$field" '{
		n = split($f, w, " ");
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^[0-9.]+$/) { print w[i]; exit }
		exit 1
	}'
}

ra=
rb=
i=0
while [ "$i" -lt "$rounds" ]; do
	ra="$ra $(figure "$a" "$@")"
	rb="$rb $(figure "$b" "$@")"
	i=$((i + 1))
done

for x in "A $a:$ra" "B $b:$rb"; do
	echo "$x" | awk -F: '{
		n = split($2, v, " "); best = 0; sum = 0;
		for (i = 1; i <= n; i++) { sum += v[i]; if (v[i] > best) best = v[i] }
		printf "%s  best %.1f  mean %.1f  (rounds:%s)\n", $1, best, sum / n, $2
	}'
done
