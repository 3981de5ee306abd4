#!/bin/sh
# install.sh - `make install` and `make uninstall` (and the staging step of
# `make deb`): copies one target's build (gen/<target>/) into
#   BINDIR      the tools and examples
#   LIBDIR      libtfpi.a, libtfpi.so.VERSION with its soname and dev links,
#               pkgconfig/tfpi.pc
#   INCLUDEDIR  tfpi.h
#   DATADIR     tfpi/: the default model, labels and image, when downloaded
#   PYTHONDIR   tfpi/: the Python module
# all under DESTDIR, or removes exactly those files again. With a DESTDIR,
# uninstall also removes the directories it leaves empty, up to DESTDIR.
#
#   install.sh install|uninstall   (environment: BUILD, PROGRAMS, VERSION,
#       SONAME, PREFIX, BINDIR, LIBDIR, INCLUDEDIR, DATADIR, PYTHONDIR, DESTDIR;
#       STRIP_PROGRAMS: a strip program run on the installed programs)
# Run from the repository root; the Makefile sets everything.
set -eu
mode=${1:-}
: "${BUILD:?}" "${PROGRAMS:?}" "${VERSION:?}" "${SONAME:?}" "${PREFIX:?}" "${BINDIR:?}"
: "${LIBDIR:?}" "${INCLUDEDIR:?}" "${DATADIR:?}" "${PYTHONDIR:?}"
DESTDIR=${DESTDIR:-}
MODEL=models/mobilenet_v1_0.25_224
REAL_SO=libtfpi.so.$VERSION

die() { echo "error: install.sh: $*" >&2; exit 1; }

# Every installed file as "SOURCE DEST MODE"; SOURCE "-" for generated files
# and "@TARGET" for symlinks.
manifest() {
    for p in $PROGRAMS; do
        echo "$BUILD/bin/$p $BINDIR/$p 755"
    done
    echo "$BUILD/lib/libtfpi.a $LIBDIR/libtfpi.a 644"
    echo "$BUILD/lib/$REAL_SO $LIBDIR/$REAL_SO 644"
    echo "@$REAL_SO $LIBDIR/$SONAME -"
    echo "@$SONAME $LIBDIR/libtfpi.so -"
    echo "- $LIBDIR/pkgconfig/tfpi.pc 644"
    echo "src/tfpi.h $INCLUDEDIR/tfpi.h 644"
    for f in $MODEL/frozen_graph.pb $MODEL/labels.txt images/grace_hopper.jpg; do
        [ ! -f "downloads/$f" ] || echo "downloads/$f $DATADIR/tfpi/$f 644"
    done
    for f in python/tfpi/*.py; do
        echo "$f $PYTHONDIR/tfpi/$(basename "$f") 644"
    done
    echo "- $PYTHONDIR/tfpi/_installed.py 644"
}

# The generated files' contents.
generate() {
    case $1 in
    */tfpi.pc)
        # libdir relative to ${prefix} when it is below it, so that
        # pkg-config --define-prefix can move the tree.
        libdir=$LIBDIR
        case $LIBDIR in "$PREFIX"/*) libdir="\${prefix}${LIBDIR#"$PREFIX"}" ;; esac
        sed -e "s|@PREFIX@|$PREFIX|" -e "s|@LIBDIR@|$libdir|" -e "s|@VERSION@|$VERSION|" \
            packaging/tfpi.pc.in ;;
    */_installed.py)
        printf '"""Written by make install: where libtfpi.so and share/tfpi are, from this folder."""\n'
        printf 'SONAME = "%s"\n' "$SONAME"
        printf 'LIBDIR_FROM_PACKAGE = "%s"\n' "$(realpath -m --relative-to="$PYTHONDIR/tfpi" "$LIBDIR")"
        printf 'DATADIR_FROM_PACKAGE = "%s"\n' "$(realpath -m --relative-to="$PYTHONDIR/tfpi" "$DATADIR/tfpi")" ;;
    *) die "no generator for $1" ;;
    esac
}

do_install() {
    manifest | while read -r src dest perm; do
        target=$DESTDIR$dest
        mkdir -p "$(dirname "$target")"
        case $src in
        @*) ln -sfn "${src#@}" "$target" ;;
        -) generate "$dest" >"$target.tmp" && chmod "$perm" "$target.tmp" && mv "$target.tmp" "$target" ;;
        *)
            [ -f "$src" ] || die "$src is missing: build first (make TARGET=...)"
            cp "$src" "$target.tmp" && chmod "$perm" "$target.tmp"
            case $dest in "$BINDIR"/*) [ -z "${STRIP_PROGRAMS:-}" ] || "$STRIP_PROGRAMS" "$target.tmp" ;; esac
            mv "$target.tmp" "$target" ;;
        esac
    done
    echo "installed tfpi $VERSION under ${DESTDIR}$PREFIX"
    # The module is only found where python3 looks.
    if [ -z "$DESTDIR" ] && command -v python3 >/dev/null &&
        ! python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$PYTHONDIR" 2>/dev/null; then
        echo "note: python3 does not look in $PYTHONDIR: use PYTHONPATH=$PYTHONDIR, or install with PYTHONDIR=..."
    fi
}

do_uninstall() {
    manifest | while read -r _ dest _; do
        rm -f "$DESTDIR$dest"
        # Python leaves its bytecode beside the module.
        case $dest in "$PYTHONDIR"/tfpi/*) rm -rf "$DESTDIR$PYTHONDIR/tfpi/__pycache__" ;; esac
        dirname "$dest"
    done | sort -u -r | while read -r dir; do
        # tfpi's own folders go; with a DESTDIR, every folder left empty.
        while [ -n "$dir" ] && [ "$dir" != / ]; do
            case $dir in
            "$DATADIR"/tfpi | "$DATADIR"/tfpi/* | "$PYTHONDIR"/tfpi) ;;
            *) [ -n "$DESTDIR" ] || break ;;
            esac
            rmdir "$DESTDIR$dir" 2>/dev/null || break
            dir=$(dirname "$dir")
        done
    done
    echo "removed tfpi $VERSION from ${DESTDIR}$PREFIX"
}

case $mode in
install) do_install ;;
uninstall) do_uninstall ;;
*) die "usage: install.sh install|uninstall" ;;
esac
