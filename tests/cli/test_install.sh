# test_install.sh - `make install` / `make uninstall` (packaging/install.sh)
# into a temporary DESTDIR: every file lands where it should, the installed
# label_image finds the default model under share/tfpi from any directory, a
# C program (tests/cli/data/tfpi_app.c) builds with nothing but pkg-config,
# statically and dynamically, and labels grace_hopper.jpg as label_image
# does, the installed Python module imports and finds libtfpi.so by itself,
# install-strip's programs lose their symbols and still run, make install's
# default Python folder is on Debian's python3 path, and uninstall leaves
# nothing behind.
# Host builds install under PREFIX with pkg-config --define-prefix; cross
# builds install into a copy of the target sysroot (PREFIX=/usr, the
# multiarch libdir) and use PKG_CONFIG_SYSROOT_DIR, as a cross build against
# an installed tfpi would; their programs run under qemu.
. tests/cli/lib.sh
: "${VERSION:?}" "${SONAME:?}" "${BIN:?}"
MODEL=downloads/models/mobilenet_v1_0.25_224/frozen_graph.pb
IMAGE=downloads/images/grace_hopper.jpg
D=$CLI_TMP/root
BUILD=$BIN/..
export BUILD

if [ -n "${CROSS_PREFIX:-}" ]; then
    mkdir -p "$D"
    cp -as "$(realpath "$SYSROOT")/." "$D/"
    PREFIX=/usr LIBDIR=/usr/lib/$MULTIARCH BINDIR=/usr/bin INCLUDEDIR=/usr/include DATADIR=/usr/share
    PYTHONDIR=/usr/lib/python3/dist-packages
    PKG_CONFIG_SYSROOT_DIR=$D
    PKG_CONFIG_LIBDIR=$D/usr/lib/$MULTIARCH/pkgconfig:$D/usr/share/pkgconfig
    export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
    pkg() { pkg-config "$@"; }
    LINK_EXTRA="-Wl,-rpath-link,$D$LIBDIR"
else
    PKG_CONFIG_PATH=$D$LIBDIR/pkgconfig
    export PKG_CONFIG_PATH
    pkg() { pkg-config --define-prefix "$@"; }
    LINK_EXTRA=
fi
export PREFIX LIBDIR BINDIR INCLUDEDIR DATADIR PYTHONDIR
mkdir -p "$D"
(cd "$D" && find . | sort) >"$CLI_TMP/before"

if DESTDIR=$D sh packaging/install.sh install >"$CLI_TMP/out" 2>&1; then
    cli_result "install into DESTDIR" yes ""
else
    cli_result "install into DESTDIR" no "$(cat "$CLI_TMP/out")"
fi

missing=
for f in $BINDIR/label_image $BINDIR/camera $BINDIR/run_graph $BINDIR/benchmark_model \
    $LIBDIR/libtfpi.a $LIBDIR/libtfpi.so.$VERSION $LIBDIR/$SONAME $LIBDIR/libtfpi.so \
    $LIBDIR/pkgconfig/tfpi.pc $INCLUDEDIR/tfpi.h $PYTHONDIR/tfpi/__init__.py \
    $PYTHONDIR/tfpi/_installed.py $DATADIR/tfpi/models/mobilenet_v1_0.25_224/frozen_graph.pb \
    $DATADIR/tfpi/models/mobilenet_v1_0.25_224/labels.txt $DATADIR/tfpi/images/grace_hopper.jpg; do
    [ -e "$D$f" ] || missing="$missing $f"
done
if [ -z "$missing" ] && [ "$(readlink "$D$LIBDIR/$SONAME")" = "libtfpi.so.$VERSION" ]; then
    cli_result "tools, libraries, header, tfpi.pc, Python module and model in place" yes ""
else
    cli_result "tools, libraries, header, tfpi.pc, Python module and model in place" no "missing:$missing"
fi

# The installed label_image, run from elsewhere, finds the model in share/tfpi.
want=$($QEMU "$BIN/label_image" --graph=$MODEL --labels="${MODEL%/*}/labels.txt" --image=$IMAGE --top_k=1)
got=$(cd "$CLI_TMP" && $QEMU "$D$BINDIR/label_image" --top_k=1 2>&1)
if [ -n "$want" ] && [ "$got" = "$want" ] && echo "$got" | grep -q "(458)"; then
    cli_result "installed label_image runs the default model from share/tfpi" yes ""
else
    cli_result "installed label_image runs the default model from share/tfpi" no "got '$got', want '$want'"
fi

version=$(pkg --modversion tfpi 2>&1)
static_libs=$(pkg --static --libs tfpi 2>&1)
if [ "$version" = "$VERSION" ] && echo "$static_libs" | grep -q -- "-ltfpi .*-lprotobuf-c" &&
    echo "$static_libs" | grep -q -- "-ljpeg" && echo "$static_libs" | grep -q -- "-lpng16" &&
    echo "$static_libs" | grep -q -- "-lz"; then
    cli_result "pkg-config: version $VERSION, static flags carry protobuf-c, jpeg, png, z" yes ""
else
    cli_result "pkg-config: version and static flags" no "version '$version', static libs '$static_libs'"
fi

# tfpi_app's "VERSION INDEX SCORE" must match label_image's top line.
score=$(echo "$want" | sed -E 's/.*\(([0-9]+)\): ([0-9.]+)$/\1 \2/')
app_check() { # app_check NAME BINARY [LD_LIBRARY_PATH]
    # shellcheck disable=SC2086 # QEMU is a command with arguments
    if [ -n "${3:-}" ] && [ -n "${CROSS_PREFIX:-}" ]; then
        out=$($QEMU -E LD_LIBRARY_PATH="$3" "$2" "$MODEL" "$IMAGE" 2>&1)
    elif [ -n "${3:-}" ]; then
        out=$(LD_LIBRARY_PATH="$3" $QEMU "$2" "$MODEL" "$IMAGE" 2>&1)
    else
        out=$($QEMU "$2" "$MODEL" "$IMAGE" 2>&1)
    fi
    if [ "$out" = "$VERSION $score" ]; then
        cli_result "$1" yes ""
    else
        cli_result "$1" no "printed '$out', want '$VERSION $score'"
    fi
}
SANITIZE_FLAGS=
[ -z "${SANITIZE:-}" ] || SANITIZE_FLAGS="-fsanitize=address,undefined"
# shellcheck disable=SC2046 # pkg-config prints flags to split
if $CC tests/cli/data/tfpi_app.c $(pkg --cflags --libs tfpi) ${LINK_EXTRA:+"$LINK_EXTRA"} $SANITIZE_FLAGS \
    -o "$CLI_TMP/app_dynamic" 2>"$CLI_TMP/err"; then
    if "${CROSS_PREFIX:-}readelf" -d "$CLI_TMP/app_dynamic" | grep -q "NEEDED.*\[$SONAME\]"; then
        app_check "a program built with pkg-config --libs tfpi links $SONAME and runs" \
            "$CLI_TMP/app_dynamic" "$D$LIBDIR"
    else
        cli_result "a program built with pkg-config --libs tfpi links $SONAME" no "no NEEDED $SONAME"
    fi
else
    cli_result "a program built with pkg-config --libs tfpi" no "$(head -c 300 "$CLI_TMP/err")"
fi
# shellcheck disable=SC2046 # pkg-config prints flags to split
if [ -n "${SANITIZE:-}" ]; then
    echo "skip: static linking with pkg-config --static (the sanitizers have no static runtime)"
elif case "$QEMU" in valgrind*) true ;; *) false ;; esac; then
    echo "skip: a static program under valgrind (it cannot replace a static binary's malloc)"
elif $CC -static tests/cli/data/tfpi_app.c $(pkg --static --cflags --libs tfpi) \
    -o "$CLI_TMP/app_static" 2>"$CLI_TMP/err"; then
    if "${CROSS_PREFIX:-}readelf" -d "$CLI_TMP/app_static" | grep -q NEEDED; then
        cli_result "a program built with pkg-config --static is static" no "it has NEEDED entries"
    else
        app_check "a program built with pkg-config --static --libs tfpi is static and runs" "$CLI_TMP/app_static"
    fi
else
    cli_result "a program built with pkg-config --static --libs tfpi" no "$(head -c 300 "$CLI_TMP/err")"
fi

if [ -n "${CROSS_PREFIX:-}" ]; then
    echo "skip: the installed Python module is checked on host builds"
else
    . tests/cli/sanitizer_preload.sh
    out=$(env -u TFPI_LIBRARY PYTHONPATH="$D$PYTHONDIR" /usr/bin/python3 -c \
        'import tfpi, tfpi._library as l; print(tfpi.version(), l.lib._name)' 2>&1)
    unset LD_PRELOAD
    if [ "$out" = "$VERSION $D$PYTHONDIR/tfpi/../../../$SONAME" ]; then
        cli_result "the installed Python module loads the installed libtfpi.so" yes ""
    else
        cli_result "the installed Python module loads the installed libtfpi.so" no "$out"
    fi
    if [ -z "${SANITIZE:-}" ] && [ "$BIN" = gen/linux/bin ]; then
        out=$(env -u TFPI_LIBRARY PYTHONPATH=python /usr/bin/python3 -c \
            'import os, tfpi, tfpi._library as l; print(tfpi.version(), os.path.relpath(l.lib._name))' 2>&1)
        cli_result "in the build tree PYTHONPATH=python is enough: the module finds gen/linux/lib/libtfpi.so" \
            "$([ "$out" = "$VERSION gen/linux/lib/libtfpi.so" ] && echo yes)" "$out"
    fi
fi

if [ -z "${CROSS_PREFIX:-}" ] && [ "$PREFIX" = /usr/local ]; then
    if /usr/bin/python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$PYTHONDIR"; then
        cli_result "make install's default PYTHONDIR ($PYTHONDIR) is where Debian's python3 looks" yes ""
    else
        cli_result "make install's default PYTHONDIR is where Debian's python3 looks" no "$PYTHONDIR is not on sys.path"
    fi
fi

# make install-strip: the same programs without their symbols, smaller, still running.
S=$CLI_TMP/stripped
if DESTDIR=$S STRIP_PROGRAMS=${CROSS_PREFIX:-}strip sh packaging/install.sh install >"$CLI_TMP/out" 2>&1; then
    full=$(wc -c <"$D$BINDIR/label_image")
    stripped=$(wc -c <"$S$BINDIR/label_image")
    got=$(cd "$CLI_TMP" && $QEMU "$S$BINDIR/label_image" --top_k=1 2>&1)
    symbols=$("${CROSS_PREFIX:-}readelf" -S "$S$BINDIR/label_image" | grep -c '\.symtab')
    cli_result "install-strip: label_image without symbols ($full -> $stripped bytes) labels as before" \
        "$([ "$stripped" -lt "$full" ] && [ "$symbols" -eq 0 ] && [ "$got" = "$want" ] && echo yes)" \
        "$symbols symbol tables, $stripped bytes, printed '$got'"
else
    cli_result "install-strip" no "$(cat "$CLI_TMP/out")"
fi

DESTDIR=$D sh packaging/install.sh uninstall >"$CLI_TMP/out" 2>&1
(cd "$D" && find . | sort) >"$CLI_TMP/after"
left=$(comm -13 "$CLI_TMP/before" "$CLI_TMP/after" | head -n 5 | tr '\n' ' ')
if [ -z "$left" ]; then
    cli_result "uninstall leaves nothing behind" yes ""
else
    cli_result "uninstall leaves nothing behind" no "left: $left"
fi
cli_summary
