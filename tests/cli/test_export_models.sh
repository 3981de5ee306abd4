# test_export_models.sh - SavedModels shaped like the exports users bring
# (tests/cli/export_models.py: a TF1 Estimator with its global_step cond,
# ...) through run_graph by signature keys and tensor names, every output
# against numpy's answer; each frozen with freeze_graph and the frozen graph
# run against the SavedModel run directly.
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
cli_summary
