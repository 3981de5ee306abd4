# test_fp16_trained.sh - --precision=fp16 on trained width-1.0 MobileNets
# (README "Half precision on a Pi 5"): float models made from published
# quantized ones by tests/cli/tflite_dequantize.py (their weights, in float).
# - Everywhere: the Keras MobileNet v2 1.0 224 mask classifier of
#   ../shared/testdata/tflite/mask_mnv2_int8, made float, gives in fp32 the
#   quantized model's class as Arm NN computed it (the conversion is right).
# - Where the CPU has fp16 (the aarch64 build under qemu's -cpu max): on
#   that model's two pictures, fp16's top-1 is fp32's, logits and
#   probabilities within the bounds below and not equal to fp32's.
# - With TFPI_FP16_MODELS=DIR (a directory holding the published files
#   mobilenet_v2_1.0_224_quant.tflite, TF-slim, and
#   tf2_mobilenet_v2_1.0_224_ptq.tflite, Keras, both of
#   github.com/google-coral/test_data; too big to keep here): label_image's
#   top-1 in fp16 is fp32's on every plate photo of tf_reference/ and on
#   grace_hopper.jpg, through both; otherwise one "skipped:" line says so.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
PY=/usr/bin/python3
MASK=$TD/tflite/mask_mnv2_int8
PLATES=$TD/tf_reference/mobilenet_v1_0.25_128_plates
# Bounds of fp16 against fp32 on the mask classifier (about 1.5x the worst seen, README)
MAX_LOGIT_DIFF=0.025
MAX_PROB_DIFF=0.007
case "${QEMU:-}" in
*qemu-aarch64*-cpu\ max*) FP16=yes ;;
*) FP16=no ;;
esac

"$PY" tests/cli/tflite_dequantize.py "$MASK/mask_detector_quant.tflite" "$CLI_TMP/mask.tflite"
"$PY" -c 'import numpy as np, sys
np.save(sys.argv[2], np.load(sys.argv[1]).astype(np.float32) / 255)' "$MASK/input_0.npy" "$CLI_TMP/grace_hopper.npy"
"$PY" -c 'import numpy as np, sys
np.save(sys.argv[2], np.load(sys.argv[1]).astype(np.float32) / 255)' "$TD/tflite/chess_effnet_int8/input_0.npy" \
    "$CLI_TMP/chess.npy"

# mask_outputs PICTURE PRECISION: logits and probabilities into $CLI_TMP/PICTURE.PRECISION.{logits,probs}.npy
mask_outputs() {
    run_tool run_graph --graph="$CLI_TMP/mask.tflite" --input=mobilenetv2_1.00_224_input="$CLI_TMP/$1.npy" \
        --output="sequential_1/dense_1/BiasAdd=$CLI_TMP/$1.$2.logits.npy" \
        --output="Identity_int8=$CLI_TMP/$1.$2.probs.npy" --precision="$2"
}
mask_outputs grace_hopper fp32
verdict=$("$PY" -c 'import numpy as np, sys
a, ref = np.load(sys.argv[1]), np.load(sys.argv[2]).astype(np.float64) / 256
print("yes" if a.argmax() == ref.argmax() and np.abs(a - ref).max() <= 0.02 else "no: %s, Arm NN %s" % (a, ref))' \
    "$CLI_TMP/grace_hopper.fp32.probs.npy" "$MASK/ref_armnn_0.npy")
cli_result "the mask classifier made float gives the quantized model's class and probabilities (Arm NN, within 0.02)" \
    "$([ "$rc" -eq 0 ] && echo "$verdict")" "rc $rc $verdict $(head -c 300 "$CLI_TMP/err")"

if [ "$FP16" = yes ]; then
    for picture in grace_hopper chess; do
        [ "$picture" = grace_hopper ] || mask_outputs $picture fp32
        mask_outputs $picture fp16
        verdict=$("$PY" -c 'import numpy as np, sys
d = {}
for k in ("logits", "probs"):
    a, b = np.load(sys.argv[1] + ".fp32.%s.npy" % k), np.load(sys.argv[1] + ".fp16.%s.npy" % k)
    d[k] = (a.argmax() == b.argmax(), np.abs(a - b).max())
ok = d["logits"][0] and d["probs"][0] and 0 < d["logits"][1] <= float(sys.argv[2]) and d["probs"][1] <= float(sys.argv[3])
print("  max |d| logits %.3g, probabilities %.3g" % (d["logits"][1], d["probs"][1]), file=sys.stderr)
print("yes" if ok else "no: %s" % d)' "$CLI_TMP/$picture" $MAX_LOGIT_DIFF $MAX_PROB_DIFF)
        cli_result "mask classifier (MobileNet v2 1.0) on $picture: fp16's top-1 is fp32's, logits within $MAX_LOGIT_DIFF" \
            "$([ "$rc" -eq 0 ] && echo "$verdict")" "rc $rc $verdict $(head -c 300 "$CLI_TMP/err")"
    done
else
    echo "skipped: fp16 on the mask classifier: no fp16 arithmetic here (the aarch64 suite under qemu -cpu max runs it)"
fi

# top1 MODEL MEAN STD PICTURE PRECISION: label_image's top line's class number
top1() {
    run_tool label_image --graph="$1" --input_mean="$2" --input_std="$3" --image="$4" --precision="$5" --top_k=1
    [ "$rc" -eq 0 ] && sed -n 's/.*(\([0-9]*\)): .*/\1/p' "$CLI_TMP/out"
}
if [ "$FP16" = no ]; then
    echo "skipped: the published width-1.0 MobileNets: no fp16 arithmetic here"
elif [ -z "${TFPI_FP16_MODELS:-}" ]; then
    echo "skipped: the published width-1.0 MobileNets: TFPI_FP16_MODELS is not set (see this file's head)"
else
    for model in "mobilenet_v2_1.0_224_quant 128 128" "tf2_mobilenet_v2_1.0_224_ptq 127 127.5"; do
        # shellcheck disable=SC2086 # the name and its mean and std
        set -- $model
        if [ ! -f "$TFPI_FP16_MODELS/$1.tflite" ]; then
            cli_result "$1: in TFPI_FP16_MODELS" no "no $TFPI_FP16_MODELS/$1.tflite"
            continue
        fi
        "$PY" tests/cli/tflite_dequantize.py "$TFPI_FP16_MODELS/$1.tflite" "$CLI_TMP/$1.tflite"
        flips=""
        for picture in "$PLATES"/*.jpg "$PLATES"/*.png "$TD/images/grace_hopper.jpg"; do
            [ -f "$picture" ] || continue
            a=$(top1 "$CLI_TMP/$1.tflite" "$2" "$3" "$picture" fp32)
            b=$(top1 "$CLI_TMP/$1.tflite" "$2" "$3" "$picture" fp16)
            [ -n "$a" ] && [ "$a" = "$b" ] || flips="$flips $(basename "$picture"): $a in fp32, $b in fp16;"
        done
        cli_result "$1: fp16's top-1 is fp32's on the 21 plate photos and grace_hopper" \
            "$([ -z "$flips" ] && echo yes)" "$flips"
    done
fi
cli_summary
