# manifest_lib.sh - runs a manifest of run_graph cases (written by
# function_graphs.py, export_models.py), each output against numpy's answer
# (within 1e-5; integers and strings exactly). Sourced after lib.sh; needs $PY.

# compare want=A:got=B ... : "ok" or what differs.
compare() {
    "$PY" -c "
import sys, numpy as np
for pair in sys.argv[1:]:
    want, got = pair[len('want='):].split(':got=')
    a, b = np.load(want, allow_pickle=True), np.load(got, allow_pickle=True)
    if a.dtype.kind in 'OSU':  # strings: the same bytes
        same = a.shape == b.shape and b.dtype.kind in 'OSU' and \
            [bytes(x) for x in a.reshape(-1)] == [bytes(x) for x in b.reshape(-1)]
        if not same:
            print('%s: %r, expected %r' % (got, b.reshape(-1)[:8], a.reshape(-1)[:8])); sys.exit()
        continue
    if a.shape != b.shape or a.dtype != b.dtype:
        print('%s: %s %s, expected %s %s' % (got, b.dtype, b.shape, a.dtype, a.shape)); sys.exit()
    a, b = a.reshape(-1), b.reshape(-1)
    with np.errstate(invalid='ignore'):
        d = np.abs(a.astype(np.float64) - b)
    d[a == b] = 0  # infinities where they are wanted
    if a.dtype.kind == 'f':
        d[np.isnan(a) & np.isnan(b)] = 0  # NaN where NaN is wanted
    if a.size and not (d <= (1e-5 if a.dtype.kind == 'f' else 0)).all():
        print('%s: max |d| %.2e' % (got, np.nanmax(d) if not np.isnan(d).all() else np.nan)); sys.exit()
print('ok')" "$@" 2>&1
}

# run_manifest FILE: each line a case name, run_graph flags and
# want=A:got=B pairs, tab-separated; runs each case and compares every pair.
run_manifest() {
    tab=$(printf '\t')
    while IFS="$tab" read -r line; do
        case_name=${line%%"$tab"*}
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
            cli_result "$case_name" no "$(head -c 300 "$CLI_TMP/err")"
            continue
        fi
        # shellcheck disable=SC2086
        verdict=$(compare $pairs)
        cli_result "$case_name" "$([ "$verdict" = ok ] && echo yes || echo no)" "$verdict"
    done <"$1"
}
