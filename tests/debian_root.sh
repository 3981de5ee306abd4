# shellcheck shell=bash
# debian_root.sh - sourced by tests/check_packages.sh and tests/check_wheels.sh
# (bash): roots of Debian packages (bookworm or trixie) for a foreign
# architecture, for programs run under qemu-user with the root as their -L
# prefix, and the .tflite check both scripts run in every root.
#
# fetch_debian_root RELEASE ARCH ROOT STATE APT_ARGUMENT...: unless ROOT is
# already complete, downloads the packages named (and, as apt's dpkg status
# is empty, their whole Depends closure) of RELEASE with a private apt state
# in STATE (from $MIRROR) and unpacks them into ROOT with dpkg-deb -x (no
# maintainer script runs; the merged-/usr links and the BLAS/LAPACK
# alternatives numpy needs are made by hand). Non-zero on failure, with apt's
# logs in STATE. Writes the size of the packages downloaded to STATE/bytes.
fetch_debian_root() {
    local release=$1 arch=$2 R=$3 state=$4 d lib ma
    shift 4
    [ ! -f "$R/.unpacked" ] || return 0
    rm -rf "$R" "$state"
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/etc"
    : >"$state/status"
    echo "deb ${MIRROR:-http://deb.debian.org/debian} $release main" >"$state/etc/sources.list"
    debian_apt "$arch" "$state" update >"$state/update.log" 2>&1 &&
        debian_apt "$arch" "$state" install -y --download-only "$@" >"$state/download.log" 2>&1 || return 1
    for d in "$state/cache/archives"/*.deb; do dpkg-deb -x "$d" "$R"; done
    for d in bin sbin lib; do # merged /usr (trixie): the links debootstrap makes
        [ -e "$R/$d" ] || [ ! -d "$R/usr/$d" ] || ln -s "usr/$d" "$R/$d"
    done
    du -cb "$state/cache/archives"/*.deb | tail -n 1 | cut -f 1 >"$state/bytes"
    ma=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
    for lib in blas lapack; do # what update-alternatives would have linked for numpy
        [ ! -e "$R/usr/lib/$ma/$lib/lib$lib.so.3" ] || [ -e "$R/usr/lib/$ma/lib$lib.so.3" ] ||
            ln -s "$lib/lib$lib.so.3" "$R/usr/lib/$ma/lib$lib.so.3"
    done
    touch "$R/.unpacked"
}

# debian_apt ARCH STATE APT_GET_ARGUMENT...: apt-get on STATE's private
# lists and cache, with an empty dpkg status there (its lock too: several
# roots can be fetched at once).
debian_apt() {
    local arch=$1 state=$2
    shift 2
    apt-get -q -oAPT::Architecture="$arch" -oAPT::Architectures="$arch" \
        -oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache" -oDir::State::status="$state/status" \
        -oDir::Etc::SourceList="$state/etc/sources.list" -oDir::Etc::SourceParts=/dev/null \
        -oAPT::Sandbox::User=root "$@"
}

# in_release RELEASE ARCH PACKAGE...: the names, with trixie's for the
# libraries its 64-bit time_t transition renamed on the 32-bit ports
# (armhf, armel: libpng16-16t64, without a Provides of the old name).
in_release() {
    local release=$1 arch=$2 p
    shift 2
    for p in "$@"; do
        case $release-$arch-$p in
        trixie-arm*-libpng16-16 | trixie-arm*-libminizip1 | trixie-arm*-libext2fs2) echo "${p}t64" ;;
        *) echo "$p" ;;
        esac
    done
}

# The .tflite models every root runs (../shared/testdata/tflite): a uint8
# MobileNet v2 (int8 per-channel inside) and a float CNN, each with its own
# input. tests/cli/data/tflite_run.py prints the first output, one value a
# line; TFLITE_RUN_HOST_<name> is what the host build prints.
TFLITE_DIR=$(realpath ../shared/testdata/tflite 2>/dev/null)
TFLITE_MODELS="mask_mnv2_int8/mask_detector_quant.tflite fashion_cnn_float/model_no_quant.tflite"

# tflite_run_host: fills tflite_want[model] with the host build's output
# (gen/linux's libtfpi.so through python/tfpi).
declare -A tflite_want
tflite_run_host() {
    local m
    for m in $TFLITE_MODELS; do
        tflite_want[$m]=$(PYTHONPATH=python /usr/bin/python3 \
            tests/cli/data/tflite_run.py "$TFLITE_DIR/$m" "$TFLITE_DIR/$(dirname "$m")/input_0.npy" 2>&1)
    done
}

# same_tflite_output MODEL OUTPUT: yes when OUTPUT is the host's for MODEL:
# equal for a quantized model (integer arithmetic), within 1e-5 for a float one.
same_tflite_output() {
    local want=${tflite_want[$1]}
    [ -n "$want" ] && [ "$(echo "$2" | wc -l)" -eq "$(echo "$want" | wc -l)" ] || return 0
    case $1 in
    *float*) paste -d' ' <(echo "$2") <(echo "$want") |
        awk 'NR == 1 { bad = $1 != $3 || $2 != $4 } NR > 1 { d = $1 - $2; if (d > 1e-5 || d < -1e-5) bad = 1 } END { exit bad }' &&
        echo yes ;;
    *) [ "$2" = "$want" ] && echo yes ;;
    esac
}
