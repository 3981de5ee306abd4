# saved_model_lib.sh - what the SavedModel and freeze_graph tests share
# (sourced after lib.sh): the test data, the numpy references and inputs
# of saved_model_refs.py in $T, and two checks of a run's output.
PY=${TFPI_PYTHON:-/usr/bin/python3}
SM=../shared/testdata/savedmodel
REFS=tests/cli/saved_model_refs.py
T=$CLI_TMP
$PY $REFS make "$SM" "$T"

# near NAME GOT WANT [TOL]: the run before succeeded and GOT is within TOL of WANT.
near() {
    if [ "$rc" -ne 0 ]; then cli_result "$1" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"; return; fi
    if $PY $REFS compare "$2" "$3" "${4:-1e-5}" >"$T/cmp"; then cli_result "$1 ($(cat "$T/cmp"))" yes ""
    else cli_result "$1" no "$(cat "$T/cmp")"; fi
}

# same_npy NAME A B: the run before succeeded and A and B hold the same bytes.
same_npy() {
    if [ "$rc" -eq 0 ] && cmp -s "$2" "$3"; then cli_result "$1" yes ""
    else cli_result "$1" no "exit $rc: $(head -c 300 "$CLI_TMP/err")"; fi
}
