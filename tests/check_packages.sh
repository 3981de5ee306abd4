#!/usr/bin/env bash
# check_packages.sh - the .deb packages on clean Debian roots, bookworm
# (Python 3.11) and trixie (Python 3.13) (not in `make test`: minutes of
# downloads; needs root, debootstrap and the Debian archive):
# The packages of each release are its own build: bookworm's `make deb`
# (version VERSION), trixie's `make deb DEBIAN_RELEASE=trixie` (VERSION+deb13, built
# against trixie's libraries, downloads/sysroot-trixie-<arch>).
#   amd64  debootstrap a minimal root, apt-get install the four .deb files
#          (apt resolves their Depends), then inside it (chroot): label_image with no
#          flags runs the installed default model, a C program built with only
#          `pkg-config --cflags --libs tfpi` links dynamically and statically
#          and runs, and python3 (import tfpi, pi_examples/python/label_image.py)
#          gives label_image's exact output.
#   armhf, arm64, armel (TARGET=PI, AARCH64, ARMV6; no binfmt_misc here, so
#          no foreign chroot): apt (simulating, with a private state of the
#          release's lists) must install the four .deb files, their Depends as
#          written; those Depends are unpacked from the Debian archive into a
#          root with dpkg -x, the four packages installed into it with dpkg
#          --root (--force-depends: dpkg -x registers nothing); then, under qemu-user with that root as its -L prefix
#          (armel: -cpu arm1176, a Pi Zero/1), the installed label_image and
#          camera run, and the C program (cross-compiled with --sysroot=root
#          and PKG_CONFIG_SYSROOT_DIR=root) runs linked dynamically and
#          statically; detect runs on the shared SSD test graph everywhere.
#   Every root also runs two .tflite models of ../shared/testdata/tflite
#   (a quantized and a float one) through the installed python3-tfpi with
#   tests/cli/data/tflite_run.py (tfpi's tflite_runtime Interpreter) and the
#   quantized one through the installed label_image --graph=...tflite: the
#   host build's output (quantized: equal; float: within 1e-5).
# Every result is a line "ok"/"FAIL"; the exit status is the number of FAILs.
#
#   sudo tests/check_packages.sh [-k] [-r RELEASE]... [-a ARCH]... [ROOTS_DIR]
#     RELEASE: bookworm, trixie (default both); ARCH: amd64, armhf, arm64,
#     armel (default all); ROOTS_DIR: default a new temporary folder, a folder
#     from an earlier run is reused (roots RELEASE-ARCH in it)
# Builds each release's packages first: make deb [DEBIAN_RELEASE=trixie] for LINUX,
# PI, AARCH64 and ARMV6 (-k: keeps those already in gen/*/deb, as another run
# is using them); a build that fails is a FAIL line and its checks are skipped.
set -uo pipefail
cd "$(dirname "$(readlink -f "$0")")/.." || exit 1
REPO=$(pwd)
. tests/debian_root.sh
RELEASES="" ARCHES="" BUILD=yes
while getopts r:a:k flag; do
    case $flag in
    r) RELEASES="$RELEASES $OPTARG" ;;
    a) ARCHES="$ARCHES $OPTARG" ;;
    k) BUILD=no ;;
    *) echo "usage: $0 [-k] [-r RELEASE]... [-a ARCH]... [ROOTS_DIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
RELEASES=${RELEASES:-bookworm trixie} ARCHES=${ARCHES:-amd64 armhf arm64 armel}
ROOTS=${1:-$(mktemp -d /tmp/tfpi-roots.XXXXXX)}
mkdir -p "$ROOTS"
MIRROR=${MIRROR:-http://deb.debian.org/debian}
export DEBIAN_FRONTEND=noninteractive
failures=0
result() { # result NAME OK? DETAIL
    if [ "$2" = yes ]; then echo "ok   $1"; else echo "FAIL $1: $3"; failures=$((failures + 1)); fi
}
[ "$(id -u)" -eq 0 ] || { echo "error: check_packages.sh must run as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -q debootstrap >/dev/null

VERSION=$(sed -n 's/^VERSION := //p' Makefile)
make -s -j2 all >/dev/null || { echo "error: make failed" >&2; exit 1; }
want=$(gen/linux/bin/label_image)   # what every root must print
# detect has no default model: every root runs it on the shared SSD test graph.
SSD=$(realpath ../shared/testdata/detection/ssd_aiy)
detect_args="--graph=$SSD/frozen_inference_graph.pb --labels=$SSD/labels.txt --threshold=0.075"
# shellcheck disable=SC2086 # one flag per word
want_detect=$(gen/linux/bin/detect $detect_args --image=downloads/images/grace_hopper.jpg)
want_top=$(echo "$want" | head -n 1 | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/')
MASK=mask_mnv2_int8/mask_detector_quant.tflite   # label_image --graph= a quantized .tflite
want_mask=$(gen/linux/bin/label_image --graph="$TFLITE_DIR/$MASK" --image=downloads/images/grace_hopper.jpg 2>/dev/null)
tflite_run_host
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

# release_debs RELEASE ARCH: builds (unless -k) and lists the four packages
# of RELEASE for ARCH (gen/<target>[-trixie]/deb/*_<version>_ARCH.deb);
# non-zero, with a FAIL line, when the build fails or they are missing.
release_debs() {
    local release=$1 arch=$2 target dir version log
    case $arch in
    amd64) target=LINUX ;; armhf) target=PI ;; arm64) target=AARCH64 ;; armel) target=ARMV6 ;;
    esac
    dir=gen/$(echo "$target" | tr "[:upper:]" "[:lower:]") version=$VERSION
    [ "$release" = bookworm ] || dir=$dir-$release version=$VERSION+deb13
    log=$ROOTS/make-deb-$release-$arch.log
    if [ "$BUILD" = yes ] && ! make -s -j2 deb TARGET=$target DEBIAN_RELEASE="$release" >"$log" 2>&1; then
        result "$release $arch: make deb TARGET=$target DEBIAN_RELEASE=$release" no "$(tail -n 3 "$log")"
        return 1
    fi
    debs=("$dir"/deb/*_"$version"_"$arch".deb)
    [ ${#debs[@]} -eq 4 ] && [ -f "${debs[0]}" ] && return 0
    result "$release $arch: the four packages in $dir/deb" no "found: ${debs[*]}"
    return 1
}

# depends_of DEB...: the package names in the Depends of the debs, tfpi's own left out.
depends_of() {
    for d in "$@"; do dpkg-deb -f "$d" Depends; done | tr ',' '\n' |
        sed -E 's/\(.*\)//; s/:[a-z0-9]+//; s/ //g' | grep -v -E '^$|^(libtfpi|python3-tfpi|tfpi-)' | sort -u
}

# tflite_in_root NAME PYTHON LABEL_IMAGE: the .tflite checks of a root, where
# PYTHON and LABEL_IMAGE (commands, words split) run its python3 and
# label_image, and TFLITE_IN (its view of ../shared/testdata/tflite) and
# RUN_PY (tests/cli/data/tflite_run.py) are set.
# shellcheck disable=SC2153 # TFLITE_IN and RUN_PY: set by the callers
tflite_in_root() {
    local name=$1 python=$2 label_image=$3 m out start
    for m in $TFLITE_MODELS; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086 # a command with arguments
        out=$(cd / && $python "$RUN_PY" "$TFLITE_IN/$m" "$TFLITE_IN/$(dirname "$m")/input_0.npy" 2>&1)
        result "$name: python3-tfpi's Interpreter (tflite_runtime's API) on $(basename "$m"): the host's output ($(
            echo "$out" | head -n 1), $(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f s", $2 - $1 }'))" \
            "$(same_tflite_output "$m" "$out")" "$out"
    done
    # shellcheck disable=SC2086 # a command with arguments
    out=$(cd / && $label_image --graph="$TFLITE_IN/$MASK" --image=/usr/share/tfpi/images/grace_hopper.jpg 2>/dev/null)
    result "$name: label_image --graph=$(basename "$MASK") prints the host's labels and scores" \
        "$([ -n "$want_mask" ] && [ "$out" = "$want_mask" ] && echo yes)" "$out"
}

# ---- amd64: a real chroot --------------------------------------------------
# check_amd64 RELEASE
check_amd64() {
    local release=$1 R=$ROOTS/$1-amd64 name="$1 amd64" out ok deps m
    if [ ! -f "$R/.debootstrapped" ]; then
        rm -rf "$R"
        if ! debootstrap --variant=minbase "$release" "$R" "$MIRROR" >"$ROOTS/$release-amd64.log" 2>&1; then
            result "$name: debootstrap" no "see $ROOTS/$release-amd64.log"
            return
        fi
        touch "$R/.debootstrapped"
    fi
    release_debs "$release" amd64 || return
    rm -rf "$R/tmp/tfpi"
    mkdir -p "$R/tmp/tfpi/tflite"
    cp "${debs[@]}" tests/cli/data/tfpi_app.c pi_examples/python/label_image.py \
        tests/cli/data/tflite_run.py "$R/tmp/tfpi/"
    for m in $TFLITE_MODELS; do
        mkdir -p "$R/tmp/tfpi/tflite/$(dirname "$m")"
        cp "$TFLITE_DIR/$m" "$TFLITE_DIR/$(dirname "$m")/input_0.npy" "$R/tmp/tfpi/tflite/$(dirname "$m")/"
    done
    cp /etc/resolv.conf "$R/etc/resolv.conf"
    mount -t proc proc "$R/proc"
    trap 'umount "$R/proc" 2>/dev/null' EXIT
    in_root() { chroot "$R" /bin/sh -c "cd /tmp/tfpi && $1" 2>&1; }

    deps=$(depends_of "${debs[@]}" | tr '\n' ' ')
    ok=yes
    out=$(in_root "apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $(
        printf './%s ' "${debs[@]##*/}")gcc libc6-dev pkg-config >/dev/null") || ok=no
    result "$name: apt-get install of the four .deb files (apt installs their Depends: $deps)" "$ok" "$out"
    out=$(in_root "dpkg-query -W -f '\${Package} \${Status}\n' tfpi-tools libtfpi1 libtfpi-dev python3-tfpi")
    result "$name: all four installed" "$([ "$(echo "$out" | grep -c 'install ok installed')" -eq 4 ] && echo yes)" "$out"
    out=$(in_root "cd / && label_image")
    result "$name: label_image with no flags runs /usr/share/tfpi's model" "$([ "$out" = "$want" ] && echo yes)" "$out"
    # shellcheck disable=SC2016 # expanded by the shell inside the root
    out=$(in_root 'gcc tfpi_app.c $(pkg-config --cflags --libs tfpi) -o app && ./app /usr/share/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb /usr/share/tfpi/images/grace_hopper.jpg')
    result "$name: C program, pkg-config --cflags --libs tfpi (dynamic)" \
        "$([ "$out" = "$VERSION $want_top" ] && echo yes)" "$out"
    # shellcheck disable=SC2016 # expanded by the shell inside the root
    out=$(in_root 'gcc -static tfpi_app.c $(pkg-config --static --cflags --libs tfpi) -o app_static && ./app_static /usr/share/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb /usr/share/tfpi/images/grace_hopper.jpg')
    result "$name: C program, pkg-config --static --cflags --libs tfpi, gcc -static" \
        "$([ "$out" = "$VERSION $want_top" ] && echo yes)" "$out"
    rm -rf "$R/tmp/tfpi/ssd"
    cp -r "$SSD" "$R/tmp/tfpi/ssd"
    out=$(in_root "detect ${detect_args//"$SSD"//tmp/tfpi/ssd} --image=/usr/share/tfpi/images/grace_hopper.jpg")
    result "$name: detect finds what it finds on this machine" \
        "$([ -n "$want_detect" ] && [ "$out" = "$want_detect" ] && echo yes)" "$out"
    out=$(in_root "python3 -c 'import sys, tfpi; print(tfpi.version(), *sys.version_info[:2])' && cd / && python3 /tmp/tfpi/label_image.py")
    result "$name: python3 -c 'import tfpi' ($(echo "$out" | head -n 1)); label_image.py prints label_image's output" \
        "$([ "$(echo "$out" | sed 1d)" = "$want" ] && echo yes)" "$out"
    TFLITE_IN=/tmp/tfpi/tflite RUN_PY=/tmp/tfpi/tflite_run.py tflite_in_root "$name" "chroot $R python3" "chroot $R label_image"
    out=$(in_root "dpkg -r python3-tfpi tfpi-tools libtfpi-dev libtfpi1 >/dev/null 2>&1 || echo 'dpkg -r failed'
        ls -d /usr/lib/python3/dist-packages/tfpi /usr/share/tfpi /usr/include/tfpi.h /usr/lib/x86_64-linux-gnu/libtfpi* 2>/dev/null; true")
    result "$name: dpkg -r of the four packages (after python ran) leaves none of their files" \
        "$([ -z "$out" ] && echo yes)" "$out"
    umount "$R/proc"
    trap - EXIT
}

# ---- armhf, arm64, armel: dpkg --root + qemu-user --------------------------------
# check_foreign RELEASE ARCH
check_foreign() {
    local release=$1 arch=$2 ma qemu out state R=$ROOTS/$1-$2 name="$1 $2"
    case $arch in
    armhf) ma=arm-linux-gnueabihf qemu=qemu-arm ;;
    arm64) ma=aarch64-linux-gnu qemu=qemu-aarch64 ;;
    armel) ma=arm-linux-gnueabi qemu="qemu-arm -cpu arm1176" ;;
    esac
    release_debs "$release" "$arch" || return
    state=$ROOTS/apt-$release-$arch
    # The Depends (python3 and numpy for python3-tfpi), the -dev packages
    # libtfpi-dev names (the cross compiler brings its own C library headers)
    # and libcom-err2 (in every Debian system: libext2fs2 needs it unnamed).
    local wanted
    wanted=$(depends_of "${debs[@]}" | grep -v -E '^libjpeg-dev$' | tr '\n' ' ')
    # shellcheck disable=SC2046,SC2086 # one package name per word
    if ! fetch_debian_root "$release" "$arch" "$R" "$state" --no-install-recommends \
        $(in_release "$release" "$arch" $wanted libjpeg62-turbo-dev libcom-err2); then
        result "$name: target packages from the Debian archive" no \
            "$(grep -c '^E: Failed to fetch' "$state/download.log" 2>/dev/null) failed to download, see $state/*.log"
        return
    fi
    echo "     $name: root of $(($(cat "$state/bytes") / 1000000)) MB of packages in $R"
    out=$(debian_apt "$arch" "$state" -s install "${debs[@]/#/$REPO/}" 2>&1)
    result "$name: apt installs the four .deb files from $release's lists (simulated; their Depends: $wanted)" \
        "$(echo "$out" | grep -q '^Inst libtfpi1 ' && ! echo "$out" | grep -q '^E:' && echo yes)" \
        "$(echo "$out" | grep -E '^E:|^ [a-z]|Depends:' | head -n 8)"
    mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
    touch "$R/var/lib/dpkg/status"
    dpkg --root="$R" --add-architecture "$arch"
    ok=yes
    out=$(dpkg --root="$R" --force-depends --force-script-chrootless -i "${debs[@]}" 2>&1) || ok=no
    result "$name: dpkg --root -i of the four packages" "$ok" "$out"
    # shellcheck disable=SC2086 # QEMU is a command with arguments
    in_qemu() { $qemu -L "$R" "$@"; }
    out=$(cd / && in_qemu "$R/usr/bin/label_image" 2>&1)
    result "$name: label_image (qemu) runs the installed default model" "$(same_top "$out")" "$out"
    out=$(cd / && in_qemu "$R/usr/bin/camera" --frames_from="$R/usr/share/tfpi/images/grace_hopper.jpg" \
        --print_threshold=30 2>/dev/null)
    result "$name: camera (qemu) announces the installed image's top label (its first name)" \
        "$([ "$out" = "$(echo "$want" | head -n 1 | sed 's/ ([0-9]*):.*//; s/,.*//')" ] && echo yes)" "$out"
    # shellcheck disable=SC2086 # one flag per word
    out=$(in_qemu "$R/usr/bin/detect" $detect_args --image="$R/usr/share/tfpi/images/grace_hopper.jpg" 2>&1)
    result "$name: detect (qemu) finds the same objects" "$(same_detections "$out")" "$out"
    local cc=$ma-gcc model=$R/usr/share/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb
    local image=$R/usr/share/tfpi/images/grace_hopper.jpg
    export PKG_CONFIG_SYSROOT_DIR=$R PKG_CONFIG_LIBDIR=$R/usr/lib/$ma/pkgconfig:$R/usr/share/pkgconfig
    # shellcheck disable=SC2046
    out=$($cc --sysroot="$R" tests/cli/data/tfpi_app.c $(pkg-config --cflags --libs tfpi) \
        -o "$ROOTS/app-$release-$arch" 2>&1 && in_qemu "$ROOTS/app-$release-$arch" "$model" "$image" 2>&1)
    result "$name: C program, pkg-config --libs tfpi (dynamic, the root's libc and libs)" \
        "$(same_top "$out")" "$out"
    # shellcheck disable=SC2046
    out=$($cc --sysroot="$R" -static tests/cli/data/tfpi_app.c $(pkg-config --static --cflags --libs tfpi) \
        -o "$ROOTS/app-static-$release-$arch" 2>&1 && in_qemu "$ROOTS/app-static-$release-$arch" "$model" "$image" 2>&1)
    result "$name: C program, pkg-config --static --libs tfpi" "$(same_top "$out")" "$out"
    unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
    out=$(cd / && in_qemu "$R/usr/bin/python3" -c 'import sys, tfpi; print(tfpi.version(), *sys.version_info[:2])' 2>&1)
    result "$name: python3 -c 'import tfpi' (qemu; $out)" "$(echo "$out" | grep -qx "$VERSION 3 1[13]" && echo yes)" "$out"
    TFLITE_IN=$TFLITE_DIR RUN_PY=$REPO/tests/cli/data/tflite_run.py \
        tflite_in_root "$name" "in_qemu $R/usr/bin/python3" "in_qemu $R/usr/bin/label_image"
}

for release in $RELEASES; do
    for arch in $ARCHES; do
        case $arch in
        amd64) check_amd64 "$release" ;;
        armhf | arm64 | armel) check_foreign "$release" "$arch" ;;
        *) result "$arch: a known Debian port" no "expected amd64, armhf, arm64 or armel" ;;
        esac
    done
done

echo "$failures failed"
exit "$failures"
