#!/bin/sh
# Static analysis of the library and the tools: cppcheck, clang-tidy (the
# clang static analyzer and bugprone checks) and gcc's -fanalyzer.  Prints
# what each finds; docs/static-analysis.md says what the last run found and
# why each finding is or is not a defect.  Not part of CI: the analyzers
# report false positives that would need suppressions in the code.
#
#   sh scripts/analyze.sh [work-dir]     (default /tmp/ptdecode-analyze)
#
# Needs cmake, ninja, cppcheck, clang-tidy and gcc (Debian: cppcheck,
# clang-tidy, ninja-build).  Takes about seven minutes on one core.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/ptdecode-analyze}
mkdir -p "$work"

for tool in cmake ninja cppcheck clang-tidy gcc; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "analyze.sh: $tool is not installed" >&2
		exit 2
	fi
done

# A compilation database for cppcheck and clang-tidy.
cmake -S "$src" -B "$work/db" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	-DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$work/db.log" 2>&1
# (Generated sources, if any, must exist before the analyzers read them.)
ninja -C "$work/db" ptdecode >>"$work/db.log" 2>&1

files=$(python3 - "$work/db/compile_commands.json" "$src" <<'EOF'
import json, sys
db = json.load(open(sys.argv[1]))
src = sys.argv[2].rstrip('/') + '/'
print(' '.join(sorted({e['file'] for e in db
                       if e['file'].startswith(src + 'lib/')
                       or e['file'].startswith(src + 'tools/')})))
EOF
)

echo "== cppcheck (warning, portability)"
cppcheck --project="$work/db/compile_commands.json" --std=c11 \
	--enable=warning,portability --inline-suppr --quiet \
	--file-filter="$src/lib/*" --file-filter="$src/tools/*" 2>&1 |
	grep -E ': (error|warning|portability): ' | sed "s|$src/||" | sort -u ||
	true

echo "== clang-tidy (clang-analyzer-*, bugprone-*)"
checks='-*,clang-analyzer-*,bugprone-*'
for c in easily-swappable-parameters reserved-identifier narrowing-conversions \
	implicit-widening-of-multiplication-result branch-clone \
	assignment-in-if-condition; do
	checks="$checks,-bugprone-$c"
done
checks="$checks,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling"
# shellcheck disable=SC2086
clang-tidy -p "$work/db" --quiet --checks="$checks" $files 2>/dev/null |
	grep -E ': warning: ' | sed "s|$src/||" | sort -u || true

echo "== gcc -fanalyzer (the library)"
CFLAGS=-fanalyzer cmake -S "$src" -B "$work/fa" -G Ninja \
	-DCMAKE_BUILD_TYPE=Debug >"$work/fa.log" 2>&1
ninja -C "$work/fa" -k 0 ptdecode >>"$work/fa.log" 2>&1 || true
grep -E ': warning: ' "$work/fa.log" | sed "s|$src/||" | sort -u || true
