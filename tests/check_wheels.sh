#!/usr/bin/env bash
# check_wheels.sh - the ARM wheels of `make wheel` on minimal Debian roots
# under qemu-user (not in `make test`: downloads from the Debian archive and
# minutes of emulation; tests/cli/test_wheel.sh does the host's wheel in
# `make test`). For each release (bookworm: Python 3.11, trixie: Python
# 3.13) and each port: armhf (TARGET=PI, linux_armv7l), arm64
# (TARGET=AARCH64, linux_aarch64) and armel on a Pi Zero/1's CPU
# (TARGET=ARMV6, linux_armv6l, qemu-arm -cpu arm1176):
#   - a root of python3, python3-numpy, python3-venv and libtfpi.so's runtime
#     libraries (libprotobuf-c1, libjpeg62-turbo, libpng16-16, libminizip1,
#     libext2fs2 with libcom-err2, which it needs but, being in every Debian
#     system, does not name, zlib1g; trixie's t64 names on its 32-bit ports)
#     with their Depends, fetched with a private apt state and unpacked with dpkg-deb -x
#     (no maintainer scripts run: the BLAS/LAPACK alternatives numpy needs are
#     linked by hand);
#   - under qemu with that root as its -L prefix: the platform pip computes
#     there (sysconfig and `pip debug --verbose`) accepts the wheel's tag;
#     python3 -m venv --system-site-packages, pip install --no-index of the
#     wheel (Debian's pip, from python3-pip-whl, run by the venv's python);
#     then, from the venv in another folder, pi_examples/python/label_image.py
#     must print label_image's top label (within 1e-5: ARM rounds
#     differently) and tests/cli/data/tflite_run.py (tfpi's tflite_runtime
#     Interpreter) the host build's output on a quantized and a float .tflite
#     of ../shared/testdata/tflite (equal; within 1e-5); in the armhf root,
#     the armel library (TARGET=ARMV6) makes `import tfpi` name the two ABIs.
# Every result is a line "ok"/"FAIL"; the exit status is the number of FAILs.
#
#   sudo tests/check_wheels.sh [-r RELEASE]... [-a ARCH]... [ROOTS_DIR]
#     RELEASE: bookworm, trixie (default both); ARCH: armhf, arm64, armel
#     (default all); ROOTS_DIR: default a new temporary folder, a folder from
#     an earlier run is reused (roots RELEASE-ARCH in it)
set -uo pipefail
cd "$(dirname "$(readlink -f "$0")")/.." || exit 1
REPO=$(pwd)
. tests/debian_root.sh
RELEASES="" ARCHES=""
while getopts r:a: flag; do
    case $flag in
    r) RELEASES="$RELEASES $OPTARG" ;;
    a) ARCHES="$ARCHES $OPTARG" ;;
    *) echo "usage: $0 [-r RELEASE]... [-a ARCH]... [ROOTS_DIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
RELEASES=${RELEASES:-bookworm trixie} ARCHES=${ARCHES:-armhf arm64 armel}
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
tflite_run_host
echo "roots in $ROOTS; label_image's top label on this machine: $want"

# check_arch RELEASE ARCH: the wheel of ARCH's target in a RELEASE root.
check_arch() {
    local release=$1 arch=$2 target platform qemu machine python
    case $arch in
    armhf) target=PI platform=linux_armv7l qemu=qemu-arm machine=armv7l ;;
    arm64) target=AARCH64 platform=linux_aarch64 qemu=qemu-aarch64 machine=aarch64 ;;
    armel) target=ARMV6 platform=linux_armv6l qemu="qemu-arm -cpu arm1176" machine=armv6l ;;
    *) result "$arch: a known Debian port" no "expected armhf, arm64 or armel"; return ;;
    esac
    case $release in
    bookworm) python=3.11 ;;
    trixie) python=3.13 ;;
    *) result "$release: a known Debian release" no "expected bookworm or trixie"; return ;;
    esac
    local name="$release $arch" R=$ROOTS/$release-$arch state=$ROOTS/apt-$release-$arch out start ok
    local wheel=gen/${target,,}/wheel/tfpi-$VERSION-py3-none-$platform.whl
    if ! make -s -j2 wheel TARGET="$target" >"$ROOTS/make-$arch.log" 2>&1; then
        result "$name: make wheel TARGET=$target" no "see $ROOTS/make-$arch.log"
        return
    fi
    result "$name: make wheel TARGET=$target wrote $(basename "$wheel")" "$([ -f "$wheel" ] && echo yes)" "missing"
    # shellcheck disable=SC2046 # one package name per word
    if ! fetch_debian_root "$release" "$arch" "$R" "$state" --no-install-recommends $(in_release "$release" "$arch" \
        python3 python3-numpy python3-venv libprotobuf-c1 libjpeg62-turbo libpng16-16 libminizip1 libext2fs2 libcom-err2 \
        zlib1g); then
        result "$name: packages from the Debian archive" no \
            "$(grep -c '^E: Failed to fetch' "$state/download.log" 2>/dev/null) failed to download, see $state/*.log"
        return
    fi
    echo "     $name: root of $(($(cat "$state/bytes") / 1000000)) MB of packages in $R"
    # shellcheck disable=SC2086 # QEMU is a command with arguments
    py() { $qemu -L "$R" "$@"; }
    local T=$ROOTS/run-$release-$arch pip
    rm -rf "$T"
    mkdir -p "$T/elsewhere"
    pip=$(ls "$R"/usr/share/python-wheels/pip-*.whl)
    # The tags pip accepts on this port and CPU: the wheel's must be one.
    out=$(py "$R/usr/bin/python3" -c 'import platform, sys, sysconfig
print(platform.machine(), sysconfig.get_platform(), "%d.%d" % sys.version_info[:2])' 2>&1)
    result "$name: python3 reports $out" "$([ "$out" = "$machine linux-${platform#linux_} $python" ] && echo yes)" \
        "want $machine linux-${platform#linux_} $python"
    out=$(py "$R/usr/bin/python3" "$pip/pip" debug --verbose 2>/dev/null | sed -n 's/^ *\(py3-none-[a-z0-9_]*\)$/\1/p')
    result "$name: pip debug --verbose accepts py3-none-$platform (py3-none-: $(echo "$out" | sed -n 's/py3-none-//p' |
        grep -v manylinux | tr '\n' ' ')and $(echo "$out" | grep -c manylinux) manylinux tags)" \
        "$(echo "$out" | grep -qx "py3-none-$platform" && echo yes)" "$out"
    # qemu-user cannot follow an exec into another ARM program (no binfmt_misc
    # here), so ensurepip's child pip cannot run: the venv is made without it
    # and Debian's own pip wheel (python3-pip-whl) runs in the venv's python.
    out=$(py "$R/usr/bin/python3" -m venv --system-site-packages --without-pip "$T/venv" 2>&1)
    result "$name: python3 -m venv --system-site-packages (qemu)" \
        "$([ -x "$T/venv/bin/python" ] && [ -z "$out" ] && echo yes)" "$out"
    ok=yes
    out=$(py "$T/venv/bin/python" "$pip/pip" install --no-index --disable-pip-version-check -q "$wheel" 2>&1) || ok=no
    result "$name: pip install of the wheel into the venv, offline (qemu)" "$ok" "$out"
    out=$(cd "$T/elsewhere" && py "$T/venv/bin/python" -c \
        'import platform, tfpi; print(platform.machine(), tfpi.version())' 2>&1)
    result "$name: import tfpi in the venv ($out)" "$([ "$out" = "$machine $VERSION" ] && echo yes)" "$out"
    if [ "$arch" = armhf ] && make -s -j2 wheel TARGET=ARMV6 >/dev/null 2>&1; then
        # What Raspberry Pi OS's hard-float Python does with the armel library.
        out=$(cd "$T/elsewhere" && TFPI_LIBRARY=$REPO/gen/armv6/lib/libtfpi.so.$VERSION py "$T/venv/bin/python" -c \
            'import tfpi' 2>&1 | tail -n 1)
        result "$name: the armel (ARMV6) library in this hard-float Python: an ImportError naming the two ABIs" \
            "$(echo "$out" | grep -q '^ImportError: .* soft-float ARM ABI .* hard-float' && echo yes)" "$out"
    fi
    start=$(date +%s.%N)
    out=$(cd "$T/elsewhere" && py "$T/venv/bin/python" "$REPO/pi_examples/python/label_image.py" 2>&1)
    local got
    got=$(echo "$out" | head -n 1 | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/')
    result "$name: pi_examples/python/label_image.py from the venv: label_image's top label ($got, $(
        echo "$start $(date +%s.%N)" | awk '{ printf "%.1f s", $2 - $1 }'))" \
        "$(echo "$got $want" | awk '{ d = $2 - $4; exit !($1 == $3 && d <= 1e-5 && d >= -1e-5) }' && echo yes)" "$out"
    local m
    for m in $TFLITE_MODELS; do
        start=$(date +%s.%N)
        out=$(cd "$T/elsewhere" && py "$T/venv/bin/python" "$REPO/tests/cli/data/tflite_run.py" "$TFLITE_DIR/$m" \
            "$TFLITE_DIR/$(dirname "$m")/input_0.npy" 2>&1)
        result "$name: tflite_runtime's Interpreter (tfpi's) on $(basename "$m"): the host's output ($(
            echo "$out" | head -n 1), $(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f s", $2 - $1 }'))" \
            "$(same_tflite_output "$m" "$out")" "$out"
    done
}
for release in $RELEASES; do
    for arch in $ARCHES; do check_arch "$release" "$arch"; done
done

echo "$failures failed"
exit "$failures"
