#!/usr/bin/env bash
# download_dependencies.sh: set up everything tfpi needs to build, test and
# cross-compile on Debian 12 (bookworm). Safe to run again: finished steps are
# detected and skipped, so a rerun takes about a second.
#
#   ./download_dependencies.sh          (from any directory)
#
# What it does:
#   1. Host packages (apt-get): compiler, make, protoc-c, libprotobuf-c, libjpeg,
#      libpng, zlib, libext2fs (its CRC-32C for checkpoints), minizip (the
#      labels zip Model Maker appends to .tflite files), the ARM cross
#      compilers (armhf, arm64, armel) with their libc, qemu-user, file, and
#      python3-numpy / python3-opencv / python3-pil (TensorFlow Lite scripts
#      the tests run) / python3-venv (the wheel test), clang with its
#      sanitizer and libFuzzer runtimes (CI's sanitizer suite, `make fuzz`).
#      apt is not touched at all when every package is already installed.
#   2. Target libraries for cross builds, unpacked into
#      downloads/sysroot-{armhf,arm64,armel}/ (the SYSROOT of toolchains/*.mk).
#      They come from a private apt state per architecture in
#      downloads/apt-<arch>/; the system's dpkg architecture list is never
#      changed (no `dpkg --add-architecture`).
#   3. The default label_image model and test image:
#      downloads/models/mobilenet_v1_0.25_224/{frozen_graph.pb,labels.txt}
#      and downloads/images/grace_hopper.jpg, from download.tensorflow.org when
#      reachable, otherwise copied from ../shared/testdata.
#
# Environment:
#   SKIP_CROSS=1   skip the cross compilers, qemu and the target sysroots
#                  (host-only builds: `make`, TARGET=LINUX).
#   OFFLINE=1      do not try the network for the model and image; copy them
#                  from ../shared/testdata straight away.
#   DEBIAN_RELEASE=trixie also fetch Debian 13's C library and -dev packages into
#                  downloads/sysroot-trixie-{amd64,armhf,arm64,armel}/ (only
#                  amd64 with SKIP_CROSS=1), for `make deb DEBIAN_RELEASE=trixie`:
#                  about 40 MB of packages, 3 minutes here, so only when asked.
#   MIRROR=...     the Debian archive for those (default deb.debian.org).
#   SHARED_DIR=... where the shared test data lives (default: ../shared
#                  relative to this script's directory).

set -euo pipefail

cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
ROOT=$PWD
DL=$ROOT/downloads
SHARED_DIR=${SHARED_DIR:-$ROOT/../shared}
SKIP_CROSS=${SKIP_CROSS:-0}
OFFLINE=${OFFLINE:-0}
DEBIAN_RELEASE=${DEBIAN_RELEASE:-bookworm}
export DEBIAN_FRONTEND=noninteractive

say()  { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "not root and no sudo: run as root to install packages"
    SUDO=sudo
fi

# ---------------------------------------------------------------------------
# 1. host packages
# ---------------------------------------------------------------------------
HOST_PKGS=(
    gcc make file curl ca-certificates tar gzip
    protobuf-c-compiler libprotobuf-c-dev
    libjpeg62-turbo-dev libpng-dev zlib1g-dev libext2fs-dev libminizip-dev
    python3 python3-numpy python3-opencv python3-pil python3-venv
    g++ pkg-config libcamera-dev flite
    clang libclang-rt-14-dev
)
CROSS_PKGS=(
    gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
    gcc-aarch64-linux-gnu   libc6-dev-arm64-cross
    gcc-arm-linux-gnueabi   libc6-dev-armel-cross
    qemu-user qemu-user-static
)

pkgs=("${HOST_PKGS[@]}")
[ "$SKIP_CROSS" = 1 ] || pkgs+=("${CROSS_PKGS[@]}")

missing=()
for p in "${pkgs[@]}"; do
    st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [ "${st:0:2}" = ii ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    say "host packages: all ${#pkgs[@]} installed"
else
    say "host packages: installing ${missing[*]}"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q ||
        note "apt-get update reported errors (often only the security index); trying the install anyway"
    $SUDO env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ---------------------------------------------------------------------------
# 2. target sysroots (static + shared libraries and headers per architecture)
# ---------------------------------------------------------------------------
# The -dev packages carry the headers and the static .a files; the runtime
# packages carry the .so files the -dev symlinks point to (for STATIC=0).
TARGET_PKGS=(
    libprotobuf-c-dev libprotobuf-c1
    libjpeg62-turbo-dev libjpeg62-turbo
    libpng-dev libpng16-16
    zlib1g-dev zlib1g
    libext2fs-dev libext2fs2 comerr-dev libcom-err2
    libminizip-dev libminizip1
)

multiarch_of() {
    case $1 in
        armhf) echo arm-linux-gnueabihf ;;
        arm64) echo aarch64-linux-gnu ;;
        armel) echo arm-linux-gnueabi ;;
        amd64) echo x86_64-linux-gnu ;;
    esac
}

# Files a complete sysroot must contain (relative to it).
sysroot_files() {
    local ma=$1
    echo "usr/include/protobuf-c/protobuf-c.h usr/include/jpeglib.h usr/include/$ma/jconfig.h"
    echo "usr/include/png.h usr/include/zlib.h usr/include/ext2fs/ext2fs.h usr/include/et/com_err.h"
    echo "usr/lib/$ma/libprotobuf-c.a usr/lib/$ma/libjpeg.a usr/lib/$ma/libpng.a usr/lib/$ma/libz.a"
    echo "usr/lib/$ma/libext2fs.a usr/include/minizip/unzip.h usr/lib/$ma/libminizip.a"
    echo "usr/lib/$ma/libprotobuf-c.so usr/lib/$ma/libjpeg.so usr/lib/$ma/libpng.so usr/lib/$ma/libz.so"
    echo "usr/lib/$ma/libext2fs.so usr/lib/$ma/libminizip.so"
}

sysroot_complete() {
    local root=$1 ma=$2 f
    [ -f "$root/.tfpi-complete" ] || return 1
    [ "$(head -n1 "$root/.tfpi-complete")" = "packages: ${TARGET_PKGS[*]}" ] || return 1
    for f in $(sysroot_files "$ma"); do
        [ -e "$root/$f" ] || return 1
    done
}

# apt-get with a private state for one architecture: its own package lists and
# cache, an empty dpkg status, and only that architecture enabled.
apt_arch() {
    local arch=$1; shift
    local state=$DL/apt-$arch
    local extra=()
    # As root apt downloads as the _apt user, who cannot write into our tree.
    [ "$(id -u)" -ne 0 ] || extra+=(-oAPT::Sandbox::User=root)
    apt-get -q \
        -oAPT::Architecture="$arch" -oAPT::Architectures="$arch" \
        -oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache" \
        -oDir::State::status=/dev/null \
        "${extra[@]}" "$@"
}

# unpack_root DEBS TMP: unpacks every .deb in DEBS into a fresh TMP as a
# merged-/usr system: lib, lib64, bin and sbin become links into usr/
# (bookworm still puts zlib in /lib/<multiarch>, and trixie's libc.so linker
# script names absolute /usr/lib paths), so one -L finds everything; and
# absolute symlinks (libz.so -> /lib/.../libz.so.1.2.13, which would point at
# the host's x86 libraries) are made relative inside TMP.
unpack_root() {
    local debs=$1 tmp=$2 deb d link f
    rm -rf "$tmp"
    mkdir -p "$tmp"
    for deb in "$debs/"*.deb; do
        dpkg-deb -x "$deb" "$tmp"
    done
    for d in lib lib64 bin sbin; do
        if [ -d "$tmp/$d" ] && [ ! -L "$tmp/$d" ]; then
            mkdir -p "$tmp/usr/$d"
            cp -a "$tmp/$d/." "$tmp/usr/$d/"
            rm -rf "${tmp:?}/$d"
        fi
        [ -e "$tmp/$d" ] || [ -L "$tmp/$d" ] || ln -s "usr/$d" "$tmp/$d"
    done
    while IFS= read -r -d '' link; do
        f=$(readlink "$link")
        case $f in
            /*) ln -sfn "$(realpath -m -s --relative-to="$(dirname "$link")" "$tmp$f")" "$link" ;;
        esac
    done < <(find "$tmp" -type l -print0)
}

# seal_root TMP ROOT DEBS PACKAGE...: records the packages asked for and the
# versions unpacked (TMP/.tfpi-complete, which later runs check), then puts
# TMP in ROOT's place, so an interrupted run never leaves a half-filled root
# that looks complete.
seal_root() {
    local tmp=$1 root=$2 debs=$3 deb
    shift 3
    {
        echo "packages: $*"
        for deb in "$debs/"*.deb; do
            # shellcheck disable=SC2016  # dpkg-deb expands ${...} itself
            dpkg-deb --show --showformat='${Package}=${Version} ' "$deb"
        done
        echo
    } >"$tmp/.tfpi-complete"
    rm -rf "$root"
    mv "$tmp" "$root"
}

fetch_sysroot() {
    local arch=$1 ma root state tmp f
    ma=$(multiarch_of "$arch")
    root=$DL/sysroot-$arch
    state=$DL/apt-$arch

    if sysroot_complete "$root" "$ma"; then
        say "sysroot-$arch: present ($(sed -n 2p "$root/.tfpi-complete"))"
        return
    fi
    say "sysroot-$arch: fetching ${TARGET_PKGS[*]}"
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs"

    # A failed index (typically bookworm-security) makes update exit non-zero;
    # what matters is that the main bookworm list arrived.
    apt_arch "$arch" update >"$state/update.log" 2>&1 ||
        note "apt-get update ($arch) reported errors; see downloads/apt-$arch/update.log"
    if ! ls "$state/lists/"*"_bookworm_main_binary-${arch}_Packages"* >/dev/null 2>&1; then
        cat "$state/update.log" >&2
        die "no bookworm main package list for $arch (is the Debian archive reachable?)"
    fi

    rm -f "$state/debs/"*.deb
    if ! (cd "$state/debs" && apt_arch "$arch" download "${TARGET_PKGS[@]}") >"$state/download.log" 2>&1; then
        cat "$state/download.log" >&2
        die "apt-get download for $arch failed"
    fi

    tmp=$root.tmp
    unpack_root "$state/debs" "$tmp"
    for f in $(sysroot_files "$ma"); do
        [ -e "$tmp/$f" ] || die "sysroot-$arch: $f missing after unpacking"
    done
    seal_root "$tmp" "$root" "$state/debs" "${TARGET_PKGS[@]}"
    say "sysroot-$arch: ready ($(sed -n 2p "$root/.tfpi-complete"))"
}

if [ "$SKIP_CROSS" = 1 ]; then
    say "sysroots: skipped (SKIP_CROSS=1)"
else
    mkdir -p "$DL"
    for arch in armhf arm64 armel; do
        fetch_sysroot "$arch"
    done
fi

# ---------------------------------------------------------------------------
# 2b. trixie sysroots (only with DEBIAN_RELEASE=trixie: `make deb DEBIAN_RELEASE=trixie`)
# ---------------------------------------------------------------------------
# A build for Debian 13 (trixie) compiles and links against trixie's own C
# library and -dev packages, so the packages' Depends name trixie's libraries
# (its t64 names on armhf and armel, libcamera0.5). Each architecture's root,
# downloads/sysroot-trixie-<arch>/, holds the packages below with their whole
# Depends closure (apt with a private state and sources.list in
# downloads/apt-trixie-<arch>/, an empty dpkg status), unpacked with dpkg-deb.
TRIXIE_PKGS=(
    libc6-dev libprotobuf-c-dev libjpeg62-turbo-dev libpng-dev zlib1g-dev
    libext2fs-dev libminizip-dev
)
# amd64 (TARGET=LINUX) also builds camera's libcamera back end.
TRIXIE_PKGS_amd64=(libcamera-dev)

fetch_trixie_sysroot() {
    local arch=$1 ma root state tmp f pkgs
    ma=$(multiarch_of "$arch")
    root=$DL/sysroot-trixie-$arch
    state=$DL/apt-trixie-$arch
    pkgs=("${TRIXIE_PKGS[@]}")
    [ "$arch" != amd64 ] || pkgs+=("${TRIXIE_PKGS_amd64[@]}")
    if [ -f "$root/.tfpi-complete" ] &&
        [ "$(head -n1 "$root/.tfpi-complete")" = "packages: ${pkgs[*]}" ]; then
        say "sysroot-trixie-$arch: present ($(sed -n 2p "$root/.tfpi-complete" | wc -w) packages)"
        return
    fi
    say "sysroot-trixie-$arch: fetching ${pkgs[*]} and their Depends"
    rm -rf "$state"
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/etc"
    : >"$state/status"
    echo "deb ${MIRROR:-http://deb.debian.org/debian} trixie main" >"$state/etc/sources.list"
    local apt=(apt-get -q -oAPT::Architecture="$arch" -oAPT::Architectures="$arch"
        -oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache" -oDir::State::status="$state/status"
        -oDir::Etc::SourceList="$state/etc/sources.list" -oDir::Etc::SourceParts=/dev/null)
    [ "$(id -u)" -ne 0 ] || apt+=(-oAPT::Sandbox::User=root)
    if ! "${apt[@]}" update >"$state/update.log" 2>&1 ||
        ! "${apt[@]}" install -y --download-only --no-install-recommends "${pkgs[@]}" >"$state/download.log" 2>&1; then
        grep -h '^E: ' "$state/update.log" "$state/download.log" | sort -u | sed 's/^/    /' >&2
        printf 'error: sysroot-trixie-%s: apt-get could not fetch these (logs in downloads/apt-trixie-%s/)\n' \
            "$arch" "$arch" >&2
        return 1
    fi
    mv "$state/cache/archives" "$state/debs"
    tmp=$root.tmp
    unpack_root "$state/debs" "$tmp"
    # This machine's g++ links camera's C++ part with -lstdc++: trixie's
    # libstdc++.so.6, which libcamera.so needs, not its own older one.
    [ ! -e "$tmp/usr/lib/$ma/libstdc++.so.6" ] || ln -sfn libstdc++.so.6 "$tmp/usr/lib/$ma/libstdc++.so"
    for f in "usr/lib/$ma/libc.so" usr/include/png.h; do
        [ -e "$tmp/$f" ] || die "sysroot-trixie-$arch: $f missing after unpacking"
    done
    seal_root "$tmp" "$root" "$state/debs" "${pkgs[@]}"
    say "sysroot-trixie-$arch: ready ($(find "$state/debs" -name '*.deb' | wc -l) packages)"
}

# An architecture whose packages cannot be fetched does not stop the others
# (from this machine the archive answers 404 for some of trixie's armel ones);
# the script then ends with an error naming it.
trixie_failed=()
if [ "$DEBIAN_RELEASE" = trixie ]; then
    arches=(amd64)
    [ "$SKIP_CROSS" = 1 ] || arches+=(armhf arm64 armel)
    for arch in "${arches[@]}"; do
        fetch_trixie_sysroot "$arch" || trixie_failed+=("$arch")
    done
elif [ "$DEBIAN_RELEASE" != bookworm ]; then
    die "unknown DEBIAN_RELEASE=$DEBIAN_RELEASE: expected bookworm or trixie"
fi

# ---------------------------------------------------------------------------
# 3. default model and image for label_image
# ---------------------------------------------------------------------------
MODEL=mobilenet_v1_0.25_224
MODEL_DIR=$DL/models/$MODEL
IMAGE=$DL/images/grace_hopper.jpg
SHARED_MODEL=$SHARED_DIR/testdata/$MODEL
SHARED_IMAGE=$SHARED_DIR/testdata/images/grace_hopper.jpg
# The 2017 "frozen" archive holds mobilenet_v1_0.25_224/{frozen_graph.pb,
# labels.txt}; the 2018 one holds mobilenet_v1_0.25_224_frozen.pb and no labels.
MODEL_URLS=(
    "https://storage.googleapis.com/download.tensorflow.org/models/${MODEL}_frozen.tgz"
    "http://download.tensorflow.org/models/${MODEL}_frozen.tgz"
    "https://storage.googleapis.com/download.tensorflow.org/models/mobilenet_v1_2018_08_02/${MODEL}.tgz"
)
IMAGE_URLS=(
    "https://raw.githubusercontent.com/tensorflow/tensorflow/master/tensorflow/examples/label_image/data/grace_hopper.jpg"
)

fetch() { # url dest
    [ "$OFFLINE" != 1 ] || return 1
    curl -sS --fail --location --connect-timeout 10 --max-time 20 -o "$2" "$1" 2>/dev/null
}

# labels in `idx:name` form (what label_image reads); a plain one-name-per-line
# file is numbered from 0.
write_labels() { # src dest
    if grep -v '^[[:space:]]*$' "$1" | grep -qvE '^[0-9]+:'; then
        awk '{ printf "%d:%s\n", NR - 1, $0 }' "$1" >"$2"
    else
        cp "$1" "$2"
    fi
}

fetch_model() {
    local tmp url pb lb src
    if [ -s "$MODEL_DIR/frozen_graph.pb" ] && [ -s "$MODEL_DIR/labels.txt" ]; then
        say "model $MODEL: present ($(cat "$MODEL_DIR/.source" 2>/dev/null || echo 'source unknown'))"
        return
    fi
    mkdir -p "$MODEL_DIR"
    tmp=$(mktemp -d)
    TMP_MODEL=$tmp
    src=
    for url in "${MODEL_URLS[@]}"; do
        if [ "$OFFLINE" = 1 ]; then break; fi
        note "trying $url"
        if fetch "$url" "$tmp/model.tgz" && mkdir -p "$tmp/x" && tar -xzf "$tmp/model.tgz" -C "$tmp/x" 2>/dev/null; then
            pb=$(find "$tmp/x" -name frozen_graph.pb -o -name "${MODEL}_frozen.pb" | head -n1)
            if [ -n "$pb" ]; then
                src=$url
                break
            fi
        fi
        rm -rf "$tmp/model.tgz" "$tmp/x"
    done

    if [ -n "$src" ]; then
        cp "$pb" "$MODEL_DIR/frozen_graph.pb.part"
        lb=$(find "$tmp/x" -name labels.txt | head -n1)
        if [ -n "$lb" ]; then
            write_labels "$lb" "$MODEL_DIR/labels.txt.part"
        elif [ -s "$SHARED_MODEL/labels.txt" ]; then
            write_labels "$SHARED_MODEL/labels.txt" "$MODEL_DIR/labels.txt.part"
            src="$src (labels from $SHARED_MODEL/labels.txt)"
        else
            die "the archive from $src has no labels.txt and $SHARED_MODEL/labels.txt does not exist"
        fi
    else
        [ "$OFFLINE" = 1 ] || note "download failed; copying from $SHARED_MODEL"
        if [ ! -s "$SHARED_MODEL/frozen_graph.pb" ] || [ ! -s "$SHARED_MODEL/labels.txt" ]; then
            die "cannot get $MODEL: no network and no $SHARED_MODEL/{frozen_graph.pb,labels.txt}"
        fi
        cp "$SHARED_MODEL/frozen_graph.pb" "$MODEL_DIR/frozen_graph.pb.part"
        write_labels "$SHARED_MODEL/labels.txt" "$MODEL_DIR/labels.txt.part"
        src="copied from $(readlink -f "$SHARED_MODEL")"
    fi
    mv "$MODEL_DIR/frozen_graph.pb.part" "$MODEL_DIR/frozen_graph.pb"
    mv "$MODEL_DIR/labels.txt.part" "$MODEL_DIR/labels.txt"
    echo "$src" >"$MODEL_DIR/.source"
    rm -rf "$tmp"
    say "model $MODEL: $src"
}

fetch_image() {
    local url src=
    if [ -s "$IMAGE" ]; then
        say "image grace_hopper.jpg: present ($(cat "$IMAGE.source" 2>/dev/null || echo 'source unknown'))"
        return
    fi
    mkdir -p "$(dirname "$IMAGE")"
    for url in "${IMAGE_URLS[@]}"; do
        if [ "$OFFLINE" = 1 ]; then break; fi
        note "trying $url"
        # Accept only a real JPEG (starts with FF D8), not an error page.
        if fetch "$url" "$IMAGE.part" && [ "$(head -c2 "$IMAGE.part" | od -An -tx1 | tr -d ' ')" = ffd8 ]; then
            src=$url
            break
        fi
        rm -f "$IMAGE.part"
    done
    if [ -z "$src" ]; then
        [ "$OFFLINE" = 1 ] || note "download failed; copying from $SHARED_IMAGE"
        [ -s "$SHARED_IMAGE" ] || die "cannot get grace_hopper.jpg: no network and no $SHARED_IMAGE"
        cp "$SHARED_IMAGE" "$IMAGE.part"
        src="copied from $(readlink -f "$SHARED_IMAGE")"
    fi
    mv "$IMAGE.part" "$IMAGE"
    echo "$src" >"$IMAGE.source"
    say "image grace_hopper.jpg: $src"
}

TMP_MODEL=
trap 'rm -rf "$TMP_MODEL"' EXIT
fetch_model
fetch_image
# Copies of read-only shared files are read-only too; keep them writable so a
# later rerun or `rm -rf downloads` is painless.
chmod -R u+w "$DL/models" "$DL/images"

[ ${#trixie_failed[@]} -eq 0 ] || die "no trixie sysroot for ${trixie_failed[*]}: make DEBIAN_RELEASE=trixie cannot build for it"
say "done: everything is in $DL"
