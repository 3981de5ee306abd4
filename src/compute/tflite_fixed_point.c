/* tflite_fixed_point.c - the parts of TensorFlow Lite's integer
 * arithmetic that run once per node, while planning: a real factor split
 * into a Q31 mantissa and a shift, and the clamp of a fused activation. */
#include "compute/tflite_fixed_point.h"

#include <math.h>

bool tp_tfl_quantize_multiplier(double m, tp_tfl_multiplier *out)
{
    *out = (tp_tfl_multiplier){0, 0};
    if (!(m >= 0.0) || !isfinite(m))
        return false;
    if (m == 0.0)
        return true;
    int shift;
    const double q = frexp(m, &shift); /* m = q * 2^shift, q in [0.5, 1) */
    int64_t fixed = (int64_t)round(q * (double)((int64_t)1 << 31));
    if (fixed == (int64_t)1 << 31) {
        fixed /= 2;
        shift++;
    }
    if (shift < -31)
        return true; /* flushed to zero, as TFLite does */
    if (shift > 30)
        return false;
    *out = (tp_tfl_multiplier){(int32_t)fixed, shift};
    return true;
}

/* zero_point + round(x / scale), rounded half away from zero, saturated to
 * the int32 range (a hostile scale must not make the conversion undefined). */
static int64_t quantize_bound(float x, float scale, int32_t zero_point)
{
    const float steps = roundf(x / scale);
    if (!(steps > -4e9f))
        return INT32_MIN;
    if (!(steps < 4e9f))
        return INT32_MAX;
    return (int64_t)zero_point + (int64_t)steps;
}

static int32_t clamp_code(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

bool tp_tfl_activation_range(tp_tfl_activation act, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                             int32_t *lo, int32_t *hi)
{
    float flo, fhi;
    if (!tp_tfl_activation_range_float(act, &flo, &fhi))
        return false;
    *lo = isinf(flo) ? qmin : clamp_code(quantize_bound(flo, scale, zero_point), qmin, qmax);
    *hi = isinf(fhi) ? qmax : clamp_code(quantize_bound(fhi, scale, zero_point), qmin, qmax);
    return true;
}

bool tp_tfl_activation_range_float(tp_tfl_activation act, float *lo, float *hi)
{
    switch (act) {
    case TP_TFL_ACT_NONE:
        *lo = -INFINITY, *hi = INFINITY;
        return true;
    case TP_TFL_ACT_RELU:
        *lo = 0.0f, *hi = INFINITY;
        return true;
    case TP_TFL_ACT_RELU_N1_TO_1:
        *lo = -1.0f, *hi = 1.0f;
        return true;
    case TP_TFL_ACT_RELU6:
        *lo = 0.0f, *hi = 6.0f;
        return true;
    default:
        return false;
    }
}
