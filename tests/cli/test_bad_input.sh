# test_bad_input.sh - every kind of bad input to label_image and run_graph
# gives one clear error line naming the file, node or flag, and a non-zero
# exit without crashing.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
MODEL=$TD/mobilenet_v1_0.25_128/frozen_graph.pb
LABELS=$TD/mobilenet_v1_0.25_128/labels.txt
IMAGE=$TD/images/grace_hopper.jpg
LI="--graph=$MODEL --labels=$LABELS --image=$IMAGE --input_width=128 --input_height=128"

head -c 100000 "$MODEL" >"$CLI_TMP/truncated.pb"
head -c 4096 /dev/urandom >"$CLI_TMP/random.pb"
: >"$CLI_TMP/empty.pb"
# A GraphDef with one node "x" of op "FancyOp": node{name:"x" op:"FancyOp"}
printf '\n\014\n\001x\022\007FancyOp' >"$CLI_TMP/unknown_op.pb"
echo "not an image" >"$CLI_TMP/text.jpg"
head -c 2000 "$IMAGE" >"$CLI_TMP/truncated.jpg"

# shellcheck disable=SC2086
{
expect_error "truncated model" "truncated.pb" label_image $LI --graph="$CLI_TMP/truncated.pb"
expect_error "random bytes model" "random.pb" label_image $LI --graph="$CLI_TMP/random.pb"
expect_error "empty model" "empty.pb: the file is empty" label_image $LI --graph="$CLI_TMP/empty.pb"
expect_error "missing model" "nothere.pb: cannot open" label_image $LI --graph="$CLI_TMP/nothere.pb"
expect_error "unknown op" "node 'x' needs op 'FancyOp'" run_graph --graph="$CLI_TMP/unknown_op.pb" --output=x
expect_error "wrong input layer: the flag, and the graph's inputs" \
    "^error: --input_layer: the graph has no node named 'nosuch'; its inputs: input \(float \[1,128,128,3\]\)$" \
    label_image $LI --input_layer=nosuch
expect_error "wrong output layer" "fetch 'nosuch:0'" label_image $LI --output_layer=nosuch:0
expect_error "wrong input shape: the flags that gave it, not --graph" \
    "^error: --input_width/--input_height: \[1,100,128,3\] does not fit input 'input', which the graph declares as float \[1,128,128,3\]$" \
    label_image $LI --input_height=100
expect_error "non-image file" "text.jpg" label_image $LI --image="$CLI_TMP/text.jpg"
expect_error "truncated JPEG" "truncated.jpg" label_image $LI --image="$CLI_TMP/truncated.jpg"
expect_error "missing image" "nothere.jpg: cannot open" label_image $LI --image="$CLI_TMP/nothere.jpg"
expect_error "missing labels" "--labels: .*nothere.txt: cannot open" label_image $LI --labels="$CLI_TMP/nothere.txt"
expect_error "unknown flag" "unknown flag --colour" label_image $LI --colour=red
expect_error "bad number" "invalid value 'abc' for flag --input_width" label_image $LI --input_width=abc
expect_error "run_graph missing npy" "nothere.npy: cannot open" run_graph --graph="$MODEL" --input=input="$CLI_TMP/nothere.npy" --output=x
expect_error "run_graph not npy" "text.jpg: not a .npy file" run_graph --graph="$MODEL" --input=input="$CLI_TMP/text.jpg" --output=x
expect_error "--input_std=0 says why" "^error: --input_std must not be 0: each pixel is divided by it" label_image $LI --input_std=0
expect_error "--top_k=0 names the flag alone" "^error: --top_k must be at least 1 \(it is 0\)" label_image $LI --top_k=0
expect_output "--top_k past the label count prints every label" "^bow tie.*" label_image $LI --top_k=2147483647
expect_error "--max_image_pixels=-1 is refused" "invalid value '-1' for flag --max_image_pixels: it must be 0 or more" \
    label_image $LI --max_image_pixels=-1
expect_error "unfed placeholder" "node 'input' \(Placeholder\): placeholder must be fed" run_graph --graph="$MODEL" --output=MobilenetV1/Predictions/Reshape_1
}
cli_summary
