#!/bin/sh
# Build ptdecode and run every test: the normal build with -Werror, the same
# tests under AddressSanitizer and UndefinedBehaviorSanitizer, and a short
# pass of every libFuzzer target.
#
# Environment: PTD_FUZZ_SECONDS (default 30) seconds per fuzz target, 0 to skip.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== build (Release, -Werror) and test"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTD_WERROR=ON >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== build with ASan+UBSan and test"
CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	-DPTD_WERROR=ON -DPTD_SANITIZE=ON -DPTD_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --test-dir build-asan --output-on-failure -j "$jobs"

seconds=${PTD_FUZZ_SECONDS:-30}
if [ "$seconds" -gt 0 ] && [ -x fuzz/run-short.sh ]; then
	echo "== short fuzz pass ($seconds s per target)"
	fuzz/run-short.sh "$seconds"
fi
echo "== all tests passed"
