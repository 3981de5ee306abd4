"""tflite_builtins.py DIR - one-operator .tflite models of the builtins the
reader maps onto TensorFlow ops (src/model/tflite_float_ops.c), with their
inputs and the outputs TFLite's kernels define, computed here in numpy
apart from the C code. For each case NAME it writes DIR/NAME.tflite,
DIR/NAME.in.<tensor>.npy for each input and DIR/NAME.want.<tensor>.npy for
each output, and prints the case names. Quantized cases hold TFLite's rule
for codes (the operator moves them: the same codes in and out); hybrid
EMBEDDING_LOOKUP multiplies each int8 code by its row's scale and ignores
the zero point, as TFLite's EvalHybrid does; REDUCE_MIN on int8 keeps
the smallest code (its input and output quantized alike)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_writer as tw  # noqa: E402

BOOL = 6
EMBEDDING_LOOKUP, SHAPE, RANK, BROADCAST_TO, MIRROR_PAD, SELECT_V2 = 7, 77, 110, 130, 100, 123
BATCH_TO_SPACE_ND, CUMSUM, REDUCE_ALL, ONE_HOT, REVERSE_SEQUENCE, BROADCAST_ARGS = 37, 128, 140, 85, 112, 145
RELU_0_TO_1 = 152
ADD, DEQUANTIZE = 0, 6
# BuiltinOptions union tags
CUMSUM_OPTIONS, REDUCER_OPTIONS, ONE_HOT_OPTIONS, REVERSE_SEQUENCE_OPTIONS, MIRROR_PAD_OPTIONS = 102, 27, 61, 87, 77

rng = np.random.default_rng(2028)
TYPES = dict(tw.NP_TYPES)
TYPES[np.dtype(bool)] = BOOL
TYPES[np.dtype(np.float16)] = 1  # FLOAT16


class Case:
    """One operator: inputs fed (name -> array), constants, outputs wanted."""

    def __init__(self, name):
        self.name, self.m, self.feeds, self.wants = name, tw.Model(), {}, {}

    def input(self, name, array, quant=None):
        t = self.m.tensor(name, array.shape, TYPES[array.dtype], quant=quant)
        self.m.inputs.append(t)
        self.feeds[name] = array
        return t

    def const(self, name, array, quant=None):
        return self.m.tensor(name, array.shape, TYPES[array.dtype], data=array, quant=quant)

    def output(self, name, want, quant=None):
        t = self.m.tensor(name, want.shape, TYPES[want.dtype], quant=quant)
        self.m.outputs.append(t)
        self.wants[name] = want
        return t

    def write(self, d):
        self.m.write(os.path.join(d, self.name + ".tflite"))
        for kind, arrays in (("in", self.feeds), ("want", self.wants)):
            for name, array in arrays.items():
                np.save(os.path.join(d, "%s.%s.%s.npy" % (self.name, kind, name)), array)
        return self.name


def embedding_cases():
    ids = np.array([3, 0, 3, 5, 1], np.int32)
    table = rng.standard_normal((6, 4)).astype(np.float32)
    c = Case("embedding_lookup_float")
    c.m.op(EMBEDDING_LOOKUP, [c.input("ids", ids), c.const("table", table)], [c.output("y", table[ids])])
    yield c
    # a rank-3 table: each id picks a [2, 3] slice
    table3 = rng.standard_normal((4, 2, 3)).astype(np.float32)
    c = Case("embedding_lookup_rank3")
    ids3 = np.array([2, 2, 0], np.int32)
    c.m.op(EMBEDDING_LOOKUP, [c.input("ids", ids3), c.const("table", table3)], [c.output("y", table3[ids3])])
    yield c
    # int8 table, int8 output: the codes copied
    codes = rng.integers(-128, 128, (6, 4)).astype(np.int8)
    q = ([0.05], [3], 0)
    c = Case("embedding_lookup_int8")
    c.m.op(EMBEDDING_LOOKUP, [c.input("ids", ids), c.const("table", codes, q)], [c.output("y", codes[ids], q)])
    yield c
    # hybrid, one scale: code x scale, the zero point (7) ignored as TFLite's EvalHybrid does
    scale = np.float32(0.037)
    c = Case("embedding_lookup_hybrid")
    want = (codes[ids].astype(np.float64) * np.float64(scale)).astype(np.float32)
    c.m.op(EMBEDDING_LOOKUP, [c.input("ids", ids), c.const("table", codes, ([scale], [7], 0))], [c.output("y", want)])
    yield c
    # hybrid, one scale per row
    scales = (rng.uniform(0.01, 0.1, 6)).astype(np.float32)
    c = Case("embedding_lookup_hybrid_per_row")
    want = (codes[ids].astype(np.float64) * scales[ids, None].astype(np.float64)).astype(np.float32)
    c.m.op(EMBEDDING_LOOKUP, [c.input("ids", ids), c.const("table", codes, (scales, [0] * 6, 0))],
           [c.output("y", want)])
    yield c


def quantized_moves():
    q = ([0.25], [-5], 0)
    x = rng.integers(-128, 128, (2, 1, 3)).astype(np.int8)
    c = Case("broadcast_to_int8")
    c.m.op(BROADCAST_TO, [c.input("x", x, q), c.const("shape", np.array([2, 4, 3], np.int32))],
           [c.output("y", np.broadcast_to(x, (2, 4, 3)).copy(), q)])
    yield c
    u = rng.integers(0, 256, (1, 3, 4, 2)).astype(np.uint8)
    qu = ([0.1], [128], 0)
    pads = np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32)
    for mode, numpy_mode in ((0, "reflect"), (1, "symmetric")):
        c = Case("mirror_pad_uint8_" + numpy_mode)
        c.m.op(MIRROR_PAD, [c.input("x", u, qu), c.const("paddings", pads)],
               [c.output("y", np.pad(u, pads, mode=numpy_mode), qu)], MIRROR_PAD_OPTIONS, {0: ("b", mode)})
        yield c
    cond = rng.integers(0, 2, (2, 1, 3)).astype(bool)
    a = rng.integers(-128, 128, (2, 4, 3)).astype(np.int8)
    b = rng.integers(-128, 128, (2, 4, 3)).astype(np.int8)
    c = Case("select_v2_int8")
    c.m.op(SELECT_V2, [c.input("cond", cond), c.input("a", a, q), c.input("b", b, q)],
           [c.output("y", np.where(cond, a, b), q)])
    yield c
    v = rng.integers(-128, 128, (4, 2, 2, 1)).astype(np.int8)
    c = Case("batch_to_space_nd_int8")  # blocks [2, 2], crop one row at the end
    want = v.reshape(2, 2, 1, 2, 2, 1).transpose(2, 3, 0, 4, 1, 5).reshape(1, 4, 4, 1)[:, :3]
    c.m.op(BATCH_TO_SPACE_ND, [c.input("x", v, q), c.const("block", np.array([2, 2], np.int32)),
                               c.const("crops", np.array([[0, 1], [0, 0]], np.int32))], [c.output("y", want, q)])
    yield c
    codes = rng.integers(-128, 128, (2, 3, 4)).astype(np.int8)
    for keep in (0, 1):  # REDUCE_MIN (89): the smallest code, input and output quantized alike
        c = Case("reduce_min_int8" + ("_keep_dims" if keep else ""))
        c.m.op(89, [c.input("x", codes, q), c.const("axis", np.array([2, -3], np.int32))],
               [c.output("y", codes.min(axis=(0, 2), keepdims=bool(keep)), q)], 27, {0: ("bool", keep)})
        yield c
    # comparisons of tensors quantized alike: TFLite rescales both sides to 128 x (code - zero point)
    a = rng.integers(-128, 128, (3, 4)).astype(np.int8)
    b = np.where(rng.integers(0, 2, (3, 4)) > 0, a, rng.integers(-128, 128, (3, 4))).astype(np.int8)
    for code, name, fn in ((58, "less", np.less), (63, "less_equal", np.less_equal), (71, "equal", np.equal),
                           (62, "greater_equal", np.greater_equal)):
        c = Case(name + "_int8")
        c.m.op(code, [c.input("a", a, q), c.input("b", b, q)], [c.output("y", fn(a, b))])
        yield c
    ua, ub = a.view(np.uint8), b.view(np.uint8)
    c = Case("not_equal_uint8")
    c.m.op(72, [c.input("a", ua, ([0.1], [128], 0)), c.input("b", ub, ([0.1], [128], 0))],
           [c.output("y", ua != ub)])
    yield c
    c = Case("shape_rank_int8")
    x = c.input("x", v, q)
    c.m.op(SHAPE, [x], [c.output("shape", np.array(v.shape, np.int32))])
    c.m.op(RANK, [x], [c.output("rank", np.array(v.ndim, np.int32))])
    yield c


def tf_like():
    x = rng.standard_normal((3, 5)).astype(np.float32)
    # float16 weights (as the converter's float16 quantization writes them): DEQUANTIZE to float, then ADD
    halves = np.array([[0, 1, -2.5, 65504, -65504], [6e-8, np.inf, -np.inf, 0.1, 1 / 3],
                       [1e-4, -7.25, 3e4, 2 ** -24, -0.0]], np.float16)
    c = Case("dequantize_float16_weights_add")
    w = c.m.tensor("w_float", halves.shape)
    c.m.op(DEQUANTIZE, [c.const("w_half", halves)], [w])
    c.m.op(ADD, [c.input("x", x), w], [c.output("y", x + halves.astype(np.float32))])
    yield c
    for exclusive in (0, 1):
        for reverse in (0, 1):
            c = Case("cumsum_%s%s" % ("exclusive" if exclusive else "inclusive", "_reverse" if reverse else ""))
            v = x[:, ::-1] if reverse else x
            s = np.cumsum(v.astype(np.float64), axis=1)
            if exclusive:
                s = np.concatenate([np.zeros((3, 1)), s[:, :-1]], axis=1)
            want = (s[:, ::-1] if reverse else s).astype(np.float32)
            c.m.op(CUMSUM, [c.input("x", x), c.const("axis", np.array(1, np.int32))], [c.output("y", want)],
                   CUMSUM_OPTIONS, {0: ("bool", exclusive), 1: ("bool", reverse)})
            yield c
    xi = rng.integers(-50, 50, (4, 3)).astype(np.int32)
    c = Case("cumsum_int32_axis0")
    c.m.op(CUMSUM, [c.input("x", xi), c.const("axis", np.array(0, np.int32))], [c.output("y", np.cumsum(xi, 0).astype(np.int32))])
    yield c
    flags = rng.integers(0, 4, (3, 4)) > 0
    for keep in (0, 1):
        c = Case("reduce_all" + ("_keep_dims" if keep else ""))
        c.m.op(REDUCE_ALL, [c.input("x", flags), c.const("axis", np.array([1], np.int32))],
               [c.output("y", np.all(flags, axis=1, keepdims=bool(keep)))], REDUCER_OPTIONS, {0: ("bool", keep)})
        yield c
    idx = np.array([[0, 3], [2, -1], [4, 1]], np.int32)  # -1 and 4 lie outside depth 4: all off
    for axis in (-1, 0):
        eye = (idx[..., None] == np.arange(4)).astype(np.float32)
        want = np.where(eye > 0, 2.5, -1.0).astype(np.float32)
        if axis == 0:
            want = np.moveaxis(want, -1, 0)
        c = Case("one_hot_axis%d" % axis)
        c.m.op(ONE_HOT, [c.input("indices", idx), c.const("depth", np.array(4, np.int32)),
                         c.const("on", np.array(2.5, np.float32)), c.const("off", np.array(-1.0, np.float32))],
               [c.output("y", np.ascontiguousarray(want))], ONE_HOT_OPTIONS, {0: ("i", axis)})
        yield c
    seq = rng.standard_normal((3, 5, 2)).astype(np.float32)
    lengths = np.array([5, 0, 3], np.int32)
    want = seq.copy()
    for b, n in enumerate(lengths):
        want[b, :n] = seq[b, :n][::-1]
    c = Case("reverse_sequence")
    c.m.op(REVERSE_SEQUENCE, [c.input("x", seq), c.const("lengths", lengths)], [c.output("y", want)],
           REVERSE_SEQUENCE_OPTIONS, {0: ("i", 1), 1: ("i", 0)})
    yield c
    c = Case("broadcast_args")
    s0, s1 = np.array([2, 1, 3], np.int32), np.array([4, 1], np.int32)
    c.m.op(BROADCAST_ARGS, [c.input("s0", s0), c.input("s1", s1)],
           [c.output("y", np.array(np.broadcast_shapes((2, 1, 3), (4, 1)), np.int32))])
    yield c
    r = (rng.standard_normal((2, 7)) * 1.5).astype(np.float32)
    r[0, :3] = [0.0, 1.0, -0.0]
    c = Case("relu_0_to_1")
    c.m.op(RELU_0_TO_1, [c.input("x", r)], [c.output("y", np.minimum(np.maximum(r, 0), 1).astype(np.float32))])
    yield c


MATRIX_DIAG, MATRIX_SET_DIAG = 113, 115


def matrix_diag_cases():
    """MATRIX_DIAG: each last-axis row on a matrix's diagonal, zeros (the
    code 0, as TFLite writes, not the zero point) elsewhere; MATRIX_SET_DIAG:
    the input with its matrices' main diagonals replaced."""
    x = rng.standard_normal((2, 3)).astype(np.float32)
    c = Case("matrix_diag_float")
    c.m.op(MATRIX_DIAG, [c.input("x", x)], [c.output("y", np.stack([np.diag(r) for r in x]).astype(np.float32))])
    yield c
    q = ([0.5], [-5], 0)
    codes = rng.integers(-128, 128, (4,)).astype(np.int8)
    c = Case("matrix_diag_int8")
    c.m.op(MATRIX_DIAG, [c.input("x", codes, q)], [c.output("y", np.diag(codes).astype(np.int8), q)])
    yield c
    for name, shape in (("wide", (2, 3, 4)), ("tall", (1, 4, 2))):
        a = rng.standard_normal(shape).astype(np.float32)
        d = rng.standard_normal(shape[:-2] + (min(shape[-2:]),)).astype(np.float32)
        want = a.copy()
        for b in range(shape[0]):
            for i in range(min(shape[-2:])):
                want[b, i, i] = d[b, i]
        c = Case("matrix_set_diag_" + name)
        c.m.op(MATRIX_SET_DIAG, [c.input("x", a), c.input("diagonal", d)], [c.output("y", want)])
        yield c
    u = rng.integers(0, 256, (3, 3)).astype(np.uint8)
    du = rng.integers(0, 256, (3,)).astype(np.uint8)
    want = u.copy()
    want[np.arange(3), np.arange(3)] = du
    qu = ([0.1], [128], 0)
    c = Case("matrix_set_diag_uint8")
    c.m.op(MATRIX_SET_DIAG, [c.input("x", u, qu), c.input("diagonal", du, qu)], [c.output("y", want, qu)])
    yield c


STRING = 5
HASHTABLE, HASHTABLE_FIND, HASHTABLE_IMPORT, HASHTABLE_SIZE, CALL_ONCE = 136, 137, 138, 139, 129
HASHTABLE_OPTIONS, CALL_ONCE_OPTIONS = 107, 103


def tflite_strings(items):
    """TFLite's string buffer: count, count + 1 offsets from the start, the bytes."""
    items = [i.encode() if isinstance(i, str) else i for i in items]
    offsets, at = [], 4 * (len(items) + 2)
    for i in items:
        offsets.append(at)
        at += len(i)
    offsets.append(at)
    return np.array([len(items)] + offsets, "<i4").tobytes() + b"".join(items)


def table(m, table_id, key_type, value_type):
    handle = m.tensor("handle_%d" % table_id, [1], 13)  # RESOURCE
    m.op(HASHTABLE, [], [handle], HASHTABLE_OPTIONS,
         {0: ("i", table_id), 1: ("b", key_type), 2: ("b", value_type)})
    return handle


def hashtable_cases():
    """A vocabulary filled by the init subgraph CALL_ONCE runs ("cat" given
    twice: TFLite keeps its first value), looked up and counted in the main
    one; and an int64 -> string table filled and read in one subgraph."""
    c = Case("hashtable_vocabulary")
    m = c.m
    words = np.array([b"cat", b"dog", b"the", b""], "S3")
    w = m.tensor("words", [4], STRING)
    m.inputs.append(w)
    c.feeds["words"] = words
    m.op(CALL_ONCE, [], [], CALL_ONCE_OPTIONS, {0: ("i", 1)})
    handle = table(m, 7, STRING, tw.INT64)
    default = c.const("default", np.array(-1, np.int64))
    ids = c.output("ids", np.array([20, -1, 10, -1], np.int64))
    m.op(HASHTABLE_FIND, [handle, w, default], [ids])
    m.op(HASHTABLE_SIZE, [handle], [c.output("size", np.array([3], np.int64))])
    m.new_subgraph()
    init_handle = table(m, 7, STRING, tw.INT64)
    keys = m.tensor("keys", [4], STRING, data=tflite_strings(["the", "cat", "sat", "cat"]))
    values = m.const("values", np.array([10, 20, 30, 40], np.int64))
    m.op(HASHTABLE_IMPORT, [init_handle, keys, values], [])
    m.use_subgraph(0)
    yield c
    c = Case("hashtable_int64_to_string")
    m = c.m
    numbers = c.input("numbers", np.array([[3, 2], [1, 3]], np.int64))
    handle = table(m, 2, tw.INT64, STRING)
    keys = m.const("keys", np.array([3, 1, 3], np.int64))
    values = m.tensor("values", [3], STRING, data=tflite_strings(["three", "one", "THREE"]))
    m.op(HASHTABLE_IMPORT, [handle, keys, values], [])
    default = m.tensor("default", [], STRING, data=tflite_strings(["?"]))
    names = m.tensor("names", [2, 2], STRING)
    m.outputs.append(names)
    c.wants["names"] = np.array([[b"three", b"?"], [b"one", b"three"]], "S5")
    m.op(HASHTABLE_FIND, [handle, numbers, default], [names])
    yield c


def main(d):
    os.makedirs(d, exist_ok=True)
    for group in (embedding_cases, quantized_moves, tf_like, matrix_diag_cases, hashtable_cases):
        for case in group():
            print(case.write(d))


if __name__ == "__main__":
    main(sys.argv[1])
