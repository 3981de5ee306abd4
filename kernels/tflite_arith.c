/* tflite_arith.c - TensorFlow Lite's elementwise operators of two inputs,
 * numpy-broadcast: ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM and PRELU
 * on uint8 and int8 tensors quantized per tensor, with the integer rules
 * of TFLite's reference kernels (tflite-micro: reference/add.h, sub.h,
 * mul.h, squared_difference.cc, maximum_minimum.h and their Prepare code):
 *  - ADD / SUB: each input less its zero point, shifted left 20 bits, is
 *    scaled by its own multiplier (its scale / twice the larger input
 *    scale); the sum or difference is scaled by twice the larger input
 *    scale / (2^20 x output scale) and moved to the output's zero point.
 *  - SQUARED_DIFFERENCE: the same with a left shift of 7 and the squared
 *    difference scaled by (2 x larger scale)^2 / (2^14 x output scale).
 *  - MUL: the product of the inputs less their zero points, scaled by
 *    s1 x s2 / output scale. A factor of 2^30 or more (an output scale
 *    calibrated on a constant zero, e.g. 3e-35 in Coral's AutoML video
 *    LSTM; TFLite's shifts are undefined there) sends every nonzero
 *    product past the 8-bit range: the end of the range on its side, what
 *    the real product is.
 *  - DIV (reference/div.h DivElementwise, a template over uint8, int8 and
 *    int16; TFLite's interpreter takes uint8, int8 runs by the same
 *    rule): a / b of the inputs less
 *    their zero points, signs moved so that b > 0: a shifted left by its
 *    headroom times the reciprocal of b (GetReciprocal), then the
 *    multiplier of the float s1 / (s2 x so), shifted right by the
 *    reciprocal's bits and the headroom on top of its own shift (a shift
 *    past 31 bits gives 0, what the division means; TFLite's shift is
 *    undefined there). TFLite divides by no b = 0 (its kernel refuses a
 *    uint8 divisor code 0); here a zero divisor gives the end of the
 *    output range on the dividend's side, 0 / 0 the output zero point.
 *  - MAXIMUM / MINIMUM: of the codes themselves (TFLite's converter gives
 *    inputs and output one quantization).
 *  - PRELU (input 1: alpha): the input less its zero point times
 *    s_in / s_out where it is >= 0, else times (alpha less its zero point)
 *    and s_in x s_alpha / s_out (reference/prelu.h).
 * The fused activation becomes a clamp of the output codes. Each 8-bit
 * input's scaled value depends on its code alone, so ADD, SUB and
 * SQUARED_DIFFERENCE look them up in 256-entry tables made while planning;
 * on NEON, ADD and SUB of inputs of one shape compute them, sixteen codes
 * at a time, with the same integers (compute/tflite_fixed_point_neon.h).
 * The float path (fused activations included) serves the float operators
 * the reader keeps under their TFLite names. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/broadcast.h"
#include "compute/tflite_fixed_point_neon.h"
#include "compute/tflite_node.h"
#include "core/wrapping_int.h"

typedef enum arith_op {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQUARED_DIFFERENCE, OP_MAXIMUM, OP_MINIMUM, OP_PRELU
} arith_op;

typedef struct arith_state {
    arith_op op;
    tfpi_dtype dtype;
    tp_broadcast bc;
    int32_t act_min, act_max; /* output codes */
    float fmin, fmax;         /* float outputs */
    /* ADD, SUB, SQUARED_DIFFERENCE: each code's scaled value */
    int32_t scaled[2][256];
    /* ADD, SUB: what makes the scaled values (for the NEON path) */
    int32_t zero[2];
    tp_tfl_multiplier in_mult[2];
    /* MUL, PRELU: the inputs' offsets (minus their zero points) */
    int32_t offset[2];
    tp_tfl_multiplier out_mult;
    bool out_saturates; /* MUL: a multiplier of 2^30 or more */
    tp_tfl_multiplier identity_mult; /* PRELU's non-negative inputs */
    int32_t out_offset;
} arith_state;

static void arith_release(void *state) { free(state); }

/* The code of an 8-bit tensor's byte (uint8 or int8). */
static inline int32_t code_of(const uint8_t *p, int64_t i, bool is_signed)
{
    return is_signed ? (int32_t)((const int8_t *)p)[i] : (int32_t)p[i];
}

/* The real factor TFLite quantizes "smaller than one": false (an error
 * naming `what`) unless 0 < m < 1. */
static tfpi_code multiplier_below_one(tp_op_ctx *ctx, double m, const char *what, tp_tfl_multiplier *out)
{
    if (!(m > 0.0 && m < 1.0) || !tp_tfl_quantize_multiplier(m, out))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %g must lie in (0, 1) (TFLite's rule for this op)", what, m);
    return TFPI_OK;
}

/* ADD, SUB, SQUARED_DIFFERENCE: the tables of scaled input values and the
 * output multiplier. */
static tfpi_code prepare_additive(tp_op_ctx *ctx, arith_state *s, const tp_tfl_qparams q[2],
                                  const tp_tfl_qparams *out)
{
    const bool squared = s->op == OP_SQUARED_DIFFERENCE;
    const int left_shift = squared ? 7 : 20;
    const double twice_max = 2.0 * (double)fmaxf(q[0].scale, q[1].scale);
    tfpi_code code;
    if (squared) { /* TFLite quantizes this one without the "below one" rule */
        const double m = twice_max * twice_max / (double)((float)(1 << (2 * left_shift)) * out->scale);
        if (!tp_tfl_quantize_multiplier(m, &s->out_mult))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the output multiplier %g is out of range", m);
    } else if ((code = multiplier_below_one(ctx, twice_max / ((double)(1 << left_shift) * (double)out->scale),
                                            "the output multiplier", &s->out_mult)) != TFPI_OK) {
        return code;
    }
    const bool is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    for (int k = 0; k < 2; k++) {
        tp_tfl_multiplier m;
        if ((code = multiplier_below_one(ctx, (double)q[k].scale / twice_max, "an input multiplier", &m)) != TFPI_OK)
            return code;
        for (int b = 0; b < 256; b++) {
            const int32_t c = is_signed ? (int32_t)(int8_t)b : b;
            s->scaled[k][b] = tp_tfl_multiply((c - q[k].zero_point) * (1 << left_shift), m);
        }
        s->zero[k] = q[k].zero_point, s->in_mult[k] = m;
    }
    s->out_offset = out->zero_point;
    return TFPI_OK;
}

static tfpi_code prepare_quantized(tp_op_ctx *ctx, arith_state *s)
{
    tp_tfl_qparams q[2], out;
    tfpi_code code;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &q[0])) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "in", 1, &q[1])) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "out", 0, &out)) != TFPI_OK)
        return code;
    tp_tfl_activation act;
    if ((code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK)
        return code;
    if (!tp_tfl_activation_range(act, out.scale, out.zero_point, out.qmin, out.qmax, &s->act_min, &s->act_max))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "a quantized kernel cannot fuse this activation");
    switch (s->op) {
    case OP_ADD:
    case OP_SUB:
    case OP_SQUARED_DIFFERENCE:
        return prepare_additive(ctx, s, q, &out);
    case OP_MUL: {
        const double m = (double)q[0].scale * (double)q[1].scale / (double)out.scale;
        s->out_saturates = m >= (double)(1 << 30) && isfinite(m);
        if (!s->out_saturates && !tp_tfl_quantize_multiplier(m, &s->out_mult))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the output multiplier %g is out of range", m);
        s->offset[0] = -q[0].zero_point, s->offset[1] = -q[1].zero_point, s->out_offset = out.zero_point;
        return TFPI_OK;
    }
    case OP_DIV: {
        const float m = q[0].scale / (q[1].scale * out.scale); /* in float, as TFLite's Prepare */
        /* a shift above 22 could leave the final shift a left one, which TFLite's rule lacks */
        if (!tp_tfl_quantize_multiplier((double)m, &s->out_mult) || s->out_mult.shift > 22)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the multiplier %g (s1 / (s2 x output scale)) is out of DIV's range",
                           (double)m);
        s->offset[0] = -q[0].zero_point, s->offset[1] = -q[1].zero_point, s->out_offset = out.zero_point;
        return TFPI_OK;
    }
    case OP_PRELU: {
        const double m1 = (double)q[0].scale / (double)out.scale;
        const double m2 = (double)q[0].scale * (double)q[1].scale / (double)out.scale;
        if (!tp_tfl_quantize_multiplier(m1, &s->identity_mult) || !tp_tfl_quantize_multiplier(m2, &s->out_mult))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the multipliers %g and %g are out of range", m1, m2);
        s->offset[0] = -q[0].zero_point, s->offset[1] = -q[1].zero_point, s->out_offset = out.zero_point;
        s->act_min = out.qmin, s->act_max = out.qmax;
        return TFPI_OK;
    }
    default: /* MAXIMUM, MINIMUM compare codes */
        return TFPI_OK;
    }
}

static tfpi_code arith_prepare_op(tp_op_ctx *ctx, arith_op op)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, true)) != TFPI_OK)
        return code;
    const tfpi_dtype dtype = ctx->inputs[0]->dtype;
    if (ctx->inputs[1]->dtype != dtype || tp_tfl_output_dtype(ctx) != dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs and output must have one type: %s, %s and %s",
                       tfpi_dtype_name(dtype), tfpi_dtype_name(ctx->inputs[1]->dtype),
                       tfpi_dtype_name(tp_tfl_output_dtype(ctx)));
    arith_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->op = op, s->dtype = dtype;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    if ((code = tp_broadcast_prepare_two(ctx, &s->bc, &ndims, dims)) != TFPI_OK ||
        (code = tp_set_output(ctx, 0, dtype, ndims, dims)) != TFPI_OK)
        return code;
    if (dtype != TFPI_FLOAT)
        return prepare_quantized(ctx, s);
    tp_tfl_activation act;
    if ((code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK)
        return code;
    if (!tp_tfl_activation_range_float(act, &s->fmin, &s->fmax))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "a fused TANH or SIGN_BIT is not a TFLite option of this op");
    return TFPI_OK;
}

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* TFLite's quantized DIV of a by b (8-bit codes less their zero points),
 * before the output zero point; see the top of the file. */
static int32_t quotient_of(const arith_state *s, int32_t a, int32_t b)
{
    if (b == 0)
        return a > 0 ? INT32_MAX / 2 : a < 0 ? INT32_MIN / 2 : 0; /* clamped to the range's ends */
    if (b < 0)
        a = -a, b = -b;
    int recip_shift;
    const int32_t inverse = tp_tfl_reciprocal(b, 31, &recip_shift);
    const int headroom = tp_tfl_leading_zeros(a >= 0 ? (uint32_t)a : ~(uint32_t)a) - 1;
    const int32_t unscaled = tp_tfl_rounding_doubling_high_mul((int32_t)((int64_t)a * ((int64_t)1 << headroom)), inverse);
    const int right = recip_shift + headroom - s->out_mult.shift; /* >= 1: prepare bounds the shift */
    const int32_t high = tp_tfl_rounding_doubling_high_mul(unscaled, s->out_mult.mantissa);
    return right > 31 ? 0 : tp_tfl_rounding_divide_by_pot(high, right);
}

/* One output code from the inputs' codes x and y. */
static inline int32_t quantized_value(const arith_state *s, int32_t x, int32_t y, uint8_t bx, uint8_t by)
{
    int32_t raw;
    switch (s->op) {
    case OP_ADD:
        raw = tp_tfl_multiply(s->scaled[0][bx] + s->scaled[1][by], s->out_mult) + s->out_offset;
        break;
    case OP_SUB:
        raw = tp_tfl_multiply(s->scaled[0][bx] - s->scaled[1][by], s->out_mult) + s->out_offset;
        break;
    case OP_SQUARED_DIFFERENCE: {
        const int32_t d = s->scaled[0][bx] - s->scaled[1][by];
        raw = tp_tfl_multiply(d * d, s->out_mult) + s->out_offset;
        break;
    }
    case OP_MUL: {
        const int32_t product = (x + s->offset[0]) * (y + s->offset[1]);
        if (s->out_saturates)
            return product > 0 ? s->act_max : product < 0 ? s->act_min : clamp32(s->out_offset, s->act_min, s->act_max);
        raw = tp_tfl_multiply(product, s->out_mult) + s->out_offset;
        break;
    }
    case OP_DIV:
        raw = quotient_of(s, x + s->offset[0], y + s->offset[1]) + s->out_offset;
        break;
    case OP_PRELU:
        raw = x + s->offset[0] >= 0 ? tp_tfl_multiply(x + s->offset[0], s->identity_mult)
                                    : tp_tfl_multiply((x + s->offset[0]) * (y + s->offset[1]), s->out_mult);
        raw += s->out_offset;
        break;
    case OP_MAXIMUM:
        return x > y ? x : y;
    default:
        return x < y ? x : y;
    }
    return clamp32(raw, s->act_min, s->act_max);
}

static inline float float_value(const arith_state *s, float x, float y)
{
    float v;
    switch (s->op) {
    case OP_ADD: v = x + y; break;
    case OP_SUB: v = x - y; break;
    case OP_MUL: v = x * y; break;
    case OP_DIV: v = x / y; break;
    case OP_SQUARED_DIFFERENCE: v = (x - y) * (x - y); break;
    case OP_MAXIMUM: return x > y ? x : y;
    case OP_PRELU: return x >= 0.0f ? x : x * y;
    default: return x < y ? x : y;
    }
    return v < s->fmin ? s->fmin : v > s->fmax ? s->fmax : v;
}

typedef struct arith_job {
    const arith_state *s;
    const void *x, *y;
    void *out;
    int64_t x_step, y_step;
} arith_job;

#if defined(__ARM_NEON)
/* ADD and SUB on NEON, sixteen codes at a time in one straight run, the
 * same integers as the tables: an input whose multiplier is exactly 1/2
 * (the one of the larger scale: s / (2 s)) is its code less its zero
 * point shifted left by 19, exactly what sqrdmulh by 2^30 of the shift by
 * 20 gives; the other input and the output shift right by at least 1
 * after their multiply (compute/tflite_fixed_point_neon.h). The zero
 * point is added after a saturating narrowing to int16 and the clamp is
 * of the codes' type: sums past int16 clamp to the same code.
 * Codes less their zero points lie in -255...255: times 32 they fit int16,
 * and one sshll by 15 makes the shift by 20 (or 19). */
typedef struct additive_lanes {
    int32x4_t mantissa[2], right[2]; /* the second input's, the output's */
    int16x8_t out_zero;
    uint8x8_t zero[2];
    uint8x16_t lo, hi; /* the clamp, as bytes of the codes' type */
} additive_lanes;

/* How the scaled inputs combine: their sum, or a difference. */
enum { SUM, FIRST_LESS_SECOND, SECOND_LESS_FIRST };

/* Eight codes less their zero point, in int16, times 32 (scaled) or 16. */
static inline __attribute__((always_inline)) int16x8_t centered(uint8x8_t codes, uint8x8_t zero, bool is_signed,
                                                                bool scaled)
{
    const int16x8_t c = is_signed ? vsubl_s8(vreinterpret_s8_u8(codes), vreinterpret_s8_u8(zero))
                                  : vreinterpretq_s16_u16(vsubl_u8(codes, zero));
    return scaled ? vshlq_n_s16(c, 5) : vshlq_n_s16(c, 4);
}

/* Four output values (before the zero point) from four centered codes of
 * each input (times 16 and 32 or 16). */
static inline __attribute__((always_inline)) int32x4_t additive4(const additive_lanes *l, int16x4_t ca, int16x4_t cb,
                                                                 int how, bool b_scaled)
{
    const int32x4_t va = vshll_n_s16(ca, 15);
    int32x4_t vb = vshll_n_s16(cb, 15);
    if (b_scaled)
        vb = tp_tfl_multiply_right_x4(vb, l->mantissa[0], l->right[0]);
    const int32x4_t sum = how == SUM ? vaddq_s32(va, vb) : how == FIRST_LESS_SECOND ? vsubq_s32(va, vb)
                                                                                     : vsubq_s32(vb, va);
    return tp_tfl_multiply_right_x4(sum, l->mantissa[1], l->right[1]);
}

/* Eight output values in int16, the zero point added, from eight codes of
 * each input. */
static inline __attribute__((always_inline)) int16x8_t additive8(const additive_lanes *l, uint8x8_t a, uint8x8_t b,
                                                                 bool is_signed, int how, bool b_scaled)
{
    const int16x8_t ca = centered(a, l->zero[0], is_signed, false), cb = centered(b, l->zero[1], is_signed, b_scaled);
    const int32x4_t lo = additive4(l, vget_low_s16(ca), vget_low_s16(cb), how, b_scaled);
    const int32x4_t hi = additive4(l, vget_high_s16(ca), vget_high_s16(cb), how, b_scaled);
    return vqaddq_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi)), l->out_zero);
}

/* Sixteen output codes from sixteen of each input, a halved (its
 * multiplier 1/2), b halved or scaled by its multiplier. */
static inline __attribute__((always_inline)) uint8x16_t additive16(const additive_lanes *l, uint8x16_t a, uint8x16_t b,
                                                                   bool is_signed, int how, bool b_scaled)
{
    const int16x8_t lo = additive8(l, vget_low_u8(a), vget_low_u8(b), is_signed, how, b_scaled);
    const int16x8_t hi = additive8(l, vget_high_u8(a), vget_high_u8(b), is_signed, how, b_scaled);
    if (is_signed) {
        const int8x16_t codes = vcombine_s8(vqmovn_s16(lo), vqmovn_s16(hi));
        return vreinterpretq_u8_s8(
            vminq_s8(vmaxq_s8(codes, vreinterpretq_s8_u8(l->lo)), vreinterpretq_s8_u8(l->hi)));
    }
    return vminq_u8(vmaxq_u8(vcombine_u8(vqmovun_s16(lo), vqmovun_s16(hi)), l->lo), l->hi);
}

/* The first `length` rounded down to 16 codes of a and b into out (the
 * lanes copied in: out could alias them for all the compiler knows). */
typedef void (*additive_fn)(const additive_lanes *l, const uint8_t *a, const uint8_t *b, uint8_t *out,
                            int64_t length);
#define ADDITIVE_VARIANT(NAME, SIGNED, HOW, B_SCALED) \
    static void NAME(const additive_lanes *lanes, const uint8_t *a, const uint8_t *b, uint8_t *out, int64_t length) \
    { \
        const additive_lanes l = *lanes; \
        for (int64_t i = 0; i + 16 <= length; i += 16) \
            vst1q_u8(out + i, additive16(&l, vld1q_u8(a + i), vld1q_u8(b + i), SIGNED, HOW, B_SCALED)); \
    }
ADDITIVE_VARIANT(u8_sum_halves, false, SUM, false)
ADDITIVE_VARIANT(u8_sum, false, SUM, true)
ADDITIVE_VARIANT(u8_difference_halves, false, FIRST_LESS_SECOND, false)
ADDITIVE_VARIANT(u8_difference, false, FIRST_LESS_SECOND, true)
ADDITIVE_VARIANT(u8_difference_swapped, false, SECOND_LESS_FIRST, true)
ADDITIVE_VARIANT(s8_sum_halves, true, SUM, false)
ADDITIVE_VARIANT(s8_sum, true, SUM, true)
ADDITIVE_VARIANT(s8_difference_halves, true, FIRST_LESS_SECOND, false)
ADDITIVE_VARIANT(s8_difference, true, FIRST_LESS_SECOND, true)
ADDITIVE_VARIANT(s8_difference_swapped, true, SECOND_LESS_FIRST, true)

/* The variant for s's multipliers, with the lanes and whether the inputs
 * are swapped (the halved one first); NULL where none applies (a
 * multiplier neither 1/2 nor shifting right: a tiny one flushed to 0, an
 * output multiplier of 1/2 or more). */
static additive_fn additive_prepare(const arith_state *s, additive_lanes *l, bool *swapped)
{
    const tp_tfl_multiplier half = {1 << 30, 0};
    bool halved[2], right[3];
    for (int k = 0; k < 2; k++)
        halved[k] = s->in_mult[k].mantissa == half.mantissa && s->in_mult[k].shift == half.shift;
    right[0] = s->in_mult[0].shift < 0, right[1] = s->in_mult[1].shift < 0, right[2] = s->out_mult.shift < 0;
    if (!right[2] || !(halved[0] || right[0]) || !(halved[1] || right[1]) || !(halved[0] || halved[1]))
        return NULL;
    *swapped = !halved[0];
    const int first = *swapped ? 1 : 0;
    const tp_tfl_multiplier m[2] = {s->in_mult[1 - first], s->out_mult};
    for (int k = 0; k < 2; k++)
        l->mantissa[k] = vdupq_n_s32(m[k].mantissa), l->right[k] = vdupq_n_s32(m[k].shift);
    l->zero[0] = vdup_n_u8((uint8_t)s->zero[first]), l->zero[1] = vdup_n_u8((uint8_t)s->zero[1 - first]);
    l->out_zero = vdupq_n_s16((int16_t)s->out_offset);
    l->lo = vdupq_n_u8((uint8_t)s->act_min), l->hi = vdupq_n_u8((uint8_t)s->act_max);
    static const additive_fn variants[2][3][2] = {
        {{u8_sum_halves, u8_sum}, {u8_difference_halves, u8_difference}, {NULL, u8_difference_swapped}},
        {{s8_sum_halves, s8_sum}, {s8_difference_halves, s8_difference}, {NULL, s8_difference_swapped}},
    };
    const bool second_scaled = !halved[1 - first];
    const int how = s->op == OP_ADD ? SUM : *swapped ? SECOND_LESS_FIRST : FIRST_LESS_SECOND;
    return variants[s->dtype == TFPI_INT8][how][second_scaled];
}

/* ADD and SUB of contiguous inputs on NEON; returns how many codes were
 * done (a multiple of 16; none where no variant applies). */
static int64_t additive_neon(const arith_state *s, const uint8_t *x, const uint8_t *y, uint8_t *out, int64_t length)
{
    additive_lanes l;
    bool swapped;
    const additive_fn run = additive_prepare(s, &l, &swapped);
    if (!run)
        return 0;
    run(&l, swapped ? y : x, swapped ? x : y, out, length);
    return length / 16 * 16;
}
#endif

static void arith_run_span(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    const arith_job *job = arg;
    const arith_state *s = job->s;
    if (s->dtype == TFPI_FLOAT) {
        const float *x = (const float *)job->x + in_offsets[0], *y = (const float *)job->y + in_offsets[1];
        float *out = (float *)job->out + out_offset;
        for (int64_t i = 0; i < length; i++)
            out[i] = float_value(s, x[i * job->x_step], y[i * job->y_step]);
        return;
    }
    const bool is_signed = s->dtype == TFPI_INT8;
    const uint8_t *x = (const uint8_t *)job->x + in_offsets[0], *y = (const uint8_t *)job->y + in_offsets[1];
    uint8_t *out = (uint8_t *)job->out + out_offset;
    int64_t i = 0;
#if defined(__ARM_NEON)
    if ((s->op == OP_ADD || s->op == OP_SUB) && job->x_step == 1 && job->y_step == 1)
        i = additive_neon(s, x, y, out, length);
#endif
    for (; i < length; i++) {
        const int64_t ix = i * job->x_step, iy = i * job->y_step;
        const int32_t v = quantized_value(s, code_of(x, ix, is_signed), code_of(y, iy, is_signed), x[ix], y[iy]);
        out[i] = (uint8_t)v; /* the low byte is the int8 code too */
    }
}

static void arith_run_range(void *arg, int64_t begin, int64_t end)
{
    const arith_job *job = arg;
    tp_broadcast_walk(&job->s->bc, begin, end, arith_run_span, arg);
}

static tfpi_code arith_run(tp_op_ctx *ctx)
{
    const arith_state *s = ctx->state;
    arith_job job = {s, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data,
                     s->bc.strides[0][s->bc.ndims - 1], s->bc.strides[1][s->bc.ndims - 1]};
    tp_parallel_for(ctx->pool, s->bc.num_elements, 16384, arith_run_range, &job);
    return TFPI_OK;
}

static tfpi_code add_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_ADD); }
static tfpi_code sub_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_SUB); }
static tfpi_code mul_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_MUL); }
static tfpi_code div_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_DIV); }
static tfpi_code squared_difference_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_SQUARED_DIFFERENCE); }
static tfpi_code maximum_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_MAXIMUM); }
static tfpi_code minimum_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_MINIMUM); }
static tfpi_code prelu_prepare(tp_op_ctx *ctx) { return arith_prepare_op(ctx, OP_PRELU); }

const tp_kernel tp_kernels_tflite_arith[] = {
    TP_KERNEL("ADD", add_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("SUB", sub_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("MUL", mul_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("DIV", div_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("SQUARED_DIFFERENCE", squared_difference_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("MAXIMUM", maximum_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("MINIMUM", minimum_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNEL("PRELU", prelu_prepare, arith_run, arith_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
