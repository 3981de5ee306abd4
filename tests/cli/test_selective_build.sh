# test_selective_build.sh - print_required_ops on SavedModels (TF2 function
# graphs: the ops inside every function each signature reaches, what calls
# and loops are lowered to, the restore path of a table) writes the
# tf_op_files.txt lines they need, and a build with only those kernels
# (make TF_OP_FILES=...) runs them with the full build's outputs; a model
# needing another kernel is refused naming the line to add. The selective
# build reuses this build's objects (hard links, or copies), so only the op
# registry is compiled and the library and run_graph are linked again.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
SM=${TFPI_TESTDATA:-../shared/testdata}/savedmodel
T=$CLI_TMP
"$PY" tests/cli/export_models.py "$T/export" >/dev/null
"$PY" tests/cli/tf2_saved_model_refs.py make "$SM" "$T"
E=$T/export

run_tool print_required_ops --graph=$SM/stock_lstm_tf2,"$E/keras_text","$E/policy","$E/gru_stateful"
cp "$CLI_TMP/out" "$T/ops.txt"
for line in "kernels/string_split.c  # StringNGrams StringSplitV2" "kernels/lookup_table.c  # LookupTableFindV2" \
    "kernels/restore.c  # RestoreV2" "kernels/broadcast_to.c  # BroadcastArgs BroadcastTo" \
    "kernels/resource_variable.c  # AssignVariableOp" "kernels/tensor_list.c"; do
    cli_result "print_required_ops lists $line" "$(grep -q "^$line" "$T/ops.txt" && echo yes)" "$(cat "$T/ops.txt")"
done
cli_result "... and no op without a kernel" "$(grep -q "no tfpi kernel" "$T/ops.txt" || echo yes)" \
    "$(grep "no tfpi kernel" "$T/ops.txt")"

# The selective build, beside this one.
mkdir -p "$T/sel"
# hard links where the build and the temporary folder share a file system, copies (times kept) elsewhere
cp -al "$BIN/../obj" "$T/sel/obj" 2>/dev/null || { rm -rf "$T/sel/obj" && cp -a "$BIN/../obj" "$T/sel/obj"; }
if make --no-print-directory -s BUILD="$T/sel" TF_OP_FILES="$T/ops.txt" TARGET="${TARGET:-linux}" \
    ${CC:+CC="$CC"} ${SANITIZE:+SANITIZE="$SANITIZE"} "$T/sel/bin/run_graph" >"$T/make.log" 2>&1; then
    cli_result "make TF_OP_FILES=<print_required_ops' list> builds run_graph" yes ""
else
    cli_result "make TF_OP_FILES=<print_required_ops' list> builds run_graph" no "$(tail -n 5 "$T/make.log")"
fi
kernels=$(grep -c '^kernels/' "$T/ops.txt")
all=$(grep -c '^kernels/' tf_op_files.txt)
cli_result "... with $kernels of the $all kernel files" "$([ "$kernels" -lt "$all" ] && echo yes)" "$kernels of $all"

# same_run NAME ARGS...: the selective run_graph gives the full build's bytes.
same_run() {
    name=$1
    shift
    run_tool run_graph "$@" --output="$want_output=$T/full.npy"
    full_rc=$rc
    BIN_SAVED=$BIN
    BIN=$T/sel/bin
    run_tool run_graph "$@" --output="$want_output=$T/sel.npy"
    BIN=$BIN_SAVED
    if [ "$full_rc" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/full.npy" "$T/sel.npy"; then cli_result "$name" yes ""
    else cli_result "$name" no "exit $full_rc/$rc: $(head -c 300 "$CLI_TMP/err")"; fi
}
want_output=dense
same_run "the selective build runs stock_lstm_tf2 (4 LSTM While loops): the same outputs" \
    --graph=$SM/stock_lstm_tf2 --input=lstm_input="$T/stock_lstm_tf2_in.npy"
want_output=output_0
same_run "... the Keras text model (string ops, a table its checkpoint fills): the same outputs" \
    --graph="$E/keras_text" --input=text="$E/keras_text.text.npy"
want_output=action
same_run "... the policy's action signature: the same outputs" --graph="$E/policy" --signature_def=action \
    --input=0/step_type="$E/policy_action.0_step_type.npy" --input=0/reward="$E/policy_action.0_reward.npy" \
    --input=0/discount="$E/policy_action.0_discount.npy" --input=0/observation="$E/policy_action.0_observation.npy"
BIN_SAVED=$BIN
BIN=$T/sel/bin
expect_error "... and refuses a model that needs another kernel, naming the line to add" \
    "op 'Conv2D'.*kernels/conv2d.c" run_graph --graph=$SM/mnist_bn_tf2 --input=conv2d_input="$T/mnist_bn_tf2_in.npy" \
    --output=dense_1
BIN=$BIN_SAVED
cli_summary
