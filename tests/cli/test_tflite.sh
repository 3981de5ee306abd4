# test_tflite.sh - .tflite models through run_graph: the float models of
# ../shared/testdata/tflite against Arm NN's outputs (1e-5 relative) and the
# Keras digit model against tflite_file.py's numpy evaluation of its own
# weights, by tensor names and by signature keys, on 1 and 3 threads; the
# quantized ones within one output step of Arm NN once the kernels of their
# operators are compiled in (until then each is skipped, naming the ops it
# waits for); the Edge TPU model's one-line error.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
TD=${TFPI_TESTDATA:-../shared/testdata}
TL=$TD/tflite
T=$CLI_TMP

# near NAME GOT WANT [HOW]: the run before succeeded and GOT is within 1e-5
# relative of WANT (HOW=absolute: within 1e-5).
near() {
    if [ "$rc" -ne 0 ]; then cli_result "$1" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"; return; fi
    if [ "${4:-}" = absolute ]; then cmp_tool="tests/cli/saved_model_refs.py compare"; else cmp_tool="tests/cli/tflite_refs.py compare"; fi
    if $PY $cmp_tool "$2" "$3" 1e-5 >"$T/cmp"; then cli_result "$1 ($(cat "$T/cmp"))" yes ""
    else cli_result "$1" no "$(cat "$T/cmp")"; fi
}

# within_step NAME GOT WANT [STEP]: the run before succeeded and GOT is
# within one code of WANT (float outputs: within STEP).
within_step() {
    if [ "$rc" -ne 0 ]; then cli_result "$1" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"; return; fi
    if $PY tests/cli/tflite_refs.py steps "$2" "$3" ${4:-} >"$T/cmp"; then cli_result "$1 ($(cat "$T/cmp"))" yes ""
    else cli_result "$1" no "$(cat "$T/cmp")"; fi
}

for threads in 1 3; do
    run_tool run_graph --graph=$TL/fashion_cnn_float/model_no_quant.tflite --num_threads=$threads \
        --input=serving_default_input_1:0=$TL/fashion_cnn_float/input_0.npy --output=StatefulPartitionedCall:0="$T/f.npy"
    near "fashion_cnn_float (CONV_2D, MAX_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX) against Arm NN, $threads threads" \
        "$T/f.npy" $TL/fashion_cnn_float/ref_armnn_0.npy
    run_tool run_graph --graph=$TL/mnist_dense_float/mnist.tflite --num_threads=$threads \
        --input=flatten_input=$TL/mnist_dense_float/input_0.npy --output=Identity="$T/m.npy"
    near "mnist_dense_float (FULLY_CONNECTED on a [1,28,28] input) against Arm NN, $threads threads" \
        "$T/m.npy" $TL/mnist_dense_float/ref_armnn_0.npy
done

$PY tests/cli/tf2_saved_model_refs.py make "$TD/savedmodel" "$T"
DIGIT=$TD/savedmodel/digit_tflite_tf2/tflite_model.tflite
run_tool run_graph --graph=$DIGIT --input=dense_input="$T/digit_tflite_tf2_in.npy" --output=dense_1="$T/d.npy"
near "digit_tflite_tf2.tflite by signature keys, batch 4 (shape_signature [-1,784]) against numpy" \
    "$T/d.npy" "$T/digit_tflite_want.npy" absolute
run_tool run_graph --graph=$DIGIT --input=serving_default_dense_input:0="$T/digit_tflite_tf2_in.npy" \
    --output=StatefulPartitionedCall:0="$T/d.npy"
near "digit_tflite_tf2.tflite by tensor names" "$T/d.npy" "$T/digit_tflite_want.npy" absolute

expect_error "an Edge TPU model: one line, the file to use instead" \
    "model_edgetpu.tflite: compiled for the Coral Edge TPU \(edgetpu-custom-op\).*use the CPU .tflite it was compiled from" \
    run_graph --graph=$TL/tm_edgetpu_uint8/model_edgetpu.tflite --output=x

# Quantized models: within one output step of Arm NN once their operators'
# kernels are compiled in (the float-output one: one step of its softmax's
# int8 scale, 1/256, after DEQUANTIZE).
while read -r m input output; do
    dir=$TL/$(dirname "$m")
    run_tool print_required_ops --graph="$TL/$m"
    missing=$(sed -n 's/^# no tfpi kernel: \([A-Za-z0-9_]*\) .*/\1/p' "$CLI_TMP/out" | tr '\n' ' ')
    if [ -n "$missing" ]; then
        echo "skip $m: waits for the kernels of $missing"
        continue
    fi
    run_tool run_graph --graph="$TL/$m" --input="$input=$dir/input_0.npy" --output="$output=$T/q.npy"
    within_step "$m against Arm NN" "$T/q.npy" "$dir/ref_armnn_0.npy" $(case $m in fashion*) echo 0.00390625 ;; esac)
done <<EOM
chess_effnet_int8/model.tflite input_1 Identity
mask_mnv2_int8/mask_detector_quant.tflite mobilenetv2_1.00_224_input Identity
fashion_cnn_int8_floatio/model.tflite serving_default_input_1:0 StatefulPartitionedCall:0
EOM

cli_summary
