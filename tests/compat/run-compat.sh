#!/bin/sh
# Source compatibility with libipt: install ptdecode into a temporary prefix,
# build a libipt program against it with pkg-config (and against libipt when
# it is installed) and check that both builds print the same; then build a
# CMake project that uses find_package(ptdecode).
#
# usage: run-compat.sh <build dir> <source dir> <trace>
# Environment: PTD_COMPAT_CFLAGS, extra compiler flags (the sanitizer flags of
# a sanitizer build, whose library needs them at link time).
set -eu
extra=${PTD_COMPAT_CFLAGS:-}
build=$1 src=$2 trace=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig:$work/prefix/lib/x86_64-linux-gnu/pkgconfig"
cc=${CC:-cc}

# shellcheck disable=SC2046
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror $extra -o "$work/with-ptdecode" "$src/tests/compat/libipt_program.c" \
	$(pkg-config --cflags ptdecode) $(pkg-config --libs ptdecode) \
	-Wl,-rpath,"$(pkg-config --variable=libdir ptdecode)"
"$work/with-ptdecode" "$trace" >"$work/ptdecode.txt"
test -s "$work/ptdecode.txt" || { echo "FAIL: no output from the ptdecode build"; exit 1; }
echo "built and ran a libipt program against ptdecode via pkg-config"

if [ -f /usr/include/intel-pt.h ] && $cc -std=c11 -o "$work/with-libipt" \
	"$src/tests/compat/libipt_program.c" -lipt 2>/dev/null; then
	"$work/with-libipt" "$trace" >"$work/libipt.txt"
	if ! diff -u "$work/libipt.txt" "$work/ptdecode.txt"; then
		echo "FAIL: libipt and ptdecode builds differ"
		exit 1
	fi
	echo "libipt and ptdecode builds print the same ($(wc -l <"$work/ptdecode.txt") lines)"
else
	echo "note: libipt-dev not installed, skipped the side-by-side comparison"
fi

# A CMake consumer.
mkdir -p "$work/consumer"
cat >"$work/consumer/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(ptdecode REQUIRED)
add_executable(consumer "$src/tests/compat/libipt_program.c")
target_link_libraries(consumer PRIVATE ptdecode::ptdecode_static)
CM
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
	-DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
"$work/consumer/build/consumer" "$trace" | cmp -s - "$work/ptdecode.txt" ||
	{ echo "FAIL: CMake consumer output differs"; exit 1; }
echo "built and ran a CMake find_package(ptdecode) consumer"
