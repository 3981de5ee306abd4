# debian_root.sh - sourced by tests/check_packages.sh and tests/check_wheels.sh
# (bash): a root of Debian bookworm packages for a foreign architecture, for
# programs run under qemu-user with the root as their -L prefix.
#
# fetch_debian_root ARCH ROOT STATE APT_ARGUMENT...: unless ROOT is already
# complete, downloads the packages named (and, as apt's dpkg status is empty,
# their whole Depends closure) with a private apt state in STATE (from
# $MIRROR) and unpacks them into ROOT with dpkg-deb -x (no maintainer
# script runs). Non-zero on failure, with apt's logs in STATE.
fetch_debian_root() {
    local arch=$1 R=$2 state=$3 d
    shift 3
    [ ! -f "$R/.unpacked" ] || return 0
    rm -rf "$R" "$state"
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/etc"
    echo "deb ${MIRROR:-http://deb.debian.org/debian} bookworm main" >"$state/etc/sources.list"
    local apt=(apt-get -q -oAPT::Architecture="$arch" -oAPT::Architectures="$arch"
        -oDir::State::Lists="$state/lists" -oDir::Cache="$state/cache" -oDir::State::status=/dev/null
        -oDir::Etc::SourceList="$state/etc/sources.list" -oDir::Etc::SourceParts=/dev/null
        -oAPT::Sandbox::User=root)
    "${apt[@]}" update >"$state/update.log" 2>&1 &&
        "${apt[@]}" install -y --download-only "$@" >"$state/download.log" 2>&1 || return 1
    for d in "$state/cache/archives"/*.deb; do dpkg-deb -x "$d" "$R"; done
    touch "$R/.unpacked"
}
