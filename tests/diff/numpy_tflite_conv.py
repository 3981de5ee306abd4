"""numpy_tflite_conv.py - TensorFlow Lite's quantized CONV_2D,
DEPTHWISE_CONV_2D and FULLY_CONNECTED (int8 and uint8) in numpy, written
from TFLite's documented integer rules, not from tfpi's C: the reference
tests/unit/test_tflite_conv.c compares tfpi's kernels with.

    numpy_tflite_conv.py CASES OUT

CASES holds the cases the C test wrote (see read_cases: one "key values..."
line per field, floats as the hex of their float32 bits, a case ending with
"end"); OUT receives one line per case: "out ID" and the output codes.

The rules:
- real value = scale * (q - zero_point); each output is
  zero_out + rescale(bias + sum over in-image taps of
  (x - zero_in) * (w - zero_filter)), clamped to the activation's codes; the
  sum is int32 and wraps.
- rescale: the real factor split by QuantizeMultiplier (frexp; the mantissa
  times 2^31 rounded half away from zero; 2^31 becomes 2^30 with the
  exponent + 1; exponents below -31 give a zero multiplier), then
  MultiplyByQuantizedMultiplier: x times 2^left (wrapping in 32 bits),
  gemmlowp's SaturatingRoundingDoublingHighMul (a * b + nudge, nudge
  2^30 or 1 - 2^30 by the sign of a * b, divided by 2^31 truncating toward
  zero; INT32_MIN * INT32_MIN saturates), then RoundingDivideByPOT (ties
  away from zero) by 2^right.
- the real factor: uint8 operators and per-tensor FULLY_CONNECTED:
  float64(float32(in_scale * filter_scale)) / out_scale; int8 convolutions
  (and per-channel FULLY_CONNECTED): in_scale * filter_scale[c] / out_scale
  in float64.
- activation codes: zero_out + round(bound / scale) (float32 division,
  half away from zero) for RELU [0, inf), RELU_N1_TO_1 [-1, 1], RELU6
  [0, 6], within the type's codes.
- padding SAME: out = ceil(in / stride), the smaller half of the total
  padding before; VALID: out = (in + stride - span) // stride, no padding.
"""
import math
import sys

import numpy as np

INT32 = 1 << 32


def wrap32(x):
    return ((np.asarray(x, dtype=np.int64) + (1 << 31)) % INT32) - (1 << 31)


def quantize_multiplier(real):
    if real == 0.0:
        return 0, 0
    q, exponent = math.frexp(real)
    fixed = int(math.floor(q * 2.0 ** 31 + 0.5))
    if fixed == 1 << 31:
        fixed //= 2
        exponent += 1
    if exponent < -31:
        return 0, 0
    assert exponent <= 30, real
    return fixed, exponent


def doubling_high_mul(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    s = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    q = np.where(s >= 0, s >> 31, -((-s) >> 31))
    return np.where((a == -(1 << 31)) & (b == -(1 << 31)), (1 << 31) - 1, q)


def rounding_divide_by_pot(x, exponent):
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def rescale(acc, fixed, exponent):
    left = np.maximum(exponent, 0)
    right = np.maximum(-exponent, 0)
    shifted = wrap32(np.asarray(acc, dtype=np.int64) * (np.int64(1) << left))
    return rounding_divide_by_pot(doubling_high_mul(shifted, fixed), right)


def round_away(v):
    v = float(v)
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def activation_codes(act, scale, zero, qmin, qmax):
    bounds = {0: (None, None), 1: (0.0, None), 2: (-1.0, 1.0), 3: (0.0, 6.0)}[act]

    def code(bound, default, pick):
        if bound is None:
            return default
        return pick(default, zero + round_away(np.float32(bound) / np.float32(scale)))
    return code(bounds[0], qmin, max), code(bounds[1], qmax, min)


def out_size(same, size, window, stride, dilation):
    span = (window - 1) * dilation + 1
    if same:
        out = (size + stride - 1) // stride
        total = max(0, (out - 1) * stride + span - size)
        return out, total // 2
    return max(0, (size + stride - span) // stride), 0


def tap_values(x, zero, oy, ox):
    """x - zero at input rows oy, columns ox (per output pixel), 0 outside."""
    h, w = x.shape[1], x.shape[2]
    ys = oy[:, None]
    xs = ox[None, :]
    inside = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
    vals = x[:, np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1), :].astype(np.int64) - zero
    return vals * inside[None, :, :, None]


def conv_sums(case, x, w):
    kind = case["kind"]
    sh, sw, dh, dw, same = case["stride_h"], case["stride_w"], case["dil_h"], case["dil_w"], case["same"]
    n, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    out_h, pad_top = out_size(same, h, kh, sh, dh)
    out_w, pad_left = out_size(same, wd, kw, sw, dw)
    out_c = w.shape[0] if kind == 0 else w.shape[3]
    acc = np.zeros((n, out_h, out_w, out_c), dtype=np.int64)
    for ky in range(kh):
        for kx in range(kw):
            oy = np.arange(out_h) * sh - pad_top + ky * dh
            ox = np.arange(out_w) * sw - pad_left + kx * dw
            v = tap_values(x, case["in_zero"], oy, ox)
            if kind == 0:
                filt = w[:, ky, kx, :].astype(np.int64) - case["f_zero"]
                acc += np.einsum("nhwc,oc->nhwo", v, filt)
            else:
                filt = w[0, ky, kx, :].astype(np.int64) - case["f_zero"]
                acc += np.repeat(v, out_c // c, axis=3) * filt
    return acc


def evaluate(case):
    dtype = np.int8 if case["int8"] else np.uint8
    qmin, qmax = (-128, 127) if case["int8"] else (0, 255)
    x = np.array(case["input"], dtype=dtype).reshape(case["in_dims"])
    w = np.array(case["filter"], dtype=dtype).reshape(case["filter_dims"])
    if case["kind"] == 2:
        depth = w.shape[1]
        rows = x.astype(np.int64).reshape(-1, depth) - case["in_zero"]
        acc = rows @ (w.astype(np.int64) - case["f_zero"]).T
    else:
        acc = conv_sums(case, x, w)
    out_c = acc.shape[-1]
    if case["bias"]:
        acc = acc + np.array(case["bias"], dtype=np.int64)
    acc = wrap32(acc)
    in_s, out_s, f_s = case["in_scale"], case["out_scale"], case["f_scales"]
    per_tensor_rule = not case["int8"] or (case["kind"] == 2 and len(f_s) == 1)
    fixed = np.zeros(out_c, dtype=np.int64)
    exponent = np.zeros(out_c, dtype=np.int64)
    for ch in range(out_c):
        if per_tensor_rule:
            real = float(np.float32(in_s) * np.float32(f_s[0])) / float(out_s)
        else:
            real = float(in_s) * float(f_s[ch if len(f_s) > 1 else 0]) / float(out_s)
        fixed[ch], exponent[ch] = quantize_multiplier(real)
    lo, hi = activation_codes(case["act"], case["out_scale"], case["out_zero"], qmin, qmax)
    out = wrap32(rescale(acc, fixed, exponent) + case["out_zero"])
    return np.clip(out, lo, hi).reshape(-1)


def hex_float(text):
    return np.uint32(int(text, 16)).view(np.float32)


def read_cases(path):
    cases, case = [], None
    ints = ("id", "kind", "int8", "act", "same", "stride_h", "stride_w", "dil_h", "dil_w",
            "in_zero", "out_zero", "f_zero")
    for line in open(path):
        words = line.split()
        if not words:
            continue
        key, values = words[0], words[1:]
        if key == "case":
            case = {}
        elif key == "end":
            cases.append(case)
        elif key in ints:
            case[key] = int(values[0])
        elif key in ("in_scale", "out_scale"):
            case[key] = hex_float(values[0])
        elif key == "f_scales":
            case[key] = [hex_float(v) for v in values]
        else:
            case[key] = [int(v) for v in values]
    return cases


def main():
    cases = read_cases(sys.argv[1])
    with open(sys.argv[2], "w") as out:
        for case in cases:
            values = evaluate(case)
            out.write("out %d %s\n" % (case["id"], " ".join(str(int(v)) for v in values)))


if __name__ == "__main__":
    main()
