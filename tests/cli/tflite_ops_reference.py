"""tflite_ops_reference.py - graphs of TensorFlow Lite operator nodes (as the
.tflite reader writes them: src/compute/tflite_node.h) on uint8, int8 and
float tensors, with the outputs TFLite's reference kernels define, worked
out in numpy from the rules (tflite_int_rules.py and each op's rule below,
written from tflite-micro's reference kernels and their Prepare code, not
from tfpi's C code). Inputs cover every code, ties of the roundings,
negative values, tiny and large multipliers and saturation.

    python3 tests/cli/tflite_ops_reference.py OUT_DIR

writes, for each op family F, OUT_DIR/F.pb, the feeds OUT_DIR/F.<input>.npy,
the expected outputs OUT_DIR/F.<node>.want.npy and OUT_DIR/F.args (the
run_graph flags, one a line: --input=... and --output=...), and prints the
family names."""
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

    def __init__(self, name):
        self.name, self.nodes, self.feeds, self.wants = name, [], {}, {}

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
                # every pair of codes, then broadcast shapes
                shapes = [((256, 1), (1, 256)), ((2, 3, 4, 5), (5,)), ((3, 1, 7), (1, 4, 1))]
                for sx, sy in shapes:
                    x = every_code(dtype).reshape(sx) if sx == (256, 1) else codes(rng, dtype, sx)
                    y = every_code(dtype).reshape(sy) if sy == (1, 256) else codes(rng, dtype, sy)
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


FAMILIES = [arith, quantize, softmax]


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
