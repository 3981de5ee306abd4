# test_quantized_workflow.sh - the eight-bit workflow of the README on the
# real MobileNet 0.25/128 and the 21 plate photos of tf_reference/:
# transform_graph ... quantize_weights quantize_nodes (TF's node names, no
# float Conv2D left, no QuantizeV2 of a Dequantize), label_image on every
# photo, insert_logging + label_image writing the ranges to stderr,
# freeze_requantization_ranges (no RequantizationRange left), label_image
# again; TensorFlow's float top-1 (from its logits) must be in the 8-bit
# top-5 for at least 12 photos before and after freezing (measured: 14 and
# 14; per-tensor 8-bit codes cost this model most of its top-1 agreement,
# see README). Then the transforms' and ranges' bad inputs.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
TD=${TFPI_TESTDATA:-../shared/testdata}
MODEL=$TD/mobilenet_v1_0.25_128
PHOTOS=$TD/tf_reference/mobilenet_v1_0.25_128_plates
OUT=MobilenetV1/Predictions/Reshape_1
LOGITS=MobilenetV1/Logits/SpatialSqueeze
Q=$CLI_TMP/q.pb

label() { # label GRAPH IMAGE [flags]: label_image's top 5 indices of the logits on stdout
    l_graph=$1 l_image=$2
    shift 2
    $QEMU "$BIN/label_image" --graph="$l_graph" --labels="$MODEL/labels.txt" --image="$l_image" \
        --input_width=128 --input_height=128 --output_layer=$LOGITS --top_k=5 "$@" |
        sed 's/.*(\([0-9]*\)).*/\1/'
}

# TensorFlow's top-1 per photo, one "image index" line each
"$PY" -c "
import glob, numpy as n, sys
for f in sorted(glob.glob(sys.argv[1] + '/*.tf_logits.f32')):
    stem = f[:-len('.tf_logits.f32')]
    image = (glob.glob(stem + '.jpg') + glob.glob(stem + '.png'))[0]
    print(image, int(n.argmax(n.fromfile(f, '<f4'))))" "$PHOTOS" >"$CLI_TMP/tf_top1"

# agreement NAME GRAPH : TF's top-1 in GRAPH's top 5 on >= 12 photos.
agreement() {
    a_hits=0
    while read -r a_image a_want; do
        label "$2" "$a_image" 2>/dev/null | grep -qx "$a_want" && a_hits=$((a_hits + 1))
    done <"$CLI_TMP/tf_top1"
    cli_result "$1 ($a_hits of 21 in the top 5)" "$([ "$a_hits" -ge 12 ] && echo yes)" "only $a_hits of 21"
}

run_tool transform_graph --in_graph="$MODEL/frozen_graph.pb" --out_graph="$Q" --inputs=input --outputs=$OUT \
    --transforms='fold_constants fold_batch_norms quantize_weights quantize_nodes'
cli_result "quantize_nodes on MobileNet" "$([ "$rc" -eq 0 ] && echo yes)" "$(head -c 300 "$CLI_TMP/err")"
expect_output "quantized ops, no float Conv2D" "Op types used: .*15 QuantizedConv2D" summarize_graph --in_graph="$Q"
expect_output "summarize_graph counts the 8-bit ops" "^Eight-bit: 116 quantized ops, .* 43 ranges measured per run \(RequantizationRange\), 0 frozen$" \
    summarize_graph --in_graph="$Q"
expect_output "benchmark_model counts the 8-bit multiply-adds" "^FLOPs estimate: 2[0-9.]*M" benchmark_model --graph="$Q" \
    --input_layer=input --input_layer_shape=1,128,128,3 --output_layer=$OUT --num_runs=1 --show_flops
run_tool summarize_graph --in_graph="$Q" --print_structure
cli_result "TF's node names" "$(grep -q '^MobilenetV1/MobilenetV1/Conv2d_0/BatchNorm/batchnorm/mul_1/eightbit (QuantizedConv2D)' \
    "$CLI_TMP/out" && grep -q '^MobilenetV1/MobilenetV1/Conv2d_0/Relu6 (Dequantize)' "$CLI_TMP/out" && echo yes)" \
    "names differ"
cli_result "weights and adjacent ops pass codes, not floats" \
    "$(grep -q 'Conv2d_6_pointwise/BatchNorm/batchnorm/mul_1/eightbit (QuantizedConv2D): \[MobilenetV1/MobilenetV1/Conv2d_6_depthwise/Relu6/eightbit:0, MobilenetV1/Conv2d_6_pointwise/weights/read_quantized_const, ' \
    "$CLI_TMP/out" && echo yes)" "a pointwise conv does not read the Relu6 codes and its quint8 weights"
agreement "8-bit top-1 vs TensorFlow" "$Q"

# log the ranges over the photos, freeze them
run_tool transform_graph --in_graph="$Q" --out_graph="$CLI_TMP/logged.pb" --inputs=input --outputs=$OUT \
    --transforms='insert_logging(op=RequantizationRange, show_name=true, message="__requant_min_max:")'
: >"$CLI_TMP/ranges.log"
for image in "$PHOTOS"/*.jpg "$PHOTOS"/*.png; do
    label "$CLI_TMP/logged.pb" "$image" >/dev/null 2>>"$CLI_TMP/ranges.log"
done
lines=$(grep -c '^;MobilenetV1/.*/requant_range__print__;__requant_min_max:\[-*[0-9.e-]*\]\[-*[0-9.e-]*\]$' "$CLI_TMP/ranges.log")
cli_result "Print writes TF's range lines (43 per photo)" "$([ "$lines" -eq $((43 * 21)) ] && echo yes)" "$lines lines"
run_tool transform_graph --in_graph="$Q" --out_graph="$CLI_TMP/frozen.pb" --inputs=input --outputs=$OUT \
    --transforms="freeze_requantization_ranges(min_max_log_file=$CLI_TMP/ranges.log)"
cli_result "freeze_requantization_ranges" "$([ "$rc" -eq 0 ] && echo yes)" "$(head -c 300 "$CLI_TMP/err")"
run_tool summarize_graph --in_graph="$CLI_TMP/frozen.pb"
cli_result "no RequantizationRange left" "$(grep -q '^Eight-bit: 116 quantized ops, .* 0 ranges measured per run (RequantizationRange), 43 frozen$' \
    "$CLI_TMP/out" && ! grep -q 'RequantizationRange,' "$CLI_TMP/out" && echo yes)" "$(grep 'Op types' "$CLI_TMP/out")"
agreement "frozen 8-bit top-1 vs TensorFlow" "$CLI_TMP/frozen.pb"

# ---- bad input ----
printf 'nothing to see\n;x__print__;__requant_min_max:[oops][1]\n' >"$CLI_TMP/bad.log"
expect_error "log without usable lines" "min_max_log_file '.*bad.log' has no" transform_graph --in_graph="$Q" \
    --out_graph="$CLI_TMP/x.pb" --transforms="freeze_requantization_ranges(min_max_log_file=$CLI_TMP/bad.log)"
printf ';nowhere__print__;__requant_min_max:[-1][1]\n' >"$CLI_TMP/other.log"
expect_error "log naming a missing node" "names node 'nowhere', which is not in the graph" transform_graph \
    --in_graph="$Q" --out_graph="$CLI_TMP/x.pb" --transforms="freeze_requantization_ranges(min_max_log_file=$CLI_TMP/other.log)"
expect_error "missing log file" "min_max_log_file: .*absent.log" transform_graph --in_graph="$Q" \
    --out_graph="$CLI_TMP/x.pb" --transforms="freeze_requantization_ranges(min_max_log_file=$CLI_TMP/absent.log)"
expect_error "input_min without input_max" "quantize_nodes.*both or neither" transform_graph \
    --in_graph="$MODEL/frozen_graph.pb" --out_graph="$CLI_TMP/x.pb" --transforms='quantize_nodes(input_min=-1)'
expect_error "fallback range inverted" "quantize_nodes.*min must be below its max" transform_graph \
    --in_graph="$MODEL/frozen_graph.pb" --out_graph="$CLI_TMP/x.pb" --transforms='quantize_nodes(fallback_min=2, fallback_max=-2)'
expect_error "fallback_min not a number" "fallback_min=x is not a finite number" transform_graph \
    --in_graph="$MODEL/frozen_graph.pb" --out_graph="$CLI_TMP/x.pb" --transforms='quantize_nodes(fallback_min=x, fallback_max=1)'

# fixed fallback ranges and quint8 input codes: the graph takes uint8 pixels
run_tool transform_graph --in_graph="$MODEL/frozen_graph.pb" --out_graph="$CLI_TMP/fallback.pb" --inputs=input \
    --outputs=$OUT --transforms='fold_constants fold_batch_norms quantize_weights quantize_nodes(input_min=-1, input_max=1, fallback_min=-30, fallback_max=30)'
expect_output "fallback ranges and a quint8 input" "Op types used: .*Placeholder" summarize_graph --in_graph="$CLI_TMP/fallback.pb"
cli_result "no RequantizationRange with fallback ranges" "$(grep -q ' 0 ranges measured per run' "$CLI_TMP/out" && grep -q 'type=quint8' \
    "$CLI_TMP/out" && echo yes)" "$(head -c 300 "$CLI_TMP/out")"

cli_summary
