# test_nms_reference.sh - NonMaxSuppressionV5, hard and soft, on box sets
# that stress the kernel's spatial grid (tests/cli/nms_reference.py),
# against numpy's direct greedy NMS: the same indices, scores within 1e-6.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
DIR=$CLI_TMP/nms
if ! cases=$("$PY" tests/cli/nms_reference.py "$DIR" 2>"$CLI_TMP/pyerr"); then
    cli_result "NMS reference cases written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
for case in $cases; do
    run_tool run_graph --graph="$DIR/$case.pb" --output="y:0=$DIR/$case.got_indices.npy" \
        --output="y:1=$DIR/$case.got_scores.npy" --num_threads=1
    if [ "$rc" -ne 0 ]; then
        cli_result "NMS $case" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
        continue
    fi
    verdict=$("$PY" - "$DIR/$case" <<'PYEOF'
import sys
import numpy as np
p = sys.argv[1]
want_i, got_i = np.load(p + ".indices.npy"), np.load(p + ".got_indices.npy")
want_s, got_s = np.load(p + ".scores.npy"), np.load(p + ".got_scores.npy")
if want_i.shape != got_i.shape or not np.array_equal(want_i, got_i):
    print("indices differ: %d selected, numpy %d; first %s vs %s" % (len(got_i), len(want_i), got_i[:8], want_i[:8]))
elif not np.allclose(got_s, want_s, rtol=1e-6, atol=0):
    print("scores differ by up to %g" % np.max(np.abs(got_s - want_s)))
else:
    print("ok %d" % len(got_i))
PYEOF
)
    case $verdict in
    "ok "*) cli_result "NMS $case: ${verdict#ok } boxes selected as numpy's" yes "" ;;
    *) cli_result "NMS $case" no "$verdict" ;;
    esac
done
cli_summary
