# test_hostile_saved_models.sh - the SavedModels of the third hostile round
# (tests/cli/hostile_saved_models.py writes them): 20,000 signature inputs
# and 50,000 signatures load at once (they were quadratic), tag sets are
# matched exactly whatever their number and length, signature keys pair
# with their own tensors, one signature without serving_default is the one
# used, and NUL bytes in tags or tensor names and a --checkpoint given with
# a SavedModel are refused in one line. Each run has a 20 s limit (the bar
# of the hostile corpora), under the sanitizers too.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CLI_TIME_LIMIT=$HOSTILE_TIME_LIMIT
D=$CLI_TMP/sm
if ! "$PY" tests/cli/hostile_saved_models.py "$D" 2>"$CLI_TMP/pyerr"; then
    cli_result "hostile SavedModels written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi
"$PY" -c "import numpy as np
np.save('$CLI_TMP/x.npy', np.array([1, 2], np.float32))
np.save('$CLI_TMP/a.npy', np.array([10], np.float32))
np.save('$CLI_TMP/b.npy', np.array([1], np.float32))"
X="--input=x=$CLI_TMP/x.npy"

expect_output "20,000 signature inputs" "^y: float \[2\] 2 4$" \
    run_graph --graph="$D/inputs_20000" --input=k00000="$CLI_TMP/x.npy" --output=y
expect_output "50,000 signatures" "^y: float \[2\] 3 6$" run_graph --graph="$D/signatures_50000" "$X" --output=y
expect_output "two inputs fed by key (y = a - b)" "^y: float \[1\] 9$" \
    run_graph --graph="$D/two_inputs" --input=a="$CLI_TMP/a.npy" --input=b="$CLI_TMP/b.npy" --output=y
expect_output "tags serve: the {serve} meta graph, not {serve, gpu}" "^y: float \[2\] 3 6$" \
    run_graph --graph="$D/tag_sets" "$X" --output=y
expect_output "tags gpu,serve: the {serve, gpu} meta graph" "^y: float \[2\] 2 4$" \
    run_graph --graph="$D/tag_sets" --saved_model_tags=" gpu , serve,gpu" "$X" --output=y
expect_error "tags serve with only {serve, gpu}" "gpu_only: no MetaGraph with tags \{ serve \}; available: \{ serve, gpu \}$" \
    run_graph --graph="$D/gpu_only" "$X" --output=y
expect_output "one signature, not serving_default, is the one used" "^y: float \[2\] 5 10$" \
    run_graph --graph="$D/one_signature" "$X" --output=y
tags33=$(seq -f 't%02g' -s, 0 32)
expect_output "33 tags" "^y: float \[2\] 3 6$" run_graph --graph="$D/tags_33" --saved_model_tags="$tags33" "$X" --output=y
expect_error "32 of its 33 tags" "tags_33: no MetaGraph with tags \{ t00, .*, t31 \}" \
    run_graph --graph="$D/tags_33" --saved_model_tags="${tags33%,t32}" "$X" --output=y
long=serve$(printf '%060d' 0 | tr 0 x)
expect_output "a 65-character tag" "^y: float \[2\] 3 6$" \
    run_graph --graph="$D/tag_65_chars" --saved_model_tags="$long" "$X" --output=y
expect_error "the same tag cut to 64 characters" "no MetaGraph with tags" \
    run_graph --graph="$D/tag_65_chars" --saved_model_tags="${long%x}" "$X" --output=y
expect_error "a NUL byte in a signature tensor name" \
    "nul_tensor_name/saved_model.pb: not a valid MetaGraphDef \(a signature's tensor key or name holds a NUL byte at byte [0-9]+\)$" \
    run_graph --graph="$D/nul_tensor_name" "$X" --output=y
expect_error "a NUL byte in a tag" "nul_tag/saved_model.pb: not a valid SavedModel \(meta graph 1: a tag holds a NUL byte\)$" \
    run_graph --graph="$D/nul_tag" "$X" --output=y
expect_error "--checkpoint with a SavedModel" \
    "tag_sets: a SavedModel takes its variables from its own variables/ directory; a checkpoint \(--checkpoint=.*x.npy\) is for a GraphDef or a .meta file$" \
    run_graph --graph="$D/tag_sets" --checkpoint="$CLI_TMP/x.npy" "$X" --output=y
cli_summary
