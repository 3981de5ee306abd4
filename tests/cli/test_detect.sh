# test_detect.sh - pi_examples/detect on the Object Detection API export in
# ../shared/testdata/detection/ssd_aiy: fed the reference image tensors (as
# lossless PNGs), it prints the detections TensorFlow.js computed from the
# same graph (labels, scores within 1e-4, corners within 0.1 pixel), on 1
# and 3 threads; --output writes a PNG of the picture's size; camera
# --detect announces the best object; label_image lists the best detection;
# summarize_graph and print_required_ops describe the graph; bad flags and
# files are one-line errors.
. tests/cli/lib.sh
PY=/usr/bin/python3
TD=${TFPI_TESTDATA:-../shared/testdata}
D=$TD/detection/ssd_aiy
MODEL="--graph=$D/frozen_inference_graph.pb --labels=$D/labels.txt"

for image in image_11 grace_hopper; do
    "$PY" tests/cli/detection_reference.py png "$D/$image.image_tensor.npy" "$CLI_TMP/$image.png"
    "$PY" tests/cli/detection_reference.py lines "$D/$image" "$D/labels.txt" 0.05 >"$CLI_TMP/want.txt"
    for threads in 1 3; do
        # shellcheck disable=SC2086
        run_tool detect $MODEL --image="$CLI_TMP/$image.png" --threshold=0.05 --num_threads=$threads
        if [ "$rc" -eq 0 ] && why=$("$PY" tests/cli/detection_reference.py compare "$CLI_TMP/want.txt" \
            "$CLI_TMP/out" 2>&1); then
            cli_result "detect $image, $threads threads: the reference detections" yes ""
        else
            cli_result "detect $image, $threads threads: the reference detections" no "$why $(cat "$CLI_TMP/err")"
        fi
    done
done

"$PY" tests/cli/detection_reference.py lines "$D/image_11" "$D/labels.txt" 0.07 >"$CLI_TMP/want.txt"
# shellcheck disable=SC2086
run_tool detect $MODEL --image="$CLI_TMP/image_11.png" --threshold=0.07 --output="$CLI_TMP/boxes.png"
size=$(od -An -tu1 -j16 -N8 "$CLI_TMP/boxes.png" 2>/dev/null | tr -s ' ' | sed 's/^ //')
if [ "$rc" -eq 0 ] && [ "$size" = "0 0 0 250 0 0 0 187" ] &&
    "$PY" tests/cli/detection_reference.py compare "$CLI_TMP/want.txt" "$CLI_TMP/out"; then
    cli_result "detect --output writes the picture (250x187 PNG)" yes ""
else
    cli_result "detect --output writes the picture (250x187 PNG)" no "rc $rc, IHDR size '$size' $(cat "$CLI_TMP/err")"
fi

# label_image on a detection graph: its best detection is the top label
"$PY" tests/cli/detection_reference.py lines "$D/image_11" "$D/labels.txt" 0 | head -n 1 >"$CLI_TMP/want.txt"
# shellcheck disable=SC2086
run_tool label_image $MODEL --input_layer=image_tensor --image="$CLI_TMP/image_11.png" --top_k=1
sed -E 's/^(.*) \([0-9]+\): (.*)$/\1 \2/' "$CLI_TMP/out" >"$CLI_TMP/got.txt"
if [ "$rc" -eq 0 ] && awk 'NR == FNR { label = $1; score = $2; next }
        { exit !($1 == label && $2 - score < 1e-4 && score - $2 < 1e-4) }' "$CLI_TMP/want.txt" "$CLI_TMP/got.txt"; then
    cli_result "label_image lists a detection graph's best detection" yes ""
else
    cli_result "label_image lists a detection graph's best detection" no "got '$(cat "$CLI_TMP/out")', want '$(cat "$CLI_TMP/want.txt")' $(cat "$CLI_TMP/err")"
fi

mkdir -p "$CLI_TMP/frames"
cp "$CLI_TMP/image_11.png" "$CLI_TMP/frames/"
# shellcheck disable=SC2086
expect_output "camera --detect announces the best object" "^SHEEP$" \
    camera --detect $MODEL --frames_from="$CLI_TMP/frames" --print_threshold=0.07 --num_threads=1

expect_output "summarize_graph names the uint8 image_tensor input" \
    "possible inputs: \(name=image_tensor, type=uint8\(4\), shape=\[\?,\?,\?,3\]\)" \
    summarize_graph --in_graph="$D/frozen_inference_graph.pb"
expect_output "summarize_graph names the four detection outputs" \
    "4 possible outputs: \(name=detection_boxes, .*\(name=detection_scores, .*\(name=detection_classes, .*\(name=num_detections," \
    summarize_graph --in_graph="$D/frozen_inference_graph.pb"
# every op has a kernel; control flow is one tf_op_files.txt line like any other
run_tool print_required_ops --graph="$D/frozen_inference_graph.pb"
if [ "$rc" -eq 0 ] && ! grep -q "no tfpi kernel" "$CLI_TMP/out" && grep -q \
    "^kernels/control_flow.c  # Enter Exit LoopCond Merge NextIteration Switch$" "$CLI_TMP/out"; then
    cli_result "print_required_ops: the detection graph needs kernels/control_flow.c" yes ""
else
    cli_result "print_required_ops: the detection graph needs kernels/control_flow.c" no "$(head -c 600 "$CLI_TMP/out")"
fi

# shellcheck disable=SC2086
expect_error "detect without --graph and no default model: where it looked" \
    "error: --graph: none given and no default: frozen_inference_graph.pb is neither in the current folder nor beside" \
    detect --image="$CLI_TMP/image_11.png"
# shellcheck disable=SC2086
expect_error "detect --threshold out of range" "error: --threshold must be between 0 and 1" \
    detect $MODEL --image="$CLI_TMP/image_11.png" --threshold=2
# shellcheck disable=SC2086
expect_error "detect on a file that is no picture" "error: --image: .*labels.txt" \
    detect $MODEL --image="$D/labels.txt"
expect_error "detect with a classifier graph" "error: --graph: .*image_tensor" \
    detect --graph="$TD/mnist/mnist.pb" --labels="$D/labels.txt" --image="$CLI_TMP/image_11.png"
# shellcheck disable=SC2086
expect_error "detect --output into a missing folder" "error: --output: $CLI_TMP/no/such/boxes.png" \
    detect $MODEL --image="$CLI_TMP/image_11.png" --output="$CLI_TMP/no/such/boxes.png" --threshold=0.05
cli_summary
