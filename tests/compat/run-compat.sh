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

# The same from C++ (every public header included): the headers are C++
# headers too, as libipt's is.
cxx=${CXX:-c++}
if command -v "$cxx" >/dev/null 2>&1; then
	# shellcheck disable=SC2046
	# shellcheck disable=SC2086
	$cxx -std=c++11 -Wall -Wextra -Werror -pedantic $extra -o "$work/cxx-ptdecode" \
		"$src/tests/compat/cxx_program.cpp" \
		$(pkg-config --cflags ptdecode) $(pkg-config --libs ptdecode) \
		-Wl,-rpath,"$(pkg-config --variable=libdir ptdecode)"
	"$work/cxx-ptdecode" "$trace" | cmp -s - "$work/ptdecode.txt" ||
		{ echo "FAIL: the C++ program's output differs from the C program's"; exit 1; }
	echo "built and ran a C++ program (all public headers) against ptdecode: same output"
else
	echo "note: no C++ compiler ($cxx), skipped the C++ build"
fi

# A program written for libipt 2.1's event decoder (pt_evt_*), which libipt
# 2.0.5 does not have: it must build unchanged and find that the event and
# query decoders agree on the trace.
$cc -std=c11 -Wall -Wextra -Werror $extra -o "$work/evt-ptdecode" "$src/tests/compat/libipt21_program.c" \
	$(pkg-config --cflags ptdecode) $(pkg-config --libs ptdecode) \
	-Wl,-rpath,"$(pkg-config --variable=libdir ptdecode)"
"$work/evt-ptdecode" "$trace" >"$work/evt.txt" ||
	{ tail -3 "$work/evt.txt"; echo "FAIL: the libipt 2.1 event decoder program"; exit 1; }
echo "built and ran a libipt 2.1 event decoder program: $(tail -1 "$work/evt.txt")"

# Every function libipt exports, ptdecode exports: libipt 2.0.5's (when it
# is installed) and those libipt 2.1 and 2.2 added.
lib="$(pkg-config --variable=libdir ptdecode)/libptdecode.so"
nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort >"$work/ptd.syms"
for f in pt_evt_alloc_decoder pt_evt_free_decoder pt_evt_sync_forward \
	pt_evt_sync_backward pt_evt_sync_set pt_evt_get_offset \
	pt_evt_get_sync_offset pt_evt_get_config pt_evt_next \
	pt_insn_resync pt_blk_resync; do
	grep -qx "$f" "$work/ptd.syms" || { echo "FAIL: $lib does not export $f"; exit 1; }
done
ipt=$(ldconfig -p 2>/dev/null | awk '$1 == "libipt.so.2" { print $NF; exit }')
if [ -n "$ipt" ] && [ -f "$ipt" ]; then
	nm -D --defined-only "$ipt" | awk '$2 == "T" { print $3 }' | sort >"$work/ipt.syms"
	missing=$(comm -23 "$work/ipt.syms" "$work/ptd.syms")
	if [ -n "$missing" ]; then
		echo "FAIL: functions of $ipt that ptdecode does not export: $missing"
		exit 1
	fi
	echo "exports every function of $ipt ($(wc -l <"$work/ipt.syms")) and the 11 of libipt 2.1/2.2"
else
	echo "note: libipt.so.2 not installed; checked the 11 functions of libipt 2.1/2.2 only"
fi

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
