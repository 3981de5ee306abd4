# test_text_hostile.sh - hostile graphs for the string, sparse and counting
# ops (tests/cli/hostile_text.py writes them): each gives one error line
# naming the node and what is wrong, a non-zero exit, no crash, no
# sanitizer report, within the time limit.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CLI_TIME_LIMIT=$HOSTILE_TIME_LIMIT

if ! "$PY" tests/cli/hostile_text.py "$CLI_TMP/corpus" >"$CLI_TMP/count" 2>"$CLI_TMP/pyerr"; then
    cli_result "hostile text graphs written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
tab=$(printf '\t')
while IFS="$tab" read -r name expect flags; do
    # shellcheck disable=SC2086
    set -f
    IFS="$tab"
    set -- $flags
    unset IFS
    set +f
    expect_error "$name" "${expect#error:}" run_graph "$@"
done <"$CLI_TMP/corpus/manifest.tsv"
cli_summary
