# test_tflite_builtins.sh - one-operator .tflite files of the builtins
# added to the reader and kernels (EMBEDDING_LOOKUP, its hybrid form,
# CUMSUM, REDUCE_ALL, ONE_HOT, REVERSE_SEQUENCE, BROADCAST_ARGS,
# RELU_0_TO_1, quantized BROADCAST_TO, MIRROR_PAD, SELECT_V2, comparisons,
# BATCH_TO_SPACE_ND, SHAPE, RANK, int8 REDUCE_MIN, MATRIX_DIAG,
# MATRIX_SET_DIAG, DEQUANTIZE of float16 weights, and the HASHTABLE operators with the
# CALL_ONCE that fills a table; tests/cli/tflite_builtins.py writes them),
# and the 8-bit builtins with TFLite's own integer rules (TRANSPOSE_CONV...;
# tests/cli/tflite_quantized_ops.py) through run_graph, against numpy:
# integer and bool outputs exactly, float outputs within 1e-6 relative.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
DIR=$CLI_TMP/tflite_builtins
cases=""
for writer in tflite_builtins tflite_quantized_ops; do
    if ! written=$("$PY" "tests/cli/$writer.py" "$DIR" 2>"$CLI_TMP/pyerr"); then
        cli_result "one-operator .tflite files written by $writer.py" no "$(tail -n 1 "$CLI_TMP/pyerr")"
        cli_summary
        exit
    fi
    cases="$cases $written"
done
for c in $cases; do
    args=""
    for f in "$DIR/$c".in.*.npy; do
        t=${f#"$DIR/$c.in."}
        args="$args --input=${t%.npy}=$f"
    done
    for f in "$DIR/$c".want.*.npy; do
        t=${f#"$DIR/$c.want."}
        args="$args --output=${t%.npy}=$DIR/$c.got.${t}"
    done
    # shellcheck disable=SC2086 # the paths hold no spaces
    run_tool run_graph --graph="$DIR/$c.tflite" $args
    if [ "$rc" -ne 0 ]; then
        cli_result "$c" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
        continue
    fi
    verdict=$("$PY" - "$DIR" "$c" <<'PYEOF'
import glob
import sys
import numpy as np
d, c = sys.argv[1], sys.argv[2]
bad, n = [], 0
for want_path in sorted(glob.glob(f"{d}/{c}.want.*.npy")):
    want, got = np.load(want_path), np.load(want_path.replace(".want.", ".got."))
    n += want.size
    name = want_path[len(d) + len(c) + 7:-4]
    if want.dtype != got.dtype or want.shape != got.shape:
        bad.append(f"{name}: {got.dtype}{got.shape}, want {want.dtype}{want.shape}")
    elif want.dtype.kind == "f" and not np.allclose(got, want, rtol=1e-6, atol=1e-6):
        bad.append(f"{name}: differs by up to {np.max(np.abs(got - want))}")
    elif want.dtype.kind != "f" and not np.array_equal(got, want):
        bad.append(f"{name}: {int(np.sum(got != want))} of {want.size} differ")
print(f"ok {n}" if not bad else "; ".join(bad))
PYEOF
)
    case $verdict in
    "ok "*) cli_result "$c: ${verdict#ok } values as numpy computes them" yes "" ;;
    *) cli_result "$c" no "$verdict" ;;
    esac
done
cli_summary
