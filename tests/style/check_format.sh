#!/bin/sh
# Check that every C source and header under include/, lib/, tools/,
# tests/, bench/, fuzz/ and examples/ is formatted as .clang-format says.
# Usage: check_format.sh CLANG_FORMAT (run from the top of the tree).
# On failure clang-format names each file and line; fix with
# "CLANG_FORMAT -i FILE".
set -eu
cf=$1
# shellcheck disable=SC2046 # one word per file name (no spaces in the tree)
exec "$cf" --dry-run -Werror $(find include lib tools tests bench fuzz \
	examples -name '*.c' -o -name '*.h' -o -name '*.cpp' | sort)
