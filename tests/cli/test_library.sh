# test_library.sh - the version is one number everywhere and libtfpi.so is a
# proper shared library: every tool and example answers --version with the
# Makefile's VERSION, the .so carries the soname libtfpi.so.MAJOR behind the
# usual symlinks, and it exports the whole tfpi.h API and nothing else.
. tests/cli/lib.sh
: "${VERSION:?}" "${SONAME:?}" "${BIN:?}" "${PROGRAMS:?}"
LIB=$BIN/../lib
NM=${CROSS_PREFIX:-}nm
READELF=${CROSS_PREFIX:-}readelf

# PROGRAMS: the Makefile's list of what make install and tfpi-tools ship.
for tool in $PROGRAMS; do
    expect_output "$tool --version" "^$tool \(tfpi\) $VERSION\$" "$tool" --version
done

real=$LIB/libtfpi.so.$VERSION
soname=$("$READELF" -d "$real" 2>&1 | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = "$SONAME" ] && [ "$(readlink "$LIB/$SONAME")" = "libtfpi.so.$VERSION" ] &&
    [ "$(readlink "$LIB/libtfpi.so")" = "$SONAME" ]; then
    cli_result "libtfpi.so.$VERSION has soname $SONAME and its symlinks" yes ""
else
    cli_result "libtfpi.so.$VERSION has soname $SONAME and its symlinks" no \
        "soname '$soname', links $(readlink "$LIB/$SONAME") $(readlink "$LIB/libtfpi.so")"
fi

# Defined dynamic symbols: all tfpi_*, and every function tfpi.h declares.
"$NM" -D --defined-only "$real" | awk '{ print $NF }' | sort >"$CLI_TMP/exported"
grep -v '^tfpi_' "$CLI_TMP/exported" >"$CLI_TMP/foreign"
if [ -s "$CLI_TMP/foreign" ]; then
    cli_result "libtfpi.so exports only tfpi_* symbols" no "also exports $(head -n 5 "$CLI_TMP/foreign" | tr '\n' ' ')"
else
    cli_result "libtfpi.so exports only tfpi_* symbols" yes ""
fi
sed -n 's/^[a-z].*[ *]\(tfpi_[a-z0-9_]*\)(.*/\1/p' src/tfpi.h | sort -u >"$CLI_TMP/declared"
missing=$(comm -23 "$CLI_TMP/declared" "$CLI_TMP/exported" | tr '\n' ' ')
if [ "$(wc -l <"$CLI_TMP/declared")" -ge 35 ] && [ -z "$missing" ]; then
    cli_result "libtfpi.so exports all $(wc -l <"$CLI_TMP/declared") functions of tfpi.h" yes ""
else
    cli_result "libtfpi.so exports every function of tfpi.h" no \
        "$(wc -l <"$CLI_TMP/declared") declared; missing: $missing"
fi
cli_summary
