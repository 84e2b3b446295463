#!/bin/sh
# Install the Debian 12 packages that building and testing ptdecode needs.
# Runs apt-get as root (directly, or through sudo when available).
set -eu

packages="build-essential cmake ninja-build pkg-config clang clang-format libclang-rt-14-dev \
libcmocka-dev libipt-dev libzydis-dev libzstd-dev nasm python3 groff-base"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps.sh: need root (or sudo) to install:$missing" >&2
	exit 1
fi
echo "deps.sh: installing$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
