#!/bin/sh
# bench.sh - `make bench`: generates the big models if needed (gen/models/,
# with ../shared/tools/make_models.py) and prints one table of tfpi against
# OpenCV DNN on this machine (tests/bench/run_bench.py has the details); for
# an ARM build (TARGET=AARCH64, PI64, PI), the estimated cycles per inference
# on the Raspberry Pis' cores instead (tests/bench/arm_bench.py).
# Called by the Makefile with BIN set; run from the repo root.
# BENCH_ARGS passes options on, e.g. BENCH_ARGS="--samples 11 --threads 1".
set -eu
: "${BIN:?BIN must name the build's bin directory}"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
case "$(file -L "$BIN/benchmark_model")" in
*ARM* | *aarch64*) exec /usr/bin/python3 tests/bench/arm_bench.py "$BIN" ${BENCH_ARGS:-} ;;
esac
# shellcheck disable=SC2086
exec /usr/bin/python3 tests/bench/run_bench.py "$BIN" ${BENCH_ARGS:-}
