#!/usr/bin/env bash
# check_wheels.sh - the ARM wheels of `make wheel` on minimal Debian bookworm
# roots under qemu-user (not in `make test`: downloads from the Debian
# archive and minutes of emulation; tests/cli/test_wheel.sh does the host's
# wheel in `make test`). For armhf (TARGET=PI, linux_armv7l) and arm64
# (TARGET=AARCH64, linux_aarch64):
#   - a root of python3, python3-numpy, python3-venv and libtfpi.so's runtime
#     libraries (libprotobuf-c1, libjpeg62-turbo, libpng16-16, libminizip1, zlib1g) with
#     their Depends, fetched with a private apt state and unpacked with
#     dpkg-deb -x (no maintainer scripts run: the BLAS/LAPACK alternatives
#     numpy needs are linked by hand);
#   - under qemu with that root as its -L prefix: python3 -m venv
#     --system-site-packages, pip install --no-index of the wheel (Debian's
#     pip, from python3-pip-whl, run by the venv's python), then
#     pi_examples/python/label_image.py from the venv in another folder must
#     print label_image's top label (within 1e-5: ARM rounds differently).
# Every result is a line "ok"/"FAIL"; the exit status is the number of FAILs.
#
#   sudo tests/check_wheels.sh [ROOTS_DIR]   (default: a new temporary folder;
#                                             a folder from an earlier run is reused)
set -uo pipefail
cd "$(dirname "$(readlink -f "$0")")/.." || exit 1
REPO=$(pwd)
. tests/debian_root.sh
ROOTS=${1:-$(mktemp -d /tmp/tfpi-wheel-roots.XXXXXX)}
mkdir -p "$ROOTS"
MIRROR=${MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive
failures=0
result() { # result NAME OK? DETAIL
    if [ "$2" = yes ]; then echo "ok   $1"; else echo "FAIL $1: $3"; failures=$((failures + 1)); fi
}
[ "$(id -u)" -eq 0 ] || { echo "error: check_wheels.sh must run as root (apt-get with a private state)" >&2; exit 1; }

VERSION=$(sed -n 's/^VERSION := //p' Makefile)
make -s -j2 all >/dev/null || { echo "error: make failed" >&2; exit 1; }
want=$(gen/linux/bin/label_image | head -n 1 | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/')
echo "roots in $ROOTS; label_image's top label on this machine: $want"

# check_arch ARCH MULTIARCH TARGET PLATFORM QEMU
check_arch() {
    local arch=$1 ma=$2 target=$3 platform=$4 qemu=$5 R=$ROOTS/$1 state=$ROOTS/apt-$1 out
    local wheel=gen/${target,,}/wheel/tfpi-$VERSION-py3-none-$platform.whl
    if ! make -s -j2 wheel TARGET="$target" >"$ROOTS/make-$arch.log" 2>&1; then
        result "$arch: make wheel TARGET=$target" no "see $ROOTS/make-$arch.log"
        return
    fi
    result "$arch: make wheel TARGET=$target wrote $(basename "$wheel")" "$([ -f "$wheel" ] && echo yes)" "missing"
    if ! fetch_debian_root "$arch" "$R" "$state" --no-install-recommends python3 python3-numpy python3-venv \
        libprotobuf-c1 libjpeg62-turbo libpng16-16 libminizip1 zlib1g; then
        result "$arch: packages from the Debian archive" no "see $state/*.log"
        return
    fi
    for lib in blas lapack; do # what update-alternatives would have linked for numpy
        [ -e "$R/usr/lib/$ma/lib$lib.so.3" ] || ln -s "$lib/lib$lib.so.3" "$R/usr/lib/$ma/lib$lib.so.3"
    done
    local T=$ROOTS/run-$arch
    rm -rf "$T"
    mkdir -p "$T/elsewhere"
    # qemu-user cannot follow an exec into another ARM program (no binfmt_misc
    # here), so ensurepip's child pip cannot run: the venv is made without it
    # and Debian's own pip wheel (python3-pip-whl) runs in the venv's python.
    out=$($qemu -L "$R" "$R/usr/bin/python3" -m venv --system-site-packages --without-pip "$T/venv" 2>&1)
    result "$arch: python3 -m venv --system-site-packages (qemu)" \
        "$([ -x "$T/venv/bin/python" ] && [ -z "$out" ] && echo yes)" "$out"
    local pip
    pip=$(ls "$R"/usr/share/python-wheels/pip-*.whl)
    out=$($qemu -L "$R" "$T/venv/bin/python" "$pip/pip" install --no-index --disable-pip-version-check -q "$wheel" 2>&1)
    result "$arch: pip install of the wheel into the venv, offline (qemu)" "$([ $? -eq 0 ] && echo yes)" "$out"
    out=$(cd "$T/elsewhere" && $qemu -L "$R" "$T/venv/bin/python" -c \
        'import platform, tfpi; print(platform.machine(), tfpi.version())' 2>&1)
    result "$arch: import tfpi in the venv ($out)" "$(echo "$out" | grep -qE "^(armv7l|aarch64) $VERSION$" && echo yes)" "$out"
    out=$(cd "$T/elsewhere" && $qemu -L "$R" "$T/venv/bin/python" "$REPO/pi_examples/python/label_image.py" 2>&1)
    local got
    got=$(echo "$out" | head -n 1 | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/')
    result "$arch: pi_examples/python/label_image.py from the venv: label_image's top label ($got)" \
        "$(echo "$got $want" | awk '{ d = $2 - $4; exit !($1 == $3 && d <= 1e-5 && d >= -1e-5) }' && echo yes)" "$out"
}
check_arch armhf arm-linux-gnueabihf PI linux_armv7l qemu-arm
check_arch arm64 aarch64-linux-gnu AARCH64 linux_aarch64 qemu-aarch64

echo "$failures failed"
exit "$failures"
