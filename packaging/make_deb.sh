#!/bin/sh
# make_deb.sh - `make deb`: Debian packages of one target's build, made with
# dpkg-deb into $OUT (gen/<target>/deb/):
#   tfpi-tools      /usr/bin tools and examples, the default model in /usr/share/tfpi
#   libtfpiMAJOR    the shared library (soname, shlibs, ldconfig trigger)
#   libtfpi-dev     header, static library, .so link, tfpi.pc
#   python3-tfpi    the Python module
# Depends come from the libraries each package's files link (NEEDED), read
# through the shlibs of the packages that provide them: the host's dpkg
# database for TARGET=LINUX, the target packages download_dependencies.sh
# fetched (downloads/apt-<arch>/debs) for cross targets, or the packages in
# SHLIBS_DEBS (DEBIAN_RELEASE=trixie: trixie's, downloads/apt-trixie-<arch>/debs).
# The packages' version is DEB_VERSION (default VERSION; DEBIAN_RELEASE=trixie:
# VERSION+deb13), the library's soname and tfpi_version() stay VERSION's.
# Environment: the Makefile's INSTALL_ENV plus DEBIAN_ARCH, MULTIARCH,
# CROSS_PREFIX, QEMU, OUT, DEB_MAINTAINER, DEB_VERSION, SHLIBS_DEBS.
set -eu
: "${BUILD:?}" "${VERSION:?}" "${SONAME:?}" "${DEBIAN_ARCH:?}" "${OUT:?}"
MULTIARCH=${MULTIARCH:-$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)}
CROSS_PREFIX=${CROSS_PREFIX:-}
MAINTAINER=${DEB_MAINTAINER:-tfpi maintainers <tfpi@example.org>}
DEB_VERSION=${DEB_VERSION:-$VERSION}
SHLIBS_DEBS=${SHLIBS_DEBS:-}
[ -n "$SHLIBS_DEBS" ] || [ -z "$CROSS_PREFIX" ] || SHLIBS_DEBS=downloads/apt-$DEBIAN_ARCH/debs
MAJOR=${SONAME##*.so.}
LIBPKG=libtfpi$MAJOR
READELF=${CROSS_PREFIX}readelf
STRIP=${CROSS_PREFIX}strip
export READELF

die() { echo "error: make_deb.sh: $*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (apt-get install dpkg)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/stage
PREFIX=/usr BINDIR=/usr/bin LIBDIR=/usr/lib/$MULTIARCH INCLUDEDIR=/usr/include DATADIR=/usr/share \
    PYTHONDIR=/usr/lib/python3/dist-packages DESTDIR=$stage sh packaging/install.sh install >/dev/null
LIBDIR_REL=usr/lib/$MULTIARCH
[ -d "$stage/usr/share/tfpi/models" ] ||
    die "the default model is not in downloads/models: run ./download_dependencies.sh (tfpi-tools ships it)"
for f in "$stage"/usr/bin/* "$stage/$LIBDIR_REL/libtfpi.so.$VERSION"; do
    "$STRIP" --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
done

# shlibs lines for every library the packaged ELF files need.
shlibs=$work/shlibs
if [ -z "$SHLIBS_DEBS" ]; then
    : >"$shlibs"
    for soname in $("$READELF" -d "$stage"/usr/bin/* "$stage/$LIBDIR_REL/libtfpi.so.$VERSION" |
        sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u); do
        # The package of /lib/<multiarch>/<soname>[.x.y] (not a -dev link).
        pkg=$(dpkg -S "*/$soname*" 2>/dev/null | awk -v dir="/$MULTIARCH/" -v so="$soname" '
            { split($0, f, ": "); path = f[2] }
            index(path, dir so) && f[1] !~ /-dev:/ { print f[1]; exit }')
        [ -n "$pkg" ] || die "no installed package provides $soname"
        { cat "/var/lib/dpkg/info/$pkg.shlibs" 2>/dev/null || cat "/var/lib/dpkg/info/${pkg%%:*}.shlibs"; } |
            grep -v '^udeb:' >>"$shlibs"
    done
else
    for deb in "$SHLIBS_DEBS"/*.deb; do
        dpkg-deb -I "$deb" shlibs 2>/dev/null || true
    done | grep -v '^udeb:' >"$shlibs"
    # Without libc6 among them, the cross toolchain's C library is the same
    # glibc as the host's libc6.
    grep -q '^libc 6 ' "$shlibs" ||
        grep -E '^(libc|libm) 6 ' /var/lib/dpkg/info/libc6:"$(dpkg --print-architecture)".shlibs >>"$shlibs"
fi

# A manual page per program from its --help (run under $QEMU for cross
# builds), which lists every flag.
for f in "$stage"/usr/bin/*; do
    prog=$(basename "$f")
    # shellcheck disable=SC2086 # QEMU is a command with arguments
    help=$(${QEMU:-} "$f" --help) || die "$prog --help failed"
    mkdir -p "$stage/usr/share/man/man1"
    {
        printf '.TH %s 1 "" "tfpi %s" "tfpi"\n.SH NAME\n%s \\- a tfpi program: TensorFlow 1.x frozen graphs\n' \
            "$(echo "$prog" | tr '[:lower:]' '[:upper:]')" "$VERSION" "$(echo "$prog" | sed 's/_/\\_/g')"
        printf '.SH SYNOPSIS\n.nf\n%s\n.fi\n' "$(echo "$help" | sed -n "1s|^usage: [^ ]*|$prog|p" | sed 's/-/\\-/g')"
        printf '.SH OPTIONS\n.nf\n%s\n.fi\n' "$(echo "$help" | sed '1,2d' | sed 's/\\/\\e/g; s/-/\\-/g')"
        printf '.SH SEE ALSO\nThe README of tfpi.\n'
    } | gzip -9n >"$stage/usr/share/man/man1/$prog.1.gz"
done

# package NAME ARCH SECTION DEPENDS MULTI_ARCH SUMMARY DESCRIPTION PATH...:
# moves PATHs (relative to the stage) into the package and builds it.
package() {
    name=$1 arch=$2 section=$3 depends=$4 multiarch=$5 summary=$6 description=$7
    shift 7
    root=$work/$name
    for p in "$@"; do
        mkdir -p "$root/$(dirname "$p")"
        mv "$stage/$p" "$root/$p"
    done
    doc=$root/usr/share/doc/$name
    mkdir -p "$doc" "$root/DEBIAN"
    cp packaging/copyright "$doc/copyright"
    printf 'tfpi (%s) unstable; urgency=medium\n\n  * tfpi %s.\n\n -- %s  %s\n' "$DEB_VERSION" "$VERSION" \
        "$MAINTAINER" "$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}")" |
        gzip -9n >"$doc/changelog.gz"
    {
        echo "Package: $name"
        echo "Source: tfpi"
        echo "Version: $DEB_VERSION"
        echo "Architecture: $arch"
        [ -z "$multiarch" ] || echo "Multi-Arch: $multiarch"
        echo "Maintainer: $MAINTAINER"
        echo "Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)"
        [ -z "$depends" ] || echo "Depends: $depends"
        echo "Section: $section"
        echo "Priority: optional"
        echo "Description: $summary"
        echo "$description" | fold -s -w 78 | sed 's/ *$//; s/^/ /'
    } >"$root/DEBIAN/control"
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
        xargs -0 md5sum) >"$root/DEBIAN/md5sums"
    find "$root" -type d -exec chmod 755 {} +
    mkdir -p "$OUT"
    dpkg-deb --root-owner-group -Zxz --build "$root" "$OUT/${name}_${DEB_VERSION}_$arch.deb" >/dev/null
    echo "  DEB     $OUT/${name}_${DEB_VERSION}_$arch.deb"
}

# Static tools (cross targets) are meant to be: they run on any Pi OS with
# nothing else installed, so lintian is told so.
if ! "$READELF" -d "$stage"/usr/bin/label_image | grep -q NEEDED; then
    mkdir -p "$stage/usr/share/lintian/overrides"
    {
        echo "# Static on purpose: the tools run on any Pi OS of their word size with nothing installed."
        echo "tfpi-tools: statically-linked-binary [usr/bin/*]"
        echo "tfpi-tools: embedded-library * [usr/bin/*]"
    } >"$stage/usr/share/lintian/overrides/tfpi-tools"
fi

L=$LIBDIR_REL
lib_depends=$(sh packaging/deb_depends.sh "$shlibs" "$stage/$L/libtfpi.so.$VERSION")
tools_depends=$(sh packaging/deb_depends.sh "$shlibs" "$stage"/usr/bin/*)
echo "libtfpi $MAJOR $LIBPKG (>= $VERSION)" >"$work/libtfpi.shlibs"
mkdir -p "$work/$LIBPKG/DEBIAN"
cp "$work/libtfpi.shlibs" "$work/$LIBPKG/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$work/$LIBPKG/DEBIAN/triggers"
package "$LIBPKG" "$DEBIAN_ARCH" libs \
    "$lib_depends" same \
    "run TensorFlow 1.x frozen graphs - shared library" \
    "tfpi runs TensorFlow 1.x frozen graphs (GraphDef .pb files, also memory-mapped and encrypted ones) on Raspberry Pi and other Linux boards from a small C library. This package holds the shared library." \
    "$L/libtfpi.so.$VERSION" "$L/$SONAME"
package libtfpi-dev "$DEBIAN_ARCH" libdevel \
    "$LIBPKG (= $DEB_VERSION), libprotobuf-c-dev, libpng-dev, libjpeg-dev, libminizip-dev, zlib1g-dev, libext2fs-dev" same \
    "run TensorFlow 1.x frozen graphs - development files" \
    "tfpi runs TensorFlow 1.x frozen graphs on Raspberry Pi and other Linux boards. This package holds the header tfpi.h, the static library and tfpi.pc: cc app.c \$(pkg-config --cflags --libs tfpi)." \
    "$L/libtfpi.a" "$L/libtfpi.so" "$L/pkgconfig/tfpi.pc" usr/include/tfpi.h
# Python writes bytecode beside the module when it first imports it; it goes
# with the package.
mkdir -p "$work/python3-tfpi/DEBIAN"
printf '#!/bin/sh\nset -e\nrm -rf /usr/lib/python3/dist-packages/tfpi/__pycache__\n' \
    >"$work/python3-tfpi/DEBIAN/prerm"
chmod 755 "$work/python3-tfpi/DEBIAN/prerm"
package python3-tfpi "$DEBIAN_ARCH" python "python3, python3-numpy, $LIBPKG (= $DEB_VERSION)" "" \
    "run TensorFlow 1.x frozen graphs - Python 3 module" \
    "tfpi runs TensorFlow 1.x frozen graphs on Raspberry Pi and other Linux boards. This package holds the Python module (import tfpi): graphs, sessions taking and returning numpy arrays, image helpers, and an Interpreter shaped like tflite_runtime's." \
    usr/lib/python3/dist-packages/tfpi
tools_paths="usr/bin usr/share/tfpi usr/share/man"
[ ! -d "$stage/usr/share/lintian" ] || tools_paths="$tools_paths usr/share/lintian"
# shellcheck disable=SC2086 # one path per word
package tfpi-tools "$DEBIAN_ARCH" science \
    "$tools_depends" foreign \
    "run TensorFlow 1.x frozen graphs - tools and examples" \
    "tfpi runs TensorFlow 1.x frozen graphs on Raspberry Pi and other Linux boards. This package holds label_image, camera, run_graph, benchmark_model and the model tools, with the MobileNet v1 0.25 224 model label_image and camera use by default." \
    $tools_paths
left=$(cd "$stage" && find . -type f | head -n 3)
[ -z "$left" ] || die "files in no package: $left"
