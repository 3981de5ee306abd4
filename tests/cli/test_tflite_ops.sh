# test_tflite_ops.sh - the kernels of TensorFlow Lite operators
# (kernels/tflite_*.c) on graphs of TFLite-named nodes, against the outputs
# TFLite's reference integer rules give, worked out in numpy
# (tests/cli/tflite_ops_reference.py): every integer output bit for bit
# (float outputs within 1e-6 relative; the LSTM's within 1e-5 and 1e-6
# absolute), one check per op family, under
# run_graph with 1 and 3 threads.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
DIR=$CLI_TMP/tflite_ops
if ! families=$("$PY" tests/cli/tflite_ops_reference.py "$DIR" 2>"$CLI_TMP/pyerr"); then
    cli_result "TFLite op reference cases written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
for family in $families; do
    for threads in 1 3; do
        # shellcheck disable=SC2046 # one flag a line, no spaces in them
        run_tool run_graph --graph="$DIR/$family.pb" $(cat "$DIR/$family.args") --num_threads=$threads
        if [ "$rc" -ne 0 ]; then
            cli_result "TFLite ops $family ($threads threads)" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
            continue
        fi
        verdict=$("$PY" - "$DIR" "$family" <<'PYEOF'
import glob
import sys
import numpy as np
d, fam = sys.argv[1], sys.argv[2]
rtol, atol = (float(v) for v in open(f"{d}/{fam}.tolerance").read().split())
bad, n = [], 0
for want_path in sorted(glob.glob(f"{d}/{fam}.*.want.npy")):
    n += 1
    want, got = np.load(want_path), np.load(want_path.replace(".want.", ".got."))
    name = want_path[len(d) + len(fam) + 2:-9]
    if want.dtype != got.dtype or want.shape != got.shape:
        bad.append(f"{name}: {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
    elif want.dtype.kind == "f" and not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        bad.append(f"{name}: float values differ by up to {np.nanmax(np.abs(got - want))}")
    elif want.dtype.kind != "f" and not np.array_equal(want, got):
        i = np.argwhere(want != got)[0]
        bad.append(f"{name}: {int(np.sum(want != got))} differ, first at {tuple(i)}: {got[tuple(i)]} want {want[tuple(i)]}")
print(f"ok {n}" if not bad else f"{len(bad)} of {n} outputs differ; " + "; ".join(bad[:4]))
PYEOF
)
        case $verdict in
        "ok "*) cli_result "TFLite ops $family: ${verdict#ok } outputs bit for bit ($threads threads)" yes "" ;;
        *) cli_result "TFLite ops $family ($threads threads)" no "$verdict" ;;
        esac
    done
done
cli_summary
