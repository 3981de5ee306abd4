/* quantize_math.c - TensorFlow's quantization arithmetic (see
 * quantize_math.h). Each expression follows ../shared/docs/quantized.md
 * section 1.2 step by step: a (float) cast marks every float32 rounding TF
 * makes, double arithmetic is kept where TF's scalar code uses it. */
#include "compute/quantize_math.h"

#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#include <math.h>
#include <stddef.h>

enum { BLOCK = 32 }; /* a fixed trip count lets -O2 vectorize the loops of the _many forms */

static const tp_qtype qtypes[] = {
    {TFPI_QUINT8, 8, 0, 255},
    {TFPI_QINT8, 8, -128, 127},
    {TFPI_QUINT16, 16, 0, 65535},
    {TFPI_QINT16, 16, -32768, 32767},
    {TFPI_QINT32, 32, INT32_MIN, INT32_MAX},
};

const tp_qtype *tp_qtype_of(tfpi_dtype dtype)
{
    for (size_t i = 0; i < sizeof qtypes / sizeof *qtypes; i++)
        if (qtypes[i].dtype == dtype)
            return &qtypes[i];
    return NULL;
}

int64_t tp_qcode_get(const tp_qtype *t, const void *data, int64_t i)
{
    switch (t->dtype) {
    case TFPI_QUINT8: return ((const uint8_t *)data)[i];
    case TFPI_QINT8: return ((const int8_t *)data)[i];
    case TFPI_QUINT16: return ((const uint16_t *)data)[i];
    case TFPI_QINT16: return ((const int16_t *)data)[i];
    default: return ((const int32_t *)data)[i];
    }
}

void tp_qcode_set(const tp_qtype *t, void *data, int64_t i, int64_t code)
{
    switch (t->dtype) {
    case TFPI_QUINT8: ((uint8_t *)data)[i] = (uint8_t)code; break;
    case TFPI_QINT8: ((int8_t *)data)[i] = (int8_t)code; break;
    case TFPI_QUINT16: ((uint16_t *)data)[i] = (uint16_t)code; break;
    case TFPI_QINT16: ((int16_t *)data)[i] = (int16_t)code; break;
    default: ((int32_t *)data)[i] = (int32_t)code; break;
    }
}

int64_t tp_q_saturate_i64(double x)
{
    if (x != x)
        return 0;
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    if (x <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)x;
}

static int64_t clamp_code(int64_t q, const tp_qtype *t) { return q < t->lo ? t->lo : q > t->hi ? t->hi : q; }

/* 2^bits / (2^bits - 1): TF widens the range by one step. */
static double range_adjust(const tp_qtype *t)
{
    double steps = ldexp(1.0, t->bits);
    return steps / (steps - 1.0);
}

int64_t tp_q_f2qu(double x, float min, float max, const tp_qtype *t)
{
    if (min == max)
        return t->lo;
    double range = (double)(float)(max - min) * range_adjust(t);
    double scale = ldexp(1.0, t->bits) / range;
    /* each rounded term is an integer-valued double; the sum saturates */
    double q = round(x * scale) - round((double)min * scale);
    int64_t code = tp_q_saturate_i64(q);
    return code > INT64_MAX / 2 ? INT64_MAX / 2 : code < INT64_MIN / 2 ? INT64_MIN / 2 : code + t->lo;
}

int64_t tp_q_f2q(double x, float min, float max, const tp_qtype *t)
{
    return clamp_code(tp_q_f2qu(x, min, max, t), t);
}

float tp_q_q2f(int64_t q, float min, float max, const tp_qtype *t)
{
    if (min == max)
        return min;
    double range = (double)(float)(max - min) * range_adjust(t);
    double range_scale = range / ldexp(1.0, t->bits);
    float step = (float)range_scale;
    float min_rounded = (float)(roundf((float)(min / step)) * step);
    return (float)((double)min_rounded + (double)(q - t->lo) * range_scale);
}

/* A float to a code within both T's range and int32's, as TF's Eigen
 * cast after clamping to [max(lo, -2^31), min(hi, 2147483520)]. */
static int64_t float_to_code(float v, float lo, float hi)
{
    if (v != v)
        return (int64_t)lo; /* NaN: TF's cast is undefined; the lowest code */
    v = v < lo ? lo : v > hi ? hi : v;
    return (int64_t)v;
}

tp_q_quantizer tp_q_quantizer_make(float min, float max, const tp_qtype *t)
{
    tp_q_quantizer qz;
    qz.scale = min == max ? 0.0f : (float)((ldexp(1.0, t->bits) - 1.0) / (double)(float)(max - min));
    float min_scaled = roundf((float)(min * qz.scale));
    qz.offset = (float)(min_scaled - (float)t->lo);
    qz.lo = fmaxf((float)t->lo, -2147483648.0f);
    qz.hi = fminf((float)t->hi, 2147483520.0f);
    return qz;
}

/* roundf, written so it vectorizes: y - truncf(y) is exact. */
static inline float round_half_away(float y)
{
    float whole = truncf(y);
    return fabsf(y - whole) >= 0.5f ? whole + copysignf(1.0f, y) : whole;
}

int64_t tp_q_quantize_e(const tp_q_quantizer *qz, float x)
{
    float v = (float)(round_half_away((float)(x * qz->scale)) - qz->offset);
    return float_to_code(v, qz->lo, qz->hi);
}

/* tp_q_quantize_e for quint8 in integers, without branches: the scaled
 * value clamped to [offset - 1, offset + 256] (NaN to the low end), which
 * gives the codes the whole line gives, is truncated (exact) and rounded
 * half away from zero by its exact fraction. The float subtraction of the
 * offset TF does is exact there. Bounds held in variables, not constants,
 * let gcc -O2 vectorize the clamp with the conversion after it. */
static inline uint8_t quantize_u8(float x, float scale, float low, float high, int32_t offset)
{
    float s = (float)(x * scale);
    s = s > low ? s : low;
    s = s < high ? s : high;
    int32_t whole = (int32_t)s;
    float fraction = (float)(s - (float)whole);
    int32_t v = whole + (fraction >= 0.5f) - (fraction <= -0.5f) - offset;
    v = v < 0 ? 0 : v;
    return (uint8_t)(v > 255 ? 255 : v);
}

void tp_q_quantize_many_u8(const tp_q_quantizer *qz, const float *restrict x, uint8_t *restrict out, int64_t n)
{
    int64_t i = 0;
    if (fabsf(qz->offset) <= 1048576.0f) { /* always so for QuantizeV2's ranges, which hold 0 */
        const float scale = qz->scale, low = (float)(qz->offset - 1.0f), high = (float)(qz->offset + 256.0f);
        const int32_t offset = (int32_t)qz->offset;
        for (; i + BLOCK <= n; i += BLOCK)
            for (int j = 0; j < BLOCK; j++)
                out[i + j] = quantize_u8(x[i + j], scale, low, high, offset);
    }
    for (; i < n; i++)
        out[i] = (uint8_t)tp_q_quantize_e(qz, x[i]);
}

tp_q_dequantizer tp_q_dequantizer_make(float min, float max, const tp_qtype *t)
{
    tp_q_dequantizer dq;
    dq.scale = (float)((double)(float)(max - min) / (ldexp(1.0, t->bits) - 1.0));
    float min_rounded = max == min ? min : (float)(roundf((float)(min / dq.scale)) * dq.scale);
    dq.base = (float)(min_rounded - (float)((float)t->lo * dq.scale));
    return dq;
}

float tp_q_dequantize_e(const tp_q_dequantizer *dq, int64_t q)
{
    float scaled = (float)((float)q * dq->scale);
    return (float)(dq->base + scaled);
}

float tp_q_level(float min, float max, const tp_qtype *t)
{
    return (float)((float)(max - min) / (float)(t->hi - t->lo));
}

void tp_q_range_for_multiplication(float min_a, float max_a, float min_b, float max_b, const tp_qtype *t,
                                   float *min_c, float *max_c)
{
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    float level = (float)(tp_q_level(min_a, max_a, u8) * tp_q_level(min_b, max_b, u8));
    *min_c = (float)(level * (float)t->lo);
    *max_c = (float)(level * (float)t->hi);
}

tp_q_requantizer tp_q_requantizer_make(float in_min, float in_max, float out_min, float out_max)
{
    float in_range = (float)(in_max - in_min);
    float out_range = (float)(out_max - out_min);
    float recip = out_range == 0 ? 0.0f : (float)(255.0 / (double)out_range);
    float zero_in = (float)((double)(float)(in_min + in_max) / 2.0);
    int64_t scale_fp = out_range == 0 ? 0 : tp_q_saturate_i64(255.0 * 65536 * (double)in_range / (double)out_range);
    int64_t in_offset_fp = tp_q_saturate_i64((double)(float)((float)(zero_in * recip) * 65536.0f));
    int64_t out_offset_fp =
        out_range == 0 ? 0 : tp_q_saturate_i64(65536 * ((double)out_min * 255.0) / (double)out_range);
    tp_q_requantizer r = {scale_fp, (int64_t)((uint64_t)in_offset_fp - (uint64_t)out_offset_fp + 32768u)};
    return r;
}

#if defined(__ARM_NEON)
/* Four elements of tp_q_requantize in 32-bit lanes, exactly: with S =
 * s_hi 2^32 + s_lo (s_lo taken as a signed int32, s_hi then one more when
 * its top bit is set), the wrapped 64-bit v S shifted right by 32 is
 * wrap32(v s_hi + high32(v s_lo)); adding the offset O = o_hi 2^16 + o_lo
 * and shifting by 16 is (T >> 16) + o_hi + ((T & 0xffff) + o_lo) >> 16. */
static inline int32x4_t requantize4(int32x4_t v, int32x4_t s_hi, int32x2_t s_lo, int32x4_t o_hi, int32x4_t o_lo)
{
#if defined(__aarch64__)
    const int32x4_t p_hi = vuzp2q_s32(vreinterpretq_s32_s64(vmull_s32(vget_low_s32(v), s_lo)),
                                      vreinterpretq_s32_s64(vmull_high_s32(v, vcombine_s32(s_lo, s_lo))));
#else
    const int32x4_t p_hi = vcombine_s32(vshrn_n_s64(vmull_s32(vget_low_s32(v), s_lo), 32),
                                        vshrn_n_s64(vmull_s32(vget_high_s32(v), s_lo), 32));
#endif
    const int32x4_t t = vaddq_s32(vmulq_s32(v, s_hi), p_hi);
    const int32x4_t low = vaddq_s32(vandq_s32(t, vdupq_n_s32(0xffff)), o_lo);
    return vaddq_s32(vsraq_n_s32(o_hi, t, 16), vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(low), 16)));
}

/* Whether requantize4 is exact for r: s_hi (after the carry) and the
 * offset's high part fit in 32 bits without overflowing the sums. */
static bool requantize4_fits(const tp_q_requantizer *r)
{
    const int64_t s_hi = (r->scale_fp >> 32) + ((r->scale_fp >> 31) & 1);
    return r->scale_fp >= 0 && s_hi < INT32_MAX && r->offset_fp > -((int64_t)1 << 46) &&
           r->offset_fp < ((int64_t)1 << 46);
}
#endif

void tp_q_requantize_many(const tp_q_requantizer *r, const int32_t *restrict v, uint8_t *restrict out, int64_t n)
{
    int64_t i = 0;
#if defined(__ARM_NEON)
    if (requantize4_fits(r)) {
        const int32x4_t s_hi = vdupq_n_s32((int32_t)((r->scale_fp >> 32) + ((r->scale_fp >> 31) & 1)));
        const int32x2_t s_lo = vdup_n_s32((int32_t)(uint32_t)r->scale_fp);
        const int32x4_t o_hi = vdupq_n_s32((int32_t)(r->offset_fp >> 16)), o_lo = vdupq_n_s32((int32_t)(r->offset_fp & 0xffff));
        for (; i + 8 <= n; i += 8) {
            const int32x4_t a = requantize4(vld1q_s32(v + i), s_hi, s_lo, o_hi, o_lo);
            const int32x4_t b = requantize4(vld1q_s32(v + i + 4), s_hi, s_lo, o_hi, o_lo);
            vst1_u8(out + i, vqmovn_u16(vcombine_u16(vqmovun_s32(a), vqmovun_s32(b))));
        }
    }
#endif
    const uint64_t scale = (uint64_t)r->scale_fp, offset = (uint64_t)r->offset_fp;
    for (; i + BLOCK <= n; i += BLOCK)
        for (int j = 0; j < BLOCK; j++) { /* tp_q_requantize, branch-free */
            int64_t product = (int64_t)((uint64_t)(int64_t)v[i + j] * scale);
            int64_t fp = (int64_t)((uint64_t)(product >> 32) + offset) >> 16;
            fp = fp < 0 ? 0 : fp;
            out[i + j] = (uint8_t)(fp > 255 ? 255 : fp);
        }
    for (; i < n; i++)
        out[i] = tp_q_requantize(r, v[i]);
}

tp_q_widener tp_q_widener_make(float in_min, float in_max, float out_min, float out_max)
{
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8), *i32 = tp_qtype_of(TFPI_QINT32);
    int64_t c0 = tp_q_f2qu(tp_q_q2f(0, in_min, in_max, u8), out_min, out_max, i32);
    int64_t c1 = tp_q_f2qu(tp_q_q2f(1, in_min, in_max, u8), out_min, out_max, i32);
    tp_q_widener w = {c0, (int32_t)(uint32_t)(uint64_t)(c1 - c0)};
    return w;
}

const char *tp_q_range_problem(float min, float max)
{
    if (!isfinite(min) || !isfinite(max))
        return "is not finite";
    if (min > max)
        return "has min > max";
    return NULL;
}
