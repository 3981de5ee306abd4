/* tflite_fixed_point.h - TensorFlow Lite's integer arithmetic, written
 * once for every kernel of a quantized .tflite operator: a real factor
 * (such as in_scale * w_scale / out_scale) as a Q31 mantissa and a
 * power-of-two shift, the rescale of an int32 sum by it (a saturating
 * rounding doubling high multiply, then a rounding right shift: the
 * "double rounding" of TFLite's reference kernels, which is what its
 * builds use by default), and the clamp a fused activation becomes.
 * Definitions: ../shared/docs/tflite.md ("Numbers") and TFLite's
 * reference kernels (quantization_util, common.h). Everything here is
 * defined for every input: the shifts of large exponents, INT32_MIN
 * squared and a left shift that overflows wrap or saturate as TFLite's
 * builds do instead of being undefined in C. */
#ifndef TFPI_TFLITE_FIXED_POINT_H
#define TFPI_TFLITE_FIXED_POINT_H

#include <stdbool.h>
#include <stdint.h>

/* A real multiplier m = mantissa * 2^(shift - 31), mantissa in [2^30, 2^31)
 * or 0 (m == 0, or so small that TFLite flushes it to zero). */
typedef struct tp_tfl_multiplier {
    int32_t mantissa;
    int shift; /* > 0: a left shift before the multiply; < 0: a right shift after */
} tp_tfl_multiplier;

/* TFLite's QuantizeMultiplier: frexp, the mantissa rounded half away from
 * zero to Q31 (2^31 becomes 2^30 with shift + 1), shifts below -31 flushed
 * to a zero multiplier. false (and a zero multiplier) when m is negative,
 * not finite, or needs a shift past 30 (a factor of 2^30 or more: no
 * TFLite kernel accepts one). */
bool tp_tfl_quantize_multiplier(double m, tp_tfl_multiplier *out);

/* gemmlowp's SaturatingRoundingDoublingHighMul: a * b / 2^31 rounded to
 * nearest with ties toward +infinity (its nudge and truncating division:
 * -50.5 gives -50); INT32_MIN * INT32_MIN saturates to INT32_MAX. */
static inline int32_t tp_tfl_rounding_doubling_high_mul(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    const int64_t ab = (int64_t)a * b;
    const int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* gemmlowp's RoundingDivideByPOT: x / 2^exponent (0 <= exponent <= 31)
 * rounded to nearest, ties away from zero. */
static inline int32_t tp_tfl_rounding_divide_by_pot(int32_t x, int exponent)
{
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    /* An arithmetic shift, spelt so that it is one in C too. */
    const int32_t quotient = x >= 0 ? x >> exponent : -(int32_t)((~(uint32_t)x) >> exponent) - 1;
    return quotient + (remainder > threshold ? 1 : 0);
}

/* TFLite's MultiplyByQuantizedMultiplier: x * 2^left (wrapping in 32 bits,
 * as TFLite's builds do), the doubling high multiply, then the rounding
 * right shift. */
static inline int32_t tp_tfl_multiply(int32_t x, tp_tfl_multiplier m)
{
    const int left = m.shift > 0 ? m.shift : 0, right = m.shift > 0 ? 0 : -m.shift;
    const int32_t shifted = (int32_t)((uint32_t)x << left);
    return tp_tfl_rounding_divide_by_pot(tp_tfl_rounding_doubling_high_mul(shifted, m.mantissa), right);
}

/* ---- gemmlowp's fixed-point functions (the exp, logistic and tanh of
 * TFLite's softmax, LOGISTIC and TANH kernels). A value with k integer
 * bits ("Qk") is an int32 raw r standing for r / 2^(31 - k); Q0 holds
 * [-1, 1) and its "one" is INT32_MAX. Additions wrap as TFLite's builds
 * do (they never overflow on the ranges these functions are used on). */

/* gemmlowp's SaturatingRoundingMultiplyByPOT: x * 2^exponent, a left shift
 * saturated to the int32 range (exponent > 0) or the rounding right shift
 * (exponent < 0); |exponent| <= 31. Also Rescale between formats. */
static inline int32_t tp_tfl_mul_by_pot(int32_t x, int exponent)
{
    if (exponent <= 0)
        return tp_tfl_rounding_divide_by_pot(x, -exponent);
    const int64_t shifted = (int64_t)x * ((int64_t)1 << exponent);
    return shifted > INT32_MAX ? INT32_MAX : shifted < INT32_MIN ? INT32_MIN : (int32_t)shifted;
}

/* The leading zero bits of x (32 for 0). */
static inline int tp_tfl_leading_zeros(uint32_t x) { return x ? __builtin_clz(x) : 32; }

/* exp(a) for a <= 0 given with integer_bits (0..30), as Q0 (gemmlowp's
 * exp_on_negative_values: a polynomial on [-1/4, 0) and a barrel of
 * exp(-2^k) factors; exp(0) is one, below -32 zero). */
int32_t tp_tfl_exp_on_negative_values(int32_t a, int integer_bits);

/* 1 / (1 + x) for x in [0, 1) as Q0, by three Newton-Raphson steps
 * (gemmlowp's one_over_one_plus_x_for_x_in_0_1). */
int32_t tp_tfl_one_over_one_plus_x(int32_t x);

/* log(x) for x >= 1 given with input_integer_bits, as a value with
 * output_integer_bits (TFLite's log_x_for_x_greater_than_or_equal_to_1:
 * x split into a power of two, a multiple of 2^(1/4), and a mantissa in
 * [2^-1/2, 1) whose log a rational function gives). */
int32_t tp_tfl_log_x_ge_1(int32_t x, int input_integer_bits, int output_integer_bits);

/* The logistic and tanh of a (integer_bits 0..29), as Q0. */
int32_t tp_tfl_logistic(int32_t a, int integer_bits);
int32_t tp_tfl_tanh(int32_t a, int integer_bits);

/* The same on gemmlowp's 16-bit values (FixedPoint<int16_t, k>: raw r
 * stands for r / 2^(15 - k), Q0's one is 32767; constants rounded from the
 * 32-bit ones, the polynomial's last sum saturating), as TFLite's integer
 * LSTM applies them to its int16 gates: a with integer_bits (0..6), the
 * result Q0. */
int16_t tp_tfl_logistic16(int16_t a, int integer_bits);
int16_t tp_tfl_tanh16(int16_t a, int integer_bits);

/* TFLite's GetReciprocal: 1 / x for x > 0 given with integer_digits, as a
 * Q0 mantissa of 1 / (x scaled to [1, 2)) and, in *bits_over_unit, the
 * power of two the caller shifts the result right by to undo the scaling. */
int32_t tp_tfl_reciprocal(int32_t x, int integer_digits, int *bits_over_unit);

/* TFLite's GetInvSqrtQuantizedMultiplierExp with a reverse shift of -1:
 * 1 / sqrt(x) as a multiplier (*mantissa, *shift) for tp_tfl_multiply,
 * from five Newton-Raphson steps in Q3; x <= 1 gives (INT32_MAX, 0). */
void tp_tfl_inv_sqrt(int32_t x, int32_t *mantissa, int *shift);

/* TFLite's CalculateInputRadius: the largest input difference whose
 * rescaled value (by a multiplier with this left shift) still fits
 * integer_bits of total_bits: floor((2^ib - 1) * 2^(tb - ib) / 2^shift). */
int32_t tp_tfl_input_radius(int integer_bits, int left_shift, int total_bits);

/* The fused activations of TFLite's schema (ActivationFunctionType). */
typedef enum tp_tfl_activation {
    TP_TFL_ACT_NONE = 0,
    TP_TFL_ACT_RELU = 1,
    TP_TFL_ACT_RELU_N1_TO_1 = 2,
    TP_TFL_ACT_RELU6 = 3,
    TP_TFL_ACT_TANH = 4,
    TP_TFL_ACT_SIGN_BIT = 5,
} tp_tfl_activation;

/* TFLite's CalculateActivationRangeQuantized: the codes [*lo, *hi] an
 * output of this scale and zero point is clamped to, inside [qmin, qmax]
 * (the type's codes); each bound is zero_point + round(bound / scale),
 * float division, rounded half away from zero. false for TANH and SIGN_BIT,
 * which no quantized kernel fuses. */
bool tp_tfl_activation_range(tp_tfl_activation act, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                             int32_t *lo, int32_t *hi);

/* The activation's bounds for float outputs (-inf/inf where unbounded);
 * false for TANH and SIGN_BIT. */
bool tp_tfl_activation_range_float(tp_tfl_activation act, float *lo, float *hi);

#endif
