# test_rnn_graphs.sh - TF 1.x dynamic_rnn graphs (tests/cli/rnn_graphs.py:
# an LSTM and a GRU written the way TensorFlow writes them, with the input
# TensorArray, the while loop and the gathered outputs) against numpy's
# cell equations: every output step and the final state within 1e-5, for
# inputs of 1, 5 and 12 steps (the trip count comes from the fed shape),
# on 1 and 3 threads; a CTC OCR head (bidirectional LSTM through
# ReverseSequence, CTCGreedyDecoder, SparseToDense) gives numpy's labels
# exactly and its log probability within 1e-4; summarize_graph and
# benchmark_model take them too.
. tests/cli/lib.sh
PY=/usr/bin/python3
"$PY" tests/cli/rnn_graphs.py "$CLI_TMP"

# close NAME GOT WANT [BOUND] : same shape, max |GOT - WANT| <= BOUND (default 1e-5; 0: equal)
close() {
    d=$("$PY" -c "import numpy as n, sys; a, b = n.load(sys.argv[1]), n.load(sys.argv[2])
if a.shape != b.shape: print('shape %s vs %s' % (a.shape, b.shape))
else: print('%.1e' % abs(a - b).max() if a.size else '0')" "$2" "$3" 2>&1)
    case $d in
    [0-9]*) ok=$("$PY" -c "import sys; print('yes' if float(sys.argv[1]) <= float(sys.argv[2]) else 'no')" "$d" \
        "${4:-1e-5}") ;;
    *) ok=no ;;
    esac
    cli_result "$1 (max |d| $d)" "$ok" "$d"
}

for cell in lstm gru; do
    state=rnn/while/Exit_3
    for steps in 1 5 12; do
        for threads in 1 3; do
            stem=$CLI_TMP/${cell}_T$steps
            run_tool run_graph --graph="$CLI_TMP/$cell.pb" --input=x="$stem.npy" --num_threads=$threads \
                --output=rnn/transpose_1="$stem.got_outputs.npy" --output=$state="$stem.got_state.npy"
            if [ "$rc" -ne 0 ]; then
                cli_result "$cell dynamic_rnn, $steps steps, $threads threads" no "$(head -c 300 "$CLI_TMP/err")"
                continue
            fi
            close "$cell dynamic_rnn, $steps steps, $threads threads: outputs" "$stem.got_outputs.npy" \
                "$stem.outputs.npy"
            close "$cell dynamic_rnn, $steps steps, $threads threads: final state" "$stem.got_state.npy" \
                "$stem.state.npy"
        done
    done
done

for steps in 1 6 16; do
    for threads in 1 3; do
        stem=$CLI_TMP/ctc_T$steps
        run_tool run_graph --graph="$CLI_TMP/ctc.pb" --input=x="$stem.npy" --num_threads=$threads \
            --output=labels="$stem.got_labels.npy" --output=decoder:3="$stem.got_log_probability.npy"
        if [ "$rc" -ne 0 ]; then
            cli_result "CTC OCR head, $steps steps, $threads threads" no "$(head -c 300 "$CLI_TMP/err")"
            continue
        fi
        close "CTC OCR head, $steps steps, $threads threads: labels" "$stem.got_labels.npy" "$stem.labels.npy" 0
        close "CTC OCR head, $steps steps, $threads threads: log probability" "$stem.got_log_probability.npy" \
            "$stem.log_probability.npy" 1e-4
    done
done

expect_output "summarize_graph names the fed input of a dynamic_rnn" "name=x, type=float\(1\), shape=\[1,\?,4\]" \
    summarize_graph --in_graph="$CLI_TMP/lstm.pb"
expect_output "benchmark_model runs a dynamic_rnn" "^count=3 " benchmark_model --graph="$CLI_TMP/lstm.pb" \
    --input_layer=x --input_layer_shape=1,7,4 --output_layer=rnn/transpose_1 --num_runs=3
cli_summary
