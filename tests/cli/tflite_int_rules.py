"""tflite_int_rules.py - TensorFlow Lite's integer arithmetic in numpy, for
the tests of the TFLite operator kernels: written from the definitions in
TFLite's reference kernels (tensorflow/tflite-micro:
tensorflow/lite/kernels/internal/common.h, quantization_util.cc and
gemmlowp's fixedpoint.h), vectorized over int64 arrays, sharing nothing
with tfpi's C code. Every function takes and returns numpy int64 arrays
holding int32 values (or Python ints).

Conventions: a "Qk" value has k integer bits: raw r stands for
r / 2^(31 - k); Q0's one is 2^31 - 1."""
import math

import numpy as np

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def a64(x):
    return np.asarray(x, dtype=np.int64)


def wrap32(x):
    """Keeps the low 32 bits as a signed value (C's int32 wrap)."""
    x = a64(x)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def trunc_div(a, b):
    """C's integer division: the quotient rounded toward zero."""
    a, b = a64(a), a64(b)
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def quantize_multiplier(m):
    """QuantizeMultiplier: (mantissa, shift) with m = mantissa * 2^(shift - 31),
    the mantissa rounded half away from zero (TfLiteRound), 2^31 folded to
    2^30 with one more shift, shifts below -31 flushed to (0, 0)."""
    if m == 0:
        return 0, 0
    q, shift = math.frexp(m)
    fixed = int(math.floor(abs(q) * 2.0**31 + 0.5)) * (1 if q >= 0 else -1)
    if fixed == 1 << 31:
        fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return fixed, shift


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul: a * b / 2^31, ties toward +inf
    (the nudge and a truncating division), MIN * MIN saturating."""
    a, b = a64(a), a64(b)
    prod = a * b  # exact: |a|, |b| <= 2^31
    nudge = np.where(prod >= 0, 1 << 30, 1 - (1 << 30))
    out = trunc_div(prod + nudge, 1 << 31)
    return np.where((a == I32_MIN) & (b == I32_MIN), I32_MAX, out)


def rdbp(x, exponent):
    """RoundingDivideByPOT: x / 2^exponent rounded half away from zero."""
    x = a64(x)
    exponent = a64(exponent)
    mask = (a64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + np.where(x < 0, 1, 0)
    return (x >> exponent) + np.where(remainder > threshold, 1, 0)


def mul_by_pot(x, exponent):
    """SaturatingRoundingMultiplyByPOT (and Rescale): a saturating left
    shift for exponent > 0, rdbp otherwise."""
    if exponent <= 0:
        return rdbp(x, -exponent)
    return np.clip(a64(x) << exponent, I32_MIN, I32_MAX)


def mbqm(x, mantissa, shift):
    """MultiplyByQuantizedMultiplier: x shifted left (wrapping at 32 bits),
    the doubling high multiply, then the rounding right shift."""
    left = max(shift, 0)
    right = max(-shift, 0)
    return rdbp(srdhm(wrap32(a64(x) << left), mantissa), right)


def half_sum(a, b):
    """RoundingHalfSum: (a + b) / 2, half away from zero, C's truncation."""
    s = a64(a) + a64(b)
    return trunc_div(s + np.where(s >= 0, 1, -1), 2)


def exp_on_negative_values(a, integer_bits):
    """gemmlowp's exp for a <= 0 in Q(integer_bits), result Q0."""
    a = a64(a)
    frac = 31 - integer_bits
    quarter = 1 << (frac - 2)
    r = (a & (quarter - 1)) - quarter
    x = mul_by_pot(r, integer_bits) + (1 << 28)
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    poly = rdbp(srdhm(rdbp(x4, 2) + x3, 715827883) + x2, 1)
    c = 1895147668
    result = c + srdhm(c, x + poly)
    remainder = r - a
    for k, factor in zip(range(-2, 5), (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)):
        if integer_bits > k:
            bit = (remainder >> (frac + k)) & 1
            result = np.where(bit == 1, srdhm(result, factor), result)
    if integer_bits > 5:
        result = np.where(a < -(1 << (36 - integer_bits)), 0, result)
    return np.where(a == 0, I32_MAX, result)


def _newton_reciprocal(half_denominator):
    x = 1515870810 + srdhm(half_denominator, -1010580540)
    for _ in range(3):
        x = x + mul_by_pot(srdhm(x, (1 << 29) - srdhm(half_denominator, x)), 2)
    return x


def one_over_one_plus_x(x):
    return mul_by_pot(_newton_reciprocal(half_sum(x, I32_MAX)), 1)


def one_minus_x_over_one_plus_x(x):
    return mul_by_pot(_newton_reciprocal(half_sum(x, I32_MAX)) - (1 << 29), 2)


def logistic(a, integer_bits):
    a = a64(a)
    magnitude = np.abs(a)
    positive = one_over_one_plus_x(exp_on_negative_values(-magnitude, integer_bits))
    out = np.where(a > 0, positive, I32_MAX - positive)
    return np.where(a == 0, 1 << 30, out)


def tanh(a, integer_bits):
    a = a64(a)
    t = one_minus_x_over_one_plus_x(exp_on_negative_values(-np.abs(a), integer_bits + 1))
    return np.where(a == 0, 0, np.where(a < 0, -t, t))


def leading_zeros(x):
    x = int(x) & 0xFFFFFFFF
    return 32 - x.bit_length()


def reciprocal(x, integer_digits):
    """GetReciprocal: (Q0 mantissa, bits over unit)."""
    headroom = leading_zeros(x)
    shifted = ((int(x) << headroom) & 0xFFFFFFFF) - (1 << 31)
    return int(one_over_one_plus_x(wrap32(shifted))), integer_digits - headroom


def input_radius(integer_bits, left_shift, total_bits):
    return min(I32_MAX, math.floor(((1 << integer_bits) - 1) * 2.0 ** (total_bits - integer_bits - left_shift)))


def activation_range(act, scale, zero_point, qmin, qmax):
    """CalculateActivationRangeQuantized: bounds zero_point + round(b / scale)
    (float32 division, rounded half away from zero), within [qmin, qmax]."""
    lo, hi = {"NONE": (None, None), "RELU": (0.0, None), "RELU6": (0.0, 6.0),
              "RELU_N1_TO_1": (-1.0, 1.0)}[act]

    def code(b):
        v = np.float32(b) / np.float32(scale)
        return zero_point + int(math.floor(abs(float(v)) + 0.5)) * (1 if v >= 0 else -1)
    low = qmin if lo is None else max(qmin, code(lo))
    high = qmax if hi is None else min(qmax, code(hi))
    return low, high
