# test_function_graphs.sh - TF2 function graphs (tests/cli/function_graphs.py:
# calls, nested and polymorphic calls, list arguments, functional While over
# counters and TensorLists, If on predicates of every kind, Case in and out of
# range, loops in branches, branches in loops, loops in loops) through
# run_graph, every output against numpy's answer (within 1e-5, integers
# exactly).
. tests/cli/lib.sh
. tests/cli/manifest_lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CORPUS=$CLI_TMP/functions

if ! "$PY" tests/cli/function_graphs.py "$CORPUS" >"$CLI_TMP/count" 2>"$CLI_TMP/pyerr"; then
    cli_result "function graphs written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi

run_manifest "$CORPUS/manifest.tsv"
cli_summary
