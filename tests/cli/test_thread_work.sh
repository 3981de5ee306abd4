# test_thread_work.sh - benchmark_model's per-thread work report
# (tfpi_session_thread_work) on the real MobileNet v1 0.25 224: on one
# thread the multiply-adds per run are the FLOPs estimate's half (from the
# planned shapes, src/run/profile.c) and Google's published 41 million for
# this model; on four threads the threads' multiply-adds, as run and on
# equal cores, add up to exactly the one-thread total, as do their tasks
# in both columns, and no idle share is negative or above 100%.
. tests/cli/lib.sh
TD=${TFPI_TESTDATA:-../shared/testdata}
M=$TD/mobilenet_v1_0.25_224
BM="--graph=$M/frozen_graph.pb --input_layer=input --input_layer_shape=1,224,224,3
    --output_layer=MobilenetV1/Predictions/Reshape_1 --num_runs=2 --warmup_runs=1 --show_time=false
    --show_memory=false --show_summary=false --show_flops --show_thread_work"

# report THREADS: runs benchmark_model, leaves its output in $CLI_TMP/out.$1
report() {
    # shellcheck disable=SC2086 # one flag per word
    run_tool benchmark_model $BM --num_threads="$1"
    cp "$CLI_TMP/out" "$CLI_TMP/out.$1"
    [ "$rc" -eq 0 ] || cli_result "benchmark_model --num_threads=$1 runs" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
}
# sums FILE: "threads macs tasks equal_macs equal_tasks all flops worst_idle"
sums() {
    awk '/^  thread [0-9]+:/ { n++; macs += $3; tasks += $7; split($10, i, "%"); if (i[1] < 0 || i[1] > 100) bad = 1
                                 emacs += $12; etasks += $15; split($18, e, "%"); if (e[1] < 0 || e[1] > 100) bad = 1 }
         /^  all threads:/ { all = $3 }
         /^FLOPs estimate:/ { sub("M", "", $3); flops = $3 }
         END { printf "%d %.6f %.1f %.6f %.1f %.6f %.2f %d\n", n, macs, tasks, emacs, etasks, all, flops, bad }' "$1"
}
report 1
report 4
read -r n1 macs1 tasks1 emacs1 etasks1 all1 flops1 bad1 <<EOS
$(sums "$CLI_TMP/out.1")
EOS
read -r n4 macs4 tasks4 emacs4 etasks4 all4 flops4 bad4 <<EOS
$(sums "$CLI_TMP/out.4")
EOS
cli_result "one thread: one line whose multiply-adds are the total" \
    "$([ "$n1" = 1 ] && [ "$macs1" = "$all1" ] && [ "$emacs1" = "$all1" ] && echo yes)" \
    "threads $n1, $macs1 / $emacs1 M against all $all1 M"
cli_result "one thread: the multiply-adds are half the FLOPs estimate and Google's 41 million" \
    "$(awk -v m="$macs1" -v f="$flops1" 'BEGIN { if (m - f / 2 < 0.006 && f / 2 - m < 0.006 && m >= 40.5 && m < 41.5) print "yes" }')" \
    "$macs1 M multiply-adds, FLOPs estimate $flops1 M"
cli_result "four threads: four lines" "$([ "$n4" = 4 ] && echo yes)" "$n4 thread lines"
cli_result "four threads: their multiply-adds add up to the one-thread total, as run and on equal cores" \
    "$([ "$macs4" = "$macs1" ] && [ "$emacs4" = "$macs1" ] && [ "$all4" = "$macs1" ] && echo yes)" \
    "as run $macs4 M, on equal cores $emacs4 M, all $all4 M, one thread $macs1 M"
cli_result "four threads: as many tasks as run and on equal cores" "$([ "$tasks4" = "$etasks4" ] && echo yes)" \
    "as run $tasks4, on equal cores $etasks4"
cli_result "idle shares between 0 and 100%" "$([ "$bad1$bad4" = 00 ] && echo yes)" \
    "$(grep '^  thread' "$CLI_TMP/out.4")"
cli_summary
