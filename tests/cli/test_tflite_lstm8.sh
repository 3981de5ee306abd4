# test_tflite_lstm8.sh - TensorFlow Lite's fully integer LSTM: crafted
# int8 UNIDIRECTIONAL_SEQUENCE_LSTM .tflite files (tests/cli/tflite_lstm8.py,
# written with tflite_writer.py: variable state tensors, intermediates)
# through run_graph on 1 and 3 threads, every output code bit for bit
# against TFLite's integer rules worked out in numpy.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
DIR=$CLI_TMP/tflite_lstm8
if ! cases=$(cd tests/cli && "$PY" tflite_lstm8.py "$DIR" 2>"$CLI_TMP/pyerr"); then
    cli_result "integer LSTM .tflite files written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
for model in $cases; do
    for threads in 1 3; do
        run_tool run_graph --graph="$DIR/$model.tflite" --input=x="$DIR/$model.x.npy" --output=out="$DIR/$model.got.npy" \
            --num_threads=$threads
        if [ "$rc" -ne 0 ]; then
            cli_result "integer LSTM $model ($threads threads)" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
            continue
        fi
        verdict=$("$PY" -c '
import sys
import numpy as np
want, got = np.load(sys.argv[1]), np.load(sys.argv[2])
if want.dtype != got.dtype or want.shape != got.shape:
    print(f"{got.dtype}{got.shape}, want {want.dtype}{want.shape}")
elif not np.array_equal(want, got):
    print(f"{int(np.sum(want != got))} of {want.size} codes differ")
else:
    print(f"ok {want.size}")' "$DIR/$model.want.npy" "$DIR/$model.got.npy")
        case $verdict in
        "ok "*) cli_result "integer LSTM $model: ${verdict#ok } int8 codes bit for bit ($threads threads)" yes "" ;;
        *) cli_result "integer LSTM $model ($threads threads)" no "$verdict" ;;
        esac
    done
done
cli_summary
