/* quantize_math.h - TensorFlow's float <-> quantized conversions, exactly
 * as its 8-bit kernels compute them (docs: ../shared/docs/quantized.md,
 * section 1), written once for every quantized kernel: the quantized types
 * and their codes, FloatToQuantized(Unclamped) and QuantizedToFloat in
 * double, the float32 "Eigen" forms, the range of a product, the
 * fixed-point qint32 -> quint8 requantization and the 8 -> 32 bit mapping.
 * Every float step is rounded separately (the build passes
 * -ffp-contract=off), rounding is half away from zero, and no input - NaN,
 * infinite or empty ranges included - makes a conversion undefined. */
#ifndef TFPI_QUANTIZE_MATH_H
#define TFPI_QUANTIZE_MATH_H

#include <stdbool.h>
#include <stdint.h>

#include "tfpi.h"

typedef struct tp_qtype {
    tfpi_dtype dtype;
    int bits;
    int64_t lo, hi; /* lowest and highest code */
} tp_qtype;

/* quint8, qint8, quint16, qint16 or qint32; NULL for other types. */
const tp_qtype *tp_qtype_of(tfpi_dtype dtype);
/* Element i of a quantized tensor's data as an integer code. */
int64_t tp_qcode_get(const tp_qtype *t, const void *data, int64_t i);
/* Stores code (already within [lo, hi]) as element i. */
void tp_qcode_set(const tp_qtype *t, void *data, int64_t i, int64_t code);

/* The double to int64 conversion TF relies on, saturating instead of
 * undefined for values out of range (NaN gives 0). */
int64_t tp_q_saturate_i64(double x);

/* FloatToQuantizedUnclamped / FloatToQuantized (double arithmetic). */
int64_t tp_q_f2qu(double x, float min, float max, const tp_qtype *t);
int64_t tp_q_f2q(double x, float min, float max, const tp_qtype *t);
/* QuantizedToFloat. */
float tp_q_q2f(int64_t q, float min, float max, const tp_qtype *t);

/* The float32 forms of TF's Eigen expressions, with everything that depends
 * only on the range computed once. */
typedef struct tp_q_quantizer {
    float scale, offset, lo, hi;
} tp_q_quantizer;
tp_q_quantizer tp_q_quantizer_make(float min, float max, const tp_qtype *t);
int64_t tp_q_quantize_e(const tp_q_quantizer *qz, float x);

/* tp_q_quantize_e of n floats into quint8 codes (qz made for quint8). */
void tp_q_quantize_many_u8(const tp_q_quantizer *qz, const float *restrict x, uint8_t *restrict out, int64_t n);

typedef struct tp_q_dequantizer {
    float scale, base;
} tp_q_dequantizer;
tp_q_dequantizer tp_q_dequantizer_make(float min, float max, const tp_qtype *t);
float tp_q_dequantize_e(const tp_q_dequantizer *dq, int64_t q);

/* (max - min) / (hi - lo) in float. */
float tp_q_level(float min, float max, const tp_qtype *t);
/* The range of a product of codes of ranges a and b, as type t. */
void tp_q_range_for_multiplication(float min_a, float max_a, float min_b, float max_b, const tp_qtype *t,
                                   float *min_c, float *max_c);

/* Requantize qint32 codes of [in_min, in_max] to quint8 codes of
 * [out_min, out_max] in TF's 16.16 fixed point. */
typedef struct tp_q_requantizer {
    int64_t scale_fp, offset_fp; /* per element: clamp(((v * scale_fp) >> 32) + offset_fp) >> 16 */
} tp_q_requantizer;
tp_q_requantizer tp_q_requantizer_make(float in_min, float in_max, float out_min, float out_max);
static inline uint8_t tp_q_requantize(const tp_q_requantizer *r, int32_t v)
{
    /* the product wraps in 64 bits as TF's does; the shifts are arithmetic */
    int64_t product = (int64_t)((uint64_t)(int64_t)v * (uint64_t)r->scale_fp);
    int64_t fp = (int64_t)((uint64_t)(product >> 32) + (uint64_t)r->offset_fp) >> 16;
    return (uint8_t)(fp < 0 ? 0 : fp > 255 ? 255 : fp);
}

/* tp_q_requantize over n values, in blocks the compiler vectorizes. */
void tp_q_requantize_many(const tp_q_requantizer *r, const int32_t *restrict v, uint8_t *restrict out, int64_t n);

/* quint8 codes of [in_min, in_max] to qint32 codes of [out_min, out_max]:
 * code(q) = clamp_int32(c0 + q * step). */
typedef struct tp_q_widener {
    int64_t c0, step;
} tp_q_widener;
tp_q_widener tp_q_widener_make(float in_min, float in_max, float out_min, float out_max);
static inline int32_t tp_q_widen(const tp_q_widener *w, int64_t q)
{
    int64_t v = w->c0 + q * w->step;
    return (int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v);
}

/* NULL if min and max are finite and min <= max, else why not. */
const char *tp_q_range_problem(float min, float max);

#endif
