#!/bin/sh
# run_fuzzers.sh - runs every libFuzzer harness built by `make fuzz` for
# FUZZ_SECONDS each, with its seeds: ../shared/testdata models and images,
# the hostile-model corpus (tests/cli/hostile_models.py), the function
# graphs (tests/cli/function_graphs.py: calls, While/If/Case, variables),
# one-op graphs of every registered op (tests/fuzz/op_graphs.py), checkpoints
# (tests/fuzz/seed_checkpoints.py), SavedModels, .tflite files and the
# hostile .tflite corpus (tests/cli/hostile_tflite.py) and tests/fuzz/seeds,
# copied into gen/fuzz-corpus/<harness>/ (kept between campaigns, never
# committed). fuzz_graphdef also gets tests/fuzz/graphdef.dict. FUZZ_RUNS
# stops each harness after that many executions instead (one campaign),
# FUZZ_MAX_LEN caps the input size libFuzzer mutates to, FUZZ_ONLY runs one
# harness, FUZZ_JOBS=N runs N processes of each harness on its one corpus
# (each with FUZZ_RUNS/N executions, or the whole time), which share the
# inputs they find. Each input's energy is scaled by its run time
# (-entropic_scale_per_exec_time): a graph that legitimately expands to
# near the node limit takes seconds under ASan, and mutating those
# again and again held a campaign to a few hundred executions a second.
# The harnesses' files go to TMPDIR, /dev/shm by default.
# Crashes are written to gen/fuzz-crashes/; the script exits non-zero
# if any harness failed.
set -u
: "${BIN:?BIN must name the fuzz build's bin directory}"
: "${TOOLS:?TOOLS must name the normal build's bin directory}"
SECONDS_EACH=${FUZZ_SECONDS:-60}
RUNS=${FUZZ_RUNS:-}
MAX_LEN=${FUZZ_MAX_LEN:-}
ONLY=${FUZZ_ONLY:-}
JOBS=${FUZZ_JOBS:-1}
TD=${TFPI_TESTDATA:-../shared/testdata}
PY=${TFPI_PYTHON:-/usr/bin/python3}
CORPUS=gen/fuzz-corpus
# fuzz_checkpoint and fuzz_saved_model write every input to files: on
# tmpfs fuzz_checkpoint runs 2.5x the executions a second of a disk /tmp
# (2,593 against 1,021 on this VM). A TMPDIR given still wins.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    export TMPDIR=/dev/shm
fi
CRASHES=gen/fuzz-crashes
mkdir -p "$CORPUS" "$CRASHES"

seed() { # seed HARNESS FILES... : copies the readable files into the harness's corpus
    dir=$CORPUS/$1
    shift
    mkdir -p "$dir"
    for f in "$@"; do
        [ -f "$f" ] && cp "$f" "$dir/" 2>/dev/null
    done
    return 0
}

small_models=$(find "$TD" -name '*.pb' -size -2M 2>/dev/null)
# shellcheck disable=SC2086
seed fuzz_graphdef $small_models
if "$PY" tests/cli/hostile_models.py "$CORPUS/hostile" >/dev/null 2>&1; then
    seed fuzz_graphdef "$CORPUS"/hostile/*.pb
fi
if "$PY" tests/cli/function_graphs.py "$CORPUS/functions" >/dev/null 2>&1; then
    seed fuzz_graphdef "$CORPUS"/functions/*.pb
fi
if "$PY" tests/fuzz/op_graphs.py "$CORPUS/op_graphs" 10 1 "$TOOLS/run_graph" >/dev/null 2>&1; then
    seed fuzz_graphdef "$CORPUS"/op_graphs/*.pb
fi
# shellcheck disable=SC2086
seed fuzz_transforms $small_models
seed fuzz_image "$TD"/images/*
seed fuzz_pbtxt tests/fuzz/seeds/graph.pbtxt
# fuzz_feeds: a few hand-made feed/fetch scripts (counts, names, dtype, rank, dims, bytes)
mkdir -p "$CORPUS/fuzz_feeds"
printf '\001\001\000\001\002\003\003\002\001\000\003' >"$CORPUS/fuzz_feeds/float_identity"
printf '\001\002\002\007\000\002\005\000\000\000\006\000' >"$CORPUS/fuzz_feeds/string_decode_wav"
"$PY" tests/fuzz/seed_checkpoints.py "$CORPUS/fuzz_checkpoint" >/dev/null 2>&1
# fuzz_saved_model loads an input one way by its length modulo 4 (0 and 1:
# saved_model.pb with two tag sets, 2: .meta, 3: text): each seed is padded
# to its way's length with an unknown field (15, bytes) or text's newlines.
mkdir -p "$CORPUS/fuzz_saved_model"
"$PY" - "$CORPUS/fuzz_saved_model" "$TD"/savedmodel/*/saved_model.pb "$TD"/savedmodel/*/*/saved_model.pb \
    "$TD"/savedmodel/*/*.meta <<'EOP' 2>/dev/null
import os, sys
sys.path.insert(0, "tests/cli")
import saved_model_refs

def padded(data, way, text=False):
    pad = (way - len(data)) % 4
    if text:
        return data + b"\n" * pad
    return data + {0: b"", 2: b"\x7a\x00", 3: b"\x7a\x01\x00", 1: b"\x7a\x03\x00\x00\x00"}[pad]

out = sys.argv[1]
for path in sys.argv[2:]:
    if not os.path.isfile(path):
        continue
    data = open(path, "rb").read()
    name = "_".join(path.split("/")[-3:])
    for way in ((2,) if path.endswith(".meta") else (0, 1)):
        open(os.path.join(out, "%s.%d" % (name, way)), "wb").write(padded(data, way))
open(os.path.join(out, "text_saved_model.pbtxt"), "wb").write(padded(saved_model_refs.TEXT_SAVED_MODEL.encode(), 3, True))
EOP
mkdir -p "$CORPUS/fuzz_transform_spec"
echo 'a b(c=1, d="x,y") e( f = g )' >"$CORPUS/fuzz_transform_spec/seed"
# fuzz_tflite: the small .tflite models and the hostile .tflite corpus
seed fuzz_tflite $(find "$TD" -name '*.tflite' -size -1M 2>/dev/null)
if "$PY" tests/cli/hostile_tflite.py "$CORPUS/hostile_tflite" >/dev/null 2>&1; then
    seed fuzz_tflite "$CORPUS"/hostile_tflite/*.tflite
fi
mkdir -p "$CORPUS/fuzz_memmapped"
"$TOOLS/convert_graphdef_memmapped_format" --in_graph="$TD/mnist/mnist.pb" \
    --out_graph="$CORPUS/fuzz_memmapped/mnist" --min_conversion_tensor_size=64 >/dev/null 2>&1

failed=0
for fuzzer in "$BIN"/fuzz/*; do
    name=$(basename "$fuzzer")
    [ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
    mkdir -p "$CORPUS/$name"
    dict=
    [ -f "tests/fuzz/${name#fuzz_}.dict" ] && dict=-dict=tests/fuzz/${name#fuzz_}.dict
    if [ -n "$RUNS" ]; then
        limit=-runs=$((RUNS / JOBS))
        echo "== $name ($RUNS executions, $JOBS process(es))"
    else
        limit=-max_total_time=$SECONDS_EACH
        echo "== $name ($SECONDS_EACH s, $JOBS process(es))"
    fi
    [ -n "$MAX_LEN" ] && limit="$limit -max_len=$MAX_LEN"
    pids=
    logs=
    for job in $(seq 1 "$JOBS"); do
        log=$CORPUS/$name.log
        [ "$JOBS" -gt 1 ] && log=$CORPUS/$name.$job.log
        logs="$logs $log"
        # shellcheck disable=SC2086
        "$fuzzer" $limit -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -entropic_scale_per_exec_time=1 \
            -artifact_prefix="$CRASHES/$name-" $dict "$CORPUS/$name" 2>"$log" &
        pids="$pids $!"
    done
    for pid in $pids; do
        if ! wait "$pid"; then
            echo "FAIL $name: see$logs and $CRASHES/"
            failed=1
        fi
    done
    # shellcheck disable=SC2086
    grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb|^Done' $logs
done
exit $failed
