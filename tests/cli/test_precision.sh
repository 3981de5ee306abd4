# test_precision.sh - --precision on every tool that runs a model: a name
# other than fp32 or fp16 is one error line; --precision=fp16 on a CPU
# without fp16 arithmetic (this PC, or qemu-aarch64 as a Cortex-A72) runs in
# fp32 with one warning line and fp32's exact output; on one with it (the
# aarch64 build under qemu's -cpu max) it runs in fp16 without a warning:
# label_image, camera and benchmark_model give fp32's top label, and
# run_graph's probabilities are within 0.02 of fp32's but not equal to them.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
M=$TD/mobilenet_v1_0.25_224
OUT=MobilenetV1/Predictions/Reshape_1
MODEL="--graph=$M/frozen_graph.pb --labels=$M/labels.txt --image=$TD/images/grace_hopper.jpg"
BM="--graph=$M/frozen_graph.pb --input_layer=input --input_layer_shape=1,224,224,3 --output_layer=$OUT
    --num_runs=1 --warmup_runs=0 --show_time=false --show_memory=false --show_summary=false"
WARNING="^warning: --precision=fp16: this CPU has no fp16 arithmetic .*; running in fp32$"
PY=/usr/bin/python3
case "${QEMU:-}" in
*qemu-aarch64*) FP16=yes ;;
*) FP16=no ;;
esac

# shellcheck disable=SC2086 # one flag per word
{
for command in "label_image $MODEL" "detect $MODEL" "camera --graph=$M/frozen_graph.pb" \
    "run_graph --graph=$M/frozen_graph.pb --output=$OUT" "benchmark_model $BM"; do
    expect_error "${command%% *} --precision=fp8 is refused, saying what is accepted" \
        "^error: --precision=fp8: use fp32 or fp16$" $command --precision=fp8
done

# run_graph's probabilities for grace_hopper in a precision, into $CLI_TMP/$1.npy
"$PY" -c 'import numpy as np, sys
np.save(sys.argv[2], np.fromfile(sys.argv[1], "<f4").reshape(1, 224, 224, 3))' \
    "$TD/opencv_reference/grace_hopper.input_nhwc_1x224x224x3.f32" "$CLI_TMP/input.npy"
probabilities() {
    run_tool run_graph --graph="$M/frozen_graph.pb" --input=input="$CLI_TMP/input.npy" \
        --output="$OUT=$CLI_TMP/$1.npy" --precision="$1"
}
probabilities fp32
probabilities fp16
if [ "$FP16" = yes ]; then
    verdict=$("$PY" -c 'import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
d = np.abs(a - b).max()
print("yes" if a.argmax() == b.argmax() and 0 < d <= 0.02 else "no: max |d| %g, top-1 %d %d" % (d, a.argmax(), b.argmax()))' \
        "$CLI_TMP/fp32.npy" "$CLI_TMP/fp16.npy")
    cli_result "run_graph --precision=fp16 runs in fp16: fp32's top-1, probabilities within 0.02 (not equal)" \
        "$([ "$rc" -eq 0 ] && [ ! -s "$CLI_TMP/err" ] && echo "$verdict")" "$verdict $(cat "$CLI_TMP/err")"
else
    cli_result "run_graph --precision=fp16 without fp16: fp32's exact output and one warning line" \
        "$([ "$rc" -eq 0 ] && cmp -s "$CLI_TMP/fp32.npy" "$CLI_TMP/fp16.npy" && [ "$(wc -l <"$CLI_TMP/err")" -eq 1 ] &&
            grep -qE "$WARNING" "$CLI_TMP/err" && echo yes)" "rc $rc $(cat "$CLI_TMP/err")"
fi

expect_output "label_image --precision=fp16: the same top label (bow tie)" "^bow tie, .*\(458\)" \
    label_image $MODEL --precision=fp16
expect_output "camera --precision=fp16 on a picture: the same top label (bow tie)" "bow tie" \
    camera --graph=$M/frozen_graph.pb --labels=$M/labels.txt --frames_from=$TD/images/grace_hopper.jpg \
    --print_threshold=0 --precision=fp16
expect_output "benchmark_model --precision=fp16 runs" "^count=1 " benchmark_model $BM --precision=fp16
if [ "$FP16" = yes ]; then
    cli_result "benchmark_model --precision=fp16 on a CPU with fp16: no warning" \
        "$([ ! -s "$CLI_TMP/err" ] && echo yes)" "$(cat "$CLI_TMP/err")"
    # the same binary as a Cortex-A72 (no fp16): it falls back
    QEMU=$(echo "$QEMU" | sed 's/-cpu max/-cpu cortex-a72/')
    expect_output "the same binary as a Cortex-A72 (no fp16) runs benchmark_model --precision=fp16" "^count=1 " \
        benchmark_model $BM --precision=fp16
fi
cli_result "without fp16 arithmetic: one warning line, then fp32" \
    "$([ "$(wc -l <"$CLI_TMP/err")" -eq 1 ] && grep -qE "$WARNING" "$CLI_TMP/err" && echo yes)" "$(cat "$CLI_TMP/err")"
}
cli_summary
