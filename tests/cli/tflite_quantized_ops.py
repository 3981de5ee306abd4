"""tflite_quantized_ops.py DIR - one-operator .tflite models of the 8-bit
builtins TFLite computes with its own integer rules (TRANSPOSE_CONV,
BATCH_MATMUL, DIV, EXP, LOG, ...), written as tflite_builtins.py writes
its cases (the same Case, files and runner: test_tflite_builtins.sh), with
the outputs worked out here in numpy from TFLite's reference kernels
(tensorflow/lite/kernels/internal/reference/ and the kernels' Prepare
code; the integer helpers in tflite_int_rules.py), apart from tfpi's C
code. Inputs cover negative values, ties of the roundings, tiny and large
multipliers and saturation."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_int_rules as R  # noqa: E402
from tflite_builtins import Case  # noqa: E402
from tflite_ops_reference import inv_sqrt  # noqa: E402

F32 = np.float32
TRANSPOSE_CONV, TRANSPOSE_CONV_OPTIONS = 67, 49
BATCH_MATMUL, BATCH_MATMUL_OPTIONS = 126, 101
DIV, DIV_OPTIONS = 42, 29
MUL, MUL_OPTIONS = 18, 21
LOG_SOFTMAX = 50
EXP, LOG, ELU, SQRT, RSQRT, ABS = 47, 73, 111, 75, 76, 101
SPACE_TO_BATCH_ND, CAST = 38, 53
REDUCE_PROD, REDUCER_OPTIONS = 81, 27
COMPARISONS = {"equal": (71, np.equal), "not_equal": (72, np.not_equal), "less": (58, np.less),
               "less_equal": (63, np.less_equal), "greater": (61, np.greater), "greater_equal": (62, np.greater_equal)}
ACTS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3}
rng = np.random.default_rng(2029)


def codes(dtype, shape, lo=None, hi=None):
    info = np.iinfo(dtype)
    return rng.integers(info.min if lo is None else lo, (info.max if hi is None else hi) + 1, shape).astype(dtype)


def requantize(acc, multipliers, zero, lo, hi, dtype):
    """acc [..., c]: each channel's MultiplyByQuantizedMultiplier, + zero, clamped."""
    out = np.empty(acc.shape, np.int64)
    for c, (m, s) in enumerate(multipliers):
        out[..., c] = R.mbqm(acc[..., c], m, s)
    return np.clip(out + zero, lo, hi).astype(dtype)


# ---- TRANSPOSE_CONV ----------------------------------------------------------

def transpose_conv_padding(same, out, stride, k):
    """ComputePaddingHeightWidth with the output size as the image size."""
    n = (out + stride - 1) // stride if same else (out + stride - k) // stride
    return max((n - 1) * stride + k - out, 0) // 2


def ref_transpose_conv(x, w, bias, zi, zf, multipliers, zo, act_range, strides, same, out_shape):
    """TFLite's reference TransposeConv: each input pixel scattered into
    the output pixels its taps reach, summed in int32."""
    n, in_h, in_w, _ = x.shape
    out_c, k_h, k_w, _ = w.shape
    pad_h = transpose_conv_padding(same, out_shape[1], strides[0], k_h)
    pad_w = transpose_conv_padding(same, out_shape[2], strides[1], k_w)
    acc = np.zeros(out_shape, np.int64)
    xs, ws = x.astype(np.int64) - zi, w.astype(np.int64) - zf
    for ky in range(k_h):
        for kx in range(k_w):
            oy, ox = np.arange(in_h) * strides[0] - pad_h + ky, np.arange(in_w) * strides[1] - pad_w + kx
            vy, vx = (oy >= 0) & (oy < out_shape[1]), (ox >= 0) & (ox < out_shape[2])
            part = np.einsum("nyxi,oi->nyxo", xs, ws[:, ky, kx, :])[:, vy][:, :, vx]
            acc[:, oy[vy][:, None], ox[vx][None, :], :] += part
    if bias is not None:
        acc += bias.astype(np.int64)
    return requantize(R.wrap32(acc), multipliers, zo, *act_range, x.dtype)


def transpose_conv_case(name, dtype, in_shape, w_shape, out_hw, strides, same, in_q, w_scales, w_zero, out_q,
                        bias=True, act="NONE", small=False):
    """small: codes within +-6 of the zero points, so sums stay unsaturated."""
    x = codes(dtype, in_shape, in_q[1] - 6, in_q[1] + 6) if small else codes(dtype, in_shape)
    w = codes(dtype, w_shape, w_zero - 6, w_zero + 6) if small else codes(dtype, w_shape, -127 if dtype == np.int8 else None)
    out_c = w_shape[0]
    out_shape = (in_shape[0], out_hw[0], out_hw[1], out_c)
    in_scale, w_scales, out_scale = F32(in_q[0]), np.asarray(w_scales, F32), F32(out_q[0])
    if dtype == np.int8:
        reals = [float(in_scale) * float(s) / float(out_scale) for s in np.broadcast_to(w_scales, (out_c,))]
    else:
        reals = [float(F32(in_scale * w_scales[0])) / float(out_scale)] * out_c
    multipliers = [R.quantize_multiplier(m) for m in reals]
    b = rng.integers(-3000, 3000, out_c).astype(np.int32) if bias else None
    info = np.iinfo(dtype)
    act_range = R.activation_range(act, out_scale, out_q[1], info.min, info.max)
    want = ref_transpose_conv(x, w, b, in_q[1], w_zero, multipliers, out_q[1], act_range, strides, same, out_shape)
    c = Case(name)
    w_quant = (list(w_scales), [w_zero] * len(w_scales), 0)
    inputs = [c.const("output_shape", np.array(out_shape, np.int32)), c.const("filter", w, w_quant),
              c.input("x", x, ([in_scale], [in_q[1]], 0))]
    if bias:
        bias_scales = [float(in_scale) * float(s) for s in w_scales]
        inputs.append(c.const("bias", b, (bias_scales, [0] * len(bias_scales), 0)))
    else:
        inputs.append(-1)
    c.m.op(TRANSPOSE_CONV, inputs, [c.output("y", want, ([out_scale], [out_q[1]], 0))], TRANSPOSE_CONV_OPTIONS,
           {0: ("b", 0 if same else 1), 1: ("i", strides[1]), 2: ("i", strides[0]), 3: ("b", ACTS[act])})
    return c


def transpose_conv_cases():
    # int8 per channel, stride 2 SAME (a segmentation head's upsampling); the
    # channels' multipliers from 2^-20 to above 1 (saturating)
    scales = [2e-6, 0.004, 0.02, 0.35]
    yield transpose_conv_case("transpose_conv_int8_per_channel", np.int8, (1, 4, 4, 5), (4, 3, 3, 5), (8, 8), (2, 2),
                              True, (0.05, -7), scales, 0, (0.1, 3))
    # per tensor, VALID, two images, no bias, RELU6
    yield transpose_conv_case("transpose_conv_int8_valid_relu6", np.int8, (2, 3, 5, 3), (2, 2, 3, 3), (6, 11), (2, 2),
                              False, (0.1, 10), [0.01], 0, (0.05, -20), bias=False, act="RELU6")
    # ties: multipliers exactly 1/2 and 1/4, every sum odd or even
    yield transpose_conv_case("transpose_conv_int8_ties", np.int8, (1, 3, 3, 1), (2, 2, 2, 1), (5, 5), (2, 2),
                              True, (1.0, 0), [0.5, 0.25], 0, (1.0, -3), bias=False, small=True)
    # an 8 x 8 filter over 16 channels: the GEMM runs in bands of input rows
    yield transpose_conv_case("transpose_conv_int8_bands", np.int8, (1, 40, 32, 4), (16, 8, 8, 4), (80, 64), (2, 2),
                              True, (0.05, 2), np.linspace(0.001, 0.01, 16), 0, (0.5, -1))
    # uint8 with a filter zero point (TOCO), strides 2 x 1, odd sizes, RELU
    yield transpose_conv_case("transpose_conv_uint8", np.uint8, (1, 4, 5, 3), (3, 3, 2, 3), (7, 5), (2, 1), True,
                              (0.02, 128), [0.003], 131, (0.05, 100), act="RELU")


# ---- BATCH_MATMUL -------------------------------------------------------------

def batch_matmul_case(name, a_shape, b_shape, qa, qb, qo, adj_x=False, adj_y=False, b_const=False, small=False):
    """int8 only (TFLite has no uint8 BATCH_MATMUL); the multiplier from the
    float32 product of the input scales, over the output scale in double."""
    a = codes(np.int8, a_shape, qa[1] - 5, qa[1] + 5) if small else codes(np.int8, a_shape)
    b = codes(np.int8, b_shape, qb[1] - 5, qb[1] + 5) if small else codes(np.int8, b_shape)
    la = a.astype(np.int64) - qa[1]
    rb = b.astype(np.int64) - qb[1]
    if adj_x:
        la = np.swapaxes(la, -1, -2)
    if adj_y:
        rb = np.swapaxes(rb, -1, -2)
    acc = R.wrap32(np.matmul(la, rb))
    m, sh = R.quantize_multiplier(float(F32(F32(qa[0]) * F32(qb[0]))) / float(F32(qo[0])))
    want = np.clip(R.mbqm(acc, m, sh) + qo[1], -128, 127).astype(np.int8)
    c = Case(name)
    quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
    rhs = c.const("b", b, quant(qb)) if b_const else c.input("b", b, quant(qb))
    c.m.op(BATCH_MATMUL, [c.input("a", a, quant(qa)), rhs], [c.output("y", want, quant(qo))], BATCH_MATMUL_OPTIONS,
           {0: ("bool", adj_x), 1: ("bool", adj_y)})
    return c


def batch_matmul_cases():
    yield batch_matmul_case("batch_matmul_int8", (2, 3, 5), (2, 5, 4), (0.05, -3), (0.02, 7), (0.04, 5))
    # attention's Q x K^T: adj_y, batch dimensions broadcast ([2, 1] against [3])
    yield batch_matmul_case("batch_matmul_int8_adj_broadcast", (2, 1, 4, 3), (3, 6, 4), (0.1, 0), (0.1, -1),
                            (0.9, 2), adj_x=True, adj_y=True)
    # a constant rank-2 weight matrix; a multiplier above 1: saturation
    yield batch_matmul_case("batch_matmul_int8_weights_saturating", (1, 4, 16), (16, 3), (0.5, 1), (0.5, 0),
                            (0.01, -10), b_const=True)
    # ties: the multiplier exactly 1/2, small sums of both signs
    yield batch_matmul_case("batch_matmul_int8_ties", (3, 2, 3), (3, 3, 7), (1.0, 4), (0.5, -2), (1.0, 0),
                            small=True)


# ---- DIV ----------------------------------------------------------------------

def leading_sign_bits(a):
    """CountLeadingSignBits of int32 values: 31 for 0 and -1."""
    v = np.where(a >= 0, a, -a - 1)
    bits = np.zeros(v.shape, np.int64)
    for k in range(32):
        bits += (v >> k) > 0
    return 31 - bits


def ref_div(x, y, qx, qy, qo, act, dtype):
    """reference_ops::DivElementwise on codes; the multiplier of the float32
    s1 / (s2 x so); a final right shift past 31 bits gives 0 (the
    quotient's meaning; TFLite's shift is undefined there); b = 0 (which
    TFLite never divides by) the end of the range on a's side, 0 / 0 the
    zero point."""
    a, b = np.broadcast_arrays(R.a64(x) - qx[1], R.a64(y) - qy[1])
    m, sh = R.quantize_multiplier(float(F32(F32(qx[0]) / (F32(qy[0]) * F32(qo[0])))))
    a = np.where(b < 0, -a, a)
    b = np.abs(b)
    recip = {int(v): R.reciprocal(int(v), 31) for v in np.unique(b) if v > 0}
    inv = np.vectorize(lambda v: recip[v][0] if v else 0)(b)
    bits = np.vectorize(lambda v: recip[v][1] if v else 0)(b)
    headroom = leading_sign_bits(a)
    unscaled = R.srdhm(a << headroom, inv)
    right = bits + headroom - sh
    high = R.srdhm(unscaled, m)
    q = np.where(right > 31, 0, R.rdbp(high, np.minimum(right, 31)))
    info = np.iinfo(dtype)
    lo, hi = R.activation_range(act, F32(qo[0]), qo[1], info.min, info.max)
    q = np.where(b == 0, np.sign(a) * (1 << 30), q)
    return np.clip(q + qo[1], lo, hi).astype(dtype)


def div_case(name, x, y, qx, qy, qo, act="NONE", y_const=False):
    want = ref_div(x, y, qx, qy, qo, act, x.dtype)
    c = Case(name)
    quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
    divisor = c.const("y", y, quant(qy)) if y_const else c.input("y", y, quant(qy))
    c.m.op(DIV, [c.input("x", x, quant(qx)), divisor], [c.output("z", want, quant(qo))], DIV_OPTIONS,
           {0: ("b", ACTS[act])})
    return c


def div_cases():
    # every uint8 code over every other (a 256 x 256 broadcast), the zero divisor included
    every = np.arange(256).astype(np.uint8)
    yield div_case("div_uint8_every_code", every[:, None], every[None, :], (0.05, 100), (0.02, 130), (0.2, 120))
    # int8 by a constant divisor, fused RELU; a multiplier of 500 (shift 9)
    x = codes(np.int8, (3, 40))
    yield div_case("div_int8_const_relu", x, np.array([[-128], [7], [90]], np.int8), (0.5, -5), (0.01, 3),
                   (0.1, -100), act="RELU", y_const=True)
    # a tiny multiplier, negative divisors: most quotients round to 0 or +-1
    yield div_case("div_int8_tiny_multiplier", codes(np.int8, (64,)), codes(np.int8, (64,)), (0.001, 0), (1.0, 0),
                   (1.0, 0))


def saturating_mul_cases():
    """MUL whose multiplier s1 x s2 / so is 2^30 or more (an output scale
    calibrated on a constant zero, as in Coral's AutoML video LSTM): the
    real product of any nonzero pair lies past the 8-bit range, so it is
    the end of the range on the product's side; a zero product is the
    output zero point (TFLite's shifts are undefined past 30 bits)."""
    every = np.arange(256).astype(np.uint8)
    qx, qy, qo = (0.0235294122248888, 3), (0.00390625, 0), (2.972124106613584e-35, 0)
    product = (every[:, None].astype(np.int64) - qx[1]) * (every[None, :].astype(np.int64) - qy[1])
    want = np.where(product > 0, 255, np.where(product < 0, 0, qo[1])).astype(np.uint8)
    c = Case("mul_uint8_saturating_multiplier")
    quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
    c.m.op(MUL, [c.input("x", every[:, None], quant(qx)), c.input("y", every[None, :], quant(qy))],
           [c.output("z", want, quant(qo))], MUL_OPTIONS, {0: ("b", 0)})
    yield c
    x = codes(np.int8, (50,))
    product = (x.astype(np.int64) + 10) * (x.astype(np.int64) - 7)
    want = np.where(product > 0, 127, np.where(product < 0, -128, -20)).astype(np.int8)
    c = Case("mul_int8_saturating_multiplier")
    c.m.op(MUL, [c.input("x", x, quant((0.5, -10))), c.input("y", x.copy(), quant((0.25, 7)))],
           [c.output("z", want, quant((1e-12, -20)))], MUL_OPTIONS, {0: ("b", 0)})
    yield c


# ---- LOG_SOFTMAX: reference/log_softmax.h ------------------------------------------

def log_x_ge_1(x, in_bits, out_bits):
    """log_x_for_x_greater_than_or_equal_to_1 (internal/common.h) of one raw Q(in_bits) value: raw Q(out_bits)."""
    i = lambda v: int(np.asarray(v))  # noqa: E731
    sat = lambda v: min(max(v, R.I32_MIN), R.I32_MAX)  # noqa: E731
    acc = out_bits + 1
    quarter = i(R.mul_by_pot(536870912, -acc))
    lead_a = R.leading_zeros(x)
    r_a = i(R.mul_by_pot(R.srdhm(R.mul_by_pot(x, lead_a - 1), 1518500250), 1))
    e_a = sat(i(R.mul_by_pot(in_bits - lead_a, 31 - acc)) + quarter)
    lead_b = R.leading_zeros(i(R.srdhm(x, 1518500250))) - 1
    r_b = i(R.mul_by_pot(x, lead_b))
    e_b = sat(i(R.mul_by_pot(in_bits - lead_b, 31 - acc)) - quarter)
    r, e = min(r_a, r_b), max(e_a, e_b)
    ssh = 1805811301
    p = i(R.half_sum(r, ssh))
    q = i(R.wrap32(2 * i(R.wrap32(r - ssh))))
    q2 = i(R.srdhm(q, q))
    num = i(R.wrap32(i(R.srdhm(q, r)) + i(R.srdhm(R.srdhm(q, q2), 117049297))))
    den = i(R.wrap32(i(R.srdhm(p, R.wrap32(1057819769 + q + i(R.srdhm(127690142, q2))))) + i(R.srdhm(638450708, q))))
    total = i(R.wrap32(i(R.srdhm(e, 1488522236)) + i(R.srdhm(R.rdbp(num, acc), R.one_over_one_plus_x(den)))))
    return i(R.mul_by_pot(total, acc - out_bits))


def ref_log_softmax(x, scale, dtype):
    lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    real = min(float(F32(scale)) * float(1 << 26), float(R.I32_MAX))
    mant, shift = R.quantize_multiplier(real)
    rev = R.quantize_multiplier(float(1 << (31 - shift)) / mant)
    diff_min = -R.input_radius(5, shift, 31)
    out = np.empty(x.shape, np.int64)
    for row in np.ndindex(x.shape[:-1]):
        diff = R.a64(x[row]) - int(x[row].max())
        q5 = R.mbqm(diff, mant, shift)
        e = np.where(diff >= diff_min, R.rdbp(R.exp_on_negative_values(q5, 5), 12), 0)
        log_sum = log_x_ge_1(int(R.wrap32(e.sum())), 12, 5)
        adjusted = max(diff_min - 1, int(R.mbqm(R.wrap32(log_sum + R.I32_MIN), *rev)))
        v = np.clip(R.rdbp(R.wrap32(q5 - log_sum), 22) + hi, lo, hi)
        out[row] = np.where(diff > adjusted, v, lo)
    return out.astype(dtype)


def log_softmax_cases():
    quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
    for dtype in (np.uint8, np.int8):
        lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
        tag = np.dtype(dtype).name
        # every code in a row, and rows of mostly equal codes (a large sum), several scales
        every = np.arange(lo, hi + 1).astype(dtype).reshape(2, 128)
        flat = np.full((3, 40), lo + 10, dtype)
        flat[1, 7], flat[2, :5] = hi, lo
        for scale, zp in ((0.1, lo + 100), (0.0235, (lo + hi + 1) // 2), (1.5, lo + 3), (1e-3, lo), (0.0625, hi)):
            for name, x in (("every", every), ("flat", flat), ("random", codes(dtype, (4, 3, 17)))):
                c = Case("log_softmax_%s_%s_scale%g" % (tag, name, scale))
                c.m.op(LOG_SOFTMAX, [c.input("x", x, quant((scale, zp)))],
                       [c.output("y", ref_log_softmax(x, scale, dtype), quant((16.0 / 256, hi)))])
                yield c


# ---- EXP, LOG, SQRT, RSQRT, ABS: a function of the code alone ---------------------

def round_away(v):
    """TfLiteRound on float32 values: half away from zero."""
    v = np.asarray(v, np.float64)
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def steps_to_codes(r, zero, info):
    """float32 steps + the zero point (in float32), clamped to the type."""
    v = np.asarray(r, F32) + F32(zero)
    return np.clip(np.nan_to_num(v.astype(np.float64), posinf=1e9, neginf=-1e9), info.min, info.max).astype(np.int64)


def ref_lut(op, x, qx, qo):
    """TFLite's rule per code (see kernels' sources named at the top of
    this file: exp.cc, elementwise.cc and LUTPopulate)."""
    info = np.iinfo(x.dtype)
    q = x.astype(np.int64) - qx[1]
    value = F32(qx[0]) * q.astype(F32)
    inverse = F32(1) / F32(qo[0])
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if op == "EXP":
            out = steps_to_codes(round_away(np.exp(value.astype(np.float64)).astype(F32) * inverse), qo[1], info)
        elif op == "LOG":
            low = F32(info.min - qo[1]) * F32(qo[0])
            y = np.where(value <= 0, low, np.log(np.maximum(value, 1e-30).astype(np.float64)).astype(F32)).astype(F32)
            out = steps_to_codes(round_away(y * inverse), qo[1], info)
        elif op == "ELU":
            y = np.where(value < 0, np.expm1(value.astype(np.float64)).astype(F32), value).astype(F32)
            out = steps_to_codes(round_away(y * inverse), qo[1], info)
        elif op == "SQRT":
            out = steps_to_codes(np.trunc(np.sqrt(value) / F32(qo[0])), qo[1], info)
        elif op == "RSQRT":
            m, sh = R.quantize_multiplier(1.0 / float(np.sqrt(F32(qx[0])) * F32(qo[0])))
            out = []
            for v in q.ravel():
                if v == 0:
                    out.append(info.max)
                    continue
                im, ish = inv_sqrt(int(v))
                data = R.mbqm(1, im, ish + 20)
                out.append(int(np.clip(R.mbqm(data, m, sh - 20) + qo[1], info.min, info.max)))
            out = np.array(out, np.int64).reshape(q.shape)
        else:  # ABS
            a = np.abs(q)
            if F32(qx[0]) != F32(qo[0]):
                a = R.mbqm(a, *R.quantize_multiplier(float(F32(qx[0]) / F32(qo[0]))))
            out = np.clip(a + qo[1], info.min, info.max)
    return out.astype(x.dtype)


def lut_case(name, op, x, qx, qo):
    c = Case(name)
    quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
    c.m.op({"EXP": EXP, "LOG": LOG, "ELU": ELU, "SQRT": SQRT, "RSQRT": RSQRT, "ABS": ABS}[op], [c.input("x", x, quant(qx))],
           [c.output("y", ref_lut(op, x, qx, qo), quant(qo))])
    return c


def lut_cases():
    i8, u8 = np.arange(-128, 128).astype(np.int8), np.arange(256).astype(np.uint8)
    yield lut_case("exp_int8_every_code", "EXP", i8, (0.05, 10), (1.5, -128))
    yield lut_case("exp_int8_overflowing", "EXP", i8, (1.0, 0), (0.5, 0))  # exp(89) and up: infinite in float
    yield lut_case("exp_uint8_every_code", "EXP", u8, (0.02, 200), (0.01, 0))
    yield lut_case("log_int8_every_code", "LOG", i8, (0.1, -100), (0.05, 20))  # values <= 0: the lowest code
    yield lut_case("log_uint8_every_code", "LOG", u8, (0.5, 3), (0.03, 60))
    yield lut_case("elu_int8_every_code", "ELU", i8, (0.04, 20), (0.03, 5))
    yield lut_case("elu_uint8_every_code", "ELU", u8, (0.1, 100), (0.05, 30))
    yield lut_case("sqrt_int8", "SQRT", np.arange(-50, 128).astype(np.int8), (0.3, -50), (0.07, -128))
    yield lut_case("rsqrt_int8", "RSQRT", i8, (0.01, -128), (0.1, -100))  # value 0: 127
    yield lut_case("rsqrt_int8_large_scale", "RSQRT", np.arange(3, 128).astype(np.int8), (40.0, 3), (0.002, 0))
    yield lut_case("abs_int8_rescaled", "ABS", i8, (0.05, -3), (0.03, -128))
    yield lut_case("abs_int8_same_scale", "ABS", i8, (0.05, 7), (0.05, -100))


# ---- SPACE_TO_BATCH_ND: codes moved, the padding the zero point's code ---------------

def space_to_batch_cases():
    for dtype, zero in ((np.int8, -7), (np.uint8, 131)):
        x = codes(dtype, (2, 5, 4, 3))
        pads = np.array([[1, 0], [0, 2]], np.int32)
        p = np.pad(x, [(0, 0), (1, 0), (0, 2), (0, 0)], constant_values=zero)
        b, h, w, ch = p.shape
        want = p.reshape(b, h // 2, 2, w // 3, 3, ch).transpose(2, 4, 0, 1, 3, 5).reshape(6 * b, h // 2, w // 3, ch)
        c = Case("space_to_batch_nd_" + np.dtype(dtype).name)
        q = ([F32(0.1)], [zero], 0)
        c.m.op(SPACE_TO_BATCH_ND, [c.input("x", x, q), c.const("block", np.array([2, 3], np.int32)),
                                   c.const("paddings", pads)], [c.output("y", np.ascontiguousarray(want), q)])
        yield c


# ---- REDUCE_PROD (int8) -----------------------------------------------------------

def multiply64(x, m, sh):
    """MultiplyByQuantizedMultiplier of an int64: the mantissa rounded to 16
    bits, one rounding right shift by 15 - shift."""
    reduced = (m + (1 << 15)) >> 16 if m < 0x7FFF0000 else 0x7FFF
    t = 15 - sh
    return R.wrap32((R.a64(x) * reduced + (1 << (t - 1))) >> t)


def reduce_prod_case(name, shape, axes, keep, qx, qo):
    x = codes(np.int8, shape, -12, 12)
    reduced = sorted(a % len(shape) for a in axes)
    kept = [d for d in range(len(shape)) if d not in reduced]
    count = int(np.prod([shape[d] for d in reduced]))
    m, sh = R.quantize_multiplier(float(F32(qx[0])) / math.pow(float(F32(qo[0])), 1.0 / count))
    rows = (x.astype(np.int64) - qx[1]).transpose(kept + reduced).reshape(-1, count)
    acc = rows[:, 0]
    for k in range(1, count):
        acc = multiply64(acc * rows[:, k], m, sh)
    out = np.clip(multiply64(acc, m, sh) + qo[1], -128, 127).astype(np.int8)
    out_shape = [1 if d in reduced else shape[d] for d in range(len(shape))] if keep else [shape[d] for d in kept]
    c = Case(name)
    quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
    c.m.op(REDUCE_PROD, [c.input("x", x, quant(qx)), c.const("axis", np.array(axes, np.int32))],
           [c.output("y", out.reshape(out_shape), quant(qo))], REDUCER_OPTIONS, {0: ("bool", keep)})
    return c


def reduce_prod_cases():
    yield reduce_prod_case("reduce_prod_int8", (2, 3, 4), [2], False, (0.1, 3), (0.01, -5))
    yield reduce_prod_case("reduce_prod_int8_two_axes_keep_dims", (2, 3, 4), [0, -1], True, (0.25, -2), (2.0, 1))


def cast_cases():
    """CAST of a quantized tensor: the codes themselves as values (TFLite's
    cast ignores the quantization)."""
    for dtype, to in ((np.int8, np.float32), (np.uint8, np.int32)):
        x = codes(dtype, (3, 7))
        c = Case("cast_%s_to_%s" % (np.dtype(dtype).name, np.dtype(to).name))
        c.m.op(CAST, [c.input("x", x, ([F32(0.1)], [3], 0))], [c.output("y", x.astype(to))])
        yield c


# ---- comparisons of tensors quantized differently -------------------------------

def compared_values(x, q):
    """ComparisonWithScaling: (code - zero point) << 8 times the scale as a
    multiplier below one (doubling high multiply, rounding right shift)."""
    m, sh = R.quantize_multiplier(float(F32(q[0])))
    return R.rdbp(R.srdhm((R.a64(x) - q[1]) << 8, m), -sh)


def comparison_cases():
    for dtype, qa, qb in ((np.int8, (0.5, -3), (0.25, 9)), (np.uint8, (0.02, 128), (0.0300001, 120))):
        a = codes(dtype, (4, 1, 16))
        b = codes(dtype, (3, 16))
        # equal values in both scales: ties of the comparison
        b[0, :8] = np.clip((a[0, 0, :8].astype(np.int64) - qa[1]) * 2 + qb[1], np.iinfo(dtype).min,
                           np.iinfo(dtype).max) if dtype == np.int8 else b[0, :8]
        va, vb = compared_values(a, qa), compared_values(b, qb)
        for name, (code, fn) in COMPARISONS.items():
            c = Case("%s_%s_two_scales" % (name, np.dtype(dtype).name))
            quant = lambda q: ([F32(q[0])], [q[1]], 0)  # noqa: E731
            c.m.op(code, [c.input("a", a, quant(qa)), c.input("b", b, quant(qb))], [c.output("y", fn(va, vb))])
            yield c


def main(d):
    os.makedirs(d, exist_ok=True)
    for group in (transpose_conv_cases, batch_matmul_cases, div_cases, saturating_mul_cases, log_softmax_cases, lut_cases, space_to_batch_cases,
                  cast_cases, comparison_cases, reduce_prod_cases):
        for case in group():
            print(case.write(d))


if __name__ == "__main__":
    main(sys.argv[1])
