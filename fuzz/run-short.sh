#!/bin/sh
# Build the libFuzzer targets with clang and run each for a while (for CI).
#
# Usage: fuzz/run-short.sh [seconds-per-target]      (default 60)
#
# Environment:
#   PTD_FUZZ_BUILD  build directory (default: build-fuzz)
#   PTD_FUZZ_CC     the compiler, must be clang (default: clang)
#   PTD_FUZZ_NICE   nice level for the fuzzers (default: 10)
#   PTD_FUZZ_SEED   libFuzzer's random seed (default: 1, so that a CI run
#                   makes the same inputs on the same code; 0 lets libFuzzer
#                   pick one, for exploring)
#
# New corpus entries go to a temporary directory, not to fuzz/corpus/.
# On a failure the input is saved as <build>/fuzz-artifacts/<target>-crash-*
# and the script exits with status 1.  See docs/fuzzing.md.
set -eu
cd "$(dirname "$0")/.."

seconds=${1:-60}
build=${PTD_FUZZ_BUILD:-build-fuzz}
cc=${PTD_FUZZ_CC:-clang}
nice_level=${PTD_FUZZ_NICE:-10}
seed=${PTD_FUZZ_SEED:-1}
targets="fuzz_packet fuzz_roundtrip fuzz_time fuzz_query fuzz_ild fuzz_image fuzz_flow fuzz_flow_batch fuzz_perf fuzz_sideband fuzz_ptxed_sb"

case $seconds in
'' | *[!0-9]*)
	echo "run-short.sh: seconds must be a number, not '$seconds'" >&2
	exit 2
	;;
esac
case $seed in
'' | *[!0-9]*)
	echo "run-short.sh: PTD_FUZZ_SEED must be a number, not '$seed'" >&2
	exit 2
	;;
esac
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "run-short.sh: $cc not found (libFuzzer needs clang)" >&2
	exit 2
fi

generator=
if command -v ninja >/dev/null 2>&1; then
	generator="-G Ninja"
fi
# shellcheck disable=SC2086 # $generator is empty or two words
cmake -S . -B "$build" $generator -DCMAKE_C_COMPILER="$cc" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTD_BUILD_FUZZ=ON \
	-DPTD_BUILD_TESTS=OFF -DPTD_BUILD_BENCH=OFF >/dev/null
# shellcheck disable=SC2086 # word splitting of the target list is wanted
cmake --build "$build" --target $targets

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d "${TMPDIR:-/tmp}/ptd-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

status=0
for t in $targets; do
	mkdir -p "$work/$t"
	log="$artifacts/$t.log"
	echo "== $t: $seconds s, seed $seed"
	if nice -n "$nice_level" "$build/fuzz/$t" -seed="$seed" \
		-max_total_time="$seconds" -timeout=25 -print_final_stats=1 \
		-artifact_prefix="$artifacts/$t-" \
		"$work/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
		grep -E '^(#[0-9]+[[:space:]]+DONE|Done|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" || true
	else
		status=1
		echo "$t FAILED; the input is saved in $artifacts/; log: $log"
		grep -E 'check failed|ERROR|SUMMARY|runtime error' "$log" | head -n 20 || true
	fi
done
exit $status
