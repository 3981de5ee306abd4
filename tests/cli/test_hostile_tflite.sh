# test_hostile_tflite.sh - the hostile .tflite corpus (tests/cli/hostile_tflite.py
# writes it): every broken file gives one error line matching what is wrong
# and a non-zero exit through run_graph, and summarize_graph refuses it the
# same way; none crashes, trips a sanitizer or runs past the time limit.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CLI_TIME_LIMIT=$HOSTILE_TIME_LIMIT

if ! "$PY" tests/cli/hostile_tflite.py "$CLI_TMP/corpus" 2>"$CLI_TMP/pyerr"; then
    cli_result "hostile .tflite corpus written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
tab=$(printf '\t')
while IFS="$tab" read -r name pattern; do
    expect_error "$name" "$pattern" run_graph --graph="$CLI_TMP/corpus/$name.tflite" --output=y
    case $name in *custom_op_missing | *_loads) continue ;; esac # loads: only running it fails
    expect_error "$name (summarize_graph)" "$pattern" summarize_graph --in_graph="$CLI_TMP/corpus/$name.tflite"
done <"$CLI_TMP/corpus/manifest.tsv"
cli_summary
