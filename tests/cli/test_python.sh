# test_python.sh - runs the Python module's tests (tests/python/test_tfpi.py)
# against this build's libtfpi.so with Debian's python3 and numpy. Host
# builds only: cross targets (qemu) and valgrind runs skip it with a note.
# Under SANITIZE=1 python loads the sanitizer runtime first
# (tests/cli/sanitizer_preload.sh).
PY=/usr/bin/python3
if [ -n "${QEMU:-}" ]; then
    echo "skip: the Python module is tested on host builds only (this run uses '$QEMU')"
    echo "0 passed, 0 failed"
    exit 0
fi
. tests/cli/sanitizer_preload.sh
TFPI_LIBRARY=$BIN/../lib/$SONAME PYTHONPATH=python exec "$PY" tests/python/test_tfpi.py
