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
within_step() { # NAME GOT WANT [STEP|-] [ALLOWED]: within ALLOWED (1) steps of the output's scale
    if [ "$rc" -ne 0 ]; then cli_result "$1" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"; return; fi
    if $PY tests/cli/tflite_refs.py steps "$2" "$3" ${4:-} ${5:-} >"$T/cmp"; then cli_result "$1 ($(cat "$T/cmp"))" yes ""
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

# A float MobileNet as a TFLite converter writes it (batch norms folded,
# Relu6 fused, TFLite's filter layouts; make_tflite_mobilenet.py) against
# the frozen graph it was made from, whose batch norms tfpi folds itself.
MM=$T/mobilenet
mkdir -p "$MM"
$PY ${TFPI_TOOLS:-../shared/tools}/make_models.py --out "$MM" --only mobilenet_v1_0.25_128_synthetic >/dev/null
PB=$MM/mobilenet_v1_0.25_128_synthetic.pb
$PY tests/cli/make_tflite_mobilenet.py "$PB" "$MM/mobilenet.tflite"
$PY -c "import numpy as np; np.save('$MM/x.npy', np.random.default_rng(5).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32))"
OUT=MobilenetV1/Predictions/Reshape_1
run_tool run_graph --graph="$PB" --input=input="$MM/x.npy" --output=$OUT="$MM/want.npy"
for threads in 1 3; do
    run_tool run_graph --graph="$MM/mobilenet.tflite" --input=input="$MM/x.npy" --output=$OUT="$MM/got.npy" \
        --num_threads=$threads
    near "MobileNet v1 .tflite against its frozen graph, $threads threads (1e-5 absolute: batch norms folded in float64)" \
        "$MM/got.npy" "$MM/want.npy" absolute
done
expect_output "label_image on the .tflite MobileNet: its first input and output, the model's 128x128" \
    "\([0-9]+\): 0\.[0-9]+" label_image --graph="$MM/mobilenet.tflite" --image=$TD/images/grace_hopper.jpg
cp "$CLI_TMP/out" "$MM/lite_labels"
run_tool label_image --graph="$PB" --image=$TD/images/grace_hopper.jpg --input_width=128 --input_height=128
if cut -d' ' -f1-2 "$MM/lite_labels" | cmp -s - "$(cut -d' ' -f1-2 "$CLI_TMP/out" >"$MM/pb_labels"; echo "$MM/pb_labels")"; then
    cli_result "label_image: the .tflite's top 5 are the frozen graph's" yes ""
else
    cli_result "label_image: the .tflite's top 5 are the frozen graph's" no "$(cat "$MM/lite_labels" "$MM/pb_labels")"
fi
run_tool benchmark_model --graph="$MM/mobilenet.tflite" --input_layer=input --input_layer_shape=1,128,128,3 \
    --output_layer=$OUT --num_runs=2
if [ "$rc" -eq 0 ] && grep -qw DEPTHWISE_CONV_2D "$CLI_TMP/err" "$CLI_TMP/out" && grep -qw AVERAGE_POOL_2D "$CLI_TMP/err" "$CLI_TMP/out"; then
    cli_result "benchmark_model's per-op stats use TFLite's operator names" yes ""
else
    cli_result "benchmark_model's per-op stats use TFLite's operator names" no "exit $rc: $(head -c 300 "$CLI_TMP/err")"
fi
# With --graph alone, a .tflite's own inputs (names, shapes, types) and outputs, as TFLite's
# benchmark_model takes them: TensorFlow's defaults (input, float [1,224,224,3], output) fit
# neither (a uint8 input named otherwise; a float [1,28,28,1] named by its signature).
for m in mask_mnv2_int8/mask_detector_quant.tflite fashion_cnn_int8_floatio/model.tflite; do
    expect_output "benchmark_model --graph=$m alone: the model's inputs and outputs" "^count=2 " \
        benchmark_model --graph=$TL/$m --num_runs=2 --warmup_runs=0
done
grep -q "^Input types: \[float\]" "$CLI_TMP/out" && grep -q "^Input shapes: \[1,28,28,1\]" "$CLI_TMP/out"
cli_result "benchmark_model prints the input shapes and types it took from the .tflite" \
    "$([ $? -eq 0 ] && echo yes)" "$(grep "^Input" "$CLI_TMP/out")"
expect_output "summarize_graph: tensors with type, shape and quantization; operators; signatures; metadata" \
    "7 operators: 2 CONV_2D, 1 QUANTIZE, 1 RESHAPE, 1 FULLY_CONNECTED, 1 SOFTMAX, 1 DEQUANTIZE" \
    summarize_graph --in_graph=$TL/fashion_cnn_int8_floatio/model.tflite
for want in "signature 'serving_default' \(subgraph 0\):" "input  input_1: tensor 0" \
    "5 sequential/conv2d_1/Conv2D: INT8 \[6,3,3,6\] per channel \(dimension 0, 6 scales" \
    "8 tfl.quantize: INT8 \[-1,28,28,1\] scale 0.00392156886 zero_point -128" \
    "metadata min_runtime_version: 16 bytes \"1.14.0\"" "Op types used: .*CONV_2D"; do
    if grep -qE -- "$want" "$CLI_TMP/out"; then cli_result "summarize_graph prints $want" yes ""
    else cli_result "summarize_graph prints $want" no "$(head -c 400 "$CLI_TMP/out")"; fi
done
expect_output "print_required_ops lists the kernels of a float .tflite's TF ops" \
    "kernels/conv2d.c  # Conv2D" print_required_ops --graph=$TL/fashion_cnn_float/model_no_quant.tflite

# WHILE and IF subgraphs, lowered to tfpi's control flow, against numpy.
CF=$T/control_flow
$PY tests/cli/tflite_control_flow.py "$CF"
run_tool run_graph --graph="$CF/while.tflite" --input=i="$CF/zero.npy" --input=x="$CF/x.npy" \
    --output=x_out="$CF/got_x.npy" --output=i_out="$CF/got_i.npy"
near "WHILE (cond and body subgraphs): x doubled while i < 5" "$CF/got_x.npy" "$CF/while_x.npy"
near "WHILE: the loop counter's final value" "$CF/got_i.npy" "$CF/while_i.npy"
for p in true false; do
    run_tool run_graph --graph="$CF/if.tflite" --input=p="$CF/$p.npy" --input=x="$CF/x.npy" --output=y="$CF/got_if.npy"
    near "IF on $p: its branch subgraph" "$CF/got_if.npy" "$CF/if_$p.npy"
done
run_tool run_graph --graph="$CF/nested.tflite" --input=i="$CF/zero.npy" --input=x="$CF/x.npy" --output=x_out="$CF/got_n.npy"
near "an IF inside a WHILE's body" "$CF/got_n.npy" "$CF/nested_x.npy"

# A quantized RESHAPE whose input and output share one scale and zero point
# moves the codes as TF's Reshape does; with two quantizations it is the
# TFLite operator, which a kernel must rescale.
$PY - "$CF" <<'EOP'
import sys
import numpy as np
sys.path.insert(0, "tests/cli")
import tflite_writer as tw
for name, out_quant in (("reshape_same", ([0.5], [3], 0)), ("reshape_rescaled", ([0.25], [0], 0))):
    m = tw.Model()
    x = m.tensor("x", [1, 2, 3], tw.INT8, quant=([0.5], [3], 0))
    shape = m.const("shape", np.array([3, 2], np.int32))
    y = m.tensor("y", [3, 2], tw.INT8, quant=out_quant)
    m.inputs, m.outputs = [x], [y]
    m.op(22, [x, shape], [y])
    m.write("%s/%s.tflite" % (sys.argv[1], name))
codes = np.arange(-3, 3, dtype=np.int8).reshape(1, 2, 3)
np.save(sys.argv[1] + "/codes.npy", codes)
np.save(sys.argv[1] + "/codes_3x2.npy", codes.reshape(3, 2))
EOP
run_tool run_graph --graph="$CF/reshape_same.tflite" --input=x="$CF/codes.npy" --output=y="$CF/got_codes.npy"
near "a quantized RESHAPE quantized alike moves the int8 codes (TF's Reshape)" "$CF/got_codes.npy" "$CF/codes_3x2.npy"
expect_output "a RESHAPE that changes the quantization is the TFLite operator (its kernel rescales)" \
    "Op types used: .*RESHAPE" summarize_graph --in_graph="$CF/reshape_rescaled.tflite"

# label_image: a BMP gives what the same pixels as PNG give; labels packed
# in a zip after the FlatBuffer (Model Maker's) are used without --labels.
$PY -c "
from PIL import Image
img = Image.open('$TD/images/grace_hopper.jpg').convert('RGB').resize((128, 128))
img.save('$MM/picture.png'); img.save('$MM/picture.bmp')
import zipfile, shutil
shutil.copy('$MM/mobilenet.tflite', '$MM/packed.tflite')
with zipfile.ZipFile('$MM/packed.tflite', 'a') as z:
    z.writestr('labels.txt', ''.join('packed_%d\n' % i for i in range(1001)))"
run_tool label_image --graph="$MM/mobilenet.tflite" --image="$MM/picture.png" --labels=$TD/mobilenet_v1_0.25_224/labels.txt
cp "$CLI_TMP/out" "$MM/png_labels"
expect_output "label_image reads a BMP (TFLite's label_image's format)" "\([0-9]+\): 0\." \
    label_image --graph="$MM/mobilenet.tflite" --image="$MM/picture.bmp" --labels=$TD/mobilenet_v1_0.25_224/labels.txt
if cmp -s "$CLI_TMP/out" "$MM/png_labels"; then cli_result "the BMP's labels are the same pixels' as PNG" yes ""
else cli_result "the BMP's labels are the same pixels' as PNG" no "$(cat "$CLI_TMP/out" "$MM/png_labels")"; fi
expect_output "label_image finds the labels packed in the .tflite's zip without --labels" "^packed_[0-9]+ \([0-9]+\): " \
    label_image --graph="$MM/packed.tflite" --image="$MM/picture.png"
mkdir -p "$MM/frames" && cp "$MM/picture.png" "$MM/frames/"
run_tool camera --graph="$MM/packed.tflite" --source=files --frames_from="$MM/frames"
if [ "$rc" -eq 0 ] && grep -q "packed_[0-9]* ([0-9]*): " "$CLI_TMP/err"; then
    cli_result "camera labels frames with the packed labels too" yes ""
else
    cli_result "camera labels frames with the packed labels too" no "exit $rc: $(head -c 300 "$CLI_TMP/err")"
fi

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
    # chess_effnet_int8: within 4 steps. tfpi follows TFLite's integer rules (its stem convolution
    # agrees with them, computed independently in Python, on every output where it and Arm NN
    # differ: 2,306 of 401,408 by one step); EfficientNet-lite's first depthwise multiplies such a
    # step by up to 18 (channel 17), and its softmax ends 4 steps (of 1/256) from Arm NN's.
    within_step "$m against Arm NN" "$T/q.npy" "$dir/ref_armnn_0.npy" \
        $(case $m in fashion*) echo 0.00390625 ;; chess*) echo - 4 ;; esac)
done <<EOM
chess_effnet_int8/model.tflite input_1 Identity
mask_mnv2_int8/mask_detector_quant.tflite mobilenetv2_1.00_224_input Identity
fashion_cnn_int8_floatio/model.tflite serving_default_input_1:0 StatefulPartitionedCall:0
EOM

cli_summary
