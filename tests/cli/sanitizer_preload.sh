# sanitizer_preload.sh - sourced by the tests that load libtfpi.so into
# Debian's python3 under SANITIZE=1: python is not built with the
# sanitizers, so their runtime must be loaded first (LD_PRELOAD) - gcc's
# libasan and libubsan, or clang's shared ASan runtime, which holds UBSan's
# too. Leak checking is off, since Python keeps memory to the end. Programs
# the tests start from python must drop LD_PRELOAD (they link their own).
if [ -n "${SANITIZE:-}" ]; then
    case "${CC:-gcc}" in
    *clang*) LD_PRELOAD=$($CC -print-file-name="libclang_rt.asan-$(uname -m).so") ;;
    *) LD_PRELOAD="$(${CC:-gcc} -print-file-name=libasan.so) $(${CC:-gcc} -print-file-name=libubsan.so)" ;;
    esac
    ASAN_OPTIONS=detect_leaks=0
    export LD_PRELOAD ASAN_OPTIONS
fi
