# test_first_minutes.sh - what a new user meets in the first ten minutes:
# a copied binary finds its model, labels and picture beside itself or in
# the current folder (the README's deploy recipe); --labels is optional; a
# labels file that does not match the model is a warning naming both counts;
# detect says when nothing scores above its threshold and names the best
# candidate, and finds its defaults the same way; camera announces the
# demo picture at its default threshold, by the first name of a synonym
# list, keeps a failing speaker to one warning line, and tells how to run
# without a camera; summarize_graph suggests a realistic image size; the
# benchmark_model mistakes people make get messages that say what to do.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
M224=$TD/mobilenet_v1_0.25_224
SSD=$TD/detection/ssd_aiy
IMAGE=$TD/images/grace_hopper.jpg
OUT=MobilenetV1/Predictions/Reshape_1
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }

# run_in DIR TOOL ARGS...: $BIN/TOOL copied to DIR runs from DIR (as on a board).
run_in() {
    dir=$1
    shift
    # shellcheck disable=SC2086 # QEMU is a command with arguments
    (cd "$dir" && $QEMU "./$@") >"$CLI_TMP/out" 2>"$CLI_TMP/err"
    rc=$?
}

want=$($QEMU "$BIN/label_image" --graph="$M224/frozen_graph.pb" --labels="$M224/labels.txt" --image="$IMAGE")
top=$(echo "$want" | head -n 1)

# shellcheck disable=SC2086 # one flag per word
{
# ---- the deploy recipe: the binary, the model, its labels and the picture in one folder --------
DEPLOY=$CLI_TMP/pi
mkdir "$DEPLOY"
cp "$BIN/label_image" "$BIN/detect" "$BIN/camera" "$M224/frozen_graph.pb" "$M224/labels.txt" "$IMAGE" "$DEPLOY/"
run_in "$DEPLOY" label_image
cli_result "a copied label_image with no flags finds the model, labels and picture in its folder" \
    "$([ "$rc" -eq 0 ] && [ "$(cat "$CLI_TMP/out")" = "$want" ] && echo yes)" "exit $rc: $(head -c 300 "$CLI_TMP/err")"
got=$(cd / && $QEMU "$DEPLOY/label_image" 2>&1)
cli_result "... and from any other folder, beside the binary" "$([ "$got" = "$want" ] && echo yes)" "$got"
rm "$DEPLOY/labels.txt"
run_in "$DEPLOY" label_image --top_k=1
cli_result "no labels file: label_image prints class numbers" \
    "$([ "$rc" -eq 0 ] && [ "$(cat "$CLI_TMP/out")" = "class 458 (458): $(echo "$top" | sed 's/.*: //')" ] && echo yes)" \
    "exit $rc: $(cat "$CLI_TMP/out") $(head -c 200 "$CLI_TMP/err")"
rm "$DEPLOY/frozen_graph.pb"
run_in "$DEPLOY" label_image
cli_result "no model anywhere: one error line saying where it looked and what to give" \
    "$([ "$rc" -eq 1 ] && grep -qE '^error: --graph: .*frozen_graph.pb is neither in the current folder nor beside the program.*give --graph=' "$CLI_TMP/err" &&
        [ "$(wc -l <"$CLI_TMP/err")" -eq 1 ] && echo yes)" "exit $rc: $(cat "$CLI_TMP/err")"

head -n 1000 "$M224/labels.txt" >"$CLI_TMP/labels_1000.txt"
run_tool label_image --graph="$M224/frozen_graph.pb" --labels="$CLI_TMP/labels_1000.txt" --image="$IMAGE"
cli_result "a labels file that does not match the model: a warning naming both counts" \
    "$([ "$rc" -eq 0 ] && grep -qE '^warning: --labels: .*labels_1000.txt has 1000 labels, but the model gives 1001 scores' \
        "$CLI_TMP/err" && echo yes)" "exit $rc: $(cat "$CLI_TMP/err")"

# ---- detect ------------------------------------------------------------------------------
DETECT="--graph=$SSD/frozen_inference_graph.pb --labels=$SSD/labels.txt --image=$IMAGE"
run_tool detect $DETECT
best=$($QEMU "$BIN/detect" $DETECT --threshold=0 | head -n 1)
best_at=$(echo "$best" | awk '{ print $1 " " $2 " at " $3 " " $4 " " $5 " " $6 }')
cli_result "detect with nothing above its threshold says so on stderr and names the best candidate" \
    "$([ "$rc" -eq 0 ] && [ ! -s "$CLI_TMP/out" ] &&
        grep -qx "detect: nothing scored at least --threshold=0.5; the best was $best_at (--threshold=0.10 shows it)" \
        "$CLI_TMP/err" && echo yes)" "exit $rc, best '$best': $(cat "$CLI_TMP/err")"
DETECT_DIR=$CLI_TMP/detect
mkdir "$DETECT_DIR"
cp "$BIN/detect" "$SSD/frozen_inference_graph.pb" "$IMAGE" "$DETECT_DIR/"
run_in "$DETECT_DIR" detect --threshold=0.075
first=$(head -n 1 "$CLI_TMP/out")
cli_result "detect finds frozen_inference_graph.pb and the picture in its folder; no label map: class numbers" \
    "$([ "$rc" -eq 0 ] && [ "$first" = "class 15 ${best#PERSON }" ] && echo yes)" "exit $rc: $first $(head -c 200 "$CLI_TMP/err")"
cp "$SSD/labels.txt" "$DETECT_DIR/labelmap.txt"
run_in "$DETECT_DIR" detect --threshold=0.075
cli_result "detect reads labelmap.txt beside it" "$([ "$(head -n 1 "$CLI_TMP/out")" = "$best" ] && echo yes)" \
    "$(head -n 1 "$CLI_TMP/out")"

# ---- camera ------------------------------------------------------------------------------
CAMERA="--graph=$M224/frozen_graph.pb --labels=$M224/labels.txt"
expect_output "camera announces the demo picture at its default threshold, by its first name" "^bow tie$" \
    camera $CAMERA --frames_from="$IMAGE"
cli_result "camera's announcement is the first name only ('bow tie', not the synonym list)" \
    "$([ "$(cat "$CLI_TMP/out")" = "bow tie" ] && grep -q 'bow tie, bow-tie, bowtie (458)' "$CLI_TMP/err" && echo yes)" \
    "stdout '$(cat "$CLI_TMP/out")'"
printf '#!/bin/sh\necho "ALSA lib pcm.c: Unknown PCM default" >&2\necho "audio_open_alsa: failed" >&2\necho chatter\nexit 1\n' \
    >"$CLI_TMP/bad_tts.sh"
chmod +x "$CLI_TMP/bad_tts.sh"
mkdir "$CLI_TMP/two"
cp "$IMAGE" "$CLI_TMP/two/1.jpg"
cp "$IMAGE" "$CLI_TMP/two/2.jpg"
run_tool camera $CAMERA --frames_from="$CLI_TMP/two" --repeat_after=0 --speak_cmd="$CLI_TMP/bad_tts.sh"
cli_result "a failing speaker: one warning line with its first error, its output kept off stdout and stderr" \
    "$([ "$rc" -eq 0 ] && [ "$(grep -c 'speak_cmd' "$CLI_TMP/err")" -eq 1 ] &&
        grep -q "^warning: --speak_cmd='.*bad_tts.sh' exited with status 1: ALSA lib pcm.c: Unknown PCM default" \
            "$CLI_TMP/err" && ! grep -q 'audio_open_alsa\|chatter' "$CLI_TMP/err" "$CLI_TMP/out" &&
        [ "$(cat "$CLI_TMP/out")" = "$(printf 'bow tie\nbow tie')" ] && echo yes)" \
    "exit $rc, stdout '$(cat "$CLI_TMP/out")', stderr: $(grep -v '^frame' "$CLI_TMP/err" | head -c 400)"
# download_dependencies.sh installs flite, camera --speak's default voice: here it writes what it says to a file
run_tool camera $CAMERA --frames_from="$IMAGE" --speak_cmd="flite -o $CLI_TMP/said.wav -t"
cli_result "flite (installed by the setup) speaks camera's label" \
    "$([ "$rc" -eq 0 ] && [ "$(head -c 4 "$CLI_TMP/said.wav" 2>/dev/null)" = RIFF ] &&
        [ "$(stat -c %s "$CLI_TMP/said.wav")" -gt 8000 ] && echo yes)" \
    "exit $rc, $(ls -l "$CLI_TMP/said.wav" 2>&1), stderr: $(head -c 300 "$CLI_TMP/err")"
if [ ! -e /dev/video9 ]; then
    expect_error "no camera: the error says how to run on pictures" \
        "/dev/video9.*; to label pictures instead: --source=files --frames_from=DIR" camera $CAMERA --device=/dev/video9
fi

# ---- summarize_graph: a realistic size for images of unknown size --------------------------
expect_output "summarize_graph suggests the size an SSD resizes to (256x256), not 1x1" \
    "--input_layer=image_tensor --input_layer_type=uint8 --input_layer_shape=1,256,256,3 " \
    summarize_graph --in_graph="$SSD/frozen_inference_graph.pb"
cat >"$CLI_TMP/picture.pbtxt" <<'EOF'
node { name: "image_tensor" op: "Placeholder" attr { key: "dtype" value { type: DT_UINT8 } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } dim { size: -1 } dim { size: 3 } } } } }
node { name: "as_float" op: "Cast" input: "image_tensor" attr { key: "SrcT" value { type: DT_UINT8 } }
       attr { key: "DstT" value { type: DT_FLOAT } } }
EOF
expect_output "summarize_graph suggests 300x300 for a uint8 picture of unknown size with no resize" \
    "--input_layer_shape=1,300,300,3 " summarize_graph --in_graph="$CLI_TMP/picture.pbtxt"

# ---- benchmark_model: messages that say what to do -----------------------------------------
BM="--graph=$M224/frozen_graph.pb --output_layer=$OUT --num_runs=1 --warmup_runs=0"
expect_output "--input_layer_type=float32 (TensorFlow's and numpy's spelling) is accepted" "^count=1 " \
    benchmark_model $BM --input_layer_type=float32
expect_error "an unknown --input_layer_type lists the accepted types" \
    "^error: --input_layer_type: unknown type 'f32' \(accepted: float float32 double .*string\)$" \
    benchmark_model $BM --input_layer_type=f32
expect_error "-1 in --input_layer_shape says to give a size" \
    "^error: --input_layer_shape: '-1,224,224,3' for input 'input' has -1: give the size to benchmark with" \
    benchmark_model $BM --input_layer_shape=-1,224,224,3
expect_error "a wrong --input_layer lists the graph's inputs" \
    "^error: --input_layer: the graph has no node named 'images'; its inputs: input \(float \[1,224,224,3\]\)$" \
    benchmark_model $BM --input_layer=images
expect_error "a wrong size blames --input_layer_shape (not --graph) and gives the declared shape" \
    "^error: --input_layer_shape: \[1,299,299,3\] does not fit input 'input', which the graph declares as float \[1,224,224,3\]$" \
    benchmark_model $BM --input_layer_shape=1,299,299,3
expect_error "run_graph: a wrong input name lists the graph's inputs" \
    "^error: --input: the graph has no node named 'images'; its inputs: input" \
    run_graph --graph="$M224/frozen_graph.pb" --input=images=@"$(abs "$IMAGE")" --output=$OUT
}
cli_summary
