#!/bin/sh
# test_checkpoint.sh - the checkpoint (tensor bundle) reader through
# inspect_checkpoint: every tensor of the six real checkpoints in
# ../shared/testdata/savedmodel against an independent Python reader
# (checkpoint_files.py); synthetic checkpoints with strings, partitioned
# tensors and two shards; and damaged ones, each giving one error line that
# names the file and what is wrong.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
SM=../shared/testdata/savedmodel
CASES=tests/cli/checkpoint_cases.py

# same_output NAME FILE TOOL ARGS...: exit 0 and stdout equal to FILE.
same_output() {
    name=$1 want=$2
    shift 2
    run_tool "$@"
    if [ "$rc" -ne 0 ]; then cli_result "$name" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
    elif cmp -s "$want" "$CLI_TMP/out"; then cli_result "$name" yes ""
    else cli_result "$name" no "$(diff "$want" "$CLI_TMP/out" | head -n 4)"; fi
}

for m in xor_tf1/1 iris_tf1/1 houseprices_ckpt mnist_bn_tf2 digit_tflite_tf2/saved_model stock_lstm_tf2; do
    prefix=$SM/$m/variables/variables
    [ -f "$prefix.index" ] || prefix=$SM/$m/model.ckpt
    $PY "$CASES" list "$prefix" >"$CLI_TMP/list"
    same_output "$m: keys, dtypes and shapes" "$CLI_TMP/list" inspect_checkpoint --file_name="$SM/$m"
    $PY "$CASES" expect "$prefix" >"$CLI_TMP/values"
    same_output "$m: every tensor, checksums verified" "$CLI_TMP/values" \
        inspect_checkpoint --file_name="$prefix" --all_tensors
done
expect_output "a prefix from a P.index path" "dense_1/kernel \(DT_FLOAT\) \[2,8\]" \
    inspect_checkpoint --file_name=$SM/xor_tf1/1/variables/variables.index
expect_output "a prefix from a directory's checkpoint file" "Variable \(DT_FLOAT\) \[8,100\]" \
    inspect_checkpoint --file_name=$SM/houseprices_ckpt
run_tool inspect_checkpoint --file_name=$SM/xor_tf1/1 --tensor_name=dense_1/kernel --output="$CLI_TMP/k.npy"
ok=$($PY -c "
import sys, numpy as np; sys.path.insert(0, 'tests/cli'); import checkpoint_files as ck
want = ck.read_bundle('$SM/xor_tf1/1/variables/variables')['dense_1/kernel']
got = np.load('$CLI_TMP/k.npy'); print('yes' if got.dtype == want.dtype and np.array_equal(got, want) else 'no')")
cli_result "--tensor_name --output writes the tensor as .npy" "$ok" "$(cat "$CLI_TMP/err")"

D=$CLI_TMP/ckpt
mkdir -p "$D"
$PY "$CASES" make "$D"
same_output "numeric types, scalar, empty tensor, 300 keys in several blocks" "$D/plain.expected" \
    inspect_checkpoint --file_name="$D/plain" --all_tensors
same_output "string tensors (empty strings, UTF-8, NUL and 0xff bytes)" "$D/strings.expected" \
    inspect_checkpoint --file_name="$D/strings" --all_tensors
same_output "partitioned tensors reassembled from their slices" "$D/parts.expected" \
    inspect_checkpoint --file_name="$D/parts" --all_tensors
expect_output "a partitioned tensor is listed with its full shape" "^big \(DT_FLOAT\) \[130,3\] partitioned" \
    inspect_checkpoint --file_name="$D/parts"
same_output "two data shards" "$D/shards.expected" inspect_checkpoint --file_name="$D/shards" --all_tensors

expect_error "flipped data byte" "checkpoint .*bad_data: checksum mismatch for key 'x' \(.*bad_data.data-00000-of-00001, offset 0, 16 bytes\)" \
    inspect_checkpoint --file_name="$D/bad_data" --tensor_name=x
expect_error "flipped string lengths checksum" "checkpoint .*bad_lengths: key 's': the length checksum does not match" \
    inspect_checkpoint --file_name="$D/bad_lengths" --tensor_name=s
expect_error "flipped string byte" "checkpoint .*bad_string_bytes: checksum mismatch for key 's'" \
    inspect_checkpoint --file_name="$D/bad_string_bytes" --tensor_name=s
expect_error "flipped data block of the index" "bad_data_block.index: block checksum mismatch at offset 0$" \
    inspect_checkpoint --file_name="$D/bad_data_block"
expect_error "flipped metaindex block" "bad_meta_block.index: block checksum mismatch at offset [1-9]" \
    inspect_checkpoint --file_name="$D/bad_meta_block"
expect_error "flipped index block" "bad_index_block.index: block checksum mismatch at offset [1-9]" \
    inspect_checkpoint --file_name="$D/bad_index_block"
expect_error "flipped block trailer" "bad_trailer.index: block checksum mismatch" \
    inspect_checkpoint --file_name="$D/bad_trailer"
expect_error "a block handle one byte too long" "long_handle.index: a block handle points outside the file \(offset [0-9]+\)$" \
    inspect_checkpoint --file_name="$D/long_handle"
expect_error "truncated index" "truncated.index: not a TF checkpoint index \(bad magic" \
    inspect_checkpoint --file_name="$D/truncated"
expect_error "entry past its data file" "key 'x' lies past the end of .*past_end.data-00000-of-00001 \(offset 8 \+ 16 bytes > file size 16\)" \
    inspect_checkpoint --file_name="$D/past_end" --tensor_name=x
expect_error "entry size disagrees with its shape" "invalid size in bundle entry: key 'x'; stored size 16; expected size 20" \
    inspect_checkpoint --file_name="$D/bad_size" --tensor_name=x
expect_error "missing shard" "checkpoint .*missing_shard: .*missing_shard.data-00001-of-00002 not found \(2 shards; needed for key 'b'\)" \
    inspect_checkpoint --file_name="$D/missing_shard" --all_tensors
expect_error "missing slice" "the data of a slice of partitioned key 'w' is missing" \
    inspect_checkpoint --file_name="$D/missing_slice" --tensor_name=w
expect_error "slices that do not cover the tensor" "does not have sufficient slices for partitioned tensor 'w'" \
    inspect_checkpoint --file_name="$D/few_slices" --tensor_name=w
"$PY" -c "
import sys, numpy as np; sys.path.insert(0, 'tests/cli'); import checkpoint_cases as c
x = np.arange(4096, dtype=np.float32)
sys.stdout.write(''.join(c.format_tensor(k, x) for k in ['x'] + ['y%03d' % i for i in range(300)]))" \
    >"$CLI_TMP/shared.expected"
same_output "301 keys sharing one region of the data file" "$CLI_TMP/shared.expected" \
    inspect_checkpoint --file_name="$D/shared_region" --all_tensors
for c in "negative_shape:or unknown shape" "negative_shard:shard" "negative_offset:offset or size"; do
    expect_error "entry with a ${c%%:*}" "${c%%:*}.index: entry 1 \(key 'x'\) has a negative ${c#*:}$" \
        inspect_checkpoint --file_name="$D/${c%%:*}"
done
expect_error "variant tensor" "key 'x' holds a variant tensor" \
    inspect_checkpoint --file_name="$D/variant" --tensor_name=x
expect_error "big-endian bundle" "big_endian.index: a big-endian checkpoint" \
    inspect_checkpoint --file_name="$D/big_endian"
expect_error "restart count past the block" "bad_restarts.index: bad entry in block at offset 0 \(too many restarts\)" \
    inspect_checkpoint --file_name="$D/bad_restarts"
expect_error "unknown key" "checkpoint .*plain: key 'nope' not found" \
    inspect_checkpoint --file_name="$D/plain" --tensor_name=nope
# (numeric tensors are printed from the mapped data file, which the budget does not count)
# u: two strings (420 bytes in all) and a 16-byte descriptor each (8 bytes on the 32-bit targets)
case "${TARGET:-linux}" in pi | armv6) u_bytes=436 ;; *) u_bytes=452 ;; esac
expect_error "over the memory budget" "key 'u' needs $u_bytes bytes, over the memory budget of 40 bytes" \
    inspect_checkpoint --file_name="$D/strings" --tensor_name=u --max_memory=40
expect_error "partitioned tensor over the memory budget" "key 'big' needs [0-9]+ bytes, over the memory budget of 1000 bytes" \
    inspect_checkpoint --file_name="$D/parts" --tensor_name=big --max_memory=1000
expect_error "no checkpoint" "nothing: no checkpoint there \(.*nothing.index does not exist\)" \
    inspect_checkpoint --file_name="$D/nothing"
expect_error "a directory without a checkpoint file" "a directory with no .checkpoint. file" \
    inspect_checkpoint --file_name="$CLI_TMP"
cli_summary
