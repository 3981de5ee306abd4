"""tflite_ops_reference.py - graphs of TensorFlow Lite operator nodes (as the
.tflite reader writes them: src/compute/tflite_node.h) on uint8, int8 and
float tensors, with the outputs TFLite's reference kernels define, worked
out in numpy from the rules (tflite_int_rules.py and each op's rule below,
written from tflite-micro's reference kernels and their Prepare code, not
from tfpi's C code). Inputs cover every code, ties of the roundings,
negative values, tiny and large multipliers and saturation.

    python3 tests/cli/tflite_ops_reference.py OUT_DIR

writes, for each op family F, OUT_DIR/F.pb, the feeds OUT_DIR/F.<input>.npy,
the expected outputs OUT_DIR/F.<node>.want.npy, OUT_DIR/F.args (the
run_graph flags, one a line: --input=... and --output=...) and
OUT_DIR/F.tolerance (relative and absolute, for float outputs), and prints
the family names."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import DType, Node, dtype_number, encode_graph  # noqa: E402

import tflite_int_rules as R  # noqa: E402

F32 = np.float32
CODES = {np.uint8: (0, 255), np.int8: (-128, 127)}


class Family:
    """One graph: cases, each a node fed by Placeholders (data) and Consts
    (parameters), its expected output(s) in numpy."""

    def __init__(self, name, float_tolerance=(1e-6, 1e-30)):
        """float_tolerance: (relative, absolute) for float outputs."""
        self.name, self.nodes, self.feeds, self.wants = name, [], {}, {}
        self.float_tolerance = float_tolerance

    def placeholder(self, name, array):
        number = 19 if array.dtype == np.float16 else dtype_number(array.dtype)
        self.nodes.append(Node(name, "Placeholder", [], {"dtype": DType(number)}))
        self.feeds[name] = array
        return name

    def const(self, name, array):
        self.nodes.append(Node(name, "Const", [], {"dtype": DType(dtype_number(array.dtype)), "value": array}))
        return name

    def node(self, name, op, inputs, attrs, wants):
        """wants: one expected array per output (output j fetched as name:j)."""
        self.nodes.append(Node(name, op, inputs, attrs))
        for j, want in enumerate(wants):
            self.wants[f"{name}:{j}"] = want

    def write(self, out_dir):
        with open(os.path.join(out_dir, self.name + ".pb"), "wb") as f:
            f.write(encode_graph(self.nodes))
        args = []
        for name, array in self.feeds.items():
            path = os.path.join(out_dir, f"{self.name}.{name}.npy")
            np.save(path, array)
            args.append(f"--input={name}={path}")
        for fetch, want in self.wants.items():
            stem = os.path.join(out_dir, f"{self.name}.{fetch.replace(':', '_')}")
            np.save(stem + ".want.npy", want)
            args.append(f"--output={fetch}={stem}.got.npy")
        with open(os.path.join(out_dir, self.name + ".args"), "w") as f:
            f.write("\n".join(args) + "\n")
        with open(os.path.join(out_dir, self.name + ".tolerance"), "w") as f:
            f.write("%g %g\n" % self.float_tolerance)


def quant_attrs(role, i, scale, zero_point):
    return {f"q_{role}{i}_scale": [float(F32(scale))], f"q_{role}{i}_zero_point": [int(zero_point)],
            f"q_{role}{i}_dim": 0}


def codes(rng, dtype, shape):
    lo, hi = CODES[dtype]
    return rng.integers(lo, hi + 1, size=shape).astype(dtype)


def every_code(dtype):
    lo, hi = CODES[dtype]
    return np.arange(lo, hi + 1).astype(dtype)


def to_dtype(values, dtype):
    return np.asarray(values).astype(np.int64).astype(dtype)


# ---- ADD, SUB, MUL, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM -----------------------

def below_one(m):
    assert 0 < m < 1, m
    return R.quantize_multiplier(m)


def ref_arith(op, x, y, qx, qy, qo, act, dtype):
    """The reference rules (tflite-micro add.h, sub.h, mul.h,
    squared_difference.cc, maximum_minimum.h) on codes x, y."""
    x, y = np.broadcast_arrays(R.a64(x), R.a64(y))
    (sx, zx), (sy, zy), (so, zo) = qx, qy, qo
    sx, sy, so = float(F32(sx)), float(F32(sy)), float(F32(so))
    if op in ("MAXIMUM", "MINIMUM"):
        return to_dtype(np.maximum(x, y) if op == "MAXIMUM" else np.minimum(x, y), dtype)
    if op == "MUL":
        raw = R.mbqm((x - zx) * (y - zy), *R.quantize_multiplier(sx * sy / so)) + zo
    else:
        left = 7 if op == "SQUARED_DIFFERENCE" else 20
        twice_max = 2.0 * max(sx, sy)
        a = R.mbqm((x - zx) << left, *below_one(sx / twice_max))
        b = R.mbqm((y - zy) << left, *below_one(sy / twice_max))
        if op == "ADD":
            raw = R.mbqm(a + b, *below_one(twice_max / ((1 << left) * so))) + zo
        elif op == "SUB":
            raw = R.mbqm(a - b, *below_one(twice_max / ((1 << left) * so))) + zo
        else:
            m = twice_max * twice_max / float(F32(1 << (2 * left)) * F32(so))
            raw = R.mbqm((a - b) * (a - b), *R.quantize_multiplier(m)) + zo
    lo, hi = R.activation_range(act, so, zo, *CODES[dtype])
    return to_dtype(np.clip(raw, lo, hi), dtype)


def arith(rng):
    fam = Family("arith")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        mid = (lo + hi + 1) // 2
        # (x scale, zp), (y scale, zp), (out scale, zp), activation: equal
        # scales (multipliers of exactly 1/2: ties), unequal, tiny and
        # large ratios, outputs that saturate
        quants = [((0.5, mid), (0.5, mid), (1.0, mid), "NONE"),
                  ((0.0235, lo + 3), (0.5, mid - 7), (0.27, mid + 5), "NONE"),
                  ((0.007843, mid), (0.0039215, lo), (0.0117647, lo + 10), "RELU6"),
                  ((1.0, hi - 4), (1e-4, mid), (0.9, mid), "RELU"),
                  ((0.1, mid), (0.1, mid), (0.004, mid), "RELU_N1_TO_1"),
                  ((3.0, lo), (0.75, hi), (0.05, mid), "NONE")]
        for op in ("ADD", "SUB", "MUL", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM"):
            for qx, qy, qo, act in quants:
                if op == "SQUARED_DIFFERENCE":
                    act = "NONE"
                # every pair of codes, then broadcast shapes; ADD and SUB
                # also every pair in inputs of one shape (SIMD paths)
                shapes = [((256, 1), (1, 256)), ((2, 3, 4, 5), (5,)), ((3, 1, 7), (1, 4, 1))]
                if op in ("ADD", "SUB"):
                    shapes.append(((256, 256), (256, 256)))
                for sx, sy in shapes:
                    x = every_code(dtype).reshape(sx) if sx == (256, 1) else codes(rng, dtype, sx)
                    y = every_code(dtype).reshape(sy) if sy == (1, 256) else codes(rng, dtype, sy)
                    if sx == sy == (256, 256):
                        x, y = np.broadcast_arrays(every_code(dtype).reshape(256, 1), every_code(dtype).reshape(1, 256))
                        x, y = x.copy(), y.copy()
                    want = ref_arith(op, x, y, qx, qy, qo, act, dtype)
                    name = f"c{n}"
                    n += 1
                    attrs = {"T": DType(dtype_number(dtype)), "fused_activation_function": act}
                    attrs.update(quant_attrs("in", 0, *qx))
                    attrs.update(quant_attrs("in", 1, *qy))
                    attrs.update(quant_attrs("out", 0, *qo))
                    fam.node(name, op, [fam.placeholder(name + "_x", x), fam.placeholder(name + "_y", y)], attrs,
                             [want])
    # float with a fused activation
    x = rng.uniform(-8, 8, (4, 6)).astype(F32)
    y = rng.uniform(-8, 8, (6,)).astype(F32)
    for op, f in (("ADD", np.add), ("SUB", np.subtract), ("MUL", np.multiply)):
        for act, (lo, hi) in (("NONE", (-np.inf, np.inf)), ("RELU6", (0, 6)), ("RELU_N1_TO_1", (-1, 1))):
            name = f"c{n}"
            n += 1
            fam.node(name, op, [fam.placeholder(name + "_x", x), fam.placeholder(name + "_y", y)],
                     {"T": DType(1), "fused_activation_function": act}, [np.clip(f(x, y), lo, hi).astype(F32)])
    return fam


# ---- QUANTIZE, DEQUANTIZE ------------------------------------------------------

def round_away(v):
    """TfLiteRound of float32 values: half away from zero (exact in float64)."""
    v = np.asarray(v, dtype=np.float64)
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def ref_quantize_float(x, scale, zp, dtype):
    with np.errstate(all="ignore"):
        v = round_away(x.astype(F32) / F32(scale))
    lo, hi = CODES[dtype]
    v = np.where(np.isnan(v), zp, np.clip(v, -4e9, 4e9) + zp)
    return to_dtype(np.clip(v, lo, hi), dtype)


def ref_requantize(x, qin, qout, dtype):
    (si, zi), (so, zo) = qin, qout
    m = R.quantize_multiplier(float(F32(si)) / float(F32(so)))
    return to_dtype(np.clip(R.mbqm(R.a64(x) - zi, *m) + zo, *CODES[dtype]), dtype)


def quantize(rng):
    fam = Family("quantize")
    n = 0

    def case(op, x, out_dtype, attrs, want):
        nonlocal n
        name = f"c{n}"
        n += 1
        attrs = dict(attrs, T=DType(dtype_number(out_dtype)))
        fam.node(name, op, [fam.placeholder(name + "_x", x)], attrs, [want])

    ties = (np.arange(-600, 601) * F32(0.25)).astype(F32)  # x / 0.5 lands on .5 ties
    specials = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 1e-30, -0.0], F32)
    floats = np.concatenate([ties, specials, rng.uniform(-300, 300, 500).astype(F32)])
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        for scale, zp in ((0.5, (lo + hi + 1) // 2), (0.0078125, lo), (1.7, hi), (3e-5, lo + 17)):
            case("QUANTIZE", floats, dtype, quant_attrs("out", 0, scale, zp),
                 ref_quantize_float(floats, scale, zp, dtype))
    # requantize: uint8 <-> int8 with the same scale (the XOR case), and
    # scale ratios below one, above one and with ties
    for din, dout in ((np.uint8, np.int8), (np.int8, np.uint8), (np.int8, np.int8), (np.uint8, np.uint8)):
        x = every_code(din)
        for qin, qout in (((0.02, 128 if din == np.uint8 else 0), (0.02, 128 if dout == np.uint8 else 0)),
                          ((0.5, 3), (0.25, -5 if dout == np.int8 else 9)),
                          ((0.02, 100 if din == np.uint8 else -20), (0.0351, 77 if dout == np.uint8 else -1)),
                          ((0.01, 0), (2.0, 1))):
            attrs = dict(quant_attrs("in", 0, *qin), **quant_attrs("out", 0, *qout))
            case("QUANTIZE", x, dout, attrs, ref_requantize(x, qin, qout, dout))
    # DEQUANTIZE: per tensor (double, then float), per channel (float)
    for dtype in (np.uint8, np.int8):
        x = every_code(dtype)
        for scale, zp in ((0.1, 3), (0.0235294, -7 if dtype == np.int8 else 200), (3.3e-7, 0)):
            want = (float(F32(scale)) * (x.astype(np.float64) - zp)).astype(F32)
            case("DEQUANTIZE", x, np.float32, quant_attrs("in", 0, scale, zp), want)
    w = codes(rng, np.int8, (3, 2, 5))
    scales = np.array([0.01, 0.37, 1e-4], F32)
    zps = np.array([0, -3, 5])
    attrs = {"q_in0_scale": [float(v) for v in scales], "q_in0_zero_point": [int(v) for v in zps], "q_in0_dim": 0}
    want = (scales[:, None, None] * (w.astype(np.int64) - zps[:, None, None]).astype(F32)).astype(F32)
    case("DEQUANTIZE", w, np.float32, attrs, want)
    attrs = {"q_in0_scale": [0.5, 0.25], "q_in0_zero_point": [1, 2], "q_in0_dim": 1}
    want = (np.array([0.5, 0.25], F32)[None, :, None] * (w[:, :2].astype(np.int64) - np.array([1, 2])[None, :, None]).astype(F32)).astype(F32)
    case("DEQUANTIZE", np.ascontiguousarray(w[:, :2]), np.float32, attrs, want)
    halves = np.array([0, 1, -2.5, 65504, -65504, 6e-8, np.inf, -np.inf, 0.1, 1 / 3], np.float16)
    case("DEQUANTIZE", halves, np.float32, {}, halves.astype(F32))
    return fam


# ---- SOFTMAX, LOGISTIC, TANH ----------------------------------------------------

def ref_softmax(x, scale, beta, dtype):
    x = R.a64(x)
    qmin = CODES[dtype][0]
    real = min(float(F32(beta)) * float(F32(scale)) * float(1 << 26), float(R.I32_MAX))
    mant, shift = R.quantize_multiplier(real)
    diff_min = -R.input_radius(5, shift, 31)
    out = np.empty_like(x)
    for r in np.ndindex(x.shape[:-1]):
        row = x[r]
        diff = row - row.max()
        counted = diff >= diff_min
        e = R.exp_on_negative_values(np.where(counted, R.mbqm(diff, mant, shift), 0), 5)
        total = int(R.wrap32(np.sum(np.where(counted, R.rdbp(e, 12), 0))))
        recip, bits = R.reciprocal(total, 12)
        # a shift past 31 (a sum of 512 or more; TFLite's check fails
        # there): each quotient is below 1/2 and rounds to 0
        v = R.rdbp(R.srdhm(recip, e), bits + 23) + qmin if bits + 23 <= 31 else np.full_like(e, qmin)
        out[r] = np.where(counted, np.minimum(v, qmin + 255), qmin)
    return to_dtype(out, dtype)


def ref_logistic_tanh(op, x, scale, zp, dtype):
    x = R.a64(x) - zp
    lo, hi = CODES[dtype]
    real = float(F32(scale)) * float(1 << 27)
    mant, shift = R.quantize_multiplier(real)
    radius = R.input_radius(4, math.frexp(real)[1], 31)
    q4 = R.mbqm(x, mant, shift)
    if op == "LOGISTIC":
        v = R.rdbp(R.logistic(q4, 4), 23) + lo
    else:
        v = R.rdbp(R.tanh(q4, 4), 24) + (0 if dtype == np.int8 else 128)
    v = np.clip(v, lo, hi)
    return to_dtype(np.where(x <= -radius, lo, np.where(x >= radius, hi, v)), dtype)


def softmax(rng):
    fam = Family("softmax")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        out_q = {"LOGISTIC": (1 / 256, lo), "TANH": (1 / 128, 0 if dtype == np.int8 else 128), "SOFTMAX": (1 / 256, lo)}
        for scale, zp in ((0.1, lo + 100), (0.0235, (lo + hi + 1) // 2), (0.5, lo + 3), (2.0, hi - 1),
                          (1e-3, lo + 128), (0.0625, lo + 77)):
            for op in ("LOGISTIC", "TANH"):
                name = f"c{n}"
                n += 1
                x = every_code(dtype)
                attrs = dict(quant_attrs("in", 0, scale, zp), **quant_attrs("out", 0, *out_q[op]))
                attrs["T"] = DType(dtype_number(dtype))
                fam.node(name, op, [fam.placeholder(name + "_x", x)], attrs,
                         [ref_logistic_tanh(op, x, scale, zp, dtype)])
            for beta, shape in ((1.0, (4, 1001)), (1.0, (256, 7)), (0.5, (3, 2, 91)), (2.5, (5, 16))):
                name = f"c{n}"
                n += 1
                x = codes(rng, dtype, shape)
                if shape == (256, 7):  # rows whose spread covers every difference
                    x[:, 0] = every_code(dtype)
                    x[:, 1] = hi
                attrs = dict(quant_attrs("in", 0, scale, zp), **quant_attrs("out", 0, *out_q["SOFTMAX"]))
                attrs.update(T=DType(dtype_number(dtype)), beta=float(beta))
                fam.node(name, "SOFTMAX", [fam.placeholder(name + "_x", x)], attrs,
                         [ref_softmax(x, scale, beta, dtype)])
    x = rng.uniform(-10, 10, (3, 50)).astype(F32)
    for beta in (1.0, 0.3):
        e = np.exp((x - x.max(axis=1, keepdims=True)) * F32(beta))
        name = f"c{n}"
        n += 1
        fam.node(name, "SOFTMAX", [fam.placeholder(name + "_x", x)], {"T": DType(1), "beta": beta},
                 [(e / e.sum(axis=1, keepdims=True)).astype(F32)])
    return fam


# ---- MAX_POOL_2D, AVERAGE_POOL_2D ------------------------------------------------

def ref_pool(op, x, fh, fw, sh, sw, padding, act, q, dtype):
    """Windows over the taps inside the input (TensorFlow's SAME / VALID
    geometry); MAX of the codes, AVERAGE the sum / count rounded half away
    from zero (C's truncating division); the activation's clamp."""
    b, h, w, c = x.shape
    if padding == "SAME":
        oh, ow = -(-h // sh), -(-w // sw)
    else:
        oh, ow = (h - fh) // sh + 1, (w - fw) // sw + 1
    top = max(((oh - 1) * sh + fh - h) // 2, 0)
    left = max(((ow - 1) * sw + fw - w) // 2, 0)
    out = np.zeros((b, oh, ow, c), np.int64)
    xi = R.a64(x)
    for oy in range(oh):
        for ox in range(ow):
            y0, x0 = oy * sh - top, ox * sw - left
            win = xi[:, max(y0, 0):min(y0 + fh, h), max(x0, 0):min(x0 + fw, w), :]
            if op == "MAX_POOL_2D":
                out[:, oy, ox] = win.max(axis=(1, 2))
            else:
                n = win.shape[1] * win.shape[2]
                acc = win.sum(axis=(1, 2))
                out[:, oy, ox] = np.where(acc > 0, R.trunc_div(acc + n // 2, n), R.trunc_div(acc - n // 2, n))
    lo, hi = R.activation_range(act, q[0], q[1], *CODES[dtype])
    return to_dtype(np.clip(out, lo, hi), dtype)


def pooling(rng):
    fam = Family("pooling")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        for shape, (fh, fw, sh, sw), padding, act in (((1, 7, 9, 3), (3, 3, 2, 2), "SAME", "NONE"),
                                                      ((2, 6, 6, 4), (2, 2, 2, 2), "VALID", "RELU6"),
                                                      ((1, 5, 8, 2), (5, 8, 1, 1), "VALID", "NONE"),
                                                      ((1, 10, 10, 3), (4, 3, 3, 2), "SAME", "RELU"),
                                                      ((1, 4, 4, 16), (3, 3, 1, 1), "SAME", "RELU_N1_TO_1")):
            q = (0.05, (lo + hi + 1) // 2 - 9)
            x = codes(rng, dtype, shape)
            for op in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
                name = f"c{n}"
                n += 1
                attrs = {"T": DType(dtype_number(dtype)), "filter_height": fh, "filter_width": fw, "stride_h": sh,
                         "stride_w": sw, "padding": padding, "fused_activation_function": act}
                attrs.update(quant_attrs("in", 0, *q))
                attrs.update(quant_attrs("out", 0, *q))
                fam.node(name, op, [fam.placeholder(name + "_x", x)], attrs,
                         [ref_pool(op, x, fh, fw, sh, sw, padding, act, q, dtype)])
    return fam


# ---- MEAN, SUM, REDUCE_MAX ---------------------------------------------------------

def ref_reduce(op, x, axes, keep, qin, qout, dtype):
    axes = tuple(sorted({a % x.ndim for a in axes}))
    xi = R.a64(x)
    count = int(np.prod([x.shape[a] for a in axes]))
    lo, hi = CODES[dtype]
    if op == "REDUCE_MAX":
        return to_dtype(xi.max(axis=axes, keepdims=keep), dtype)
    total = R.wrap32(xi.sum(axis=axes, keepdims=keep) - qin[1] * count)
    mant, shift = R.quantize_multiplier(float(F32(qin[0])) / float(F32(qout[0])))
    if op == "MEAN":
        s = min(count.bit_length() - 1, 32, 31 + shift)
        mant, shift = (mant << s) // count, shift - s
    return to_dtype(np.clip(R.mbqm(total, mant, shift) + qout[1], lo, hi), dtype)


def reduce(rng):
    fam = Family("reduce")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        for shape, axes, keep in (((1, 7, 7, 32), [1, 2], True), ((1, 7, 7, 32), [1, 2], False),
                                  ((2, 3, 5, 4), [-1], False), ((3, 4, 5), [0, 2, 0], True),
                                  ((4, 300), [1], False), ((2, 3, 4), [0, 1, 2], False)):
            x = codes(rng, dtype, shape)
            for qin, qout in (((0.02, lo + 5), (0.02, lo + 5)), ((0.1, hi - 20), (0.033, lo + 50)),
                              ((0.004, 0), (0.9, 3))):
                for op in ("MEAN", "SUM", "REDUCE_MAX"):
                    if op == "REDUCE_MAX" and qin != qout:
                        continue
                    name = f"c{n}"
                    n += 1
                    attrs = {"T": DType(dtype_number(dtype)), "keep_dims": keep}
                    attrs.update(quant_attrs("in", 0, *qin))
                    attrs.update(quant_attrs("out", 0, *qout))
                    axis = fam.const(name + "_axis", np.array(axes, np.int32))
                    fam.node(name, op, [fam.placeholder(name + "_x", x), axis], attrs,
                             [ref_reduce(op, x, axes, keep, qin, qout, dtype)])
    return fam


# ---- CONCATENATION ----------------------------------------------------------------

def ref_concat(xs, qs, qout, axis, dtype):
    lo, hi = CODES[dtype]
    parts = []
    inverse = F32(1) / F32(qout[0])
    for x, (scale, zp) in zip(xs, qs):
        if zp == qout[1] and F32(scale) == F32(qout[0]):
            parts.append(x)
            continue
        s = F32(scale) * inverse
        v = round_away((x.astype(F32) * s).astype(F32) + F32(-zp) * s)
        parts.append(to_dtype(np.clip(v + qout[1], lo, hi), dtype))
    return np.concatenate(parts, axis=axis)


def concatenation(rng):
    fam = Family("concatenation")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        for shapes, axis in ((((1, 4, 4, 3), (1, 4, 4, 5), (1, 4, 4, 1)), 3), ((((2, 3), (4, 3))), 0),
                             ((((2, 256, 1), (2, 256, 2))), -1)):
            xs = [codes(rng, dtype, s) for s in shapes]
            if shapes[0] == (2, 256, 1):
                xs[0][:, :, 0] = every_code(dtype)
            for qs, qout in (([(0.1, lo + 7)] * len(shapes), (0.1, lo + 7)),
                             ([(0.1, lo + 7), (0.05, hi - 3), (0.2, lo)][:len(shapes)], (0.1, lo + 7)),
                             ([(0.0078125, 0), (0.5, lo + 1), (1e-3, hi)][:len(shapes)], (0.015625, -1 if dtype == np.int8 else 1))):
                name = f"c{n}"
                n += 1
                attrs = {"T": DType(dtype_number(dtype)), "axis": axis}
                for i, q in enumerate(qs):
                    attrs.update(quant_attrs("in", i, *q))
                attrs.update(quant_attrs("out", 0, *qout))
                inputs = [fam.placeholder(f"{name}_x{i}", x) for i, x in enumerate(xs)]
                fam.node(name, "CONCATENATION", inputs, attrs, [ref_concat(xs, qs, qout, axis, dtype)])
    return fam


# ---- PAD, PADV2 ------------------------------------------------------------------

def pad(rng):
    """PAD pads codes with the output's zero point (the code of 0.0),
    PADV2 with its constant_values code; float PAD with 0."""
    fam = Family("pad")
    n = 0
    for dtype, zp in ((np.uint8, 128), (np.int8, -3), (np.float32, 0)):
        for shape, paddings in (((1, 5, 6, 3), [[0, 0], [1, 2], [2, 1], [0, 0]]), ((4, 7), [[3, 0], [0, 5]])):
            x = codes(rng, dtype, shape) if dtype != np.float32 else rng.uniform(-1, 1, shape).astype(F32)
            for op in ("PAD", "PADV2"):
                name = f"c{n}"
                n += 1
                attrs = {"T": DType(dtype_number(dtype))}
                if dtype != np.float32:
                    attrs.update(quant_attrs("in", 0, 0.1, zp))
                    attrs.update(quant_attrs("out", 0, 0.1, zp))
                inputs = [fam.placeholder(name + "_x", x), fam.const(name + "_p", np.array(paddings, np.int32))]
                value = zp
                if op == "PADV2":
                    value = 7
                    inputs.append(fam.const(name + "_v", np.array(value, dtype)))
                fam.node(name, op, inputs, attrs, [np.pad(x, paddings, constant_values=value).astype(dtype)])
    return fam


# ---- TFLite_Detection_PostProcess ------------------------------------------------

def ref_detection(enc, scores, anchors, o, q=None):
    """Decoding in float64 rounded to float32; per-class greedy NMS over the
    scores >= threshold in decreasing order (equal scores: lower index
    first), IoU > threshold suppresses; fast NMS on each box's best class,
    regular NMS per class merged by score (equal scores: earlier first)."""
    if q is not None:
        deq = lambda x, sq: ((x.astype(F32) - F32(sq[1])) * F32(sq[0])).astype(F32)  # noqa: E731
        enc, scores, anchors = deq(enc, q[0]), deq(scores, q[1]), deq(anchors, q[2])
    e, a = enc[0].astype(np.float64), anchors.astype(np.float64)
    sy, sx, sh, sw = (float(F32(o[k])) for k in ("y_scale", "x_scale", "h_scale", "w_scale"))
    yc = (e[:, 0] / sy * a[:, 2] + a[:, 0]).astype(F32)
    xc = (e[:, 1] / sx * a[:, 3] + a[:, 1]).astype(F32)
    hh = (0.5 * np.exp(e[:, 2] / sh) * a[:, 2]).astype(F32)
    hw = (0.5 * np.exp(e[:, 3] / sw) * a[:, 3]).astype(F32)
    boxes = np.stack([yc - hh, xc - hw, yc + hh, xc + hw], 1).astype(F32)
    ncls = o["num_classes"]
    sc = scores[0].astype(F32)
    offset = sc.shape[1] - ncls
    thr, iou_thr = F32(o["nms_score_threshold"]), F32(o["nms_iou_threshold"])

    def iou(i, j):
        bi, bj = boxes[i], boxes[j]
        ai = (bi[2] - bi[0]) * (bi[3] - bi[1])
        aj = (bj[2] - bj[0]) * (bj[3] - bj[1])
        if ai <= 0 or aj <= 0:
            return F32(0)
        ih = min(bi[2], bj[2]) - max(bi[0], bj[0])
        iw = min(bi[3], bj[3]) - max(bi[1], bj[1])
        inter = F32(max(ih, F32(0)) * max(iw, F32(0)))
        return F32(inter / F32(F32(ai + aj) - inter))

    def nms(col, limit):
        kept = [i for i in range(len(col)) if col[i] >= thr]
        kept.sort(key=lambda i: -float(col[i]))  # stable
        chosen, active = [], [True] * len(kept)
        for i in range(len(kept)):
            if len(chosen) >= limit:
                break
            if not active[i]:
                continue
            chosen.append(kept[i])
            for j in range(i + 1, len(kept)):
                if active[j] and iou(kept[i], kept[j]) > iou_thr:
                    active[j] = False
        return chosen

    rows = o["max_detections"] * o["max_classes_per_detection"]
    out_b, out_c, out_s = np.zeros((1, rows, 4), F32), np.zeros((1, rows), F32), np.zeros((1, rows), F32)
    if o.get("use_regular_nms", False):
        best = []  # (score, box, class)
        for c in range(ncls):
            col = sc[:, c + offset]
            merged = best + [(col[b], b, c) for b in nms(col, o.get("detections_per_class", 100))]
            merged = sorted(merged, key=lambda t: -float(t[0]))  # stable
            best = merged[:o["max_detections"]]
        for k, (score, b, c) in enumerate(best):
            out_b[0, k], out_c[0, k], out_s[0, k] = boxes[b], c, score
        count = len(best)
    else:
        per_box = min(o["max_classes_per_detection"], ncls)
        chosen = nms(sc[:, offset:].max(axis=1), o["max_detections"])
        for k, b in enumerate(chosen):
            row = sc[b, offset:]
            order = sorted(range(ncls), key=lambda c: -float(row[c]))
            for c in range(per_box):
                r = o["max_classes_per_detection"] * k + c
                out_b[0, r], out_c[0, r], out_s[0, r] = boxes[b], order[c], row[order[c]]
        count = len(chosen)
    return [out_b, out_c, out_s, np.array([count], F32)]


def detection(rng):
    fam = Family("detection")
    n = 0
    nb = 120
    centres = rng.uniform(0.1, 0.9, (nb, 2))
    anchors = np.concatenate([centres, rng.uniform(0.05, 0.3, (nb, 2))], 1).astype(F32)
    anchors[60:80] = anchors[40]  # clusters: equal anchors
    for regular in (False, True):
        for ncls, background, per_det in ((5, 1, 1), (5, 0, 3), (12, 1, 2)):
            o = {"max_detections": 10, "max_classes_per_detection": per_det, "detections_per_class": 7,
                 "use_regular_nms": regular, "nms_score_threshold": 0.3, "nms_iou_threshold": 0.5,
                 "num_classes": ncls, "y_scale": 10.0, "x_scale": 10.0, "h_scale": 5.0, "w_scale": 5.0}
            enc = rng.normal(0, 1, (1, nb, 4)).astype(F32)
            sc = rng.uniform(0, 1, (1, nb, ncls + background)).astype(F32)
            sc[0, 60:70] = sc[0, 40]  # equal scores on equal boxes
            for quantized in (False, True):
                name = f"c{n}"
                n += 1
                attrs = dict(o, T=DType(1))
                if quantized:
                    q = [(0.05, 128), (1 / 256, 0), (0.004, 0)]
                    enc_q = to_dtype(np.clip(np.round(enc / 0.05) + 128, 0, 255), np.uint8)
                    sc_q = to_dtype(np.clip(np.round(sc * 256), 0, 255), np.uint8)
                    an_q = to_dtype(np.clip(np.round(anchors / 0.004), 0, 255), np.uint8)
                    for i, (sq, zq) in enumerate(q):
                        attrs.update(quant_attrs("in", i, sq, zq))
                    inputs = [fam.placeholder(name + "_e", enc_q), fam.placeholder(name + "_s", sc_q),
                              fam.placeholder(name + "_a", an_q)]
                    want = ref_detection(enc_q, sc_q, an_q, o, q)
                else:
                    inputs = [fam.placeholder(name + "_e", enc), fam.placeholder(name + "_s", sc),
                              fam.placeholder(name + "_a", anchors)]
                    want = ref_detection(enc, sc, anchors, o)
                fam.node(name, "TFLite_Detection_PostProcess", inputs, attrs, want)
    return fam


# ---- RELU, RELU6, RELU_N1_TO_1, LEAKY_RELU, HARD_SWISH, GELU, PRELU -----------------

def ref_activation(op, x, qin, qout, alpha, dtype):
    lo, hi = CODES[dtype]
    (si, zi), (so, zo) = (F32(qin[0]), qin[1]), (F32(qout[0]), qout[1])
    v = R.a64(x) - zi
    if op == "HARD_SWISH":
        return to_dtype(np.clip(ref_hard_swish_codes(v, si, so) + zo, lo, hi), dtype)
    identity = R.quantize_multiplier(float(si / so))
    out = R.mbqm(v, *identity)
    if op == "LEAKY_RELU":
        m = float(F32(si * F32(alpha)) / so)
        neg = R.mbqm(v, *R.quantize_multiplier(abs(m)))
        out = np.where(v < 0, -neg if m < 0 else neg, out)
        return to_dtype(np.clip(out + zo, lo, hi), dtype)
    act = {"RELU": "RELU", "RELU6": "RELU6", "RELU_N1_TO_1": "RELU_N1_TO_1"}[op]
    a, b = R.activation_range(act, qout[0], zo, lo, hi)
    return to_dtype(np.clip(out + zo, a, b), dtype)


def gelu_double(x, approximate):
    """GELU in double: x/2 erfc(-x / sqrt 2), or the tanh form."""
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * np.array([math.erfc(-float(t) / math.sqrt(2)) for t in np.ravel(x)]).reshape(np.shape(x))


def ref_gelu_codes(x, qin, qout, approximate, dtype):
    """TFLite's GELU table: each code dequantized, transformed, divided by
    the output scale, rounded half away from zero, plus the zero point,
    clamped; computed in double, so only cases whose quotients lie at
    least 1e-3 from a rounding tie are used (float32 and double agree there).
    None if a code lies nearer a tie."""
    lo, hi = CODES[dtype]
    y = gelu_double((R.a64(x) - qin[1]) * float(F32(qin[0])), approximate) / float(F32(qout[0]))
    if np.min(np.abs(np.abs(y - np.trunc(y)) - 0.5)) < 1e-3:
        return None
    return to_dtype(np.clip(np.sign(y) * np.floor(np.abs(y) + 0.5) + qout[1], lo, hi), dtype)


def ref_hard_swish_codes(v, si, so):
    """reference/hard_swish.h in int16 steps (gemmlowp's 16-bit rounding
    doubling high multiply, TFLite's truncating one, saturating shifts)."""
    def rhm16(a, b):
        ab = R.a64(a) * b
        return R.trunc_div(ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14)), 1 << 15)

    def to16(m):
        return 32767 if m >= (1 << 31) - 1 - (1 << 15) else (m + (1 << 15)) >> 16

    hires_scale = F32(F32(1.0 / 128.0) * si)
    m_out, e_out = R.quantize_multiplier(float(hires_scale / so))
    m_rel, e_rel = R.quantize_multiplier(float(hires_scale / F32(3.0 / 32768.0)))
    m_out, m_rel = to16(m_out), to16(m_rel)
    hires = v * 128
    pre = rhm16(hires, m_out)
    rel = hires
    if e_rel > 0:
        rel = np.clip(rel * (1 << (e_rel - 1)), -32768, 32767)
    rel = rhm16(rel, m_rel)
    if e_rel > 0:
        rel = np.clip(rel * 2, -32768, 32767)
    if e_rel < 0:
        rel = R.rdbp(rel, -e_rel)
    rel = (rel + (1 << 15)) >> 1
    prod = R.trunc_div(R.a64(rel) * pre, 1 << 15)
    return R.rdbp(prod, -e_out)


def activations(rng):
    fam = Family("activations")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        x = every_code(dtype)
        for qin, qout in (((0.05, lo + 100), (0.05, lo + 100)), ((0.1, (lo + hi + 1) // 2), (0.02, lo)),
                          ((0.0235, lo + 7), (0.0471, hi - 30)), ((0.5, lo), (0.0078125, lo + 128))):
            for op, alpha in (("RELU", 0), ("RELU6", 0), ("RELU_N1_TO_1", 0), ("LEAKY_RELU", 0.2),
                              ("LEAKY_RELU", -0.7), ("HARD_SWISH", 0)):
                name = f"c{n}"
                n += 1
                attrs = {"T": DType(dtype_number(dtype)), "alpha": float(alpha)}
                attrs.update(quant_attrs("in", 0, *qin))
                attrs.update(quant_attrs("out", 0, *qout))
                fam.node(name, op, [fam.placeholder(name + "_x", x)], attrs,
                         [ref_activation(op, x, qin, qout, alpha, dtype)])
            for approximate in (False, True):
                want = ref_gelu_codes(x, qin, qout, approximate, dtype)
                if want is None:
                    continue
                name = f"c{n}"
                n += 1
                attrs = {"T": DType(dtype_number(dtype)), "approximate": approximate}
                attrs.update(quant_attrs("in", 0, *qin))
                attrs.update(quant_attrs("out", 0, *qout))
                fam.node(name, "GELU", [fam.placeholder(name + "_x", x)], attrs, [want])
            # PRELU: alpha per channel, broadcast over [4, 64]
            xp = codes(rng, dtype, (4, 64))
            xp[0] = every_code(dtype)[::4]
            alpha = codes(rng, dtype, (64,))
            qa = (0.01, lo + 50)
            name = f"c{n}"
            n += 1
            attrs = {"T": DType(dtype_number(dtype))}
            attrs.update(quant_attrs("in", 0, *qin))
            attrs.update(quant_attrs("in", 1, *qa))
            attrs.update(quant_attrs("out", 0, *qout))
            v, a = R.a64(xp) - qin[1], R.a64(alpha) - qa[1]
            m1 = R.quantize_multiplier(float(F32(qin[0])) / float(F32(qout[0])))
            m2 = R.quantize_multiplier(float(F32(qin[0])) * float(F32(qa[0])) / float(F32(qout[0])))
            want = np.where(v >= 0, R.mbqm(v, *m1), R.mbqm(v * a, *m2)) + qout[1]
            fam.node(name, "PRELU", [fam.placeholder(name + "_x", xp), fam.placeholder(name + "_a", alpha)], attrs,
                     [to_dtype(np.clip(want, lo, hi), dtype)])
    xf = np.concatenate([np.linspace(-8, 8, 161), [-3, 3, -0.0]]).astype(F32)
    floats = {"RELU_N1_TO_1": np.clip(xf, -1, 1), "LEAKY_RELU": np.where(xf > 0, xf, xf * F32(0.2)),
              "HARD_SWISH": (xf * np.minimum(F32(6), np.maximum(F32(0), xf + F32(3))) / F32(6)),
              "RELU": np.maximum(xf, 0), "RELU6": np.clip(xf, 0, 6)}
    for op, want in floats.items():
        name = f"c{n}"
        n += 1
        fam.node(name, op, [fam.placeholder(name + "_x", xf)], {"T": DType(1), "alpha": 0.2}, [want.astype(F32)])
    return fam


def gelu_float(rng):
    """Float GELU against double: TFLite's float formula itself cancels where
    1 + tanh(z) or erfc(-z) is tiny, so within 1e-6 absolute (values up to 8)."""
    fam = Family("gelu_float", float_tolerance=(1e-6, 1e-6))
    xf = np.concatenate([np.linspace(-8, 8, 161), [-3, 3, -0.0]]).astype(F32)
    for n, approximate in enumerate((False, True)):
        fam.node(f"g{n}", "GELU", [fam.placeholder(f"g{n}_x", xf)], {"T": DType(1), "approximate": approximate},
                 [gelu_double(xf.astype(np.float64), approximate).astype(F32)])
    return fam


# ---- RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR ----------------------------------------

def ref_bilinear(x, oh, ow, align, half):
    """Coordinates in 1/1024ths and weights in 1/2^20ths (C's truncating
    divisions), rounded half away from zero."""
    _, h, w, _ = x.shape

    def coords(n_out, n_in):
        scale = ((1 << 10) * n_in + n_out // 2) // n_out
        if align and n_out > 1:
            scale = ((1 << 10) * (n_in - 1) + (n_out - 1) // 2) // (n_out - 1)
        i = np.arange(n_out, dtype=np.int64)
        pos = i * scale + scale // 2 - (1 << 9) if half else i * scale
        lo = np.maximum(R.trunc_div(pos, 1 << 10), 0)
        hi = np.minimum(R.trunc_div(pos + (1 << 10) - 1, 1 << 10), n_in - 1)
        return pos, lo, hi

    py, y0, y1 = coords(oh, h)
    px, x0, x1 = coords(ow, w)
    xi = R.a64(x)
    dy = (py - (1 << 10) * y0)[None, :, None, None]
    dx = (px - (1 << 10) * x0)[None, None, :, None]
    g = lambda ys, xs: xi[:, ys][:, :, xs]  # noqa: E731
    total = (g(y0, x0) * ((1 << 10) - dy) * ((1 << 10) - dx) + g(y1, x0) * dy * ((1 << 10) - dx) +
             g(y0, x1) * ((1 << 10) - dy) * dx + g(y1, x1) * dy * dx)
    return to_dtype(R.trunc_div(total + np.where(total > 0, 1 << 19, -(1 << 19)), 1 << 20), x.dtype.type)


def ref_nearest(x, oh, ow, align, half):
    _, h, w, _ = x.shape

    def index(n_out, n_in):
        scale = F32(n_in - 1) / F32(n_out - 1) if align and n_out > 1 else F32(n_in) / F32(n_out)
        v = ((np.arange(n_out).astype(F32) + F32(0.5 if half else 0)) * scale).astype(F32)
        i = round_away(v) if align else np.floor(v)
        i = np.minimum(i.astype(np.int64), n_in - 1)
        return np.maximum(i, 0) if half else i

    return x[:, index(oh, h)][:, :, index(ow, w)]


def resize(rng):
    fam = Family("resize")
    n = 0
    for dtype in (np.uint8, np.int8, np.float32):
        for shape, size in (((1, 4, 5, 3), (9, 7)), ((2, 7, 7, 2), (3, 4)), ((1, 1, 3, 1), (5, 6)),
                            ((1, 6, 6, 4), (12, 12))):
            x = codes(rng, dtype, shape) if dtype != np.float32 else rng.uniform(-1, 1, shape).astype(F32)
            for align, half in ((False, False), (True, False), (False, True)):
                for op in ("RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"):
                    if op == "RESIZE_BILINEAR" and dtype == np.float32:
                        continue
                    name = f"c{n}"
                    n += 1
                    attrs = {"T": DType(dtype_number(dtype)), "align_corners": align, "half_pixel_centers": half}
                    if dtype != np.float32:
                        attrs.update(quant_attrs("in", 0, 0.1, 3))
                        attrs.update(quant_attrs("out", 0, 0.1, 3))
                    ref = ref_bilinear if op == "RESIZE_BILINEAR" else ref_nearest
                    fam.node(name, op, [fam.placeholder(name + "_x", x),
                                        fam.const(name + "_size", np.array(size, np.int32))], attrs,
                             [ref(x, size[0], size[1], align, half)])
    return fam


# ---- L2_NORMALIZATION, ARG_MAX, ARG_MIN ----------------------------------------------

def inv_sqrt(x):
    """GetInvSqrtQuantizedMultiplierExp(x, reverse shift -1): (mantissa, shift)."""
    if x <= 1:
        return R.I32_MAX, 0
    s = 11
    while x >= 1 << 29:
        x //= 4
        s += 1
    pairs = (R.leading_zeros(x) - 1) // 2 - 1
    s -= pairs
    x <<= 2 * pairs
    half = int(R.rdbp(x >> 1, 1))
    y = 1 << 28
    for _ in range(5):
        y3 = int(R.mul_by_pot(R.srdhm(R.srdhm(y, y), y), 6))
        y = int(R.mul_by_pot(int(R.srdhm((1 << 28) + (1 << 27), y)) - int(R.srdhm(half, y3)), 3))
    y = int(R.srdhm(y, 1518500250))
    if s < 0:
        y, s = int(R.wrap32(y << -s)), 0
    return y, -s


def l2_argmax(rng):
    fam = Family("l2_argmax")
    n = 0
    for dtype in (np.uint8, np.int8):
        lo, hi = CODES[dtype]
        for shape, zp in (((6, 10), lo + 100), ((3, 257), (lo + hi + 1) // 2), ((2, 2, 3), lo + 2)):
            x = codes(rng, dtype, shape)
            x[0] = zp  # an all-zero row: the multiplier of x <= 1
            name = f"c{n}"
            n += 1
            attrs = {"T": DType(dtype_number(dtype))}
            attrs.update(quant_attrs("in", 0, 0.05, zp))
            attrs.update(quant_attrs("out", 0, 1 / 128, 0 if dtype == np.int8 else 128))
            d = R.a64(x) - zp
            want = np.empty_like(d)
            for r in np.ndindex(shape[:-1]):
                m, sh = inv_sqrt(int(R.wrap32(np.sum(d[r] * d[r]))))
                want[r] = R.mbqm(d[r], m, sh + 7) if dtype == np.int8 else 128 + R.mbqm(128 * d[r], m, sh)
            fam.node(name, "L2_NORMALIZATION", [fam.placeholder(name + "_x", x)], attrs,
                     [to_dtype(np.clip(want, lo, hi), dtype)])
        x = codes(rng, dtype, (3, 5, 7))
        x[1, :, 2] = hi  # ties: the first index wins
        for op, axis, out in (("ARG_MAX", 2, np.int32), ("ARG_MIN", 1, np.int64), ("ARG_MAX", -3, np.int64)):
            name = f"c{n}"
            n += 1
            f = np.argmax if op == "ARG_MAX" else np.argmin
            fam.node(name, op, [fam.placeholder(name + "_x", x), fam.const(name + "_axis", np.array([axis], np.int32))],
                     {"T": DType(dtype_number(out))}, [f(x, axis=axis).astype(out)])
    xf = rng.normal(0, 1, (4, 9)).astype(F32)
    name = f"c{n}"
    norm = np.maximum(np.sqrt(np.sum(xf * xf, axis=1, keepdims=True, dtype=F32)), F32(1e-6))
    fam.node(name, "L2_NORMALIZATION", [fam.placeholder(name + "_x", xf)], {"T": DType(1)}, [(xf / norm).astype(F32)])
    return fam


# ---- UNIDIRECTIONAL_SEQUENCE_LSTM (float; hybrid int8 weights dequantized) --------------

def ref_lstm(x, w, time_major, cifg, peephole, projection, layer_norm, cell_clip, proj_clip):
    """TFLite's float step in float32: gate = bias (0 with layer norm) +
    W_x x + W_h h (+ peephole x c); layer norm, x coefficients, + bias;
    sigmoid (cell gate: tanh); c = f c + g i (CIFG: g (1 - f)), clipped;
    h = o tanh(c), projected (+ bias) and clipped."""
    f32 = lambda v: np.asarray(v, F32)  # noqa: E731
    sig = lambda v: f32(F32(1) / (F32(1) + np.exp(-v)))  # noqa: E731
    xs = x if time_major else x.transpose(1, 0, 2)
    t_len, batch, _ = xs.shape
    h = np.zeros((batch, w["n_out"]), F32)
    c = np.zeros((batch, w["n_cell"]), F32)
    out = np.zeros((t_len, batch, w["n_out"]), F32)

    def gate(g, xt, h, c):
        acc = np.zeros_like(c) if layer_norm else np.broadcast_to(w["b"][g], c.shape).astype(F32)
        acc = f32(acc + f32(xt @ w["wx"][g].T))
        acc = f32(acc + f32(h @ w["wh"][g].T))
        if peephole and g != 2:
            acc = f32(acc + f32(w["p"][g] * c))
        if layer_norm:
            mean = f32(acc.sum(axis=1, keepdims=True) / F32(acc.shape[1]))
            var = f32(f32((acc - mean) ** 2).sum(axis=1, keepdims=True) / F32(acc.shape[1]))
            acc = f32(f32(f32((acc - mean) * f32(F32(1) / np.sqrt(var + F32(1e-8)))) * w["ln"][g]) + w["b"][g])
        return np.tanh(acc) if g == 2 else sig(acc)

    for t in range(t_len):
        xt = xs[t]
        i = None if cifg else gate(0, xt, h, c)
        f = gate(1, xt, h, c)
        g = gate(2, xt, h, c)
        c = f32(f32(f * c) + f32(g * (f32(F32(1) - f) if cifg else i)))
        if cell_clip > 0:
            c = np.clip(c, -cell_clip, cell_clip)
        o = gate(3, xt, h, c)
        hidden = f32(o * np.tanh(c))
        if projection:
            h = f32(w["pb"] + f32(hidden @ w["pw"].T))
            if proj_clip > 0:
                h = np.clip(h, -proj_clip, proj_clip)
        else:
            h = hidden
        out[t] = h
    return out if time_major else out.transpose(1, 0, 2)


def lstm(rng):
    fam = Family("lstm", (1e-5, 1e-6))  # numpy's matrix products sum in another order
    fam.const("none", np.zeros((0,), F32))
    fam.nodes[-1] = Node("TFLiteNoValue", "Const", [], {"dtype": DType(1), "value": np.zeros((0,), F32)})
    n = 0
    for cifg, peephole, projection, layer_norm, time_major, hybrid in (
            (False, False, False, False, False, False), (True, True, False, False, True, False),
            (False, True, True, True, False, False), (False, False, True, False, True, True),
            (True, False, False, True, False, True)):
        n_in, n_cell = 5, 8
        n_out = 6 if projection else n_cell
        batch, t_len = 2, 4
        w = {"n_out": n_out, "n_cell": n_cell}
        r = lambda *shape: rng.uniform(-0.6, 0.6, shape).astype(F32)  # noqa: E731
        w["wx"] = [r(n_cell, n_in) for _ in range(4)]
        w["wh"] = [r(n_cell, n_out) for _ in range(4)]
        w["b"] = [r(n_cell) for _ in range(4)]
        w["p"] = [r(n_cell) for _ in range(4)]
        w["ln"] = [F32(1) + r(n_cell) for _ in range(4)]
        w["pw"], w["pb"] = r(n_out, n_cell), r(n_out)
        name = f"c{n}"
        n += 1
        inputs, attrs = [None] * 24, {"T": DType(1), "fused_activation_function": "TANH", "time_major": time_major,
                                      "cell_clip": 3.0, "proj_clip": 0.8 if projection else 0.0}
        x = r(t_len, batch, n_in) if time_major else r(batch, t_len, n_in)
        inputs[0] = fam.placeholder(name + "_x", x)

        def weight(i, value):
            if hybrid and value.ndim == 2 and i not in (18, 19):  # int8 per tensor, symmetric
                scale = F32(np.max(np.abs(value)) / 127)
                q = np.round(value / scale).astype(np.int8)
                attrs.update(quant_attrs("in", i, float(scale), 0))
                value = (np.float64(scale) * q.astype(np.float64)).astype(F32)
                inputs[i] = fam.const(f"{name}_w{i}", q)
            else:
                inputs[i] = fam.const(f"{name}_w{i}", value)
            return value
        for g in range(4):
            if g == 0 and cifg:
                continue
            w["wx"][g] = weight(1 + g, w["wx"][g])
            w["wh"][g] = weight(5 + g, w["wh"][g])
            weight(12 + g, w["b"][g])
            if layer_norm:
                weight(20 + g, w["ln"][g])
            if peephole and g != 2:
                weight(9 + (2 if g == 3 else g), w["p"][g])
        if projection:
            w["pw"] = weight(16, w["pw"])
            weight(17, w["pb"])
        weight(18, np.zeros((batch, n_out), F32))
        weight(19, np.zeros((batch, n_cell), F32))
        inputs = [i if i is not None else "TFLiteNoValue" for i in inputs]
        want = ref_lstm(x, w, time_major, cifg, peephole, projection, layer_norm, 3.0, 0.8)
        fam.node(name, "UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, attrs, [want])
    return fam


FAMILIES = [arith, quantize, softmax, pooling, reduce, concatenation, pad, detection, activations, gelu_float, resize,
            l2_argmax, lstm]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(28)
    for make in FAMILIES:
        fam = make(rng)
        fam.write(out_dir)
        print(fam.name)


if __name__ == "__main__":
    main()
