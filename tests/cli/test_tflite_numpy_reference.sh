# test_tflite_numpy_reference.sh - real .tflite models end to end against
# tests/cli/tflite_numpy_reference.py, a numpy chain of TensorFlow Lite's
# reference rules computed on the host (each operator from numpy's own
# previous outputs): quantized tensors within one step, float ones within
# 1e-5 of the tensor's largest magnitude.
# - Everywhere: every operator's output of the models of
#   ../shared/testdata/tflite/ (int8 MobileNet v2 mask classifier,
#   EfficientNet-lite0 chess classifier, the Fashion-MNIST CNN in int8 and
#   float, the MNIST dense model), and a check that the comparison fails on
#   an output moved by two steps.
# - With TFPI_TFLITE_MODELS=DIR (public models, too big and not ours to keep
#   here; DIR/<short>/<file> as listed below, origins in the README's
#   "Coming from TensorFlow Lite"): each one found, on grace_hopper.jpg for
#   image inputs and seeded random values otherwise, and for the hybrid
#   models (int8 weights, float activations: tfpi computes float math on
#   the dequantized weights) an "info:" line saying how far that is from
#   TFLite's hybrid rule; otherwise one "skipped:" line says so.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
TL=$TD/tflite
PY=/usr/bin/python3
REL=1e-5

# against_numpy NAME MODEL [CHAIN FLAGS] INPUT...: the chain's tensors, then
# run_graph's (under $QEMU) for the same ones, compared.
against_numpy() {
    name=$1 model=$2
    shift 2
    dir=$CLI_TMP/$(echo "$name" | tr -c 'A-Za-z0-9_\n' _)
    mkdir -p "$dir"
    if ! $PY tests/cli/tflite_numpy_reference.py "$model" "$dir" "$@" 2>"$CLI_TMP/err"; then
        cli_result "$name against numpy" no "the numpy chain failed: $(tail -n 1 "$CLI_TMP/err")"
        return
    fi
    # shellcheck disable=SC2046 # one flag a line, no spaces in them
    run_tool run_graph --graph="$model" $(cat "$dir/args")
    if [ "$rc" -ne 0 ]; then
        cli_result "$name against numpy" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
    elif $PY tests/cli/tflite_refs.py chain "$dir" $REL >"$CLI_TMP/cmp"; then
        cli_result "$name against numpy ($(cat "$CLI_TMP/cmp"))" yes ""
    else
        cli_result "$name against numpy" no "$(cat "$CLI_TMP/cmp")"
    fi
}

for m in mask_mnv2_int8/mask_detector_quant.tflite chess_effnet_int8/model.tflite fashion_cnn_int8_floatio/model.tflite \
    fashion_cnn_float/model_no_quant.tflite mnist_dense_float/mnist.tflite; do
    against_numpy "$(dirname $m), every operator's output" "$TL/$m" --every_op "$TL/$(dirname $m)/input_0.npy"
done

# The comparison can fail: one code of the mask model's last MobileNet convolution (operator 67) moved by two steps.
dir=$CLI_TMP/mask_mnv2_int8__every_operator_s_output
$PY -c 'import numpy as np, sys
g = np.load(sys.argv[1]); g.flat[7] = g.flat[7] + (2 if g.flat[7] < 100 else -2); np.save(sys.argv[1], g)' "$dir/got_67.npy"
if $PY tests/cli/tflite_refs.py chain "$dir" $REL >"$CLI_TMP/cmp"; then
    cli_result "an output two steps off fails the comparison" no "$(cat "$CLI_TMP/cmp")"
else
    cli_result "an output two steps off fails the comparison" yes ""
fi

if [ -z "${TFPI_TFLITE_MODELS:-}" ]; then
    echo "skipped: public .tflite models against numpy (set TFPI_TFLITE_MODELS=DIR)"
    cli_summary
    exit
fi
# Public models: DIR/<short>/<file>, then the chain's flags (a detector's
# tensors before TFLite_Detection_PostProcess, which the chain lacks; a
# YOLO's head, top-k, NMS and detections: its SiLU sigmoids carry its
# convolutions' float32 rounding to 2.4e-5 of their own scale) and
# pixels=255 for a float image input taking 0..255 (the U-Net's own
# normalization; 0..1 otherwise).
while read -r short file flags; do
    model=$TFPI_TFLITE_MODELS/$short/$file
    [ -f "$model" ] || { echo "skip $short: no $model"; continue; }
    mkdir -p "$CLI_TMP/in_$short"
    top=1 # a float image input's largest value: 1, or 255 with the token pixels=255
    case " $flags " in *" pixels=255 "*) top=255 flags=$(echo "$flags" | sed 's/pixels=255//') ;; esac
    # shellcheck disable=SC2046 # one input file a line
    inputs=$($PY - "$model" "$CLI_TMP/in_$short" "$TD/images/grace_hopper.jpg" $top <<'EOF'
import sys
import numpy as np
from PIL import Image
sys.path.insert(0, "tests/cli")
from tflite_numpy_reference import Model
model, out, picture, top = Model(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
rng = np.random.default_rng(3)
for k, t in enumerate(model.inputs):
    tensor = model.tensors[t]
    shape = [max(d, 1) for d in tensor.shape]
    if len(shape) == 4 and shape[3] == 3:
        rgb = np.asarray(Image.open(picture).convert("RGB").resize((shape[2], shape[1]), Image.BILINEAR))[None]
        if tensor.dtype == np.float32:
            x = rgb.astype(np.float32) * np.float32(top / 255)
        else:
            x = rgb.astype(np.int16) - (128 if tensor.dtype == np.int8 else 0)
    elif tensor.dtype == np.float32:
        x = rng.uniform(-1, 1, shape)
    else:
        info = np.iinfo(tensor.dtype)
        x = rng.integers(info.min, info.max + 1, shape)
    np.save("%s/input_%d.npy" % (out, k), x.astype(tensor.dtype))
    print("%s/input_%d.npy" % (out, k))
EOF
)
    # shellcheck disable=SC2086 # flags and inputs: words
    against_numpy "$short" "$model" $flags $inputs
    case $short in
    unet_mnv3_seg_q | noise_cls_berkya | kws_directions_q)
        mkdir -p "$dir/rule"
        # shellcheck disable=SC2086
        $PY tests/cli/tflite_numpy_reference.py "$model" "$dir/rule" --hybrid=tflite $inputs &&
            echo "info: $short (hybrid) against TFLite's hybrid rule: $($PY tests/cli/tflite_refs.py hybrid "$dir" "$dir/rule")"
        ;;
    esac
done <<EOM
tm_mask_quant model.tflite --every_op
mnv1_quant_coconote mobilenet_v1_1.0_224_quant.tflite --every_op
deeplab_mnv2_quant deeplabv3_mnv2_pascal_quant.tflite --every_op
det_brainypi model.tflite --output=Squeeze --output=convert_scores
automl_traffic traffic_model.tflite --output=concat --output=convert_scores --output=raw_outputs/lstm_c --output=raw_outputs/lstm_h
kws_directions_q model_quantized.tflite
esrgan_brainypi model.tflite
seg_mnv2dm05_fp16 model.tflite
unet_mnv3_seg_q model_quantized.tflite pixels=255
noise_cls_berkya model.tflite
tf2_mnv2_ptq tf2_mobilenet_v2_1.0_224_ptq.tflite --every_op
mnv2_inat_bird mobilenet_v2_1.0_224_inat_bird_quant.tflite --every_op
mnv2_quant_cmpss mobilenet_v2_1.0_224_quant.tflite --every_op
person_detect_int8 person_detect.tflite --every_op
kws_micro_speech_int8 micro_speech_quantized.tflite --every_op
conv_coconote converted_model.tflite
tm_containers containers_model.tflite
deeplab_gpu_float deeplabv3_257_mv_gpu.tflite
mnv2_pytorch_int8 mobilenet_v2_quantized_1x3x224x224.tflite --every_op
ssd_fish_cmpss detect.tflite --output=Squeeze --output=convert_scores
ssd_pet detect.tflite --output=Squeeze --output=convert_scores
ssd_mnv1_uint8_aryan detect.tflite --every_op
ssd_trash detect.tflite --every_op
lstm_mnist_float trained_lstm.tflite --every_op
keras_lstm_ptq keras_lstm_mnist_ptq.tflite --every_op
lstm_mnist_int8 trained_lstm_int8.tflite --every_op
kws_lstm_xtensa micro_speech_lstm.tflite --every_op
dtln_ns dtln_noise_suppression.tflite --every_op
yamnet_float yamnet.tflite --every_op
yolov8n_int8_beng yolov8n_int8.tflite --output=model_8/tf.compat.v1.transpose_81/transpose --output=model_8/tf.compat.v1.gather_2/GatherV2 --output=model_8/tf.math.multiply_261/Mul --output=model_8/tf.math.top_k/TopKV21 --output=model_8/nms_layer/non_max_suppression/NonMaxSuppressionV4 --output=model_8/nms_layer/non_max_suppression/NonMaxSuppressionV41 --output=Identity
movenet_lightning_int8 lite-model_movenet_singlepose_lightning_tflite_int8_4.tflite --every_op
EOM
cli_summary
