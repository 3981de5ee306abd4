#!/bin/sh
# test_freeze_graph.sh - freeze_graph with TensorFlow's flags on the real
# checkpoints and SavedModels of ../shared/testdata/savedmodel and on a
# MobileNet turned into each form users have (make_saved_model.py): the
# frozen graph gives exactly the outputs of the model run directly, loads
# in OpenCV DNN (an independent reader of TensorFlow GraphDefs) with the
# same results, and runs in the other tools, which also take a SavedModel
# directory themselves.
. tests/cli/lib.sh
. tests/cli/saved_model_lib.sh

# ---- houseprices_ckpt: .meta + checkpoint, and the graph with its checkpoint ----
HP="--input=Placeholder=$T/false.npy --input=Placeholder_1=$T/house_in.npy"
run_tool run_graph --graph=$SM/houseprices_ckpt $HP --output=Squeeze="$T/house_direct.npy"
expect_output "freeze --input_meta_graph --input_checkpoint=PREFIX" "Converted 10 variables to const ops" \
    freeze_graph --input_meta_graph=$SM/houseprices_ckpt/model.ckpt.meta \
    --input_checkpoint=$SM/houseprices_ckpt/model.ckpt --output_node_names=Squeeze --output_graph="$T/house.pb"
run_tool run_graph --graph="$T/house.pb" $HP --output=Squeeze="$T/house_frozen.npy"
same_npy "houseprices frozen = run from .meta + checkpoint, exactly" "$T/house_frozen.npy" "$T/house_direct.npy"
if $PY $REFS compare "$T/house_frozen.npy" "$T/house_want.npy" 1e-5 >"$T/cmp"; then
    cli_result "houseprices frozen against numpy ($(cat "$T/cmp"))" yes ""
else cli_result "houseprices frozen against numpy" no "$(cat "$T/cmp")"; fi
expect_output "freeze --input_checkpoint=a directory with a checkpoint file" "Converted 10 variables" \
    freeze_graph --input_meta_graph=$SM/houseprices_ckpt/model.ckpt.meta --input_checkpoint=$SM/houseprices_ckpt \
    --output_node_names=Squeeze --output_graph="$T/house2.pb"
same_output_file() { # NAME A B
    if cmp -s "$2" "$3"; then cli_result "$1" yes ""; else cli_result "$1" no "$2 and $3 differ"; fi
}
same_output_file "the same frozen graph either way" "$T/house.pb" "$T/house2.pb"

# ---- xor_tf1 / iris_tf1: SavedModels ----
run_tool run_graph --graph=$SM/xor_tf1/1 --input=inputs="$T/xor_in.npy" --output=prediction="$T/xor_direct.npy"
expect_output "freeze --input_saved_model_dir (tags serve)" "Converted 4 variables" \
    freeze_graph --input_saved_model_dir=$SM/xor_tf1/1 --saved_model_tags=serve \
    --output_node_names=activation_2/Sigmoid --output_graph="$T/xor.pb"
run_tool run_graph --graph="$T/xor.pb" --input=dense_1_input="$T/xor_in.npy" --output=activation_2/Sigmoid="$T/xor_frozen.npy"
same_npy "xor frozen = SavedModel run directly, exactly" "$T/xor_frozen.npy" "$T/xor_direct.npy"
run_tool run_graph --graph=$SM/iris_tf1/1 --signature_def=predict-iris --input=inputs="$T/iris_in.npy" \
    --output=prediction="$T/iris_direct.npy"
run_tool freeze_graph --input_saved_model_dir=$SM/iris_tf1/1 --output_node_names=sequential_1/dense_2/Softmax:0 \
    --output_graph="$T/iris.pb"
warned=$(grep -c "output_node_names takes node names: 'sequential_1/dense_2/Softmax:0' is read as 'sequential_1/dense_2/Softmax'" "$CLI_TMP/err")
cli_result "a tensor name in --output_node_names is taken as its node, with a warning" \
    "$([ "$rc" -eq 0 ] && [ "$warned" = 1 ] && echo yes)" "exit $rc: $(cat "$CLI_TMP/err")"
run_tool run_graph --graph="$T/iris.pb" --input=x="$T/iris_in.npy" --output=sequential_1/dense_2/Softmax="$T/iris_frozen.npy"
same_npy "iris frozen = SavedModel predict-iris, exactly" "$T/iris_frozen.npy" "$T/iris_direct.npy"

# OpenCV reads the frozen graph as TensorFlow would and computes the same.
ok=$($PY -c "
import sys; sys.path.insert(0, 'tests/diff'); import numpy as np, opencv_run
g = open('$T/xor.pb', 'rb').read()
got = opencv_run.run_isolated(g, {'dense_1_input': np.load('$T/xor_in.npy')}, ['activation_2/Sigmoid'])[0]
print('yes' if np.abs(got.reshape(-1) - np.load('$T/xor_want.npy').reshape(-1)).max() < 1e-5 else 'no')" 2>&1)
cli_result "OpenCV DNN loads the frozen xor graph and matches numpy" "$ok" "$ok"

# ---- TF2 SavedModels: one flat graph (calls inlined, loops lowered), variable reads made constants ----
$PY tests/cli/tf2_saved_model_refs.py make "$SM" "$T"
for case in mnist_bn_tf2:.:conv2d_input:22 digit_tflite_tf2:saved_model:dense_input:4 \
    stock_lstm_tf2:.:lstm_input:14; do
    # shellcheck disable=SC2046
    set -- $(echo "$case" | tr : ' ')
    model=$1 dir=$2 arg=$3 count=$4
    expect_output "freeze TF2 $model (Converted $count variables)" "Converted $count variables to const ops" \
        freeze_graph --input_saved_model_dir=$SM/$model/$dir --output_node_names=StatefulPartitionedCall \
        --output_graph="$T/$model.pb"
    run_tool run_graph --graph="$T/$model.pb" --input=serving_default_$arg="$T/${model}_in.npy" \
        --output=StatefulPartitionedCall="$T/${model}_frozen.npy"
    run_tool run_graph --graph=$SM/$model/$dir --input=$arg="$T/${model}_in.npy" \
        --output=StatefulPartitionedCall="$T/${model}_direct.npy"
    same_npy "TF2 $model frozen = the SavedModel run directly, exactly" "$T/${model}_frozen.npy" "$T/${model}_direct.npy"
    near "TF2 $model frozen against numpy" "$T/${model}_frozen.npy" "$T/${model}_want.npy"
    ok=$($PY -c "
import sys; sys.path.insert(0, 'tests/diff'); import graphdef
ops = {n.op for n in graphdef.decode_graph(open('$T/$model.pb', 'rb').read())}
bad = ops & {'StatefulPartitionedCall', 'PartitionedCall', 'VarHandleOp', 'ReadVariableOp', 'While', 'If'}
print('yes' if not bad else 'no: %s' % sorted(bad))")
    cli_result "TF2 $model frozen: no calls, functional loops or variables left" "$ok" "$ok"
done
# Output names as TensorFlow's TF2 freezing gives them (relative to the signature's function).
expect_output "freeze TF2 by TensorFlow's names inside the functions" "Converted 4 variables" \
    freeze_graph --input_saved_model_dir=$SM/digit_tflite_tf2/saved_model \
    --output_node_names=StatefulPartitionedCall/sequential/dense_1/Sigmoid,Identity --output_graph="$T/digit_named.pb"
run_tool run_graph --graph="$T/digit_named.pb" --input=serving_default_dense_input="$T/digit_tflite_tf2_in.npy" \
    --output=StatefulPartitionedCall/sequential/dense_1/Sigmoid="$T/digit_named.npy" --output=Identity="$T/digit_id.npy"
same_npy "... fetched by those names: exactly the SavedModel's outputs" "$T/digit_named.npy" "$T/digit_tflite_tf2_direct.npy"
same_npy "... and by Identity" "$T/digit_id.npy" "$T/digit_tflite_tf2_direct.npy"
for case in digit_tflite_tf2:dense_input:dense_1/Sigmoid mnist_bn_tf2:conv2d_input:dense_1/Softmax; do
    # shellcheck disable=SC2046
    set -- $(echo "$case" | tr : ' ')
    model=$1 arg=$2 out=$3
    ok=$($PY -c "
import sys; sys.path.insert(0, 'tests/diff'); import numpy as np, opencv_run
got = opencv_run.run_isolated(open('$T/$model.pb', 'rb').read(), {'serving_default_$arg': np.load('$T/${model}_in.npy')},
                              ['StatefulPartitionedCall/StatefulPartitionedCall/sequential/$out'])[0]
d = np.abs(got - np.load('$T/${model}_direct.npy')).max()
print('yes' if d < 1e-5 else 'no: max |d| %g' % d)" 2>&1)
    cli_result "OpenCV DNN loads the frozen TF2 $model and matches the SavedModel run directly" "$ok" "$ok"
done

# ---- MobileNet as a .meta, a GraphDef (.pb and .pbtxt) and a SavedModel ----
MODEL=downloads/models/mobilenet_v1_0.25_224
OUT=MobilenetV1/Predictions/Reshape_1
$PY tests/cli/make_saved_model.py $MODEL/frozen_graph.pb "$T/mn_meta" --input=input --output=$OUT --meta --rename
$PY tests/cli/make_saved_model.py $MODEL/frozen_graph.pb "$T/mn_sm" --input=input --output=$OUT \
    --partition=MobilenetV1/Conv2d_1_pointwise/weights
run_tool run_graph --graph=$MODEL/frozen_graph.pb --input=input="$T/image.npy" --output=$OUT="$T/mn_want.npy"
expect_output "freeze a .meta whose keys are renamed" "Converted 129 variables" \
    freeze_graph --input_meta_graph="$T/mn_meta/model.ckpt.meta" --input_checkpoint="$T/mn_meta/model.ckpt" \
    --output_node_names=$OUT --output_graph="$T/mn_meta.pb"
run_tool run_graph --graph="$T/mn_meta.pb" --input=input="$T/image.npy" --output=$OUT="$T/mn_meta.npy"
same_npy "frozen from .meta = the original frozen graph, exactly" "$T/mn_meta.npy" "$T/mn_want.npy"
expect_output "freeze a SavedModel with a partitioned variable" "Converted 130 variables" \
    freeze_graph --input_saved_model_dir="$T/mn_sm" --output_node_names=$OUT --output_graph="$T/mn_sm.pb"
run_tool run_graph --graph="$T/mn_sm.pb" --input=input="$T/image.npy" --output=$OUT="$T/mn_sm.npy"
same_npy "frozen from a SavedModel = the original frozen graph, exactly" "$T/mn_sm.npy" "$T/mn_want.npy"
ok=$($PY -c "
import sys; sys.path.insert(0, 'tests/diff'); import numpy as np, opencv_run
got = opencv_run.run_isolated(open('$T/mn_meta.pb', 'rb').read(), {'input': np.load('$T/image.npy')}, ['$OUT'])[0]
d = np.abs(got.reshape(-1) - np.load('$T/mn_want.npy').reshape(-1)).max()
print('yes' if d < 1e-4 else 'no: max |d| %g' % d)" 2>&1)
cli_result "OpenCV DNN loads the frozen MobileNet and matches tfpi" "$ok" "$ok"

# The GraphDef of the .meta, binary and text, with --input_checkpoint (keys from its restore ops).
$PY -c "
import sys; sys.path.insert(0, 'tests/cli'); import checkpoint_files as ck
meta = open('$T/mn_meta/model.ckpt.meta', 'rb').read()
open('$T/mn_graph.pb', 'wb').write(next(v for n, _, v in ck.fields(meta) if n == 2))"
run_tool transform_graph --in_graph="$T/mn_graph.pb" --out_graph="$T/mn_graph.pbtxt" --output_as_text \
    --inputs=input --outputs=$OUT --transforms=sort_by_execution_order
for g in mn_graph.pb mn_graph.pbtxt; do
    expect_output "freeze --input_graph=$g --input_checkpoint" "Converted 129 variables" \
        freeze_graph --input_graph="$T/$g" --input_binary=$([ $g = mn_graph.pb ] && echo true || echo false) \
        --input_checkpoint="$T/mn_meta/model.ckpt" --output_node_names=$OUT --output_graph="$T/$g.frozen"
    run_tool run_graph --graph="$T/$g.frozen" --input=input="$T/image.npy" --output=$OUT="$T/$g.npy"
    same_npy "frozen from $g = the original frozen graph, exactly" "$T/$g.npy" "$T/mn_want.npy"
done
for g in mn_graph.pb mn_graph.pbtxt; do
    run_tool run_graph --graph="$T/$g" --checkpoint="$T/mn_meta" --input=input="$T/image.npy" \
        --output=$OUT="$T/$g.direct.npy"
    same_npy "$g run with --checkpoint = the original, exactly" "$T/$g.direct.npy" "$T/mn_want.npy"
done
expect_error "a .pbtxt with a --checkpoint that does not exist" "nothing: no checkpoint there" \
    run_graph --graph="$T/mn_graph.pbtxt" --checkpoint="$T/nothing" --input=input="$T/image.npy" --output=$OUT

# Allow and deny lists.
W=MobilenetV1/Conv2d_0/weights
expect_output "--variable_names_whitelist converts only those" "Converted 1 variables" \
    freeze_graph --input_meta_graph="$T/mn_meta/model.ckpt.meta" --output_node_names=$OUT \
    --variable_names_whitelist=$W --output_graph="$T/mn_one.pb"
expect_output "--variable_names_blacklist leaves those" "Converted 129 variables" \
    freeze_graph --input_saved_model_dir="$T/mn_sm" --output_node_names=$OUT \
    --variable_names_blacklist=$W --output_graph="$T/mn_deny.pb"
expect_error "a variable left by the deny list has no value without a checkpoint" "node '$W' \(VariableV2\): a variable with no value" \
    run_graph --graph="$T/mn_deny.pb" --input=input="$T/image.npy" --output=$OUT
run_tool run_graph --graph="$T/mn_deny.pb" --checkpoint="$T/mn_sm" --input=input="$T/image.npy" \
    --output=$OUT="$T/mn_deny.npy"
same_npy "... and takes it from --checkpoint (by its name)" "$T/mn_deny.npy" "$T/mn_want.npy"
run_tool freeze_graph --input_meta_graph="$T/mn_meta/model.ckpt.meta" --output_node_names=$OUT \
    --variable_names_blacklist=$W --output_graph="$T/mn_deny2.pb"
expect_error "... but not when it was saved under another name (the frozen graph has no restore ops)" \
    "checkpoint .*mn_meta/model.ckpt: key '$W' \(variable $W\) not found" \
    run_graph --graph="$T/mn_deny2.pb" --checkpoint="$T/mn_meta" --input=input="$T/image.npy" --output=$OUT

# ---- the frozen graph in the other tools; the tools on the SavedModel itself ----
expect_output "summarize_graph on the frozen graph" "Found 1 possible outputs: \(name=$OUT" \
    summarize_graph --in_graph="$T/mn_sm.pb"
expect_output "summarize_graph on the SavedModel: tags, signatures, variables" \
    "input  images: input:0 float" summarize_graph --in_graph="$T/mn_sm"
cli_result "summarize_graph lists a partitioned variable's part with its key and slice" \
    "$(grep -q 'weights/part_1: .*slice' "$CLI_TMP/out" && echo yes)" "$(grep part_1 "$CLI_TMP/out")"
expect_output "summarize_graph on xor_tf1" "signature 'serving_default' \(tensorflow/serving/predict\), summarized below:" \
    summarize_graph --in_graph=$SM/xor_tf1/1
expect_output "print_required_ops on a SavedModel includes its variables' kernel" "kernels/variables.c  # VariableV2" \
    print_required_ops --graph=$SM/xor_tf1/1
expect_output "print_required_ops on the frozen graph" "kernels/conv2d.c" print_required_ops --graph="$T/mn_sm.pb"
run_tool transform_graph --in_graph="$T/mn_sm" --out_graph="$T/mn_t.pb" --inputs=input --outputs=$OUT \
    --transforms='fold_constants(ignore_errors=true) fold_batch_norms'
run_tool run_graph --graph="$T/mn_t.pb" --input=input="$T/image.npy" --output=$OUT="$T/mn_t.npy"
ok=$($PY $REFS compare "$T/mn_t.npy" "$T/mn_want.npy" 1e-5)
cli_result "transform_graph on a SavedModel directory writes a frozen graph ($ok)" "$([ $rc -eq 0 ] && echo yes)" "$ok"
run_tool convert_graphdef_memmapped_format --in_graph="$T/mn_sm" --out_graph="$T/mn_mmap.pb"
run_tool run_graph --graph="$T/mn_mmap.pb" --input=input="$T/image.npy" --output=$OUT="$T/mn_mmap.npy"
same_npy "convert_graphdef_memmapped_format on a SavedModel directory, exactly" "$T/mn_mmap.npy" "$T/mn_want.npy"
expect_output "graph_to_dot on a SavedModel directory" "digraph" graph_to_dot --in_graph="$T/mn_sm"
expect_output "benchmark_model on the frozen graph" "avg" \
    benchmark_model --graph="$T/mn_sm.pb" --input_layer=input --output_layer=$OUT --num_runs=2 --warmup_runs=1

# ---- errors ----
expect_error "no --output_node_names" "You need to supply the name of a node to --output_node_names." \
    freeze_graph --input_saved_model_dir=$SM/xor_tf1/1 --output_graph="$T/x.pb"
expect_error "--input_graph without --input_checkpoint" "--input_graph needs --input_checkpoint" \
    freeze_graph --input_graph="$T/mn_graph.pb" --output_node_names=$OUT --output_graph="$T/x.pb"
expect_error "a checkpoint that does not exist" "nothing: no checkpoint there" \
    freeze_graph --input_graph="$T/mn_graph.pb" --input_checkpoint="$T/nothing" --output_node_names=$OUT \
    --output_graph="$T/x.pb"
expect_error "an output node that is not in the graph" "output node 'nope' is not in the graph" \
    freeze_graph --input_saved_model_dir=$SM/xor_tf1/1 --output_node_names=nope --output_graph="$T/x.pb"
expect_error "freezing twice" "No variables were found in this model. It is likely the model was frozen previously" \
    freeze_graph --input_graph="$T/xor.pb" --input_checkpoint=$SM/xor_tf1/1 --output_node_names=activation_2/Sigmoid \
    --output_graph="$T/x.pb"
expect_error "an unknown tag set" "no MetaGraph with tags \{ train \}" \
    freeze_graph --input_saved_model_dir=$SM/xor_tf1/1 --saved_model_tags=train --output_node_names=x --output_graph="$T/x.pb"
expect_error "V1 checkpoints" "--checkpoint_version=1: tfpi reads V2 checkpoints" \
    freeze_graph --input_saved_model_dir=$SM/xor_tf1/1 --checkpoint_version=1 --output_node_names=x --output_graph="$T/x.pb"
expect_error "transform_graph on a model without a signature" "houseprices_ckpt: the model has no signature to freeze for" \
    transform_graph --in_graph=$SM/houseprices_ckpt --out_graph="$T/x.pb" --outputs=Squeeze --transforms=sort_by_execution_order
cli_summary
