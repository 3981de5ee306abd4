# test_export_models.sh - SavedModels shaped like the exports users bring
# (tests/cli/export_models.py: a TF1 Estimator with its global_step cond, a
# TF1 Estimator text classifier, a TF2 Keras text model with a vocabulary
# table its checkpoint fills and three signatures, a stateful GRU, a
# TF-Agents-style policy with no serving_default) through run_graph by
# signature keys, every output against numpy's answer; each frozen with
# freeze_graph and the frozen graph run against the SavedModel run
# directly; signatures with no outputs run without --output.
. tests/cli/lib.sh
. tests/cli/manifest_lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
T=$CLI_TMP/export

if ! "$PY" tests/cli/export_models.py "$T" >"$CLI_TMP/count" 2>"$CLI_TMP/pyerr"; then
    cli_result "export models written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
run_manifest "$T/manifest.tsv"

# runs_quietly NAME TOOL ARGS...: exit 0, nothing on stdout or stderr.
runs_quietly() {
    name=$1
    shift
    run_tool "$@"
    if [ "$rc" -eq 0 ] && [ ! -s "$CLI_TMP/out" ] && [ ! -s "$CLI_TMP/err" ]; then cli_result "$name" yes ""
    else cli_result "$name" no "exit $rc: $(head -c 300 "$CLI_TMP/out" "$CLI_TMP/err")"; fi
}

# same_file NAME A B: the run before succeeded and A and B hold the same bytes.
same_file() {
    if [ "$rc" -eq 0 ] && cmp -s "$2" "$3"; then cli_result "$1" yes ""
    else cli_result "$1" no "exit $rc: $(head -c 300 "$CLI_TMP/err")"; fi
}

# ---- estimator_linear: the global_step cond (RefSwitch on the variable, a plain bool predicate) ----
E=$T/estimator_linear
expect_output "freeze an Estimator graph through its global_step cond" "Converted 3 variables" \
    freeze_graph --input_saved_model_dir="$E" --output_node_names=probabilities,global_step/cond/Merge \
    --output_graph="$T/estimator_linear.pb"
run_tool run_graph --graph="$T/estimator_linear.pb" --input=x="$T/estimator_linear.x.npy" \
    --output=probabilities="$T/el_frozen.npy" --output=global_step/cond/Merge="$T/el_step_frozen.npy"
same_file "... the frozen graph's probabilities = the SavedModel's, exactly" "$T/el_frozen.npy" \
    "$T/estimator_linear.got_probabilities.npy"
same_file "... and its global step (RefSwitch made a Switch, IsVariableInitialized true)" "$T/el_step_frozen.npy" \
    "$T/estimator_linear.got_global_step_cond_Merge.npy"
# ---- the text models frozen: string ops kept, the vocabulary table filled from constants ----
expect_output "freeze the Estimator text classifier" "Converted 3 variables" \
    freeze_graph --input_saved_model_dir="$T/estimator_text" --output_node_names=probabilities \
    --output_graph="$T/estimator_text.pb"
run_tool run_graph --graph="$T/estimator_text.pb" --input=sentences="$T/estimator_text.sentences.npy" \
    --output=probabilities="$T/et_frozen.npy"
same_file "... the frozen text classifier = the SavedModel, exactly" "$T/et_frozen.npy" \
    "$T/estimator_text.got_probabilities.npy"
expect_output "freeze the Keras text model (3 variables, the table's keys and values)" "Converted 5 variables" \
    freeze_graph --input_saved_model_dir="$T/keras_text" --output_node_names=StatefulPartitionedCall \
    --output_graph="$T/keras_text.pb"
run_tool run_graph --graph="$T/keras_text.pb" --input=serving_default_text="$T/keras_text.text.npy" \
    --output=StatefulPartitionedCall="$T/kt_frozen.npy"
same_file "... the frozen Keras text model = the SavedModel, exactly" "$T/kt_frozen.npy" "$T/keras_text.got_output_0.npy"
ok=$($PY -c "
import sys; sys.path.insert(0, 'tests/diff'); import graphdef
ops = {n.op for n in graphdef.decode_graph(open('$T/keras_text.pb', 'rb').read())}
bad = ops & {'RestoreV2', 'StatefulPartitionedCall', 'VarHandleOp'}
print('yes' if not bad and 'LookupTableImportV2' in ops else 'no: %s' % sorted(ops))")
cli_result "... the frozen graph fills its table from constants (no RestoreV2, calls or variables)" "$ok" "$ok"
# ---- gru_stateful: a state variable the serving function assigns ----
G=$T/gru_stateful
run_tool run_graph --graph="$G" --input=x="$T/gru_stateful.x.npy" --output=output_0="$T/gru2.npy" --runs=2
if [ "$rc" -eq 0 ] && $PY tests/cli/saved_model_refs.py compare "$T/gru2.npy" "$T/gru_stateful.h2.npy" 1e-5 \
    >"$T/cmp"; then
    cli_result "stateful GRU, two runs in one session: the second step (numpy) $(cat "$T/cmp")" yes ""
else cli_result "stateful GRU, two runs in one session" no "exit $rc: $(head -c 300 "$CLI_TMP/err") $(cat "$T/cmp")"; fi
runs_quietly "a signature with no outputs (set_state) runs without --output, printing nothing" \
    run_graph --graph="$G" --signature_def=set_state --input=h="$T/gru_stateful.zero.npy"
expect_error "freezing a model whose serving function changes a variable names the writer" \
    "node 'StatefulPartitionedCall/assign' \(AssignVariableOp\) changes variable 'gru/state': a frozen graph has only constants" \
    freeze_graph --input_saved_model_dir="$G" --output_node_names=StatefulPartitionedCall --output_graph="$T/gru.pb"
expect_error "run_graph without --output on a signature with outputs" "--output is required: the signature has outputs" \
    run_graph --graph="$G" --input=x="$T/gru_stateful.x.npy"

# ---- policy: three signatures, no serving_default, BroadcastArgs on the action path ----
P=$T/policy
$PY -c "import numpy as np; np.save('$T/three.npy', np.array(3, np.int32))"
runs_quietly "get_initial_state (no outputs) runs without --output" \
    run_graph --graph="$P" --signature_def=get_initial_state --input=batch_size="$T/three.npy"
expect_output "freeze the policy's action path" "Converted 2 variables" \
    freeze_graph --input_saved_model_dir="$P" --output_node_names=StatefulPartitionedCall \
    --output_graph="$T/policy.pb"
run_tool run_graph --graph="$T/policy.pb" --input=action_0_step_type="$T/policy_action.0_step_type.npy" \
    --input=action_0_observation="$T/policy_action.0_observation.npy" --output=StatefulPartitionedCall="$T/pa.npy"
same_file "... the frozen policy's actions = the SavedModel's, exactly" "$T/pa.npy" "$T/policy_action.got_action.npy"
cli_summary
