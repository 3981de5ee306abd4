# test_python.sh - runs the Python module's tests (tests/python/test_*.py)
# against this build's libtfpi.so with Debian's python3 and numpy, and adds
# up their counts. Host builds only: cross targets (qemu) and valgrind runs
# skip it with a note. Under SANITIZE=1 python loads the sanitizer runtime
# first (tests/cli/sanitizer_preload.sh).
PY=/usr/bin/python3
if [ -n "${QEMU:-}" ]; then
    echo "skip: the Python module is tested on host builds only (this run uses '$QEMU')"
    echo "0 passed, 0 failed"
    exit 0
fi
. tests/cli/sanitizer_preload.sh
passed=0
failed=0
log=$(mktemp)
for test in tests/python/test_*.py; do
    echo "-- $test"
    TFPI_LIBRARY=$BIN/../lib/$SONAME PYTHONPATH=python "$PY" "$test" >"$log" 2>&1
    rc=$?
    cat "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL $test: exited with status $rc and no summary line"
        failed=$((failed + 1))
        continue
    fi
    passed=$((passed + ${line%% passed*}))
    f=${line#*, }
    f=${f%% failed}
    [ "$rc" -eq 0 ] || [ "$f" -ne 0 ] || f=1
    failed=$((failed + f))
done
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
