# test_python.sh - runs the Python module's tests (tests/python/test_tfpi.py)
# against this build's libtfpi.so with Debian's python3 and numpy. Host
# builds only: cross targets (qemu) and valgrind runs skip it with a note.
# Under SANITIZE=1 python loads the sanitizer runtime first (LD_PRELOAD:
# gcc's libasan and libubsan, or clang's shared ASan runtime, which holds
# UBSan's too); leak checking is off there, since Python itself keeps memory
# to the end. The C tools the tests start get the environment without it.
PY=/usr/bin/python3
if [ -n "${QEMU:-}" ]; then
    echo "skip: the Python module is tested on host builds only (this run uses '$QEMU')"
    echo "0 passed, 0 failed"
    exit 0
fi
if [ -n "${SANITIZE:-}" ]; then
    case "${CC:-gcc}" in
    *clang*) LD_PRELOAD=$($CC -print-file-name="libclang_rt.asan-$(uname -m).so") ;;
    *) LD_PRELOAD="$(${CC:-gcc} -print-file-name=libasan.so) $(${CC:-gcc} -print-file-name=libubsan.so)" ;;
    esac
    ASAN_OPTIONS=detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
fi
TFPI_LIBRARY=$BIN/../lib/$SONAME PYTHONPATH=python exec "$PY" tests/python/test_tfpi.py
