#!/bin/sh
# test_saved_model.sh - SavedModel directories, .meta files with their
# checkpoint and GraphDefs with --checkpoint, through the tools: the real
# TF1 models of ../shared/testdata/savedmodel against numpy evaluations of
# their checkpoint weights (saved_model_refs.py, 1e-5), signature keys and
# tensor names, a frozen MobileNet turned into a SavedModel and a .meta
# (make_saved_model.py: renamed keys, a partitioned variable) giving the
# frozen graph's exact outputs in every tool, and each error case as one
# line naming the file and what is wrong.
. tests/cli/lib.sh
. tests/cli/saved_model_lib.sh

run_tool run_graph --graph=$SM/xor_tf1/1 --input=inputs="$T/xor_in.npy" --output=prediction="$T/xor.npy"
near "xor_tf1 serving_default by signature keys" "$T/xor.npy" "$T/xor_want.npy"
run_tool run_graph --graph=$SM/xor_tf1/1/ --saved_model_tags=serve --signature_def=serving_default \
    --input=dense_1_input:0="$T/xor_in.npy" --output=activation_2/Sigmoid:0="$T/xor.npy"
near "xor_tf1 by tensor names" "$T/xor.npy" "$T/xor_want.npy"
run_tool run_graph --graph=$SM/iris_tf1/1 --signature_def=predict-iris --input=inputs="$T/iris_in.npy" \
    --output=prediction="$T/iris.npy"
near "iris_tf1 predict-iris, the 150 rows of iris.csv" "$T/iris.npy" "$T/iris_want.npy"
run_tool run_graph --graph=$SM/houseprices_ckpt/model.ckpt.meta --input=Placeholder="$T/false.npy" \
    --input=Placeholder_1="$T/house_in.npy" --output=Squeeze="$T/house.npy"
near "houseprices_ckpt .meta beside its checkpoint" "$T/house.npy" "$T/house_want.npy"
run_tool run_graph --graph=$SM/houseprices_ckpt --input=Placeholder="$T/false.npy" \
    --input=Placeholder_1="$T/house_in.npy" --output=Squeeze="$T/house.npy"
near "houseprices_ckpt training directory (its checkpoint file)" "$T/house.npy" "$T/house_want.npy"
cp $SM/houseprices_ckpt/model.ckpt.meta "$T/alone.meta"
run_tool run_graph --graph="$T/alone.meta" --checkpoint=$SM/houseprices_ckpt/model.ckpt \
    --input=Placeholder="$T/false.npy" --input=Placeholder_1="$T/house_in.npy" --output=Squeeze="$T/house.npy"
near "houseprices_ckpt .meta with --checkpoint" "$T/house.npy" "$T/house_want.npy"

run_tool run_graph --graph="$T/text_saved_model" --input=in="$T/text_in.npy" --output=out="$T/text.npy"
near "a SavedModel in text form (saved_model.pbtxt)" "$T/text.npy" "$T/text_want.npy"

expect_error "unknown tag set" "SavedModel .*xor_tf1/1: no MetaGraph with tags \{ train \}; available: \{ serve \}" \
    run_graph --graph=$SM/xor_tf1/1 --saved_model_tags=train --output=prediction
expect_error "unknown signature" "SavedModel .*iris_tf1/1: signature 'predict' not found; available: (serving_default, predict-iris|predict-iris, serving_default)$" \
    run_graph --graph=$SM/iris_tf1/1 --signature_def=predict --output=prediction
expect_error "unknown input key" "--input: the graph has no node named 'x'; its inputs: inputs = dense_1_input:0 \(float \[\?,2\]\)" \
    run_graph --graph=$SM/xor_tf1/1 --input=x="$T/xor_in.npy" --output=prediction
expect_error "feed of the wrong type" "feed 'inputs' is bool, but the graph expects float" \
    run_graph --graph=$SM/xor_tf1/1 --input=inputs="$T/false.npy" --output=prediction
for kind in no_variables missing_key wrong_shape wrong_dtype flipped_data; do
    $PY $REFS damage $SM/xor_tf1/1 "$T/$kind" $kind
done
expect_error "SavedModel without variables/" "node 'dense_1/(kernel|bias)' \(VariableV2\): variable read before it was restored; SavedModel .*no_variables has no variables/" \
    run_graph --graph="$T/no_variables" --input=inputs="$T/xor_in.npy" --output=prediction
expect_error "variable missing from the checkpoint" "checkpoint .*missing_key/variables/variables: key 'dense_1/kernel' \(variable dense_1/kernel\) not found" \
    run_graph --graph="$T/missing_key" --input=inputs="$T/xor_in.npy" --output=prediction
expect_error "checkpoint shape disagrees with the graph" "key 'dense_1/kernel' is float \[2,4\], graph expects float \[2,8\] \(variable dense_1/kernel\)" \
    run_graph --graph="$T/wrong_shape" --input=inputs="$T/xor_in.npy" --output=prediction
expect_error "checkpoint dtype disagrees with the graph" "key 'dense_1/kernel' is double \[2,8\], graph expects float \[2,8\]" \
    run_graph --graph="$T/wrong_dtype" --input=inputs="$T/xor_in.npy" --output=prediction
expect_error "corrupted variables data" "checksum mismatch for key '.*' \(.*flipped_data/variables/variables.data-00000-of-00001, offset" \
    run_graph --graph="$T/flipped_data" --input=inputs="$T/xor_in.npy" --output=prediction
expect_error "variables over the memory budget" "node 'dense_[12]/(kernel|bias)(/read)?' \((VariableV2|Identity)\): output 0 float \[[0-9,]+\] needs [0-9]+ bytes; .* over the memory budget of 40 bytes" \
    run_graph --graph=$SM/xor_tf1/1 --input=inputs="$T/xor_in.npy" --output=prediction --max_memory=40
expect_error "a .meta without its checkpoint" "alone.meta: a MetaGraphDef whose checkpoint is not beside it" \
    run_graph --graph="$T/alone.meta" --output=Squeeze
expect_error "a frozen graph's variables without a checkpoint" "node 'Variable' \(VariableV2\): a variable with no value" \
    run_graph --graph="$T/no_checkpoint.pb" --output=v

# The wrong file says what it is.
$PY -c "
import zipfile
open('$T/model.h5', 'wb').write(b'\x89HDF\r\n\x1a\n' + bytes(600))
with zipfile.ZipFile('$T/model.keras', 'w') as z:
    z.writestr('config.json', '{}')
    z.writestr('model.weights.h5', b'')
graph = b'\x0a\x05\x12\x03add'  # GraphProto: a node
open('$T/model.onnx', 'wb').write(b'\x08\x07\x12\x07pytorch\x3a' + bytes([len(graph)]) + graph)"
mkdir -p "$T/empty_dir"
wrong() { # NAME PATTERN PATH
    expect_error "$1" "$2" run_graph --graph="$3" --output=y
}
wrong "a .tflite" "tflite_model.tflite: a TensorFlow Lite model \(.tflite\), not a TensorFlow graph" \
    $SM/digit_tflite_tf2/tflite_model.tflite
wrong "a Keras .h5" "model.h5: a Keras HDF5 model \(.h5\): save it as a SavedModel" "$T/model.h5"
wrong "a Keras 3 .keras" "model.keras: a Keras 3 model \(.keras\): export a SavedModel" "$T/model.keras"
wrong "an ONNX model" "model.onnx: an ONNX model, not a TensorFlow graph" "$T/model.onnx"
wrong "a SavedModel's saved_model.pb" "xor_tf1/1/saved_model.pb: the saved_model.pb of a SavedModel: open its directory \(.*xor_tf1/1\)" \
    $SM/xor_tf1/1/saved_model.pb
wrong "a checkpoint's .index" "model.ckpt.index: a checkpoint's index file .*--graph=.*model.ckpt.meta" \
    $SM/houseprices_ckpt/model.ckpt.index
wrong "a checkpoint's data file" "variables.data-00000-of-00001: a checkpoint's data file" \
    $SM/xor_tf1/1/variables/variables.data-00000-of-00001
wrong "a checkpoint prefix" "houseprices_ckpt/model.ckpt: a checkpoint prefix" $SM/houseprices_ckpt/model.ckpt
wrong "a directory that is none of these" "empty_dir: a directory that is not a SavedModel \(no saved_model.pb\) nor a training checkpoint directory" \
    "$T/empty_dir"
expect_error "summarize_graph names a .tflite too" "a TensorFlow Lite model" \
    summarize_graph --in_graph=$SM/digit_tflite_tf2/tflite_model.tflite

# A frozen MobileNet as a SavedModel (its variables in two data shards, each mapped in place) and as a
# .meta + checkpoint.
MODEL=downloads/models/mobilenet_v1_0.25_224
OUT=MobilenetV1/Predictions/Reshape_1
$PY tests/cli/make_saved_model.py $MODEL/frozen_graph.pb "$T/mobilenet" --input=input --output=$OUT \
    --input_key=images --output_key=scores --rename --partition=MobilenetV1/Conv2d_0/weights --shards=2
$PY tests/cli/make_saved_model.py $MODEL/frozen_graph.pb "$T/mobilenet_meta" --input=input --output=$OUT --meta \
    --rename --identities
run_tool label_image
cp "$CLI_TMP/out" "$T/frozen_labels"
same_labels() { # NAME TOOL ARGS...: stdout equal to the frozen graph's labels
    name=$1
    shift
    run_tool "$@"
    if [ "$rc" -eq 0 ] && cmp -s "$CLI_TMP/out" "$T/frozen_labels"; then cli_result "$name" yes ""
    else cli_result "$name" no "exit $rc: $(head -c 300 "$CLI_TMP/err") $(head -n 2 "$CLI_TMP/out")"; fi
}
same_labels "label_image on a SavedModel (signature keys as the default layers)" label_image --graph="$T/mobilenet"
same_labels "label_image on a .meta + checkpoint (renamed keys, restore through Identity nodes)" label_image --graph="$T/mobilenet_meta/model.ckpt.meta"
same_labels "label_image on a training directory" label_image --graph="$T/mobilenet_meta"
run_tool run_graph --graph=$MODEL/frozen_graph.pb --input=input="$T/image.npy" --output=$OUT="$T/frozen.npy"
for form in mobilenet mobilenet_meta; do
    run_tool run_graph --graph="$T/$form" --input=input="$T/image.npy" --output=$OUT="$T/$form.npy"
    same_npy "run_graph $form: the frozen graph's exact outputs" "$T/frozen.npy" "$T/$form.npy"
done
mkdir -p "$T/frames"
cp downloads/images/grace_hopper.jpg "$T/frames/"
run_tool camera --frames_from="$T/frames" --print_threshold=0
cp "$CLI_TMP/out" "$T/camera_frozen"
run_tool camera --graph="$T/mobilenet" --frames_from="$T/frames" --print_threshold=0
if [ "$rc" -eq 0 ] && [ -s "$T/camera_frozen" ] && cmp -s "$CLI_TMP/out" "$T/camera_frozen"; then
    cli_result "camera on a SavedModel announces what it does on the frozen graph ($(cat "$T/camera_frozen"))" yes ""
else cli_result "camera on a SavedModel" no "exit $rc: $(head -c 300 "$CLI_TMP/err") $(cat "$CLI_TMP/out")"; fi
DET=${TFPI_TESTDATA:-../shared/testdata}/detection/ssd_aiy
$PY tests/cli/make_saved_model.py $DET/frozen_inference_graph.pb "$T/ssd" --input=image_tensor --output=detection_boxes
$PY tests/cli/detection_reference.py png "$DET/grace_hopper.image_tensor.npy" "$T/grace_hopper.png"
run_tool detect --graph=$DET/frozen_inference_graph.pb --labels=$DET/labels.txt --image="$T/grace_hopper.png" --threshold=0.05
cp "$CLI_TMP/out" "$T/detect_frozen"
run_tool detect --graph="$T/ssd" --labels=$DET/labels.txt --image="$T/grace_hopper.png" --threshold=0.05
if [ "$rc" -eq 0 ] && [ -s "$T/detect_frozen" ] && cmp -s "$CLI_TMP/out" "$T/detect_frozen"; then
    cli_result "detect on a SavedModel finds what it does on the frozen graph ($(wc -l <"$T/detect_frozen") boxes)" yes ""
else cli_result "detect on a SavedModel" no "exit $rc: $(head -c 300 "$CLI_TMP/err")"; fi
expect_output "benchmark_model on a SavedModel by signature keys" "Average inference timings|avg" \
    benchmark_model --graph="$T/mobilenet" --input_layer=images --output_layer=scores --num_runs=2 --warmup_runs=1
cli_summary
