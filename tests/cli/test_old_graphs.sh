#!/bin/sh
# test_old_graphs.sh - graphs written by older TensorFlow (no versions field,
# or producer <= 21) take any shape at a Placeholder whose shape attr is `{}`,
# as TensorFlow does, while newer ones treat it as a scalar; run_graph feeds
# string arrays from .npy files ('S', 'U' and object arrays) and lists of
# files, and writes string outputs to .npy.
. tests/cli/lib.sh
PY=${TFPI_PYTHON:-/usr/bin/python3}
T=$CLI_TMP
$PY tests/cli/old_graphs.py "$T"

expect_output "no versions field: shape {} takes a vector" "y: float \[2\] 2 3" \
    run_graph --graph="$T/no_versions.pb" --input=x="$T/vector.npy" --output=y
expect_output "producer 21: shape {} takes a vector" "y: float \[2\] 2 3" \
    run_graph --graph="$T/producer21.pb" --input=x="$T/vector.npy" --output=y
expect_error "producer 22: shape {} is a scalar" "--input: \[2\] does not fit input 'x', which the graph declares as float \[\]" \
    run_graph --graph="$T/producer22.pb" --input=x="$T/vector.npy" --output=y

for form in s u o; do
    run_tool run_graph --graph="$T/strings.pb" --input=s="$T/$form.npy" --output=t="$T/$form.out.npy"
    ok=$($PY -c "
import numpy as np
got, want = np.load('$T/$form.out.npy'), np.load('$T/want.npy')
print('yes' if got.shape == want.shape and list(got.reshape(-1)) == list(want.reshape(-1)) else 'no: %r' % got)" 2>&1)
    [ "$form" != o ] || ok=$($PY -c "
import numpy as np
got = np.load('$T/o.out.npy')
print('yes' if list(got.reshape(-1)) == ['h\u00e9llo'.encode(), b'x', '\U0001F600'.encode(), 'h\u00e9llo'.encode()] else 'no: %r' % got)")
    cli_result "a '$form' string .npy feeds a string input, and the output is written as .npy" \
        "$([ "$rc" -eq 0 ] && echo "$ok")" "exit $rc: $(head -c 300 "$CLI_TMP/err") $ok"
done
printf 'abc' >"$T/a.txt"
printf 'de' >"$T/b.txt"
expect_output "--input=NAME=@a,@b feeds a vector of the files' bytes" 't: string \[2\] "abc" "de"' \
    run_graph --graph="$T/strings.pb" --input=s=@"$T/a.txt",@"$T/b.txt" --output=t
expect_error "an object .npy holding a number" "mixed.npy: an object .npy with 1 str/bytes elements for 2 places" \
    run_graph --graph="$T/strings.pb" --input=s="$T/mixed.npy" --output=t
head -c 140 "$T/o.npy" >"$T/cut.npy"
expect_error "an object .npy cut short" "cut.npy: an object .npy whose pickle tfpi cannot read" \
    run_graph --graph="$T/strings.pb" --input=s="$T/cut.npy" --output=t
cli_summary
