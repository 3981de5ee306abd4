# test_model_tools.sh - the model tools on small models: memmapped models
# (convert_graphdef_memmapped_format, then every tool and label_image on
# the result, outputs identical to the .pb's), summarize_graph on binary,
# text and memmapped graphs, print_required_ops, graph_to_dot, and clear
# errors for damaged memmapped files in every tool. The generated models
# are cached in gen/models (TFPI_MODELS).
# shellcheck disable=SC2086 # $LI and $args hold several flags on purpose
. tests/cli/lib.sh
. tests/cli/diff_lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
MODELS=${TFPI_MODELS:-gen/models}
MOBILENET=$TD/mobilenet_v1_0.25_224/frozen_graph.pb
LABELS=$TD/mobilenet_v1_0.25_224/labels.txt
IMAGE=$TD/images/grace_hopper.jpg
LI="--labels=$LABELS --image=$IMAGE --input_width=224 --input_height=224"

# same_output NAME MODEL_A MODEL_B INPUT_NAME INPUT_NPY OUTPUT_NAME : run_graph
# gives byte-identical outputs for both models.
same_output() {
    run_tool run_graph --graph="$2" --input="$4=$5" --output="$6=$CLI_TMP/a.npy"
    rc_a=$rc
    run_tool run_graph --graph="$3" --input="$4=$5" --output="$6=$CLI_TMP/b.npy"
    if [ "$rc_a" -ne 0 ] || [ "$rc" -ne 0 ]; then
        cli_result "$1" no "run_graph failed: $(head -c 300 "$CLI_TMP/err")"
    elif cmp -s "$CLI_TMP/a.npy" "$CLI_TMP/b.npy"; then
        cli_result "$1" yes ""
    else
        cli_result "$1" no "outputs differ"
    fi
}

# ---- memmapped models ------------------------------------------------------
if generated_model "$MODELS" inception_v3_tiny; then
    IV3=$MODELS/inception_v3_tiny.pb
    "$PY" "$DIFF/make_input.py" "$CLI_TMP/iv3_in.npy" --shape=1,149,149,3 --seed=1
    expect_output "convert inception_v3_tiny" "Converted 44 Const nodes" \
        convert_graphdef_memmapped_format --in_graph="$IV3" --out_graph="$CLI_TMP/iv3_mm.pb"
    same_output "memmapped inception_v3_tiny runs like the .pb" "$IV3" "$CLI_TMP/iv3_mm.pb" \
        Mul "$CLI_TMP/iv3_in.npy" softmax
    expect_output "convert with --min_conversion_tensor_size=1" "Converted 488 Const nodes" \
        convert_graphdef_memmapped_format --in_graph="$IV3" --out_graph="$CLI_TMP/iv3_mm1.pb" \
        --min_conversion_tensor_size=1
    same_output "every Const memmapped runs like the .pb" "$IV3" "$CLI_TMP/iv3_mm1.pb" \
        Mul "$CLI_TMP/iv3_in.npy" softmax
    expect_output "summarize a memmapped model" "Op types used: .*44 ImmutableConst" \
        summarize_graph --in_graph="$CLI_TMP/iv3_mm.pb"
    expect_output "convert a memmapped model again" "Converted 44 Const nodes" \
        convert_graphdef_memmapped_format --in_graph="$CLI_TMP/iv3_mm.pb" --out_graph="$CLI_TMP/iv3_mm2.pb"
    if cmp -s "$CLI_TMP/iv3_mm.pb" "$CLI_TMP/iv3_mm2.pb"; then
        cli_result "memmapped -> memmapped is the same file" yes ""
    else
        cli_result "memmapped -> memmapped is the same file" no "files differ"
    fi
else
    cli_result "make_models.py inception_v3_tiny" no "$(tail -n 3 "$CLI_TMP/make_models.log")"
fi

# A phase-switched graph (tf.cond on PlaceholderWithDefault(False): x * w,
# else x + w) memmapped: its Switch is still resolved while planning, so it
# runs on the static plan (an arena) and gives x * w.
"$PY" - "$CLI_TMP/phase.pb" <<'PY'
import sys
import numpy as np
sys.path.insert(0, "tests/diff")
from graphdef import DType, Node, Shape, encode_graph
F, B = DType(1), DType(10)
nodes = [Node("x", "Placeholder", [], {"dtype": F, "shape": Shape([64])}),
         Node("w", "Const", [], {"dtype": F, "value": np.arange(64, dtype=np.float32) / 2}),
         Node("phase/default", "Const", [], {"dtype": B, "value": np.array(False)}),
         Node("phase", "PlaceholderWithDefault", ["phase/default"], {"dtype": B, "shape": Shape([])}),
         Node("cond/Switch", "Switch", ["x", "phase"], {"T": F}),
         Node("cond/mul", "Mul", ["cond/Switch", "w"], {"T": F}),
         Node("cond/add", "Add", ["cond/Switch:1", "w"], {"T": F}),
         Node("cond/Merge", "Merge", ["cond/mul", "cond/add"], {"T": F, "N": 2})]
open(sys.argv[1], "wb").write(encode_graph(nodes))
PY
"$PY" -c "import numpy, sys; numpy.save(sys.argv[1], numpy.full(64, 2, numpy.float32))" "$CLI_TMP/twos.npy"
expect_output "convert a phase-switched graph" "Converted 1 Const nodes" convert_graphdef_memmapped_format \
    --in_graph="$CLI_TMP/phase.pb" --out_graph="$CLI_TMP/phase_mm.pb" --min_conversion_tensor_size=64
expect_output "memmapped cond takes the default branch" "^cond/Merge: float \[64\] 0 1 2 3 4 " run_graph \
    --graph="$CLI_TMP/phase_mm.pb" --input=x="$CLI_TMP/twos.npy" --output=cond/Merge
expect_output "memmapped cond resolved while planning (an arena)" "arena=[1-9]" benchmark_model \
    --graph="$CLI_TMP/phase_mm.pb" --input_layer=x --input_layer_shape=64 --output_layer=cond/Merge --num_runs=1
run_tool convert_graphdef_memmapped_format --in_graph="$MOBILENET" --out_graph="$CLI_TMP/mobilenet_mm.pb"
expect_output "label_image on a memmapped MobileNet" "^bow tie, bow-tie, bowtie \(458\): 0\.35" \
    label_image $LI --graph="$CLI_TMP/mobilenet_mm.pb"

# ---- protected models ------------------------------------------------------
expect_output "encrypt_model" "^Wrote .*mobilenet.enc" \
    encrypt_model --in_graph="$MOBILENET" --out_graph="$CLI_TMP/mobilenet.enc" --key=s3cret
expect_output "label_image --decrypt_key" "^bow tie, bow-tie, bowtie \(458\): 0\.35" \
    label_image $LI --graph="$CLI_TMP/mobilenet.enc" --decrypt_key=s3cret
expect_error "label_image: wrong key" "mobilenet.enc: decrypted model buffer: not a TensorFlow GraphDef .*wrong --decrypt_key" \
    label_image $LI --graph="$CLI_TMP/mobilenet.enc" --decrypt_key=wrong
expect_error "label_image: encrypted model without key" "mobilenet.enc: not a TensorFlow GraphDef" \
    label_image $LI --graph="$CLI_TMP/mobilenet.enc"
expect_error "label_image: empty key" "--decrypt_key must not be empty" \
    label_image $LI --graph="$CLI_TMP/mobilenet.enc" --decrypt_key=
run_tool encrypt_model --in_graph="$CLI_TMP/mobilenet_mm.pb" --out_graph="$CLI_TMP/mobilenet_mm.enc" --key=k
expect_output "label_image: encrypted memmapped model" "^bow tie, bow-tie, bowtie \(458\): 0\.35" \
    label_image $LI --graph="$CLI_TMP/mobilenet_mm.enc" --decrypt_key=k
expect_error "encrypt_model: input is not a model" "--in_graph=.*mobilenet.enc: model buffer: not a TensorFlow GraphDef" \
    encrypt_model --in_graph="$CLI_TMP/mobilenet.enc" --out_graph="$CLI_TMP/x.enc" --key=k
expect_error "encrypt_model: no key" "--key are required" \
    encrypt_model --in_graph="$MOBILENET" --out_graph="$CLI_TMP/x.enc"

# ---- summarize_graph, print_required_ops, graph_to_dot ---------------------
expect_output "summarize inputs" "^Found 1 possible inputs: \(name=input, type=float\(1\), shape=\[1,224,224,3\]\) $" \
    summarize_graph --in_graph="$MOBILENET"
expect_output "summarize outputs" "^Found 1 possible outputs: \(name=MobilenetV1/Predictions/Reshape_1, op=Reshape\) $" \
    summarize_graph --in_graph="$MOBILENET"
expect_output "summarize parameters" "^Found 475832 \(475\.83k\) const parameters, 0 \(0\) variable parameters, and 0 control_edges$" \
    summarize_graph --in_graph="$MOBILENET"
expect_output "summarize op types" "^Op types used: 166 Const, 138 Identity, 81 Mul, 54 Add, 27 Relu6, 27 Rsqrt, 27 Sub, 15 Conv2D," \
    summarize_graph --in_graph="$MOBILENET"
expect_output "summarize benchmark line" "benchmark_model --graph=$MOBILENET --show_flops --input_layer=input --input_layer_type=float --input_layer_shape=1,224,224,3 --output_layer=MobilenetV1/Predictions/Reshape_1$" \
    summarize_graph --in_graph="$MOBILENET"
run_tool summarize_graph --in_graph="$MOBILENET"
benchmark_line=$(tail -n 1 "$CLI_TMP/out" | sed "s|^$BIN/||")
# shellcheck disable=SC2086 # the line is the tool and its flags
expect_output "the benchmark line runs as printed" "^Timings|avg=" $benchmark_line --num_runs=2 --warmup_runs=1
expect_output "summarize unknown batch" "shape=\[\?,784\]" summarize_graph --in_graph="$TD/mnist/mnist.pb"
expect_output "summarize --print_structure" "^MatMul \(MatMul\): \[input, Weight/read\]$" \
    summarize_graph --in_graph="$TD/mnist/mnist.pb" --print_structure
expect_output "summarize a .pbtxt" "^Found 1 possible outputs: \(name=y, op=MatMul\) $" \
    summarize_graph --in_graph=tests/fuzz/seeds/graph.pbtxt
expect_output "print_required_ops" "^kernels/depthwise_conv2d.c  # DepthwiseConv2dNative$" \
    print_required_ops --graph="$MOBILENET",$TD/mnist/mnist.pb
expect_output "print_required_ops of a memmapped model" "^kernels/immutable_const.c  # ImmutableConst$" \
    print_required_ops --graph="$CLI_TMP/mobilenet_mm.pb"
expect_output "graph_to_dot" "^  n5 -> n6;$" graph_to_dot --in_graph="$TD/mnist/mnist.pb"
expect_output "graph_to_dot --show_names" "label=\"MatMul\\\\nMatMul\"" \
    graph_to_dot --in_graph="$TD/mnist/mnist.pb" --show_names

# ---- damaged memmapped files: every tool says what is wrong ---------------
for mode in truncate_directory offset_past_end overlap duplicate_name no_graph; do
    "$PY" tests/cli/damage_memmapped.py "$mode" "$CLI_TMP/mobilenet_mm.pb" "$CLI_TMP/$mode.pb"
done
for tool in label_image run_graph summarize_graph print_required_ops graph_to_dot \
    convert_graphdef_memmapped_format; do
    case $tool in
    label_image) args="$LI --graph=" ;;
    run_graph) args="--output=x --graph=" ;;
    print_required_ops) args="--graph=" ;;
    convert_graphdef_memmapped_format) args="--out_graph=$CLI_TMP/out.pb --in_graph=" ;;
    *) args="--in_graph=" ;;
    esac
    {
    expect_error "$tool: truncated directory" "truncate_directory.pb: .*directory is truncated or damaged" \
        $tool $args"$CLI_TMP/truncate_directory.pb"
    expect_error "$tool: offset past the end" "offset_past_end.pb: memmapped region .* past the end" \
        $tool $args"$CLI_TMP/offset_past_end.pb"
    expect_error "$tool: overlapping regions" "overlap.pb: memmapped region .* overlaps region" \
        $tool $args"$CLI_TMP/overlap.pb"
    expect_error "$tool: duplicate region names" "duplicate_name.pb: two memmapped regions are named" \
        $tool $args"$CLI_TMP/duplicate_name.pb"
    expect_error "$tool: no GraphDef region" "no_graph.pb: the memmapped directory has no GraphDef region" \
        $tool $args"$CLI_TMP/no_graph.pb"
    }
done
expect_error "convert: negative size" "min_conversion_tensor_size must not be negative" \
    convert_graphdef_memmapped_format --in_graph="$MOBILENET" --out_graph="$CLI_TMP/x.pb" --min_conversion_tensor_size=-1
expect_error "convert: unwritable output" "nodir/x.pb: cannot create" \
    convert_graphdef_memmapped_format --in_graph="$MOBILENET" --out_graph="$CLI_TMP/nodir/x.pb"
printf 'node { name: "a" op: "Const" }\nnode { name: "b" op: "Identity" input: "a" bogus: 1 }\n' >"$CLI_TMP/bad.pbtxt"
expect_error "summarize: bad .pbtxt" "bad.pbtxt:2:44: tfpi.NodeDef has no field 'bogus'" \
    summarize_graph --in_graph="$CLI_TMP/bad.pbtxt"
printf 'node { name: "a" op: "Identity" input: "nowhere" }\n' >"$CLI_TMP/dangling.pbtxt"
expect_error "summarize: dangling input" "dangling.pbtxt: node 'a' has input 'nowhere', but no node is named so" \
    summarize_graph --in_graph="$CLI_TMP/dangling.pbtxt"
expect_error "graph_to_dot: dangling input" "dangling.pbtxt: node 'a' has input 'nowhere'" \
    graph_to_dot --in_graph="$CLI_TMP/dangling.pbtxt"
printf 'node { name: "c" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2147483648 } dim { size: 2147483648 } } float_val: 1 } } } }\n' >"$CLI_TMP/huge.pbtxt"
expect_error "convert: absurd tensor shape" "huge.pbtxt: node 'c' \(Const\): tensor has no usable shape" \
    convert_graphdef_memmapped_format --in_graph="$CLI_TMP/huge.pbtxt" --out_graph="$CLI_TMP/x.pb"
head -c 3000 "$MOBILENET" >"$CLI_TMP/cut.pb"
expect_error "summarize: truncated .pb" "cut.pb: not a TensorFlow GraphDef" summarize_graph --in_graph="$CLI_TMP/cut.pb"
expect_error "print_required_ops: missing file" "nothere.pb: cannot open" print_required_ops --graph="$CLI_TMP/nothere.pb"
expect_error "print_required_ops: no --graph" "--graph is required" print_required_ops
# A 50-byte model whose Const describes 4 GB of zeros: refused before anything is expanded or written.
"${TFPI_PYTHON:-/usr/bin/python3}" -c 'import sys
sys.path.insert(0, "tests/cli")
from hostile_corpus import FLOAT, Node, encode, raw_tensor
sys.stdout.buffer.write(encode([Node("y", "Const", [], {"dtype": FLOAT, "value": raw_tensor(1, [1 << 30])})]))' \
    >"$CLI_TMP/zeros_4gb.pb"
expect_error "convert_graphdef_memmapped_format: a 4 GB Const from 50 bytes is refused" \
    "node 'y' \(Const\): its value of 1073741824 float elements is over the memory budget of 1073741824 bytes" \
    convert_graphdef_memmapped_format --in_graph="$CLI_TMP/zeros_4gb.pb" --out_graph="$CLI_TMP/zeros_mm.pb" --max_memory=1G
if [ -e "$CLI_TMP/zeros_mm.pb" ]; then
    cli_result "convert_graphdef_memmapped_format leaves no half-written model" no "$CLI_TMP/zeros_mm.pb exists"
else
    cli_result "convert_graphdef_memmapped_format leaves no half-written model" yes ""
fi
cli_summary
