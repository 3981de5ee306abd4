"""hostile_text.py - hostile graphs for the string, sparse and counting ops
of text exports (written with hostile_corpus.py, run by
test_text_hostile.sh): n-gram counts and widths that would make billions
of strings, bin counts, dense shapes and segment ids past the memory
budget, sizes that overflow, positions and axes at the ends of int64,
splits that lie about their data. Each must give one error line naming the
node, never a crash or a hang.

    python3 tests/cli/hostile_text.py OUT_DIR"""
import os
import sys

import numpy as np

from hostile_corpus import INT32, INT64, STRING, Corpus, DType, const, graphdef, i32, i64, node

FLOAT = DType(1)
BUDGET = "over the memory budget"


def strings(name, values):
    return node(name, "Const", dtype=STRING,
                value=graphdef.TypedArray(np.array([v.encode() for v in values], dtype=object), 7))


def scalar_string(name, value):
    return node(name, "Const", dtype=STRING, value=graphdef.TypedArray(np.array(value.encode(), dtype=object), 7))


def ngrams(widths, pad=-1, pads=("P", "P"), preserve=False, splits=(0, 4)):
    return [strings("a0", ["A", "B", "C", "D"]), const("a1", i64(list(splits))),
            node("y", "StringNGrams", ["a0", "a1"], ngram_widths=list(widths), separator=" ", left_pad=pads[0],
                 right_pad=pads[1], pad_width=pad, preserve_short_sequences=preserve, Tsplits=INT64)]


def text_cases(c):
    c.error("ngrams_width_2p20_padded", ngrams([1 << 20]), "node 'y' \\(StringNGrams\\).*" + BUDGET)
    c.error("ngrams_width_2p40", ngrams([1 << 40]), "node 'y' \\(StringNGrams\\).*" + BUDGET)
    c.error("ngrams_empty_pads_2p20", ngrams([1 << 20], pads=("", "")), "node 'y' \\(StringNGrams\\).*" + BUDGET)
    c.error("ngrams_split_past_data", ngrams([2], splits=(0, 1 << 40)), "node 'y'.*Invalid split value 1099511627776")
    c.error("ngrams_negative_width", ngrams([-3]), "node 'y'.*ngram_widths must contain positive values")
    c.error("bincount_int32_max", [const("a0", i32([1, 2])), const("a1", np.int32(2**31 - 1)),
                                   const("a2", np.zeros(0, np.float32)),
                                   node("y", "Bincount", ["a0", "a1", "a2"], T=FLOAT)],
            "node 'y' \\(Bincount\\).*" + BUDGET)
    c.error("bincount_negative_size", [const("a0", i32([1])), const("a1", np.int32(-5)),
                                       const("a2", np.zeros(0, np.float32)),
                                       node("y", "Bincount", ["a0", "a1", "a2"], T=FLOAT)],
            "node 'y'.*size \\(-5\\) must be non-negative")
    c.error("fill_empty_rows_2p62", [const("a0", np.zeros((0, 2), np.int64)), const("a1", np.zeros(0, np.float32)),
                                     const("a2", i64([1 << 62, 3])), const("a3", np.float32(0)),
                                     node("y", "SparseFillEmptyRows", ["a0", "a1", "a2", "a3"], T=FLOAT)],
            "node 'y' \\(SparseFillEmptyRows\\).*(too many|" + BUDGET + ")")
    c.error("fill_empty_rows_row_int64_min", [const("a0", i64([[-(2**63), 0]])), const("a1", np.zeros(1, np.float32)),
                                              const("a2", i64([3, 3])), const("a3", np.float32(0)),
                                              node("y", "SparseFillEmptyRows", ["a0", "a1", "a2", "a3"], T=FLOAT)],
            "node 'y'.*indices\\(0, 0\\) is invalid")
    c.error("segment_id_2p31", [const("a0", np.zeros((1, 1 << 10), np.float32)), const("a1", i32([0, 0])),
                                const("a2", i32([0, 2**31 - 1])),
                                node("y", "SparseSegmentSum", ["a0", "a1", "a2"], T=FLOAT, Tidx=INT32)],
            "node 'y' \\(SparseSegmentSum\\).*(too large|" + BUDGET + ")")
    c.error("segment_index_out_of_range", [const("a0", np.zeros((2, 2), np.float32)), const("a1", i64([0, 1 << 40])),
                                           const("a2", i32([0, 0])),
                                           node("y", "SparseSegmentMean", ["a0", "a1", "a2"], T=FLOAT, Tidx=INT64)],
            "node 'y'.*indices\\[1\\] == 1099511627776 out of range")
    c.error("sparse_reshape_overflow", [const("a0", np.zeros((0, 2), np.int64)), const("a1", i64([1 << 40, 1 << 40])),
                                        const("a2", i64([-1])),
                                        node("y", "SparseReshape", ["a0", "a1", "a2"])],
            "node 'y'.*too many elements")
    c.error("substr_pos_int64_min", [strings("a0", ["hello"]), const("a1", i64(-(2**63))), const("a2", i64(2)),
                                     node("y", "Substr", ["a0", "a1", "a2"], T=INT64)],
            "node 'y'.*pos -9223372036854775808 out of range")
    c.error("as_string_width_2p31", [const("a0", i32([1])), node("y", "AsString", ["a0"], T=INT32, width=2**31)],
            "node 'y'.*width 2147483648")
    c.error("hash_buckets_negative", [strings("a0", ["x"]), node("y", "StringToHashBucketFast", ["a0"],
                                                                  num_buckets=-5)],
            "node 'y'.*num_buckets is -5")
    c.error("cumsum_axis_int64_min", [const("a0", np.zeros(3, np.float32)), const("a1", i64(-(2**63))),
                                      node("y", "Cumsum", ["a0", "a1"], T=FLOAT, Tidx=INT64)],
            "node 'y'.*axis -9223372036854775808 is out of range")
    long_text = "," * (1 << 20)
    c.error("split_million_empty_tokens", [strings("a0", [long_text]), scalar_string("a1", ","),
                                           node("y", "StringSplit", ["a0", "a1"], skip_empty=False)],
            "node 'y' \\(StringSplit\\).*" + BUDGET, extra=("--max_memory=4M",))
    c.error("to_number_long", [strings("a0", ["1" * 100]), node("y", "StringToNumber", ["a0"], out_type=INT64)],
            "node 'y'.*could not correctly convert string 0")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    c = Corpus(out)
    text_cases(c)
    c.write_manifest()
    print(len(c.lines))


if __name__ == "__main__":
    main()
