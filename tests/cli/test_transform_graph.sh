# test_transform_graph.sh - transform_graph on small models: the batch-norm
# folds and the strip/remove/fold/sort pipeline leave the outputs as they
# were (run_graph before and after), quantize_weights / round_weights make
# the file (or its gzip) small, every other transform does its rewrite, text
# output reads back, and bad --transforms get one clear error. The full-size
# figures are in tests/bench_tools.sh. Models are cached in gen/models.
. tests/cli/lib.sh
. tests/cli/diff_lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
MODELS=${TFPI_MODELS:-gen/models}
MOBILENET=$TD/mobilenet_v1_0.25_224/frozen_graph.pb
MOBILENET_OUT=MobilenetV1/Predictions/Reshape_1
GRU=$TD/tf2onnx_models/gru.frozen.pb
DATA=tests/cli/data

# transformed NAME IN TRANSFORMS [flags] : transform_graph IN into $CLI_TMP/t.pb;
# false (and a FAIL line) if it failed. (Helpers prefix their variables:
# sh has no locals.)
transformed() {
    t_name=$1 t_in=$2 t_spec=$3
    shift 3
    run_tool transform_graph --in_graph="$t_in" --out_graph="$CLI_TMP/t.pb" --transforms="$t_spec" "$@"
    [ "$rc" -eq 0 ] && return 0
    cli_result "$t_name" no "transform_graph exit status $rc: $(head -c 300 "$CLI_TMP/err")"
    return 1
}

# same_outputs NAME GRAPH FEEDS OUTPUT COMPARE-ARGS : GRAPH's OUTPUT matches
# the original's ($CLI_TMP/want.npy) within the bounds.
same_outputs() {
    s_name=$1 s_graph=$2 s_feeds=$3 s_output=$4
    shift 4
    # shellcheck disable=SC2086 # feeds are several --input flags
    run_tool run_graph --graph="$s_graph" $s_feeds --output="$s_output=$CLI_TMP/got.npy"
    ref_rc=0
    expect_match "$s_name" "$CLI_TMP/got.npy" "$CLI_TMP/want.npy" "$@"
}

# ops_absent NAME GRAPH REGEX : summarize_graph lists no op matching REGEX.
ops_absent() {
    run_tool summarize_graph --in_graph="$2"
    if [ "$rc" -ne 0 ]; then
        cli_result "$1" no "summarize_graph failed: $(head -c 200 "$CLI_TMP/err")"
    elif grep '^Op types used:' "$CLI_TMP/out" | grep -qE "[0-9]+ ($3)(,|$)"; then
        cli_result "$1" no "$(grep '^Op types used:' "$CLI_TMP/out" | head -c 300)"
    else
        cli_result "$1" yes ""
    fi
}

# ---- batch-norm folds and the cleaning pipeline on the tiny models ---------
for model in inception_v3_tiny:Mul:softmax:1,149,149,3 \
    mobilenet_v1_0.25_128_synthetic:input:MobilenetV1/Predictions/Reshape_1:1,128,128,3; do
    IFS=: read -r m_name m_in m_out m_shape <<EOF
$model
EOF
    if ! generated_model "$MODELS" "$m_name"; then
        cli_result "make_models.py $m_name" no "$(tail -n 3 "$CLI_TMP/make_models.log")"
        continue
    fi
    pb=$MODELS/$m_name.pb
    "$PY" "$DIFF/make_input.py" "$CLI_TMP/x.npy" --shape="$m_shape" --seed=2
    run_tool run_graph --graph="$pb" --input="$m_in=$CLI_TMP/x.npy" --output="$m_out=$CLI_TMP/want.npy"
    for spec in "fold_old_batch_norms" "fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms"; do
        if transformed "$m_name: $spec" "$pb" "$spec" --inputs="$m_in" --outputs="$m_out"; then
            ops_absent "$m_name: $spec leaves no batch norm" "$CLI_TMP/t.pb" "BatchNorm[A-Za-z]*|FusedBatchNorm[A-Za-z0-9]*"
            same_outputs "$m_name: $spec" "$CLI_TMP/t.pb" "--input=$m_in=$CLI_TMP/x.npy" "$m_out" --max 1e-4
        fi
    done
    spec="strip_unused_nodes remove_nodes(op=Identity, op=CheckNumerics) fold_constants sort_by_execution_order"
    if transformed "$m_name: cleaning pipeline" "$pb" "$spec" --inputs="$m_in" --outputs="$m_out"; then
        ops_absent "$m_name: no Identity or CheckNumerics left" "$CLI_TMP/t.pb" "Identity|CheckNumerics"
        same_outputs "$m_name: cleaning pipeline" "$CLI_TMP/t.pb" "--input=$m_in=$CLI_TMP/x.npy" "$m_out" --max 0 --mean 0
    fi
done

# ---- unfused batch norm of the real MobileNet, and its quantized form -----
"$PY" "$DIFF/make_input.py" "$CLI_TMP/x224.npy" --shape=1,224,224,3 --seed=3
run_tool run_graph --graph="$MOBILENET" --input=input="$CLI_TMP/x224.npy" --output=MobilenetV1/Predictions/Reshape="$CLI_TMP/want.npy"
if transformed "mobilenet: fold_constants fold_batch_norms" "$MOBILENET" "fold_constants fold_batch_norms" \
    --inputs=input --outputs="$MOBILENET_OUT"; then
    ops_absent "mobilenet: no Rsqrt, Mul or Sub left" "$CLI_TMP/t.pb" "Rsqrt|Mul|Sub"
    same_outputs "mobilenet: folded logits" "$CLI_TMP/t.pb" "--input=input=$CLI_TMP/x224.npy" MobilenetV1/Predictions/Reshape --max 1e-4
fi
# TensorFlow's quantized_graph.pb quantized the two largest weights of the
# folded graph; the same choice here must give the same logits.
run_tool run_graph --graph="$TD/mobilenet_v1_0.25_224/quantized_graph.pb" --input=input="$CLI_TMP/x224.npy" \
    --output=MobilenetV1/Predictions/Reshape="$CLI_TMP/want.npy"
if transformed "mobilenet: quantize_weights as TensorFlow did" "$MOBILENET" \
    "fold_constants fold_batch_norms quantize_weights(minimum_size=50000)" --inputs=input --outputs="$MOBILENET_OUT"; then
    expect_output "mobilenet: two Dequantize" "Op types used: .*2 Dequantize" summarize_graph --in_graph="$CLI_TMP/t.pb"
    same_outputs "mobilenet: logits as TensorFlow's quantized graph" "$CLI_TMP/t.pb" "--input=input=$CLI_TMP/x224.npy" \
        MobilenetV1/Predictions/Reshape --max 1e-3 --mean 1e-4
fi
if transformed "mobilenet: quantize_weights" "$MOBILENET" "quantize_weights" --inputs=input --outputs="$MOBILENET_OUT"; then
    size=$(wc -c <"$CLI_TMP/t.pb") original=$(wc -c <"$MOBILENET")
    if [ $((size * 100)) -le $((original * 35)) ]; then
        cli_result "mobilenet: quantize_weights: $size of $original bytes" yes ""
    else
        cli_result "mobilenet: quantize_weights size" no "$size of $original bytes"
    fi
fi
if transformed "mobilenet: round_weights" "$MOBILENET" "round_weights(num_steps=256)" --inputs=input --outputs="$MOBILENET_OUT"; then
    size=$(wc -c <"$CLI_TMP/t.pb") original=$(wc -c <"$MOBILENET")
    zipped=$(gzip -9 -c "$CLI_TMP/t.pb" | wc -c) plain=$(gzip -9 -c "$MOBILENET" | wc -c)
    if [ $((size * 100)) -ge $((original * 99)) ] && [ $((zipped * 100)) -le $((plain * 45)) ]; then
        cli_result "mobilenet: round_weights: $size bytes, gzip $zipped (was $plain)" yes ""
    else
        cli_result "mobilenet: round_weights" no "$size of $original bytes, gzip $zipped vs $plain"
    fi
fi

# ---- the GRU: multi-output nodes, ConcatV2, duplicates ---------------------
GRU_FEEDS="--input=X=$CLI_TMP/ramp.npy --input=keep_prob=$CLI_TMP/one.npy"
"$PY" "$DIFF/make_input.py" "$CLI_TMP/ramp.npy" --shape=1,784 --ramp
"$PY" "$DIFF/make_input.py" "$CLI_TMP/one.npy" --shape='' --value=1.0
# shellcheck disable=SC2086
run_tool run_graph --graph="$GRU" $GRU_FEEDS --output=output="$CLI_TMP/want.npy"
for spec in "fold_constants merge_duplicate_nodes sort_by_execution_order obfuscate_names" "backport_concatv2" \
    "add_default_attributes remove_device set_device(device=/cpu:0) remove_device"; do
    if transformed "gru: $spec" "$GRU" "$spec" --inputs=X,keep_prob --outputs=output; then
        same_outputs "gru: $spec" "$CLI_TMP/t.pb" "$GRU_FEEDS" output --max 0 --mean 0
    fi
done
transformed "gru: merge_duplicate_nodes" "$GRU" merge_duplicate_nodes --inputs=X,keep_prob --outputs=output &&
    expect_output "gru: merge_duplicate_nodes keeps 14 Const" "Op types used: .* 14 Const" summarize_graph --in_graph="$CLI_TMP/t.pb"
transformed "gru: backport_concatv2" "$GRU" backport_concatv2 &&
    expect_output "gru: backport_concatv2 makes Concat" "Op types used: .*57 Concat," summarize_graph --in_graph="$CLI_TMP/t.pb"
transformed "gru: obfuscate_names" "$GRU" obfuscate_names --inputs=X,keep_prob --outputs=output &&
    expect_output "gru: obfuscated names" "^Found 1 possible outputs: \(name=output, op=Identity\)" \
        summarize_graph --in_graph="$CLI_TMP/t.pb"

# ---- sort_by_execution_order on graphs with while loops ----------------------
# TensorFlow's order: every node after its inputs, a Merge after its control
# inputs and one data input (a loop's Merge comes before its NextIteration);
# the sorted graph gives the same outputs.
in_execution_order() {
    "$PY" - "$1" <<'PYEOF'
import sys
sys.path.insert(0, "tests/diff")
from graphdef import decode_graph
nodes = decode_graph(open(sys.argv[1], "rb").read())
seen, bad = set(), []
for n in nodes:
    sources = [i.lstrip("^").split(":")[0] for i in n.inputs]
    controls = [i[1:] for i in n.inputs if i.startswith("^")]
    data = [i.split(":")[0] for i in n.inputs if not i.startswith("^")]
    ok = (all(c in seen for c in controls) and (not data or any(d in seen for d in data))) \
        if n.op in ("Merge", "RefMerge") else all(s in seen for s in sources)
    if not ok:
        bad.append(n.name)
    seen.add(n.name)
print("%d nodes in order" % len(nodes) if not bad else "out of order: %s" % bad[:3])
PYEOF
}
sorted_like_tf() { # NAME GRAPH FEEDS OUTPUT
    if transformed "$1: sort_by_execution_order" "$2" sort_by_execution_order; then
        verdict=$(in_execution_order "$CLI_TMP/t.pb")
        case $verdict in
        *"in order") cli_result "$1: sort_by_execution_order: $verdict" yes "" ;;
        *) cli_result "$1: sort_by_execution_order" no "$verdict" ;;
        esac
        # shellcheck disable=SC2086 # feeds are several --input flags
        run_tool run_graph --graph="$2" $3 --output="$4=$CLI_TMP/want.npy"
        same_outputs "$1: sorted graph's $4" "$CLI_TMP/t.pb" "$3" "$4" --max 0 --mean 0
    fi
}
SSD=$TD/detection/ssd_aiy
sorted_like_tf "ssd_aiy" "$SSD/frozen_inference_graph.pb" "--input=image_tensor=$SSD/image_11.image_tensor.npy" \
    detection_boxes
"$PY" tests/cli/rnn_graphs.py "$CLI_TMP/rnn" >/dev/null
sorted_like_tf "dynamic_rnn LSTM" "$CLI_TMP/rnn/lstm.pb" "--input=x=$CLI_TMP/rnn/lstm_T5.npy" rnn/transpose_1

# ---- node edits ------------------------------------------------------------
transformed "set_device" "$MOBILENET" "set_device(device=/cpu:0)" &&
    expect_output "set_device" "^555 nodes assigned to device '/cpu:0'" summarize_graph --in_graph="$CLI_TMP/t.pb"
transformed "rename_op" "$MOBILENET" "rename_op(old_op_name=Relu6, new_op_name=Relu)" &&
    expect_output "rename_op" "Op types used: .*27 Relu," summarize_graph --in_graph="$CLI_TMP/t.pb"
transformed "rename_attribute" "$MOBILENET" "rename_attribute(old_attribute_name=T, new_attribute_name=U, op_name=Relu6)" &&
    expect_output "rename_attribute" '^ +key: "U"$' transform_graph --in_graph="$CLI_TMP/t.pb" --out_graph=/dev/stdout \
        --transforms=remove_device --output_as_text
transformed "remove_attribute" "$MOBILENET" "remove_attribute(attribute_name=_class)" &&
    if grep -q "_class" "$CLI_TMP/t.pb"; then cli_result "remove_attribute" no "_class still there"; else cli_result "remove_attribute" yes ""; fi
generated_model "$MODELS" inception_v3_tiny &&
    transformed "remove_control_dependencies" "$MODELS/inception_v3_tiny.pb" remove_control_dependencies &&
    expect_output "remove_control_dependencies" "and 0 control_edges" summarize_graph --in_graph="$CLI_TMP/t.pb"
transformed "insert_logging" "$MOBILENET" "insert_logging(op=Conv2D, show_name=true)" &&
    expect_output "insert_logging" "Op types used: .*15 Print," summarize_graph --in_graph="$CLI_TMP/t.pb"

# ---- fusions and atrous convolutions (graphs in tests/cli/data) ------------
transformed "fuse_resize_pad_and_conv" "$DATA/resize_pad_conv.pbtxt" "fuse_resize_pad_and_conv fuse_pad_and_conv" --outputs=conv2 &&
    expect_output "fused: resize+pad+conv and pad+conv" "Op types used: .*1 FusedPadConv2D, 1 FusedResizeAndPadConv2D, 1 Placeholder$" \
        summarize_graph --in_graph="$CLI_TMP/t.pb"
# conv reads the resize directly; strip_unused_nodes drops the unused pad.
sed 's/input: "pad"$/input: "resize"/' "$DATA/resize_pad_conv.pbtxt" >"$CLI_TMP/resize_conv.pbtxt"
transformed "fuse_resize_and_conv" "$CLI_TMP/resize_conv.pbtxt" "strip_unused_nodes fuse_resize_and_conv" \
    --inputs=input --outputs=conv2 &&
    expect_output "fused: resize+conv" "^conv \(FusedResizeAndPadConv2D\): \[input, size, conv_dummy_paddings, filter\]" \
        summarize_graph --in_graph="$CLI_TMP/t.pb" --print_structure
"$PY" "$DIFF/make_input.py" "$CLI_TMP/a.npy" --shape=1,8,8,2 --seed=1
if transformed "atrous model to binary" "$DATA/atrous.pbtxt" remove_device; then
    cp "$CLI_TMP/t.pb" "$CLI_TMP/atrous.pb"
    run_tool run_graph --graph="$CLI_TMP/atrous.pb" --input=input="$CLI_TMP/a.npy" --output=output="$CLI_TMP/want.npy"
    transformed "flatten_atrous_conv" "$CLI_TMP/atrous.pb" flatten_atrous_conv --outputs=output &&
        ops_absent "flatten_atrous_conv: no SpaceToBatchND" "$CLI_TMP/t.pb" "SpaceToBatchND|BatchToSpaceND" &&
        same_outputs "flatten_atrous_conv: same output" "$CLI_TMP/t.pb" "--input=input=$CLI_TMP/a.npy" output --max 1e-5
fi

# ---- text output reads back to the same graph -------------------------------
run_tool transform_graph --in_graph="$MOBILENET" --out_graph="$CLI_TMP/m0.pb" --transforms=remove_device
run_tool transform_graph --in_graph="$MOBILENET" --out_graph="$CLI_TMP/m.pbtxt" --transforms=remove_device --output_as_text
run_tool transform_graph --in_graph="$CLI_TMP/m.pbtxt" --out_graph="$CLI_TMP/m.pb" --transforms=remove_device
if cmp -s "$CLI_TMP/m.pb" "$CLI_TMP/m0.pb"; then
    cli_result "binary -> text -> binary is the same file" yes ""
else
    cli_result "binary -> text -> binary is the same file" no "files differ"
fi

# ---- errors ----------------------------------------------------------------
TG="transform_graph --in_graph=$MOBILENET --out_graph=$CLI_TMP/x.pb"
# shellcheck disable=SC2086
{
expect_error "unknown transform" "unknown transform 'fold_everything' \(known: add_default_attributes," $TG --transforms="fold_everything"
expect_error "bad parameter value" "transform 'quantize_weights': parameter minimum_size=lots is not an integer" $TG --transforms="quantize_weights(minimum_size=lots)"
expect_error "unknown parameter" "quantize_weights has no parameter 'bits' \(it takes: minimum_size ignore_errors\)" $TG --transforms="quantize_weights(bits=4)"
expect_error "unterminated quote" "--transforms: unterminated quoted value at the end" $TG --transforms='strip_unused_nodes(shape="1,2'
expect_error "missing parenthesis" "--transforms: expected ',' or '\)' after a parameter at the end" $TG --transforms='remove_nodes(op=Identity'
expect_error "strip without --outputs" "transform 'strip_unused_nodes': needs --outputs" $TG --transforms=strip_unused_nodes
expect_error "strip with unknown output" "--outputs names 'nosuch', which is not in the graph" $TG --outputs=nosuch --transforms=strip_unused_nodes
expect_error "bad shape" "shape '1,x' is not a comma-separated list of sizes" $TG --inputs=input --outputs="$MOBILENET_OUT" --transforms='strip_unused_nodes(shape="1,x")'
expect_error "bad type" "'floaty' is not a type" $TG --inputs=input --outputs="$MOBILENET_OUT" --transforms='strip_unused_nodes(type=floaty)'
expect_error "remove_nodes without op" "remove_nodes': needs at least one op=" $TG --transforms=remove_nodes
expect_error "rename_op without names" "rename_op': needs the parameter old_op_name=" $TG --transforms=rename_op
expect_error "missing --transforms" "--transforms are required" transform_graph --in_graph="$MOBILENET" --out_graph="$CLI_TMP/x.pb"
expect_error "missing input graph" "nothere.pb: cannot open" transform_graph --in_graph="$CLI_TMP/nothere.pb" --out_graph="$CLI_TMP/x.pb" --transforms=remove_device
}
printf 'node { name: "a" op: "Identity" input: "b" }\nnode { name: "b" op: "Identity" input: "a" }\n' >"$CLI_TMP/cycle.pbtxt"
expect_error "cycle" "the graph has a cycle through node '[ab]'" transform_graph --in_graph="$CLI_TMP/cycle.pbtxt" \
    --out_graph="$CLI_TMP/x.pb" --transforms=sort_by_execution_order
run_tool transform_graph --in_graph="$CLI_TMP/cycle.pbtxt" --out_graph="$CLI_TMP/x.pbtxt" --output_as_text \
    --transforms="sort_by_execution_order(ignore_errors=true) remove_device"
if [ "$rc" -eq 0 ] && grep -q "warning: transform 'sort_by_execution_order': the graph has a cycle" "$CLI_TMP/err"; then
    cli_result "ignore_errors=true goes on with a warning" yes ""
else
    cli_result "ignore_errors=true goes on with a warning" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
fi
cli_summary
