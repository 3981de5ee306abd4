#!/bin/sh
# deb_depends.sh SHLIBS FILE... - the Debian Depends for the ELF files given,
# from the libraries they actually link (their NEEDED entries), as
# dpkg-shlibdeps would give them from shlibs: SHLIBS is a file of shlibs
# lines ("libpng16 16 libpng16-16 (>= 1.6.2-1)"). Prints one comma-separated
# line (empty for static programs); a library no line covers is an error.
# READELF (default readelf) reads the target's ELF files.
set -eu
shlibs=$1
shift
READELF=${READELF:-readelf}
needed=$("$READELF" -d "$@" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u)
deps=
for soname in $needed; do
    # libpng16.so.16 -> "libpng16 16"; libcamera.so.0.0 -> "libcamera 0.0"
    dep=$(awk -v n="${soname%%.so.*}" -v m="${soname#*.so.}" \
        '$1 == n && $2 == m { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$shlibs")
    if [ -z "$dep" ]; then
        echo "error: deb_depends.sh: no shlibs line for $soname (linked by $(basename "$1")...)" >&2
        exit 1
    fi
    deps="$deps$dep
"
done
printf '%s' "$deps" | sort -u | paste -sd, - | sed 's/,/, /g'
