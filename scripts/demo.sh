#!/bin/sh
# Build ptdecode and dump a sample trace made with its own packet encoder.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
build/examples/sample_trace build/sample.pt
build/tools/ptdump/ptdump build/sample.pt
