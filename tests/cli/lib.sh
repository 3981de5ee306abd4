# lib.sh - helpers for the command-line tests in tests/cli/*.sh (sourced).
# Each check prints "ok"/"FAIL" with its name; cli_summary prints the
# "N passed, N failed" line run_tests.sh reads. Tools run under $QEMU.
cli_passed=0
cli_failed=0
CLI_TMP=$(mktemp -d)
trap 'rm -rf "$CLI_TMP"' EXIT

cli_result() { # cli_result NAME OK? DETAIL
    if [ "$2" = yes ]; then
        cli_passed=$((cli_passed + 1))
        echo "ok   $1"
    else
        cli_failed=$((cli_failed + 1))
        echo "FAIL $1: $3"
    fi
}

# The hostile corpora's limit per case: 20 s (their bar, native and under
# the sanitizers); qemu-user runs the ARM builds several times slower, so
# 60 s there (the cases check messages and crashes, not speed, on ARM).
HOSTILE_TIME_LIMIT=20
[ -z "${QEMU:-}" ] || HOSTILE_TIME_LIMIT=60

# run_tool TOOL ARGS... : runs $BIN/TOOL, output in $CLI_TMP/out and err, status in $rc.
# With CLI_TIME_LIMIT=N set, a run is stopped after N seconds (status 124).
run_tool() {
    tool=$1
    shift
    # shellcheck disable=SC2086
    ${CLI_TIME_LIMIT:+timeout $CLI_TIME_LIMIT} $QEMU "$BIN/$tool" "$@" >"$CLI_TMP/out" 2>"$CLI_TMP/err"
    rc=$?
}

# expect_error NAME PATTERN TOOL ARGS... : non-zero exit (not a crash, nor
# valgrind's 99 under `make test VALGRIND=1`), one line on stderr matching
# PATTERN (grep -E).
expect_error() {
    name=$1 pattern=$2
    shift 2
    run_tool "$@"
    lines=$(wc -l <"$CLI_TMP/err")
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 99 ] || [ "$rc" -ge 128 ]; then
        cli_result "$name" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
    elif ! grep -qE -- "$pattern" "$CLI_TMP/err"; then
        cli_result "$name" no "stderr does not match '$pattern': $(head -c 300 "$CLI_TMP/err")"
    elif [ "$lines" -ne 1 ]; then
        cli_result "$name" no "expected one line on stderr, got $lines: $(head -c 300 "$CLI_TMP/err")"
    else
        cli_result "$name" yes ""
    fi
}

# expect_output NAME PATTERN TOOL ARGS... : exit 0 and stdout matching PATTERN.
expect_output() {
    name=$1 pattern=$2
    shift 2
    run_tool "$@"
    if [ "$rc" -ne 0 ]; then
        cli_result "$name" no "exit status $rc: $(head -c 300 "$CLI_TMP/err")"
    elif ! grep -qE -- "$pattern" "$CLI_TMP/out"; then
        cli_result "$name" no "stdout does not match '$pattern': $(head -c 300 "$CLI_TMP/out")"
    else
        cli_result "$name" yes ""
    fi
}

cli_summary() {
    echo "$cli_passed passed, $cli_failed failed"
    [ "$cli_failed" -eq 0 ]
}
