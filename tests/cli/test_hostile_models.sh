# test_hostile_models.sh - the hostile-model corpus (tests/cli/hostile_models.py
# writes it): every crafted graph gives one clear error line naming what is
# wrong and a non-zero exit, or, where TensorFlow accepts it, the right
# answer; none crashes, trips a sanitizer or runs past the time limit.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CLI_TIME_LIMIT=20

if ! "$PY" tests/cli/hostile_models.py "$CLI_TMP/corpus" >"$CLI_TMP/count" 2>"$CLI_TMP/pyerr"; then
    cli_result "hostile corpus written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi

tab=$(printf '\t')
while IFS="$tab" read -r name expect flags; do
    # The flags hold no spaces; split them on tabs into the arguments.
    # shellcheck disable=SC2086
    set -f
    IFS="$tab"
    set -- $flags
    unset IFS
    set +f
    case $expect in
    error:*) expect_error "$name" "${expect#error:}" run_graph "$@" ;;
    output:*) expect_output "$name" "${expect#output:}" run_graph "$@" ;;
    esac
done <"$CLI_TMP/corpus/manifest.tsv"

# The model tools unpack whole GraphDefs: the same nesting limit holds there.
nested=$CLI_TMP/corpus/nested_func_5000.pb
expect_error "summarize_graph: attribute values nested 5000 deep" "nested_func_5000.pb: .*nest more than 100 levels" \
    summarize_graph --in_graph="$nested"
expect_error "print_required_ops: attribute values nested 5000 deep" "nested_func_5000.pb: .*nest more than 100 levels" \
    print_required_ops --graph="$nested"
# A 100,000-node text graph: its node array grew one element at a time (20 s under ASan).
"$PY" -c 'import sys
sys.stdout.write("node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n")
for i in range(100000):
    sys.stdout.write("node { name: \"n%d\" op: \"Neg\" input: \"%s\" }\n" % (i, "n%d" % (i - 1) if i else "x"))' \
    >"$CLI_TMP/chain_100000.pbtxt"
expect_output "summarize_graph: a 100,000-node .pbtxt" "Op types used: 100000 Neg, 1 Placeholder" \
    summarize_graph --in_graph="$CLI_TMP/chain_100000.pbtxt"
# The limit flags: bad values are flag errors; the image limit applies to the input image too.
TD=${TFPI_TESTDATA:-../shared/testdata}
expect_error "--max_memory with an unknown suffix" "invalid value '12Q' for flag --max_memory" \
    run_graph --graph="$nested" --output=y --max_memory=12Q
expect_error "--max_memory past int64" "invalid value '99999999999G' for flag --max_memory" \
    run_graph --graph="$nested" --output=y --max_memory=99999999999G
expect_error "--max_image_pixels refuses a larger input image" \
    "grace_hopper.jpg: image of 517x606 pixels is over the limit of 1000 pixels" \
    label_image --graph="$TD/mobilenet_v1_0.25_128/frozen_graph.pb" --labels="$TD/mobilenet_v1_0.25_128/labels.txt" \
    --image="$TD/images/grace_hopper.jpg" --input_width=128 --input_height=128 --max_image_pixels=1000
cli_summary
