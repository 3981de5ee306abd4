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
