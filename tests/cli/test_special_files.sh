# test_special_files.sh - every file a model, checkpoint, image or input
# names is opened without blocking and refused unless it is a regular file:
# a FIFO in place of a frozen graph, a SavedModel's saved_model.pb, data
# shard or index, a .meta, a checkpoint state file, an image or a .npy
# input gives one error line at once instead of waiting forever for a
# writer (each run has a 10 s limit; the test fails on a timeout).
. tests/cli/lib.sh
SM=../shared/testdata/savedmodel
CLI_TIME_LIMIT=10

# copy_with_fifo DIR COPY FILE: COPY is DIR with links to its files, but for
# FILE (a path inside DIR), which is a FIFO nobody writes.
copy_with_fifo() {
    rm -rf "$2"
    mkdir -p "$2"
    (cd "$1" && find . -type f) | while read -r f; do
        mkdir -p "$2/$(dirname "$f")"
        ln -s "$(cd "$1" && pwd)/$f" "$2/$f"
    done
    rm -f "$2/$3"
    mkfifo "$2/$3"
}

XOR_FEED="--input=dense_1_input:0=$CLI_TMP/x.npy"
${TFPI_PYTHON:-/usr/bin/python3} -c "import numpy as np; np.save('$CLI_TMP/x.npy', np.array([[0, 1]], np.float32))"

copy_with_fifo $SM/xor_tf1/1 "$CLI_TMP/sm_pb" saved_model.pb
expect_error "a FIFO saved_model.pb" "saved_model.pb: .*not a regular file" \
    run_graph --graph="$CLI_TMP/sm_pb" "$XOR_FEED" --output=activation_2/Sigmoid
copy_with_fifo $SM/xor_tf1/1 "$CLI_TMP/sm_data" variables/variables.data-00000-of-00001
expect_error "a FIFO data shard" "variables.data-00000-of-00001 is not a regular file" \
    run_graph --graph="$CLI_TMP/sm_data" "$XOR_FEED" --output=activation_2/Sigmoid
copy_with_fifo $SM/xor_tf1/1 "$CLI_TMP/sm_index" variables/variables.index
expect_error "a FIFO checkpoint index" "variables.index: not a regular file" \
    run_graph --graph="$CLI_TMP/sm_index" "$XOR_FEED" --output=activation_2/Sigmoid
copy_with_fifo $SM/houseprices_ckpt "$CLI_TMP/ckpt_meta" model.ckpt.meta
expect_error "a FIFO .meta" "model.ckpt.meta: .*not a regular file" \
    summarize_graph --in_graph="$CLI_TMP/ckpt_meta/model.ckpt.meta"
copy_with_fifo $SM/houseprices_ckpt "$CLI_TMP/ckpt_state" checkpoint
expect_error "a FIFO checkpoint state file" "ckpt_state/checkpoint: not a regular file" \
    inspect_checkpoint --file_name="$CLI_TMP/ckpt_state"

mkfifo "$CLI_TMP/graph.pb" "$CLI_TMP/picture.jpg" "$CLI_TMP/feed.npy"
expect_error "a FIFO frozen graph" "graph.pb: .*not a regular file" \
    run_graph --graph="$CLI_TMP/graph.pb" --output=y
expect_error "a FIFO image" "picture.jpg: cannot open: not a regular file" \
    label_image --image="$CLI_TMP/picture.jpg"
expect_error "a FIFO .npy input" "feed.npy: cannot open: not a regular file" \
    run_graph --graph="$SM/xor_tf1/1" --input=dense_1_input:0="$CLI_TMP/feed.npy" --output=activation_2/Sigmoid
cli_summary
