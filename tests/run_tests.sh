#!/bin/sh
# run_tests.sh - runs every test program built from tests/unit/*.c and every
# tests/cli/test_*.sh script (under $QEMU for cross targets), adds up their
# "N passed, N failed" lines and ends with the total in the same form. Exits non-zero if anything
# failed or a program ended without its summary line (a crash).
# Called by `make test` with BIN, QEMU and TARGET set; run from the repo root.
set -u
: "${BIN:?BIN must name the build's bin directory}"
QEMU=${QEMU:-}
export BIN QEMU
passed=0
failed=0
log=$(mktemp)
times=$(mktemp)
trap 'rm -f "$log" "$times"' EXIT

# run_one NAME COMMAND... : runs a test program, folds its summary into the totals.
run_one() {
    name=$1
    shift
    echo "== $name"
    start=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    echo "$(($(date +%s) - start)) $name" >>"$times"
    cat "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL $name: exited with status $rc and no summary line"
        failed=$((failed + 1))
        return
    fi
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with status $rc"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
}

# Only the programs whose source still exists (gen/ may hold stale ones).
for src in tests/unit/*.c; do
    name=$(basename "$src" .c)
    if [ ! -x "$BIN/tests/$name" ]; then
        echo "FAIL $name: $BIN/tests/$name was not built"
        failed=$((failed + 1))
        continue
    fi
    # shellcheck disable=SC2086 # QEMU is a command with arguments
    run_one "$name" $QEMU "$BIN/tests/$name"
done
for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    run_one "$(basename "$s" .sh)" sh "$s"
done

echo "== slowest (seconds)"
sort -rn "$times" | head -n 8
echo "== all tests (${TARGET:-linux})"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
