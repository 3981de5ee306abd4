# test_tf_flags.sh - TensorFlow's tool flags mean what they mean in
# TensorFlow (docs/reference.md sections 6 and 8, TensorFlow's
# benchmark_model.cc): benchmark_model's newer names (--max_num_runs,
# --inference_delay, --inter_benchmark_delay), --time_limit and
# --memory_limit as row counts, --show_sizes, the benchmark records of
# --benchmark_name/--output_prefix (decoded here with the wire reader of
# tests/diff/graphdef.py), string inputs timed as a run on a new input
# costs, 8-bit ops counted apart from FLOPs; transform_graph's "Applying"
# lines and summary; .pbtxt graphs in every tool that runs a model; quantized
# outputs written to .npy; --help with defaults; --num_threads the same
# everywhere.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
M=$TD/mobilenet_v1_0.25_128
OUT=MobilenetV1/Predictions/Reshape_1
BM="--graph=$M/frozen_graph.pb --input_layer=input --input_layer_shape=1,128,128,3 --output_layer=$OUT"
PY=/usr/bin/python3

# table_rows TITLE: the rows of one table of $CLI_TMP/out.
table_rows() {
    awk -v t="= $1 =" 'index($0, t) { on = 1; getline; next } on && /^$/ { on = 0 } on { n++ } END { print n + 0 }' \
        "$CLI_TMP/out"
}

# shellcheck disable=SC2086 # one flag per word
{
# ---- benchmark_model -------------------------------------------------------------
expect_output "--max_num_runs is --num_runs" "^count=3 " benchmark_model $BM --max_num_runs=3 --warmup_runs=0 \
    --show_time=false --show_memory=false --show_summary=false
start=$(date +%s%N)
expect_output "--inference_delay is --run_delay, --inter_benchmark_delay is printed" \
    "^Inter-benchmark delay \(seconds\): \[0.2\]" benchmark_model $BM --num_runs=3 --warmup_runs=0 \
    --inference_delay=0.1 --inter_benchmark_delay=0.2 --show_time=false --show_memory=false --show_summary=false
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
cli_result "the delays are slept: 2 x 0.1 s between runs, 0.2 s between the warm-up and the runs" \
    "$([ "$elapsed_ms" -ge 400 ] && grep -q '^Inter-run delay (seconds): \[0.1\]' "$CLI_TMP/out" && echo yes)" \
    "took $elapsed_ms ms"
run_tool benchmark_model $BM --num_runs=2 --time_limit=3 --memory_limit=2 --show_summary=false
cli_result "--time_limit=3: three rows of Top by Computation Time (TensorFlow's meaning, not seconds)" \
    "$([ "$rc" -eq 0 ] && [ "$(table_rows 'Top by Computation Time')" -eq 3 ] && echo yes)" \
    "exit $rc, $(table_rows 'Top by Computation Time') rows"
cli_result "--memory_limit=2: two rows of Top by Memory Use" \
    "$([ "$(table_rows 'Top by Memory Use')" -eq 2 ] && echo yes)" "$(table_rows 'Top by Memory Use') rows"
run_tool benchmark_model $BM --num_runs=1 --show_sizes --show_time=false --show_memory=false --show_summary=false
cli_result "--show_sizes: TensorFlow's table of each node's outputs (name, count, dtype, rank, sizes)" \
    "$(grep -q '^============ Node output tensor sizes in run order ========$' "$CLI_TMP/out" &&
        grep -qP '^MobilenetV1/MobilenetV1/Conv2d_0/convolution\t1\tfloat\t4\t1\t64\t64\t8$' "$CLI_TMP/out" &&
        grep -qP "^$OUT\t1\tfloat\t2\t1\t1001\$" "$CLI_TMP/out" && echo yes)" "$(head -c 400 "$CLI_TMP/out")"

mkdir "$CLI_TMP/records"
run_tool benchmark_model $BM --num_runs=3 --warmup_runs=1 --benchmark_name=mobilenet/128 \
    --output_prefix="$CLI_TMP/records/run_" --show_time=false --show_memory=false --show_summary=false
records=$(cd "$CLI_TMP/records" && ls)
decoded=$(PYTHONPATH=tests/diff $PY -c '
import struct
import sys
from graphdef import _fields
entries = [v for f, w, v in _fields(open(sys.argv[1], "rb").read()) if f == 1]
e = {f: v for f, w, v in _fields(entries[0])}
name, iters = e[1].decode(), e[2]
cpu, wall, throughput = (struct.unpack("<d", e[k])[0] for k in (3, 4, 5))
# 3 runs of a [1,128,128,3] float input: 196608 bytes a run
ok = len(entries) == 1 and name == "mobilenet/128" and iters == 3 and abs(cpu + 1 / 3) < 1e-12 and 0 < wall < 10 \
    and abs(throughput - 196608 / wall / 2 ** 20) < 1e-6 * throughput
print("yes" if ok else "no %s %s %s %s %s" % (name, iters, cpu, wall, throughput))' \
    "$CLI_TMP/records/run_mobilenet__128" 2>&1)
cli_result "--benchmark_name/--output_prefix: TensorFlow's BenchmarkEntries record (name, iters, wall time, MB/s)" \
    "$([ "$rc" -eq 0 ] && [ "$decoded" = yes ] && echo yes)" "exit $rc; $decoded; files: $records"
cli_result "--benchmark_name/--output_prefix: one record per op type too" \
    "$(echo "$records" | grep -qx 'run_mobilenet__128_Conv2D' &&
        echo "$records" | grep -qx 'run_mobilenet__128_DepthwiseConv2dNative' && echo yes)" "$records"
expect_error "a record that exists is not overwritten (TensorFlow's rule)" "run_mobilenet__128: the file exists" \
    benchmark_model $BM --num_runs=1 --benchmark_name=mobilenet/128 --output_prefix="$CLI_TMP/records/run_"
expect_error "--benchmark_name without --output_prefix" "go together" benchmark_model $BM --benchmark_name=x

SPEECH=$TD/speech_commands
if [ -z "$QEMU" ]; then # the same logic on every target; 9 s a run under qemu
    run_tool benchmark_model --graph="$SPEECH/conv_actions_frozen.pb" --input_layer=wav_data \
        --input_layer_type=string --input_layer_shape= --input_layer_values=@"$SPEECH/yes.wav" \
        --output_layer=labels_softmax --num_runs=2 --warmup_runs=0 --show_time=false --show_memory=false \
        --show_summary=false
    min_us=$(sed -n 's/^count=2 first=[0-9]* curr=[0-9]* min=\([0-9]*\) .*/\1/p' "$CLI_TMP/out" | head -n 1)
    cli_result "a string input (a WAV file) is timed as a run on a new input: every run at least 1 ms, not the 0-1 us of a cached plan" \
        "$([ "$rc" -eq 0 ] && [ -n "$min_us" ] && [ "$min_us" -ge 1000 ] && echo yes)" "exit $rc, min=$min_us us"
fi

# ---- transform_graph ---------------------------------------------------------------
run_tool transform_graph --in_graph="$M/frozen_graph.pb" --out_graph="$CLI_TMP/folded.pb" --inputs=input \
    --outputs=$OUT --transforms='remove_nodes(op=Identity) fold_constants fold_batch_norms'
bytes=$(wc -c <"$CLI_TMP/folded.pb")
cli_result "transform_graph logs 'Applying <transform>' as TensorFlow does, with what each changed" \
    "$([ "$rc" -eq 0 ] && grep -qx 'Applying fold_constants' "$CLI_TMP/out" &&
        grep -qx '  remove_nodes: 555 -> 417 nodes (-138 Identity)' "$CLI_TMP/out" && echo yes)" "$(cat "$CLI_TMP/out")"
cli_result "transform_graph ends with the changes in all: nodes by op and bytes before and after" \
    "$(grep -qE "^Done: 555 -> 147 nodes \(.*-138 Identity.*\); 19982[0-9]{2} -> $bytes bytes of GraphDef; wrote " \
        "$CLI_TMP/out" && echo yes)" "$(tail -n 1 "$CLI_TMP/out")"

# ---- .pbtxt everywhere a .pb is read ---------------------------------------------------
run_tool transform_graph --in_graph="$M/frozen_graph.pb" --out_graph="$CLI_TMP/mobilenet.pbtxt" --inputs=input \
    --outputs=$OUT --transforms=remove_device --output_as_text
LI="--labels=$M/labels.txt --input_width=128 --input_height=128 --image=$TD/images/grace_hopper.jpg"
run_tool label_image --graph="$M/frozen_graph.pb" $LI
cp "$CLI_TMP/out" "$CLI_TMP/from_pb"
expect_output "label_image reads a .pbtxt graph: the .pb's labels" "$(head -n 1 "$CLI_TMP/from_pb" | sed 's/[()]/\\&/g')" \
    label_image --graph="$CLI_TMP/mobilenet.pbtxt" $LI
cli_result "label_image on the .pbtxt prints exactly what the .pb gives" \
    "$(cmp -s "$CLI_TMP/out" "$CLI_TMP/from_pb" && echo yes)" "$(head -n 2 "$CLI_TMP/out")"
cp "$CLI_TMP/mobilenet.pbtxt" "$CLI_TMP/mobilenet_text.pb" # text, whatever the name says
expect_output "benchmark_model reads a text graph (named .pb)" "^count=1 " benchmark_model \
    --graph="$CLI_TMP/mobilenet_text.pb" --input_layer=input --input_layer_shape=1,128,128,3 --output_layer=$OUT \
    --num_runs=1 --show_time=false --show_memory=false --show_summary=false
expect_output "camera reads a .pbtxt graph" "^[a-z]" camera --graph="$CLI_TMP/mobilenet.pbtxt" \
    --labels="$M/labels.txt" --input_width=128 --input_height=128 \
    --frames_from="$TD/images/grace_hopper.jpg" --print_threshold=0
printf 'node {\n  name: "x" op: \n' >"$CLI_TMP/broken.pbtxt"
expect_error "label_image: a .pbtxt that does not parse names file, line and column" "broken.pbtxt:[0-9]+:[0-9]+:" \
    label_image --graph="$CLI_TMP/broken.pbtxt" $LI
expect_error "run_graph: a .pbtxt that does not parse names file, line and column" "broken.pbtxt:[0-9]+:[0-9]+:" \
    run_graph --graph="$CLI_TMP/broken.pbtxt" --output=x

# ---- quantized outputs as .npy ------------------------------------------------------
cat >"$CLI_TMP/quantize.pbtxt" <<'EOF'
node { name: "f" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "lo" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "hi" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 4 } } } }
node { name: "codes" op: "QuantizeV2" input: "f" input: "lo" input: "hi"
       attr { key: "T" value { type: DT_QUINT8 } } attr { key: "mode" value { s: "MIN_FIRST" } } }
EOF
$PY -c 'import numpy, sys; numpy.save(sys.argv[1], numpy.array([0, 1, 2, 4], numpy.float32))' "$CLI_TMP/f.npy"
run_tool run_graph --graph="$CLI_TMP/quantize.pbtxt" --input=f="$CLI_TMP/f.npy" --output=codes="$CLI_TMP/codes.npy" \
    --output=codes
got=$($PY -c 'import numpy, sys; a = numpy.load(sys.argv[1]); print(a.dtype, list(a))' "$CLI_TMP/codes.npy" 2>&1)
cli_result "run_graph writes a quint8 output to .npy as uint8 codes (numpy: round(x * 255 / 4))" \
    "$([ "$rc" -eq 0 ] && [ "$got" = "uint8 [0, 64, 128, 255]" ] && echo yes)" "exit $rc: $got $(head -c 200 "$CLI_TMP/err")"
cli_result "run_graph prints a quint8 output" "$(grep -qx 'codes: quint8 \[4\] 0 64 128 255' "$CLI_TMP/out" && echo yes)" \
    "$(cat "$CLI_TMP/out")"

# ---- --help shows defaults; --num_threads means the same everywhere --------------------
expect_output "benchmark_model --help shows defaults" "--num_runs .*\(default: 50\)" benchmark_model --help
expect_output "label_image --help shows defaults" "--input_width .*\(default: 224\)" label_image --help
cli_result "label_image --help: one default per flag, fp32 for --precision" \
    "$(! grep -q '(default: .*(default: ' "$CLI_TMP/out" && grep -q -- '--precision .*(default: fp32)$' "$CLI_TMP/out" &&
        echo yes)" "$(grep -- '--cpu\|--precision' "$CLI_TMP/out")"
expect_output "--num_threads=-1 means one per core in label_image too" "\(458\)" label_image --num_threads=-1
MODEL="--graph=$M/frozen_graph.pb --labels=$M/labels.txt --image=$TD/images/grace_hopper.jpg"
for command in "label_image $MODEL" "detect $MODEL" "camera --graph=$M/frozen_graph.pb" \
    "run_graph --graph=$M/frozen_graph.pb --output=$OUT" "benchmark_model $BM"; do
    expect_error "${command%% *} --num_threads=-2 is refused, saying what is accepted" \
        "num_threads.*-1 or 0 \(one thread per core\)" $command --num_threads=-2
done
# benchmark_model's threads: --num_threads=N adds N - 1 pool threads to what runs it (qemu-user has
# one of its own, so only the difference is compared), --num_threads=1 none.
threads() { run_tool benchmark_model $BM --num_runs=2 --warmup_runs=1 --num_threads="$1" &&
    sed -n 's/^Threads in the process: //p' "$CLI_TMP/out"; }
one=$(threads 1) three=$(threads 3)
cli_result "benchmark_model --num_threads=1 creates no thread, 3 creates two ($one and $three in the process)" \
    "$([ -n "$one" ] && [ -n "$three" ] && [ $((three - one)) -eq 2 ] && echo yes)" "$one, $three"
}
cli_summary
