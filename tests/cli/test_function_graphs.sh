# test_function_graphs.sh - TF2 function graphs (tests/cli/function_graphs.py:
# calls, nested and polymorphic calls, list arguments, functional While over
# counters and TensorLists, If on predicates of every kind, Case in and out of
# range, loops in branches, branches in loops, loops in loops) through
# run_graph, every output against numpy's answer (within 1e-5, integers
# exactly).
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CORPUS=$CLI_TMP/functions

if ! "$PY" tests/cli/function_graphs.py "$CORPUS" >"$CLI_TMP/count" 2>"$CLI_TMP/pyerr"; then
    cli_result "function graphs written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi

# compare want=A:got=B ... : "ok" or what differs.
compare() {
    "$PY" -c "
import sys, numpy as np
for pair in sys.argv[1:]:
    want, got = pair[len('want='):].split(':got=')
    a, b = np.load(want), np.load(got)
    if a.shape != b.shape or a.dtype != b.dtype:
        print('%s: %s %s, expected %s %s' % (got, b.dtype, b.shape, a.dtype, a.shape)); sys.exit()
    d = np.abs(a.astype(np.float64) - b)
    if a.dtype.kind == 'f':
        d[np.isnan(a) & np.isnan(b)] = 0  # NaN where NaN is wanted
    if a.size and not (d <= (1e-5 if a.dtype.kind == 'f' else 0)).all():
        print('%s: max |d| %.2e' % (got, np.nanmax(d) if not np.isnan(d).all() else np.nan)); sys.exit()
print('ok')" "$@" 2>&1
}

tab=$(printf '\t')
while IFS="$tab" read -r line; do
    name=${line%%"$tab"*}
    set -f
    IFS="$tab"
    # shellcheck disable=SC2086
    set -- ${line#*"$tab"}
    unset IFS
    set +f
    flags="" pairs=""
    for a in "$@"; do
        case $a in
        want=*) pairs="$pairs $a" ;;
        *) flags="$flags $a" ;;
        esac
    done
    # shellcheck disable=SC2086
    run_tool run_graph $flags
    if [ "$rc" -ne 0 ]; then
        cli_result "$name" no "$(head -c 300 "$CLI_TMP/err")"
        continue
    fi
    # shellcheck disable=SC2086
    verdict=$(compare $pairs)
    cli_result "$name" "$([ "$verdict" = ok ] && echo yes || echo no)" "$verdict"
done <"$CORPUS/manifest.tsv"
cli_summary
