# diff_lib.sh - helpers for the command-line tests that compare run_graph's
# outputs with an independent reference (OpenCV DNN or tests/diff's numpy
# evaluator) computed by the host's Python (sourced after lib.sh).
PY=${TFPI_PYTHON:-/usr/bin/python3}
DIFF=tests/diff

# The references need numpy and OpenCV: one clear failure if they are missing.
need_python() {
    if ! "$PY" -c "import numpy, cv2" 2>"$CLI_TMP/pyerr"; then
        cli_result "python references" no "$PY cannot import numpy and cv2 ($(tail -n 1 "$CLI_TMP/pyerr")): install python3-numpy python3-opencv (./download_dependencies.sh does)"
        cli_summary
        exit 1
    fi
}

# reference ENGINE GRAPH ARGS... : runs run_reference.py; status in $ref_rc, errors in $CLI_TMP/referr.
reference() {
    engine=$1 graph=$2
    shift 2
    "$PY" "$DIFF/run_reference.py" --engine="$engine" --graph="$graph" "$@" 2>"$CLI_TMP/referr"
    ref_rc=$?
}

# expect_match NAME GOT WANT COMPARE-ARGS... : after run_tool and reference,
# records whether GOT (tfpi) matches WANT (also in $matched: yes or no); the
# ok line shows the figures.
expect_match() {
    name=$1 got=$2 want=$3
    shift 3
    matched=no
    if [ "$rc" -ne 0 ]; then
        cli_result "$name" no "run_graph exit status $rc: $(head -c 300 "$CLI_TMP/err")"
    elif [ "${ref_rc:-0}" -ne 0 ]; then
        cli_result "$name" no "reference failed: $(tail -n 3 "$CLI_TMP/referr" | head -c 300)"
    elif figures=$("$PY" "$DIFF/compare.py" "$got" "$want" "$@" 2>&1); then
        matched=yes
        cli_result "$name: $figures" yes ""
    else
        cli_result "$name" no "$figures"
    fi
}

MAKE_MODELS=${TFPI_TESTDATA:-../shared/testdata}/../tools/make_models.py

# generated_model DIR NAME [make_models.py options] : DIR/NAME.pb and .json
# from make_models.py, unless DIR has them already (gen/models is a cache).
generated_model() {
    dir=$1 model=$2
    shift 2
    [ -f "$dir/$model.pb" ] && [ -f "$dir/$model.json" ] && return 0
    mkdir -p "$dir" && tmp=$(mktemp -d "$dir/.make.XXXXXX") &&
        "$PY" "$MAKE_MODELS" --out "$tmp" --only "$model" "$@" >"$CLI_TMP/make_models.log" 2>&1 &&
        mv "$tmp/$model.pb" "$tmp/$model.json" "$dir/"
    made=$?
    rm -rf "$tmp"
    return $made
}

# check_generated_model LABEL DIR NAME SEED [make_models.py options] : the
# model's softmax for a uniform(-1, 1) input (numpy default_rng(SEED)) from
# tfpi and from OpenCV must agree within max |d| 1e-4 (mean 1e-5). Where
# they do not, a float64 numpy evaluation decides, within the same bounds:
# OpenCV is an oracle, not the truth (on aarch64 inception_v3_tiny seed 1,
# tfpi is 4.4e-5 from float64 and OpenCV 1.1e-4, on opposite sides).
check_generated_model() {
    label=$1 dir=$2 model=$3 seed=$4
    shift 4
    if ! generated_model "$dir" "$model" "$@"; then
        cli_result "$label" no "make_models.py failed: $(tail -n 3 "$CLI_TMP/make_models.log")"
        return
    fi
    # shellcheck disable=SC2046 # three words: input name, shape, output name
    set -- $("$PY" "$DIFF/model_io.py" "$dir/$model.json")
    x=$CLI_TMP/input.npy got=$CLI_TMP/got.npy want=$CLI_TMP/want.npy exact=$CLI_TMP/exact.npy
    "$PY" "$DIFF/make_input.py" "$x" --shape="$2" --seed="$seed"
    start=$(date +%s%N)
    run_tool run_graph --graph="$dir/$model.pb" --input="$1=$x" --output="$3=$got"
    ms=$((($(date +%s%N) - start) / 1000000))
    reference opencv "$dir/$model.pb" --input="$1=$x" --output="$3=$want"
    name="$label, input $2 seed $seed, run_graph $ms ms"
    if [ "$rc" -eq 0 ] && [ "$ref_rc" -eq 0 ] && ! "$PY" "$DIFF/compare.py" "$got" "$want" >/dev/null 2>&1 &&
        reference numpy "$dir/$model.pb" --float64 --input="$1=$x" --output="$3=$exact"; then
        off=$("$PY" "$DIFF/compare.py" "$want" "$exact" 2>&1)
        expect_match "$name: OpenCV differs (it is $off from float64 numpy); vs float64 numpy" "$got" "$exact"
        return
    fi
    expect_match "$name: vs OpenCV" "$got" "$want"
}
