#!/bin/sh
# run_tests.sh - runs every test program built from tests/unit/*.c and every
# tests/cli/test_*.sh script (under $QEMU for cross targets), adds up their
# "N passed, N failed" lines and ends with the total in the same form. Exits non-zero if anything
# failed or a program ended without its summary line (a crash).
# Called by `make test` with BIN, QEMU and TARGET set; run from the repo root.
# TEST_JOBS=N runs N programs at a time (each in its own temporary
# directory); their outputs are still printed whole and in order.
# TEST_SKIP="NAME ..." leaves those programs out, saying so (CI's
# AArch64 and ARMv6 suites leave out what the host and PI suites run alike).
set -u
: "${BIN:?BIN must name the bin directory of the build}"
QEMU=${QEMU:-}
TEST_JOBS=${TEST_JOBS:-1}
TEST_SKIP=${TEST_SKIP:-}
export BIN QEMU
# run_one NAME KIND : runs one program; its output goes to $work/NAME.KIND.log,
# its status and seconds to $work/NAME.KIND.done (written last): a unit
# program and a script may share a name. The job pool
# calls this script back as `run_tests.sh --one NAME KIND`.
run_one() {
    start=$(date +%s)
    if [ "$2" = cli ]; then
        sh "tests/cli/$1.sh" >"$work/$1.$2.log" 2>&1
        rc=$?
    elif [ -x "$BIN/tests/$1" ]; then
        # shellcheck disable=SC2086 # QEMU is a command with arguments
        $QEMU "$BIN/tests/$1" >"$work/$1.$2.log" 2>&1
        rc=$?
    else
        echo "$BIN/tests/$1 was not built" >"$work/$1.$2.log"
        rc=127
    fi
    echo "$rc $(($(date +%s) - start))" >"$work/$1.$2.done"
}
if [ "${1:-}" = --one ]; then
    run_one "$2" "$3"
    exit 0
fi

passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The programs, one line each: "NAME unit" or "NAME cli". Only those whose
# source still exists (gen/ may hold stale ones); the slowest scripts first,
# so that with several jobs none is left running alone at the end.
for s in tests/cli/test_hostile_models.sh tests/cli/test_big_models.sh tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    name=$(basename "$s" .sh)
    grep -qx "$name cli" "$work/list" 2>/dev/null || echo "$name cli" >>"$work/list"
done
for src in tests/unit/*.c; do
    echo "$(basename "$src" .c) unit" >>"$work/list"
done
if [ -n "$TEST_SKIP" ]; then
    echo "== left out of this suite (TEST_SKIP): $TEST_SKIP"
    for name in $TEST_SKIP; do
        grep -q "^$name " "$work/list" || { echo "FAIL TEST_SKIP names no test program: $name"; failed=1; }
        grep -v "^$name " "$work/list" >"$work/kept"
        mv "$work/kept" "$work/list"
    done
fi

if [ "$TEST_JOBS" -gt 1 ]; then
    export work
    xargs -P "$TEST_JOBS" -L 1 sh "$0" --one <"$work/list" &
    pool=$!
fi

# Fold each program's summary into the totals, in the list's order.
while read -r name kind; do
    if [ "$TEST_JOBS" -gt 1 ]; then
        while [ ! -f "$work/$name.$kind.done" ] && kill -0 "$pool" 2>/dev/null; do sleep 0.2; done
        # A job that never reported (its shell was killed) counts as a crash.
        [ -f "$work/$name.$kind.done" ] || echo "137 0" >"$work/$name.$kind.done"
        [ -f "$work/$name.$kind.log" ] || : >"$work/$name.$kind.log"
    else
        run_one "$name" "$kind"
    fi
    echo "== $name"
    cat "$work/$name.$kind.log"
    read -r rc seconds <"$work/$name.$kind.done"
    echo "$seconds $name" >>"$work/times"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$work/$name.$kind.log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL $name: exited with status $rc and no summary line"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $name: exited with status $rc"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done <"$work/list"
wait

# Every program's seconds, slowest first, stay beside the build for later
# reading (CI time is spent here); the log shows the slowest and the sum.
times=$(dirname "$BIN")/test_times.txt
sort -rn "$work/times" >"$times"
echo "== slowest (seconds; all programs together $(awk '{s += $1} END {print s + 0}' "$times") s, each in $times)"
head -n 8 "$times"
echo "== all tests (${TARGET:-linux})"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
