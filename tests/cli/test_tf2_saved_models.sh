# test_tf2_saved_models.sh - the TF2 Keras SavedModels of
# ../shared/testdata/savedmodel through their serving signature (function
# library inlined, the LSTMs' functional While loops lowered, resource
# variables taking the checkpoint's values) against numpy evaluations of
# their checkpoint weights (tf2_saved_model_refs.py, 1e-5), the digit model
# also against its TFLite twin's own weights, on 1 and 3 threads; the LSTM
# through benchmark_model and print_required_ops (the ops inside its
# functions and what its While loops are lowered to); iris_tf1's classify
# signature on serialized tf.Examples (ParseExample, a string lookup table
# its init op fills) against numpy, and broken examples; a copy without variables/, with a key missing,
# of the wrong shape or dtype: one error line naming the variable.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
SM=${TFPI_TESTDATA:-../shared/testdata}/savedmodel
REFS=tests/cli/tf2_saved_model_refs.py
T=$CLI_TMP
$PY $REFS make "$SM" "$T"

# near NAME GOT WANT: the run before succeeded and GOT is within 1e-5 of WANT.
near() {
    if [ "$rc" -ne 0 ]; then cli_result "$1" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"; return; fi
    if $PY tests/cli/saved_model_refs.py compare "$2" "$3" 1e-5 >"$T/cmp"; then cli_result "$1 ($(cat "$T/cmp"))" yes ""
    else cli_result "$1" no "$(cat "$T/cmp")"; fi
}

for threads in 1 3; do
    run_tool run_graph --graph=$SM/mnist_bn_tf2 --input=conv2d_input="$T/mnist_bn_tf2_in.npy" \
        --output=dense_1="$T/mnist.npy" --num_threads=$threads
    near "mnist_bn_tf2 (Conv2D + BatchNorm), $threads threads" "$T/mnist.npy" "$T/mnist_bn_tf2_want.npy"
    run_tool run_graph --graph=$SM/digit_tflite_tf2/saved_model --input=dense_input="$T/digit_tflite_tf2_in.npy" \
        --output=dense_1="$T/digit.npy" --num_threads=$threads
    near "digit_tflite_tf2, $threads threads" "$T/digit.npy" "$T/digit_tflite_tf2_want.npy"
    near "digit_tflite_tf2 against its TFLite twin, $threads threads" "$T/digit.npy" "$T/digit_tflite_want.npy"
    run_tool run_graph --graph=$SM/stock_lstm_tf2 --input=lstm_input="$T/stock_lstm_tf2_in.npy" \
        --output=dense="$T/stock.npy" --num_threads=$threads
    near "stock_lstm_tf2 (4 LSTM While loops), $threads threads" "$T/stock.npy" "$T/stock_lstm_tf2_want.npy"
done
run_tool run_graph --graph=$SM/stock_lstm_tf2 --input=serving_default_lstm_input:0="$T/stock_lstm_tf2_in.npy" \
    --output=StatefulPartitionedCall:0="$T/stock.npy"
near "stock_lstm_tf2 by tensor names" "$T/stock.npy" "$T/stock_lstm_tf2_want.npy"
expect_output "benchmark_model runs the LSTM SavedModel" "^count=2 " benchmark_model --graph=$SM/stock_lstm_tf2 \
    --input_layer=lstm_input --input_layer_shape=1,100,1 --output_layer=dense --num_runs=2

expect_output "print_required_ops lists the ops inside the LSTM's functions" \
    "kernels/tensor_list.c  # TensorListFromTensor TensorListGetItem TensorListReserve TensorListSetItem" \
    print_required_ops --graph=$SM/stock_lstm_tf2
expect_output "print_required_ops lists what While is lowered to" "kernels/control_flow.c  # Enter Exit LoopCond Merge" \
    print_required_ops --graph=$SM/stock_lstm_tf2

# iris_tf1's classify signature: serialized tf.Example in, class names and scores out
$PY $REFS iris "$SM" "$T"
for row in 0 50 100 149; do
    run_tool run_graph --graph=$SM/iris_tf1/1 --input=inputs=@"$T/iris_ex$row.bin" --output=classes \
        --output=scores="$T/iris_scores.npy"
    near "iris_tf1 classify (ParseExample, TopKV2), iris.csv row $row: scores" "$T/iris_scores.npy" \
        "$T/iris_ex${row}_scores.npy"
    if [ "$rc" -eq 0 ] && [ "$(cat "$CLI_TMP/out")" = "$(cat "$T/iris_ex${row}_classes.txt")" ]; then
        cli_result "iris_tf1 classify, iris.csv row $row: class names (HashTableV2 filled by its initializer)" yes ""
    else
        cli_result "iris_tf1 classify, iris.csv row $row: class names" no "$(head -c 300 "$CLI_TMP/out")"
    fi
done
expect_error "a serialized example that is not a tf.Example" \
    "node 'ParseExample/ParseExample' \(ParseExample\): example 0: feature 'x' the example is not a valid tf.Example" \
    run_graph --graph=$SM/iris_tf1/1 --input=inputs=@"$T/iris_bad_wire.bin" --output=scores
expect_error "an example without the feature" "example 0: feature 'x' is required, and the example lacks it" \
    run_graph --graph=$SM/iris_tf1/1 --input=inputs=@"$T/iris_missing.bin" --output=scores
expect_error "an example with int64s for floats" "example 0: feature 'x' is not a float_list" \
    run_graph --graph=$SM/iris_tf1/1 --input=inputs=@"$T/iris_int.bin" --output=scores
expect_error "an example with 2 values for 4" "example 0: feature 'x' has another number of values than its shape" \
    run_graph --graph=$SM/iris_tf1/1 --input=inputs=@"$T/iris_short.bin" --output=scores

key=layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE
for kind in no_variables missing_key wrong_shape wrong_dtype; do
    $PY $REFS damage $SM/digit_tflite_tf2/saved_model "$T/$kind" $kind $key
done
expect_error "TF2 SavedModel without variables/" \
    "variable 'dense/kernel' read before it was restored or assigned; SavedModel .*no_variables has no checkpoint" \
    run_graph --graph="$T/no_variables" --input=dense_input="$T/digit_tflite_tf2_in.npy" --output=dense_1
expect_error "TF2 variable missing from the checkpoint" \
    "checkpoint .*missing_key/variables/variables: key '$key' \(variable dense/kernel\) not found" \
    run_graph --graph="$T/missing_key" --input=dense_input="$T/digit_tflite_tf2_in.npy" --output=dense_1
expect_error "TF2 checkpoint shape disagrees with the variable" \
    "key '$key' is float \[784,99\], graph expects float \[784,100\] \(variable dense/kernel\)" \
    run_graph --graph="$T/wrong_shape" --input=dense_input="$T/digit_tflite_tf2_in.npy" --output=dense_1
expect_error "TF2 checkpoint dtype disagrees with the variable" \
    "key '$key' is double \[784,100\], graph expects float \[784,100\]" \
    run_graph --graph="$T/wrong_dtype" --input=dense_input="$T/digit_tflite_tf2_in.npy" --output=dense_1
cli_summary
