"""export_models.py - small SavedModels shaped like the exports users bring
and ../shared/testdata lacks, each with numpy's answers computed here from
the same weights and inputs, independently of tfpi:

  estimator_linear   TF1 Estimator: VariableV2 weights, global_step read
                     through its IsVariableInitialized / RefSwitch cond
  estimator_text     TF1 Estimator text classifier: sentences split into
                     words (StringSplit), hashed into buckets
                     (StringToHashBucketFast), a mean embedding per sentence
                     as safe_embedding_lookup_sparse builds it
                     (SparseReshape, sparse_retain, SparseFillEmptyRows,
                     Unique, SparseSegmentMean, empty rows zeroed), a
                     softmax layer; hashes from tests/cli/farmhash.py
  keras_text         TF2 Keras text model (functions, resource variables):
                     TextVectorization-style preprocessing (StringLower,
                     StringSplitV2, row splits from Bincount + Cumsum,
                     StringNGrams of widths 1 and 2) looked up in a
                     MutableHashTable its checkpoint fills (RestoreV2 +
                     LookupTableImportV2 in the restore function), a mean
                     embedding (SparseSegmentMean), a softmax layer; and
                     two more signatures: describe (AsString, Substr in
                     UTF-8 characters, StringJoin) and parse (StringToNumber)
  gru_stateful       TF2 stateful GRU: its state a variable the serving
                     function reads and assigns (AssignVariableOp as a
                     control output), a second signature set_state with no
                     outputs; references for two steps from the first state
  policy             TF-Agents-style policy: signatures action (Q-values,
                     ArgMax, BroadcastArgs + BroadcastTo to the batch
                     shape), get_initial_state (no outputs) and
                     get_train_step (a variable), no serving_default

    python3 tests/cli/export_models.py OUT_DIR

writes OUT_DIR/<model>/ (SavedModel directories), the .npy feeds and
references, and OUT_DIR/manifest.tsv as tests/cli/function_graphs.py does:
one line per run, tab-separated: case name, run_graph flags, then
`want=FILE:got=FILE` pairs."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
import farmhash  # noqa: E402
from graphdef import Arg, DType, Func, Function, Node, Shape, TypedArray  # noqa: E402
from saved_model_writer import SavedModel  # noqa: E402

F, I32, I64, STR, BOOL, RES = DType(1), DType(3), DType(9), DType(7), DType(10), DType(20)


def const(name, value, dtype):
    return Node(name, "Const", [], {"dtype": dtype, "value": np.asarray(value)})


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def global_step_cond(sm, step):
    """tf.train.get_or_create_global_step's int64 variable and the cond that
    reads it (IsVariableInitialized, RefSwitch on the reference, Merge with
    its zero initializer), as every TF1 Estimator graph has them."""
    sm.variable("global_step", np.array(step, np.int64))
    sm.nodes += [
        const("global_step/Initializer/zeros", np.array(0, np.int64), I64),
        Node("global_step/IsVariableInitialized", "IsVariableInitialized", ["global_step"], {"dtype": I64}),
        Node("global_step/cond/Switch", "Switch",
             ["global_step/IsVariableInitialized", "global_step/IsVariableInitialized"], {"T": BOOL}),
        Node("global_step/cond/switch_t", "Identity", ["global_step/cond/Switch:1"], {"T": BOOL}),
        Node("global_step/cond/switch_f", "Identity", ["global_step/cond/Switch"], {"T": BOOL}),
        Node("global_step/cond/pred_id", "Identity", ["global_step/IsVariableInitialized"], {"T": BOOL}),
        Node("global_step/cond/read/Switch", "RefSwitch", ["global_step", "global_step/cond/pred_id"],
             {"T": I64, "_class": ["loc:@global_step"]}),
        Node("global_step/cond/read", "Identity", ["global_step/cond/read/Switch:1"], {"T": I64}),
        Node("global_step/cond/Switch_1", "Switch", ["global_step/Initializer/zeros", "global_step/cond/pred_id"],
             {"T": I64, "_class": ["loc:@global_step"]}),
        Node("global_step/cond/Merge", "Merge", ["global_step/cond/Switch_1", "global_step/cond/read"],
             {"T": I64, "N": 2}),
    ]


def estimator_linear(rng):
    """A TF1 Estimator's linear classifier export: logits = x w + b."""
    sm = SavedModel()
    w = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    sm.variable("linear/w", w)
    sm.variable("linear/b", b)
    global_step_cond(sm, 1234)
    sm.nodes += [
        Node("x", "Placeholder", [], {"dtype": F, "shape": Shape([-1, 3])}),
        Node("linear/w/read", "Identity", ["linear/w"], {"T": F}),
        Node("linear/b/read", "Identity", ["linear/b"], {"T": F}),
        Node("linear/MatMul", "MatMul", ["x", "linear/w/read"], {"T": F, "transpose_a": False, "transpose_b": False}),
        Node("logits", "BiasAdd", ["linear/MatMul", "linear/b/read"], {"T": F, "data_format": "NHWC"}),
        Node("probabilities", "Softmax", ["logits"], {"T": F}),
    ]
    sm.signature("serving_default", {"x": ("x:0", F, [-1, 3])},
                 {"logits": ("logits:0", F, [-1, 2]), "probabilities": ("probabilities:0", F, [-1, 2])})
    x = rng.standard_normal((4, 3)).astype(np.float32)
    logits = x.astype(np.float64) @ w + b
    return sm, {"x": x}, {"logits": logits.astype(np.float32),
                          "probabilities": softmax(logits).astype(np.float32),
                          "global_step/cond/Merge": np.array(1234, np.int64)}


def strided_column(name, src, column):
    """src[:, column] of a [N, 2] int64 matrix."""
    return Node(name, "StridedSlice", [src, "const/begin_%d" % column, "const/end_%d" % column, "const/ones2"],
                {"T": I64, "Index": I32, "begin_mask": 1, "end_mask": 1, "shrink_axis_mask": 2,
                 "ellipsis_mask": 0, "new_axis_mask": 0})


def estimator_text(rng):
    """A TF1 Estimator's text classifier: hashed word buckets, mean embedding, softmax."""
    buckets, dim, classes = 20, 4, 3
    sm = SavedModel()
    emb = rng.standard_normal((buckets, dim)).astype(np.float32)
    w = rng.standard_normal((dim, classes)).astype(np.float32)
    b = rng.standard_normal(classes).astype(np.float32)
    sm.variable("words_embedding/embedding_weights", emb)
    sm.variable("logits/kernel", w)
    sm.variable("logits/bias", b)
    global_step_cond(sm, 400)
    sep = "input_layer/words_embedding"
    sm.nodes += [
        Node("sentences", "Placeholder", [], {"dtype": STR, "shape": Shape([-1])}),
        Node("delimiter", "Const", [], {"dtype": STR, "value": TypedArray(np.array(b" ", dtype=object), STR)}),
        const("const/begin_0", np.array([0, 0], np.int32), I32), const("const/end_0", np.array([0, 1], np.int32), I32),
        const("const/ones2", np.array([1, 1], np.int32), I32), const("const/zero", np.array(0, np.int32), I32),
        const("const/zero64", np.array(0, np.int64), I64), const("const/one", np.array([1], np.int32), I32),
        const("const/minus1", np.array([-1], np.int32), I32), const("const/tile", np.array([1, dim], np.int32), I32),
        const("const/rows", np.array([0], np.int32), I32),
        Node("StringSplit", "StringSplit", ["sentences", "delimiter"], {"skip_empty": True}),
        Node(sep + "/hash", "StringToHashBucketFast", ["StringSplit:1"], {"num_buckets": buckets}),
        # safe_embedding_lookup_sparse: reshape to 2-D (here its own shape), keep ids >= 0
        Node(sep + "/rows", "GatherV2", ["StringSplit:2", "const/rows", "const/zero"],
             {"Tparams": I64, "Tindices": I32, "Taxis": I32}),
        Node(sep + "/cols", "GatherV2", ["StringSplit:2", "const/one", "const/zero"],
             {"Tparams": I64, "Tindices": I32, "Taxis": I32}),
        Node(sep + "/new_shape", "ConcatV2", [sep + "/rows", sep + "/cols", "const/zero"],
             {"T": I64, "N": 2, "Tidx": I32}),
        Node(sep + "/SparseReshape", "SparseReshape", ["StringSplit", "StringSplit:2", sep + "/new_shape"]),
        Node(sep + "/GreaterEqual", "GreaterEqual", [sep + "/hash", "const/zero64"], {"T": I64}),
        Node(sep + "/Where", "Where", [sep + "/GreaterEqual"], {"T": BOOL}),
        Node(sep + "/Reshape", "Reshape", [sep + "/Where", "const/minus1"], {"T": I64, "Tshape": I32}),
        Node(sep + "/retain_indices", "GatherV2", [sep + "/SparseReshape", sep + "/Reshape", "const/zero"],
             {"Tparams": I64, "Tindices": I64, "Taxis": I32}),
        Node(sep + "/retain_values", "GatherV2", [sep + "/hash", sep + "/Reshape", "const/zero"],
             {"Tparams": I64, "Tindices": I64, "Taxis": I32}),
        Node(sep + "/SparseFillEmptyRows", "SparseFillEmptyRows",
             [sep + "/retain_indices", sep + "/retain_values", sep + "/SparseReshape:1", "const/zero64"], {"T": I64}),
        strided_column(sep + "/segment_ids64", sep + "/SparseFillEmptyRows", 0),
        Node(sep + "/segment_ids", "Cast", [sep + "/segment_ids64"], {"SrcT": I64, "DstT": I32}),
        Node(sep + "/Unique", "Unique", [sep + "/SparseFillEmptyRows:1"], {"T": I64, "out_idx": I32}),
        Node("words_embedding/embedding_weights/read", "Identity", ["words_embedding/embedding_weights"], {"T": F}),
        Node(sep + "/embedding_lookup", "GatherV2",
             ["words_embedding/embedding_weights/read", sep + "/Unique", "const/zero"],
             {"Tparams": F, "Tindices": I64, "Taxis": I32}),
        Node(sep + "/combiner", "SparseSegmentMean", [sep + "/embedding_lookup", sep + "/Unique:1",
                                                      sep + "/segment_ids"],
             {"T": F, "Tidx": I32, "Tsegmentids": I32}),
        # rows with no word are zeros
        Node(sep + "/empty_rows", "Reshape", [sep + "/SparseFillEmptyRows:2", "const/tile_shape"],
             {"T": BOOL, "Tshape": I32}),
        const("const/tile_shape", np.array([-1, 1], np.int32), I32),
        Node(sep + "/is_row_empty", "Tile", [sep + "/empty_rows", "const/tile"], {"T": BOOL, "Tmultiples": I32}),
        Node(sep + "/zeros", "ZerosLike", [sep + "/combiner"], {"T": F}),
        Node(sep + "/mean", "Select", [sep + "/is_row_empty", sep + "/zeros", sep + "/combiner"], {"T": F}),
        Node("logits/kernel/read", "Identity", ["logits/kernel"], {"T": F}),
        Node("logits/bias/read", "Identity", ["logits/bias"], {"T": F}),
        Node("logits/MatMul", "MatMul", [sep + "/mean", "logits/kernel/read"],
             {"T": F, "transpose_a": False, "transpose_b": False}),
        Node("logits/BiasAdd", "BiasAdd", ["logits/MatMul", "logits/bias/read"], {"T": F, "data_format": "NHWC"}),
        Node("probabilities", "Softmax", ["logits/BiasAdd"], {"T": F}),
        Node("class_ids", "ArgMax", ["logits/BiasAdd", "const/axis1"], {"T": F, "Tidx": I32, "output_type": I64}),
        const("const/axis1", np.array(1, np.int32), I32),
    ]
    sm.signature("serving_default", {"sentences": ("sentences:0", STR, [-1])},
                 {"probabilities": ("probabilities:0", F, [-1, classes]), "class_ids": ("class_ids:0", I64, [-1])})
    sentences = np.array([b"the cat sat on the mat", b"", b"  dogs  bark ", "café au lait".encode(), b"one"])
    rows = []
    for text in sentences:
        words = [t for t in text.split(b" ") if t]
        ids = [farmhash.hash_bucket(t, buckets) for t in words]
        rows.append(emb[ids].astype(np.float64).mean(axis=0) if ids else np.zeros(dim))
    logits = np.array(rows) @ w + b
    return sm, {"sentences": sentences}, {"probabilities": softmax(logits).astype(np.float32),
                                          "class_ids": logits.argmax(axis=1).astype(np.int64)}


def string_const(name, value):
    return Node(name, "Const", [], {"dtype": STR, "value": TypedArray(np.array(value, dtype=object), STR)})


def row_splits(prefix, text, rowids64):
    """Body nodes: the row splits of a ragged split (one row per string of
    `text`) from the rows of its tokens, as RaggedTensor.from_value_rowids
    makes them: Bincount of the rows, then Cumsum, after a 0."""
    return [
        Node(prefix + "shape", "Shape", [text], {"T": STR, "out_type": I32}),
        const(prefix + "b0", np.array([0], np.int32), I32), const(prefix + "b1", np.array([1], np.int32), I32),
        Node(prefix + "nrows", "StridedSlice", [prefix + "shape:output:0", prefix + "b0:output:0", prefix + "b1:output:0",
                                                prefix + "b1:output:0"],
             {"T": I32, "Index": I32, "shrink_axis_mask": 1, "begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
              "new_axis_mask": 0}),
        Node(prefix + "rowids", "Cast", [rowids64], {"SrcT": I64, "DstT": I32}),
        const(prefix + "no_weights", np.zeros(0, np.int64), I64),
        Node(prefix + "counts", "Bincount", [prefix + "rowids:y:0", prefix + "nrows:output:0",
                                             prefix + "no_weights:output:0"], {"T": I64}),
        const(prefix + "axis", np.array(0, np.int32), I32),
        Node(prefix + "ends", "Cumsum", [prefix + "counts:bins:0", prefix + "axis:output:0"],
             {"T": I64, "Tidx": I32, "exclusive": False, "reverse": False}),
        const(prefix + "zero", np.array([0], np.int64), I64),
        Node(prefix + "splits", "ConcatV2", [prefix + "zero:output:0", prefix + "ends:out:0", prefix + "axis:output:0"],
             {"T": I64, "N": 2, "Tidx": I32}),
    ]


def split_rows(prefix, text):
    """Body nodes: StringSplitV2 on whitespace and the row of each token."""
    return [
        string_const(prefix + "sep", b""),
        Node(prefix + "split", "StringSplitV2", [text, prefix + "sep:output:0"], {"maxsplit": -1}),
        const(prefix + "c00", np.array([0, 0], np.int32), I32), const(prefix + "c01", np.array([0, 1], np.int32), I32),
        const(prefix + "c11", np.array([1, 1], np.int32), I32),
        Node(prefix + "rowids64", "StridedSlice", [prefix + "split:indices:0", prefix + "c00:output:0",
                                                   prefix + "c01:output:0", prefix + "c11:output:0"],
             {"T": I64, "Index": I32, "begin_mask": 1, "end_mask": 1, "shrink_axis_mask": 2, "ellipsis_mask": 0,
              "new_axis_mask": 0}),
    ]


def keras_text(rng):
    """A TF2 Keras text model with a vocabulary table restored from its checkpoint."""
    vocab = [b"the", b"cat", b"sat", b"the cat", b"cat sat", b"\xc3\xa9t\xc3\xa9", b"dogs", b"bark", b"dogs bark"]
    dim, classes = 3, 2
    sm = SavedModel(tf2=True)
    emb = rng.standard_normal((len(vocab) + 2, dim)).astype(np.float32)  # 0: padding, 1: out of vocabulary
    kernel = rng.standard_normal((dim, classes)).astype(np.float32)
    bias = rng.standard_normal(classes).astype(np.float32)
    sm.variable("embedding/embeddings", emb, "layer_with_weights-1/embeddings/.ATTRIBUTES/VARIABLE_VALUE")
    sm.variable("dense/kernel", kernel, "layer_with_weights-2/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    sm.variable("dense/bias", bias, "layer_with_weights-2/bias/.ATTRIBUTES/VARIABLE_VALUE")
    sm.table("string_lookup_table", np.array(vocab, dtype=object), np.arange(2, len(vocab) + 2, dtype=np.int64),
             "layer_with_weights-0/_lookup_layer/token_counts")
    body = [Node("lower", "StringLower", ["text"], {"encoding": "utf-8"})]
    body += split_rows("", "lower:output:0") + row_splits("", "text", "rowids64:output:0")
    body += [
        Node("ngrams", "StringNGrams", ["split:values:0", "splits:output:0"],
             {"ngram_widths": [1, 2], "separator": " ", "left_pad": "", "right_pad": "", "pad_width": 0,
              "preserve_short_sequences": False, "Tsplits": I64}),
        const("oov", np.array(1, np.int64), I64),
        Node("ids", "LookupTableFindV2", ["table", "ngrams:ngrams:0", "oov:output:0"], {"Tin": STR, "Tout": I64}),
        # the sentence of each n-gram: how many sentences end at or before it
        Node("count", "Size", ["ngrams:ngrams:0"], {"T": STR, "out_type": I32}),
        const("r0", np.array(0, np.int32), I32), const("r1", np.array(1, np.int32), I32),
        Node("positions", "Range", ["r0:output:0", "count:output:0", "r1:output:0"], {"Tidx": I32}),
        const("e1", np.array([1], np.int32), I32), const("e0", np.array([0], np.int32), I32),
        Node("gram_ends64", "StridedSlice", ["ngrams:ngrams_splits:0", "e1:output:0", "e0:output:0", "e1:output:0"],
             {"T": I64, "Index": I32, "begin_mask": 0, "end_mask": 1, "shrink_axis_mask": 0, "ellipsis_mask": 0,
              "new_axis_mask": 0}),
        Node("gram_ends", "Cast", ["gram_ends64:output:0"], {"SrcT": I64, "DstT": I32}),
        Node("ends_row", "ExpandDims", ["gram_ends:y:0", "r0:output:0"], {"T": I32, "Tdim": I32}),
        Node("positions_col", "ExpandDims", ["positions:output:0", "r1:output:0"], {"T": I32, "Tdim": I32}),
        Node("before", "LessEqual", ["ends_row:output:0", "positions_col:output:0"], {"T": I32}),
        Node("before_int", "Cast", ["before:z:0"], {"SrcT": BOOL, "DstT": I32}),
        Node("segment_ids", "Sum", ["before_int:y:0", "r1:output:0"], {"T": I32, "Tidx": I32, "keep_dims": False}),
        Node("embeddings", "ReadVariableOp", ["embedding"], {"dtype": F}),
        Node("mean", "SparseSegmentMean", ["embeddings:value:0", "ids:values:0", "segment_ids:output:0"],
             {"T": F, "Tidx": I64, "Tsegmentids": I32}),
        Node("kernel", "ReadVariableOp", ["dense_kernel"], {"dtype": F}),
        Node("bias", "ReadVariableOp", ["dense_bias"], {"dtype": F}),
        Node("matmul", "MatMul", ["mean:output:0", "kernel:value:0"], {"T": F, "transpose_a": False,
                                                                      "transpose_b": False}),
        Node("logits", "BiasAdd", ["matmul:product:0", "bias:value:0"], {"T": F, "data_format": "NHWC"}),
        Node("softmax", "Softmax", ["logits:output:0"], {"T": F}),
        Node("Identity", "Identity", ["softmax:softmax:0"], {"T": F}),
    ]
    args = [Arg("text", STR), Arg("table", RES), Arg("embedding", RES), Arg("dense_kernel", RES),
            Arg("dense_bias", RES)]
    sm.functions.append(Function("__inference_signature_wrapper_10", args, [Arg("output_0", F)], body,
                                 {"output_0": "Identity:output:0"}))
    # describe: "<n> words, starts <first 5 characters>", in UTF-8 characters
    describe = [Node("lower", "StringLower", ["text"], {"encoding": "utf-8"})]
    describe += split_rows("", "lower:output:0") + row_splits("", "text", "rowids64:output:0")
    describe += [
        Node("count_text", "AsString", ["counts:bins:0"], {"T": I64}),
        const("p0", np.array(0, np.int32), I32), const("p5", np.array(5, np.int32), I32),
        Node("head", "Substr", ["lower:output:0", "p0:output:0", "p5:output:0"], {"T": I32, "unit": "UTF8_CHAR"}),
        string_const("middle", b" words, starts "),
        Node("summary", "StringJoin", ["count_text:output:0", "middle:output:0", "head:output:0"],
             {"N": 3, "separator": ""}),
    ]
    sm.functions.append(Function("__inference_describe_20", [Arg("text", STR)], [Arg("summary", STR)], describe,
                                 {"summary": "summary:output:0"}))
    sm.functions.append(Function("__inference_parse_30", [Arg("numbers", STR)], [Arg("values", F)],
                                 [Node("values", "StringToNumber", ["numbers"], {"out_type": F})],
                                 {"values": "values:output:0"}))
    sm.nodes += [
        Node("serving_default_text", "Placeholder", [], {"dtype": STR, "shape": Shape([-1])}),
        Node("StatefulPartitionedCall", "StatefulPartitionedCall",
             ["serving_default_text", "string_lookup_table", "embedding/embeddings", "dense/kernel", "dense/bias"],
             {"f": Func("__inference_signature_wrapper_10"), "Tin": [STR, RES, RES, RES, RES], "Tout": [F]}),
        Node("describe_text", "Placeholder", [], {"dtype": STR, "shape": Shape([-1])}),
        Node("PartitionedCall", "PartitionedCall", ["describe_text"],
             {"f": Func("__inference_describe_20"), "Tin": [STR], "Tout": [STR]}),
        Node("parse_numbers", "Placeholder", [], {"dtype": STR, "shape": Shape([-1])}),
        Node("PartitionedCall_1", "PartitionedCall", ["parse_numbers"],
             {"f": Func("__inference_parse_30"), "Tin": [STR], "Tout": [F]}),
    ]
    sm.signature("serving_default", {"text": ("serving_default_text:0", STR, [-1])},
                 {"output_0": ("StatefulPartitionedCall:0", F, [-1, classes])})
    sm.signature("describe", {"text": ("describe_text:0", STR, [-1])}, {"summary": ("PartitionedCall:0", STR, [-1])})
    sm.signature("parse", {"numbers": ("parse_numbers:0", STR, [-1])}, {"values": ("PartitionedCall_1:0", F, [-1])})
    texts = ["The cat sat", "", "DOGS bark   loudly", "ÉTÉ", "the the cat"]
    index = {v: i + 2 for i, v in enumerate(vocab)}
    rows, summaries = [], []
    for t in texts:
        words = t.lower().split()
        grams = words + [" ".join(words[i:i + 2]) for i in range(len(words) - 1)]
        ids = [index.get(g.encode(), 1) for g in grams]
        rows.append(emb[ids].astype(np.float64).mean(axis=0) if ids else np.zeros(dim))
        summaries.append(("%d words, starts %s" % (len(words), t.lower()[:5])).encode())
    numbers = np.array([b"1.5", b" -2 ", b"1e3", b"inf"])
    return sm, {"text": np.array([t.encode() for t in texts])}, {
        "output_0": softmax(np.array(rows) @ kernel + bias).astype(np.float32)}, [
        ("describe", {"text": np.array([t.encode() for t in texts])}, {"summary": np.array(summaries)}),
        ("parse", {"numbers": numbers}, {"values": np.array([1.5, -2, 1000, np.inf], np.float32)})]


def gru_step(x, h, kernel, recurrent, bias):
    """One GRU step (gates z, r, candidate; the reset gate before the
    recurrent product), float64."""
    units = h.shape[1]
    xz, xr, xh = np.split(x @ kernel + bias, 3, axis=1)
    uz, ur, uh = recurrent[:, :units], recurrent[:, units:2 * units], recurrent[:, 2 * units:]
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    z, r = sigmoid(xz + h @ uz), sigmoid(xr + h @ ur)
    candidate = np.tanh(xh + (r * h) @ uh)
    return z * h + (1 - z) * candidate


def binary(name, op, a, b, t=F):
    return Node(name, op, [a, b], {"T": t})


def gru_stateful(rng):
    """A TF2 GRU that keeps its state in a variable between calls."""
    inputs, units = 3, 4
    sm = SavedModel(tf2=True)
    kernel = rng.standard_normal((inputs, 3 * units)).astype(np.float32) * 0.5
    recurrent = rng.standard_normal((units, 3 * units)).astype(np.float32) * 0.5
    bias = rng.standard_normal(3 * units).astype(np.float32) * 0.1
    state = rng.standard_normal((1, units)).astype(np.float32)
    for name, value, key in (("gru/kernel", kernel, "layer_with_weights-0/cell/kernel"),
                             ("gru/recurrent_kernel", recurrent, "layer_with_weights-0/cell/recurrent_kernel"),
                             ("gru/bias", bias, "layer_with_weights-0/cell/bias"),
                             ("gru/state", state, "layer_with_weights-0/states/0")):
        sm.variable(name, value, key + "/.ATTRIBUTES/VARIABLE_VALUE")
    body = [
        Node("h", "ReadVariableOp", ["state"], {"dtype": F}),
        Node("k", "ReadVariableOp", ["kernel"], {"dtype": F}), Node("u", "ReadVariableOp", ["recurrent"], {"dtype": F}),
        Node("b", "ReadVariableOp", ["bias"], {"dtype": F}),
        Node("xk", "MatMul", ["x", "k:value:0"], {"T": F, "transpose_a": False, "transpose_b": False}),
        Node("xb", "BiasAdd", ["xk:product:0", "b:value:0"], {"T": F, "data_format": "NHWC"}),
        const("one", np.array(1, np.int32), I32),
        Node("xs", "Split", ["one:output:0", "xb:output:0"], {"T": F, "num_split": 3}),
        Node("us", "Split", ["one:output:0", "u:value:0"], {"T": F, "num_split": 3}),
        Node("hz", "MatMul", ["h:value:0", "us:output:0"], {"T": F, "transpose_a": False, "transpose_b": False}),
        Node("hr", "MatMul", ["h:value:0", "us:output:1"], {"T": F, "transpose_a": False, "transpose_b": False}),
        binary("z_in", "AddV2", "xs:output:0", "hz:product:0"), binary("r_in", "AddV2", "xs:output:1", "hr:product:0"),
        Node("z", "Sigmoid", ["z_in:z:0"], {"T": F}), Node("r", "Sigmoid", ["r_in:z:0"], {"T": F}),
        binary("rh", "Mul", "r:y:0", "h:value:0"),
        Node("hh", "MatMul", ["rh:z:0", "us:output:2"], {"T": F, "transpose_a": False, "transpose_b": False}),
        binary("c_in", "AddV2", "xs:output:2", "hh:product:0"), Node("c", "Tanh", ["c_in:z:0"], {"T": F}),
        const("ones", np.array(1, np.float32), F), binary("keep", "Sub", "ones:output:0", "z:y:0"),
        binary("old", "Mul", "z:y:0", "h:value:0"), binary("fresh", "Mul", "keep:z:0", "c:y:0"),
        binary("new", "AddV2", "old:z:0", "fresh:z:0"),
        Node("assign", "AssignVariableOp", ["state", "new:z:0"], {"dtype": F}),
        Node("Identity", "Identity", ["new:z:0", "^assign"], {"T": F}),
    ]
    args = [Arg("x", F), Arg("state", RES), Arg("kernel", RES), Arg("recurrent", RES), Arg("bias", RES)]
    sm.functions.append(Function("__inference_signature_wrapper_40", args, [Arg("output_0", F)], body,
                                 {"output_0": "Identity:output:0"}, {"assign": "assign"}))
    sm.functions.append(Function("__inference_set_state_50", [Arg("h", F), Arg("state", RES)], [],
                                 [Node("assign", "AssignVariableOp", ["state", "h"], {"dtype": F})], {},
                                 {"assign": "assign"}))
    sm.nodes += [
        Node("serving_default_x", "Placeholder", [], {"dtype": F, "shape": Shape([1, inputs])}),
        Node("StatefulPartitionedCall", "StatefulPartitionedCall",
             ["serving_default_x", "gru/state", "gru/kernel", "gru/recurrent_kernel", "gru/bias"],
             {"f": Func("__inference_signature_wrapper_40"), "Tin": [F, RES, RES, RES, RES], "Tout": [F]}),
        Node("set_state_h", "Placeholder", [], {"dtype": F, "shape": Shape([1, units])}),
        Node("StatefulPartitionedCall_3", "StatefulPartitionedCall", ["set_state_h", "gru/state"],
             {"f": Func("__inference_set_state_50"), "Tin": [F, RES], "Tout": []}),
    ]
    sm.signature("serving_default", {"x": ("serving_default_x:0", F, [1, inputs])},
                 {"output_0": ("StatefulPartitionedCall:0", F, [1, units])})
    sm.signature("set_state", {"h": ("set_state_h:0", F, [1, units])}, {})
    x = rng.standard_normal((1, inputs)).astype(np.float32)
    w = [a.astype(np.float64) for a in (kernel, recurrent, bias)]
    h1 = gru_step(x.astype(np.float64), state.astype(np.float64), *w)
    h2 = gru_step(x.astype(np.float64), h1, *w)
    zero_step = gru_step(x.astype(np.float64), np.zeros((1, units)), *w)
    return sm, {"x": x}, {"output_0": h1.astype(np.float32)}, [], {
        "x": x, "h1": h1.astype(np.float32), "h2": h2.astype(np.float32), "from_zero": zero_step.astype(np.float32),
        "zero": np.zeros((1, units), np.float32)}


def policy(rng):
    """A TF-Agents-style Q policy: action, get_initial_state, get_train_step."""
    features, actions = 4, 3
    sm = SavedModel(tf2=True)
    w = rng.standard_normal((features, actions)).astype(np.float32)
    b = rng.standard_normal(actions).astype(np.float32)
    sm.variable("QNetwork/dense/kernel", w, "policy/_q_network/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    sm.variable("QNetwork/dense/bias", b, "policy/_q_network/dense/bias/.ATTRIBUTES/VARIABLE_VALUE")
    sm.variable("train_step", np.array(1234, np.int64), "train_step/.ATTRIBUTES/VARIABLE_VALUE")
    action = [
        Node("kernel", "ReadVariableOp", ["q_kernel"], {"dtype": F}),
        Node("bias", "ReadVariableOp", ["q_bias"], {"dtype": F}),
        Node("q", "MatMul", ["observation", "kernel:value:0"], {"T": F, "transpose_a": False, "transpose_b": False}),
        Node("q_values", "BiasAdd", ["q:product:0", "bias:value:0"], {"T": F, "data_format": "NHWC"}),
        const("axis", np.array(1, np.int32), I32),
        Node("argmax", "ArgMax", ["q_values:output:0", "axis:output:0"], {"T": F, "Tidx": I32, "output_type": I64}),
        Node("outer", "Shape", ["step_type"], {"T": I32, "out_type": I32}),
        Node("inner", "Shape", ["argmax:output:0"], {"T": I64, "out_type": I32}),
        Node("batch", "BroadcastArgs", ["outer:output:0", "inner:output:0"], {"T": I32}),
        Node("action", "BroadcastTo", ["argmax:output:0", "batch:r0:0"], {"T": I64, "Tidx": I32}),
        Node("Identity", "Identity", ["action:output:0"], {"T": I64}),
    ]
    args = [Arg("step_type", I32), Arg("reward", F), Arg("discount", F), Arg("observation", F), Arg("q_kernel", RES),
            Arg("q_bias", RES)]
    sm.functions.append(Function("__inference_action_60", args, [Arg("action", I64)], action,
                                 {"action": "Identity:output:0"}))
    sm.functions.append(Function("__inference_get_initial_state_70", [Arg("batch_size", I32)], [], [], {}))
    sm.functions.append(Function("__inference_get_train_step_80", [Arg("step", RES)], [Arg("int64", I64)],
                                 [Node("read", "ReadVariableOp", ["step"], {"dtype": I64}),
                                  Node("Identity", "Identity", ["read:value:0"], {"T": I64})],
                                 {"int64": "Identity:output:0"}))
    inputs = ["0/step_type", "0/reward", "0/discount", "0/observation"]
    placeholders = ["action_0_step_type", "action_0_reward", "action_0_discount", "action_0_observation"]
    shapes = [[-1], [-1], [-1], [-1, features]]
    types = [I32, F, F, F]
    sm.nodes += [Node(p, "Placeholder", [], {"dtype": t, "shape": Shape(sh)})
                 for p, t, sh in zip(placeholders, types, shapes)]
    sm.nodes += [
        Node("StatefulPartitionedCall", "StatefulPartitionedCall",
             placeholders + ["QNetwork/dense/kernel", "QNetwork/dense/bias"],
             {"f": Func("__inference_action_60"), "Tin": types + [RES, RES], "Tout": [I64]}),
        Node("get_initial_state_batch_size", "Placeholder", [], {"dtype": I32, "shape": Shape([])}),
        Node("PartitionedCall", "PartitionedCall", ["get_initial_state_batch_size"],
             {"f": Func("__inference_get_initial_state_70"), "Tin": [I32], "Tout": []}),
        Node("StatefulPartitionedCall_1", "StatefulPartitionedCall", ["train_step"],
             {"f": Func("__inference_get_train_step_80"), "Tin": [RES], "Tout": [I64]}),
    ]
    sm.signature("action", {k: (p + ":0", t, sh) for k, p, t, sh in zip(inputs, placeholders, types, shapes)},
                 {"action": ("StatefulPartitionedCall:0", I64, [-1])})
    sm.signature("get_initial_state", {"batch_size": ("get_initial_state_batch_size:0", I32, [])}, {})
    sm.signature("get_train_step", {}, {"int64": ("StatefulPartitionedCall_1:0", I64, [])})
    obs = rng.standard_normal((5, features)).astype(np.float32)
    feeds = {"0/step_type": np.array([0, 1, 1, 2, 1], np.int32), "0/reward": np.zeros(5, np.float32),
             "0/discount": np.ones(5, np.float32), "0/observation": obs}
    return sm, None, None, [
        ("action", feeds, {"action": (obs.astype(np.float64) @ w + b).argmax(axis=1).astype(np.int64)}),
        ("get_train_step", {}, {"int64": np.array(1234, np.int64)})]


MODELS = {"estimator_linear": estimator_linear, "estimator_text": estimator_text, "keras_text": keras_text,
          "gru_stateful": gru_stateful, "policy": policy}


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(30)
    lines = []

    def case(name, model, signature, feeds, wants):
        flags = ["--graph=" + os.path.join(out, model)] + (["--signature_def=" + signature] if signature else [])
        pairs = []
        for k, v in feeds.items():
            path = os.path.join(out, "%s.%s.npy" % (name, k.replace("/", "_")))
            np.save(path, v)
            flags.append("--input=%s=%s" % (k, path))
        for k, v in wants.items():
            tag = k.replace("/", "_").replace(":", "_")
            want, got = (os.path.join(out, "%s.%s_%s.npy" % (name, w, tag)) for w in ("want", "got"))
            np.save(want, v)
            flags.append("--output=%s=%s" % (k, got))
            pairs.append("want=%s:got=%s" % (want, got))
        lines.append("\t".join([name] + flags + pairs))

    for name, build in MODELS.items():
        sm, feeds, wants, *more = build(rng)
        sm.write(os.path.join(out, name))
        if feeds is not None:
            case(name, name, None, feeds, wants)
        for signature, more_feeds, more_wants in (more[0] if more else []):
            case("%s_%s" % (name, signature), name, signature, more_feeds, more_wants)
        for key, value in (more[1] if len(more) > 1 else {}).items():  # arrays the other tests use
            np.save(os.path.join(out, "%s.%s.npy" % (name, key)), value)
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(len(lines))


if __name__ == "__main__":
    main(sys.argv[1])
