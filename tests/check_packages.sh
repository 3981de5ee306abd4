#!/usr/bin/env bash
# check_packages.sh - the .deb packages on clean Debian bookworm roots (not in
# `make test`: minutes of downloads; needs root, debootstrap and the Debian
# archive):
#   amd64  debootstrap a minimal root, apt-get the packages' Depends, dpkg -i
#          the four packages, then inside it (chroot): label_image with no
#          flags runs the installed default model, a C program built with only
#          `pkg-config --cflags --libs tfpi` links dynamically and statically
#          and runs, and python3 (import tfpi, pi_examples/python/label_image.py)
#          gives label_image's exact output.
#   armhf, arm64  (no binfmt_misc here, so no foreign chroot): the target's
#          Depends (from the Debian archive) unpacked into a root with dpkg -x,
#          the four packages installed into it with dpkg --root; then, under
#          qemu-user with that root as its -L prefix, the installed
#          label_image and camera run, and the C program (cross-compiled with
#          --sysroot=root and PKG_CONFIG_SYSROOT_DIR=root) runs linked dynamically
#          and statically; detect runs on the shared SSD test graph everywhere.
# Every result is a line "ok"/"FAIL"; the exit status is the number of FAILs.
#
#   sudo tests/check_packages.sh [ROOTS_DIR]    (default: a new temporary folder;
#                                                a folder from an earlier run is reused)
# Builds the packages first: make deb for LINUX, PI and AARCH64.
set -uo pipefail
cd "$(dirname "$(readlink -f "$0")")/.." || exit 1
. tests/debian_root.sh
ROOTS=${1:-$(mktemp -d /tmp/tfpi-roots.XXXXXX)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive
failures=0
result() { # result NAME OK? DETAIL
    if [ "$2" = yes ]; then echo "ok   $1"; else echo "FAIL $1: $3"; failures=$((failures + 1)); fi
}
[ "$(id -u)" -eq 0 ] || { echo "error: check_packages.sh must run as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -q debootstrap >/dev/null

VERSION=$(sed -n 's/^VERSION := //p' Makefile)
for t in LINUX PI AARCH64; do
    make -s -j2 deb TARGET=$t >/dev/null || { echo "error: make deb TARGET=$t failed" >&2; exit 1; }
done
want=$(gen/linux/bin/label_image)   # what every root must print
# detect has no default model: every root runs it on the shared SSD test graph.
SSD=$(realpath ../shared/testdata/detection/ssd_aiy)
detect_args="--graph=$SSD/frozen_inference_graph.pb --labels=$SSD/labels.txt --threshold=0.075"
# shellcheck disable=SC2086 # one flag per word
want_detect=$(gen/linux/bin/detect $detect_args --image=downloads/images/grace_hopper.jpg)
want_top=$(echo "$want" | head -n 1 | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/')
echo "roots in $ROOTS; label_image on this machine: $(echo "$want" | head -n 1)"

# same_top OUTPUT: OUTPUT's first "(index): score" has want's index and a
# score within 1e-5 (ARM and x86 round differently in the last digits).
same_top() {
    local got
    got=$(echo "$1" | head -n 1 | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/; s/^[0-9.]+ ([0-9]+ [0-9.]+)$/\1/')
    echo "$got $want_top" | awk '{ d = $2 - $4; exit !($1 == $3 && d <= 1e-5 && d >= -1e-5) }' && echo yes
}

# same_detections OUTPUT: the labels of want_detect in order, and every
# number (score, box corners in pixels) within 1e-3 of this machine's.
same_detections() {
    paste -d' ' <(echo "$1") <(echo "$want_detect") | awk -v n="$(echo "$want_detect" | wc -l)" '
        { half = NF / 2; if ($1 != $(half + 1)) bad = 1
          for (i = 2; i <= half; i++) { d = $i - $(half + i); if (d > 1e-3 || d < -1e-3) bad = 1 } }
        END { exit bad || NR != n || n == 0 }' && echo yes
}

# depends_of DEB...: the package names in the Depends of the debs, tfpi's own left out.
depends_of() {
    for d in "$@"; do dpkg-deb -f "$d" Depends; done | tr ',' '\n' |
        sed -E 's/\(.*\)//; s/:[a-z0-9]+//; s/ //g' | grep -v -E '^$|^(libtfpi|python3-tfpi|tfpi-)' | sort -u
}

# ---- amd64: a real chroot --------------------------------------------------
R=$ROOTS/amd64
if [ ! -f "$R/.debootstrapped" ]; then
    rm -rf "$R"
    debootstrap --variant=minbase bookworm "$R" "$MIRROR" >"$ROOTS/amd64.log" 2>&1 ||
        { echo "error: debootstrap failed, see $ROOTS/amd64.log" >&2; exit 1; }
    touch "$R/.debootstrapped"
fi
mkdir -p "$R/tmp/tfpi"
cp gen/linux/deb/*_"$VERSION"_amd64.deb tests/cli/data/tfpi_app.c pi_examples/python/label_image.py "$R/tmp/tfpi/"
cp /etc/resolv.conf "$R/etc/resolv.conf"
mount -t proc proc "$R/proc"
trap 'umount "$R/proc" 2>/dev/null' EXIT
in_root() { chroot "$R" /bin/sh -c "cd /tmp/tfpi && $1" 2>&1; }

# shellcheck disable=SC2046 # one package name per word
deps="$(depends_of gen/linux/deb/*_"$VERSION"_amd64.deb | tr '\n' ' ')gcc libc6-dev pkg-config"
ok=yes
out=$(in_root "apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $deps >/dev/null && dpkg -i *.deb") || ok=no
result "amd64: dpkg -i of the four packages (after apt-get install of their Depends: $deps)" "$ok" "$out"
out=$(in_root "dpkg-query -W -f '\${Package} \${Status}\n' tfpi-tools libtfpi1 libtfpi-dev python3-tfpi")
result "amd64: all four installed" "$([ "$(echo "$out" | grep -c 'install ok installed')" -eq 4 ] && echo yes)" "$out"
out=$(in_root "cd / && label_image")
result "amd64: label_image with no flags runs /usr/share/tfpi's model" "$([ "$out" = "$want" ] && echo yes)" "$out"
# shellcheck disable=SC2016 # expanded by the shell inside the root
out=$(in_root 'gcc tfpi_app.c $(pkg-config --cflags --libs tfpi) -o app && ./app /usr/share/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb /usr/share/tfpi/images/grace_hopper.jpg')
result "amd64: C program, pkg-config --cflags --libs tfpi (dynamic)" \
    "$([ "$out" = "$VERSION $want_top" ] && echo yes)" "$out"
# shellcheck disable=SC2016 # expanded by the shell inside the root
out=$(in_root 'gcc -static tfpi_app.c $(pkg-config --static --cflags --libs tfpi) -o app_static && ./app_static /usr/share/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb /usr/share/tfpi/images/grace_hopper.jpg')
result "amd64: C program, pkg-config --static --cflags --libs tfpi, gcc -static" \
    "$([ "$out" = "$VERSION $want_top" ] && echo yes)" "$out"
cp -r "$SSD" "$R/tmp/tfpi/ssd"
out=$(in_root "detect ${detect_args//"$SSD"//tmp/tfpi/ssd} --image=/usr/share/tfpi/images/grace_hopper.jpg")
result "amd64: detect finds what it finds on this machine" \
    "$([ -n "$want_detect" ] && [ "$out" = "$want_detect" ] && echo yes)" "$out"
out=$(in_root "python3 -c 'import tfpi; print(tfpi.version())' && cd / && python3 /tmp/tfpi/label_image.py")
result "amd64: python3 -c 'import tfpi'; label_image.py prints label_image's output" \
    "$([ "$out" = "$VERSION
$want" ] && echo yes)" "$out"
out=$(in_root "dpkg -r python3-tfpi tfpi-tools libtfpi-dev libtfpi1 >/dev/null 2>&1 || echo 'dpkg -r failed'
    ls -d /usr/lib/python3/dist-packages/tfpi /usr/share/tfpi /usr/include/tfpi.h /usr/lib/x86_64-linux-gnu/libtfpi* 2>/dev/null; true")
result "amd64: dpkg -r of the four packages (after python ran) leaves none of their files" \
    "$([ -z "$out" ] && echo yes)" "$out"
umount "$R/proc"
trap - EXIT

# ---- armhf, arm64: dpkg --root + qemu-user ------------------------------------
# check_foreign ARCH MULTIARCH GEN QEMU
check_foreign() {
    local arch=$1 ma=$2 gen=$3 qemu=$4 R=$ROOTS/$1 debs out state
    debs=(gen/"$gen"/deb/*_"$VERSION"_"$arch".deb)
    state=$ROOTS/apt-$arch
    # The Depends, and the -dev packages libtfpi-dev names (the cross
    # compiler brings its own C library headers).
    local wanted
    wanted=$(depends_of "${debs[@]}" | grep -v -E '^(python3|python3-numpy|libjpeg-dev)$' | tr '\n' ' ')
    # shellcheck disable=SC2086 # one package name per word
    if ! fetch_debian_root "$arch" "$R" "$state" $wanted libjpeg62-turbo-dev; then
        result "$arch: target packages from the Debian archive" no "see $state/*.log"
        return
    fi
    mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
    touch "$R/var/lib/dpkg/status"
    dpkg --root="$R" --add-architecture "$arch"
    ok=yes
    out=$(dpkg --root="$R" --force-depends --force-script-chrootless -i "${debs[@]}" 2>&1) || ok=no
    result "$arch: dpkg --root -i of the four packages" "$ok" "$out"
    out=$(cd / && $qemu -L "$R" "$R/usr/bin/label_image" 2>&1)
    result "$arch: label_image (qemu) runs the installed default model" "$(same_top "$out")" "$out"
    out=$(cd / && $qemu -L "$R" "$R/usr/bin/camera" --frames_from="$R/usr/share/tfpi/images/grace_hopper.jpg" \
        --print_threshold=30 2>/dev/null)
    result "$arch: camera (qemu) announces the installed image's top label" \
        "$([ "$out" = "$(echo "$want" | head -n 1 | sed 's/ ([0-9]*):.*//')" ] && echo yes)" "$out"
    # shellcheck disable=SC2086 # one flag per word
    out=$($qemu -L "$R" "$R/usr/bin/detect" $detect_args --image="$R/usr/share/tfpi/images/grace_hopper.jpg" 2>&1)
    result "$arch: detect (qemu) finds the same objects" "$(same_detections "$out")" "$out"
    local cc=$ma-gcc model=$R/usr/share/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb
    local image=$R/usr/share/tfpi/images/grace_hopper.jpg
    export PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_LIBDIR=$R/usr/lib/$ma/pkgconfig:$R/usr/share/pkgconfig
    # shellcheck disable=SC2046
    out=$($cc --sysroot="$R" tests/cli/data/tfpi_app.c $(pkg-config --cflags --libs tfpi) \
        -o "$ROOTS/app-$arch" 2>&1 && $qemu -L "$R" "$ROOTS/app-$arch" "$model" "$image" 2>&1)
    result "$arch: C program, pkg-config --libs tfpi (dynamic, the root's libc and libs)" \
        "$(same_top "$out")" "$out"
    # shellcheck disable=SC2046
    out=$($cc --sysroot="$R" -static tests/cli/data/tfpi_app.c $(pkg-config --static --cflags --libs tfpi) \
        -o "$ROOTS/app-static-$arch" 2>&1 && $qemu "$ROOTS/app-static-$arch" "$model" "$image" 2>&1)
    result "$arch: C program, pkg-config --static --libs tfpi" "$(same_top "$out")" "$out"
    unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
}
check_foreign armhf arm-linux-gnueabihf pi qemu-arm
check_foreign arm64 aarch64-linux-gnu aarch64 qemu-aarch64

echo "$failures failed"
exit "$failures"
