# test_hostile_models.sh - the hostile-model corpus (tests/cli/hostile_models.py
# writes it): every crafted graph gives one clear error line naming what is
# wrong and a non-zero exit, or, where TensorFlow accepts it, the right
# answer; none crashes, trips a sanitizer or runs past the time limit.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
CLI_TIME_LIMIT=$HOSTILE_TIME_LIMIT

if ! "$PY" tests/cli/hostile_models.py "$CLI_TMP/corpus" >"$CLI_TMP/count" 2>"$CLI_TMP/pyerr"; then
    cli_result "hostile corpus written" no "$(tail -n 1 "$CLI_TMP/pyerr")"
    cli_summary
    exit
fi

# The exact message of each erroring case: its 32-bit form (third column) on PI and ARMV6.
MESSAGES=tests/cli/hostile_messages.tsv
case ${TARGET:-linux} in pi | armv6) column=3 ;; *) column=2 ;; esac

# exact_message NAME : the line the case must print, after "error: <model file>: ".
exact_message() {
    awk -F'\t' -v name="$1" -v col="$column" '$1 == name { print (NF >= col ? $col : $2); found = 1 }
        END { if (!found) print "(no message in hostile_messages.tsv)" }' "$MESSAGES"
}

# Every case under a 2 GB budget, whatever this machine's RAM (the bar the
# corpus was written to: ASan + UBSan, TFPI_MAX_MEMORY=2G, 20 s each).
export TFPI_MAX_MEMORY=2G
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
    error:*)
        expect_error "$name" "${expect#error:}" run_graph "$@"
        want=$(exact_message "$name")
        got=$(head -n 1 "$CLI_TMP/err")
        got=${got#"error: $CLI_TMP/corpus/$name.pb: "}
        [ "$got" = "$want" ] || cli_result "$name: the exact message" no "got '$got', want '$want'"
        ;;
    output:*) expect_output "$name" "${expect#output:}" run_graph "$@" ;;
    esac
done <"$CLI_TMP/corpus/manifest.tsv"
unset TFPI_MAX_MEMORY

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
# A NUL byte in a text graph's node name: refused, not cut to "x" (which then fed the Placeholder).
printf 'node { name: "x\\000y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n' \
    >"$CLI_TMP/nul_name.pbtxt"
expect_error "a NUL byte in a .pbtxt node name" "nul_name.pbtxt:1:23: field 'name' holds a NUL byte$" \
    run_graph --graph="$CLI_TMP/nul_name.pbtxt" --output=x
# With no --max_memory the budget is half of what the process may have: under a 2 GB address-space
# limit (ulimit -v; not under qemu or the sanitizers, which reserve far more) a 4 GB Fill is refused by
# the budget of 1 GB, not left to fail in malloc.
if [ -z "${QEMU:-}" ] && [ -z "${SANITIZE:-}" ]; then
    (ulimit -v 2000000 && "$BIN/run_graph" --graph="$CLI_TMP/corpus/fill_4gb.pb" --output=y --num_threads=1) \
        >"$CLI_TMP/out" 2>"$CLI_TMP/err"
    if grep -q "over the memory budget of 1024000000 bytes (max_memory)" "$CLI_TMP/err"; then
        cli_result "the default budget is half of RLIMIT_AS (ulimit -v 2000000)" yes ""
    else
        cli_result "the default budget is half of RLIMIT_AS (ulimit -v 2000000)" no "$(head -c 300 "$CLI_TMP/err")"
    fi
fi
"$PY" -c 'import sys
sys.path.insert(0, "tests/cli")
from hostile_corpus import encode, f32, i32, one_op
sys.stdout.buffer.write(encode(one_op("Fill", [i32([1024, 1024]), f32(1)])))' >"$CLI_TMP/fill_4mb.pb"
export TFPI_MAX_MEMORY=1M
expect_error "TFPI_MAX_MEMORY sets the default budget" \
    "node 'y' \(Fill\): output 0 float \[1024,1024\] needs 4194304 bytes, over the memory budget of 1048576 bytes" \
    run_graph --graph="$CLI_TMP/fill_4mb.pb" --output=y
expect_error "--max_memory wins over TFPI_MAX_MEMORY" "node 'y'.*over the memory budget of 2097152 bytes" \
    run_graph --graph="$CLI_TMP/fill_4mb.pb" --output=y --max_memory=2M
export TFPI_MAX_MEMORY=lots
expect_error "a bad TFPI_MAX_MEMORY is one line saying what to give" \
    "TFPI_MAX_MEMORY='lots' is not a memory size: give bytes with an optional K, M or G suffix" \
    run_graph --graph="$CLI_TMP/fill_4mb.pb" --output=y
unset TFPI_MAX_MEMORY
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
