/* tflite_softmax.c - TensorFlow Lite's SOFTMAX, LOG_SOFTMAX, LOGISTIC and TANH on uint8
 * and int8 tensors, with the fixed-point rules of TFLite's reference
 * kernels (tflite-micro: reference/softmax.h, integer_ops/logistic.h,
 * integer_ops/tanh.h, softmax_common.cc, logistic_common.cc, tanh.cc;
 * uint8 as the same rules on codes offset by 128, as TFLite's uint8
 * reference kernels are):
 *  - SOFTMAX: each code's difference from its row's largest, times
 *    beta x scale x 2^26 as a multiplier with a left shift, is a Q5 value
 *    whose gemmlowp exp is summed in Q12 (differences below -radius count
 *    as zero); the sum's reciprocal scales each exp to the output, whose
 *    quantization must be scale 1/256 with the type's lowest code as zero
 *    point. A float path (any beta) computes exp((x - max) x beta) / sum.
 *  - LOG_SOFTMAX (reference/log_softmax.h): see log_softmax_state below.
 *  - LOGISTIC / TANH: (code - zero point) times scale x 2^27 as a Q4
 *    value, gemmlowp's logistic or tanh, rounded to 1/256 (LOGISTIC; zero
 *    point the lowest code) or 1/128 (TANH; zero point the middle code);
 *    codes beyond the input radius give the ends of the range.
 * Note: TensorFlow Lite's own interpreter computes 8-bit SOFTMAX, LOGISTIC
 * and TANH through float lookup tables instead, which can differ from
 * these rules by one step. Every result depends on an 8-bit code, or for
 * SOFTMAX on a difference of two, so prepare tabulates them. */
#include <math.h>
#include <stdlib.h>

#include "compute/tflite_node.h"

/* ---- LOGISTIC, TANH: one table per node ---- */

typedef struct lut_state {
    uint8_t table[256]; /* output byte of each input byte */
} lut_state;

static void state_release(void *state) { free(state); }

/* The output quantization these ops define: an error unless output 0 has
 * exactly this scale and zero point. */
static tfpi_code expect_output_quant(tp_op_ctx *ctx, float scale, int32_t zero_point)
{
    tp_tfl_qparams out;
    tfpi_code code = tp_tfl_qparams_of(ctx, "out", 0, &out);
    if (code != TFPI_OK)
        return code;
    if (out.scale != scale || out.zero_point != zero_point)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "output quantization (scale %g, zero point %d) must be scale %g, zero point %d for %s "
                       "%s", (double)out.scale, (int)out.zero_point, (double)scale, (int)zero_point,
                       tfpi_dtype_name(ctx->outputs[0].dtype), ctx->def->op);
    return TFPI_OK;
}

/* Input checks shared by the 8-bit ops of this file: one uint8 or int8
 * input, the output of its type and shape. */
static tfpi_code prepare_8bit(tp_op_ctx *ctx, tp_tfl_qparams *in)
{
    tfpi_code code = tp_tfl_prepare_elementwise(ctx, false);
    return code != TFPI_OK ? code : tp_tfl_qparams_of(ctx, "in", 0, in);
}

static tfpi_code lut_prepare(tp_op_ctx *ctx, bool tanh)
{
    tp_tfl_qparams in;
    tfpi_code code = prepare_8bit(ctx, &in);
    if (code != TFPI_OK)
        return code;
    const bool is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    const int32_t out_zero = tanh ? (is_signed ? 0 : 128) : (is_signed ? -128 : 0);
    if ((code = expect_output_quant(ctx, tanh ? 1.0f / 128 : 1.0f / 256, out_zero)) != TFPI_OK)
        return code;
    /* the input in Q4: scale x 2^27 as a multiplier (frexp's exponent as
     * the shift) */
    const double real = (double)in.scale * (double)(1 << 27);
    tp_tfl_multiplier m;
    if (!tp_tfl_quantize_multiplier(real, &m))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input scale %g is too large for the fixed-point %s",
                       (double)in.scale, ctx->def->op);
    int exponent;
    frexp(real, &exponent);
    const int32_t radius = tp_tfl_input_radius(4, exponent, 31);
    lut_state *s = malloc(sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    const int32_t qmin = is_signed ? -128 : 0, qmax = qmin + 255;
    for (int b = 0; b < 256; b++) {
        const int32_t x = (is_signed ? (int32_t)(int8_t)b : b) - in.zero_point;
        int32_t v;
        if (x <= -radius) {
            v = qmin;
        } else if (x >= radius) {
            v = qmax;
        } else {
            const int32_t q4 = tp_tfl_multiply(x, m);
            v = tanh ? tp_tfl_rounding_divide_by_pot(tp_tfl_tanh(q4, 4), 24) + out_zero
                     : tp_tfl_rounding_divide_by_pot(tp_tfl_logistic(q4, 4), 23) + out_zero;
            v = v < qmin ? qmin : v > qmax ? qmax : v;
        }
        s->table[b] = (uint8_t)v;
    }
    return TFPI_OK;
}

static tfpi_code logistic_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, false); }
static tfpi_code tanh_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, true); }

static tfpi_code lut_run(tp_op_ctx *ctx)
{
    const lut_state *s = ctx->state;
    const uint8_t *x = ctx->inputs[0]->data;
    uint8_t *y = ctx->outputs[0].data;
    const int64_t n = tp_num_elements(ctx->inputs[0]);
    for (int64_t i = 0; i < n; i++)
        y[i] = s->table[x[i]];
    return TFPI_OK;
}

/* ---- SOFTMAX, LOG_SOFTMAX ---- */

/* QuantizeMultiplier of real > 1, whose shift may reach 31 here: then the
 * radius is 0 and only a difference of 0, whose product is 0, is scaled. */
static tp_tfl_multiplier multiplier_above_one(double real)
{
    int exponent;
    const double mantissa = frexp(real, &exponent);
    int64_t fixed = (int64_t)round(mantissa * 0x1p31);
    if (fixed == INT64_C(1) << 31)
        fixed /= 2, exponent++;
    return (tp_tfl_multiplier){(int32_t)fixed, exponent};
}

typedef struct softmax_state {
    bool is_float;
    float beta;
    int64_t depth, rows;
    int32_t qmin;
    /* the exp (Q0) of each difference -d (d = 0..255) from the row's
     * largest code; 0 below -radius, where the rule leaves it out */
    int32_t exp_of_diff[256];
    bool counted[256];
} softmax_state;

static tfpi_code softmax_prepare(tp_op_ctx *ctx)
{
    int64_t depth, rows;
    tfpi_code code = tp_tfl_expect_rows(ctx, &depth, &rows);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    softmax_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->beta = tp_attr_float(ctx->def, "beta", 1.0f);
    s->depth = depth;
    s->rows = rows;
    if (x->dtype == TFPI_FLOAT) {
        s->is_float = true;
        if (tp_tfl_output_dtype(ctx) != TFPI_FLOAT)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "a float input needs a float output");
        return tp_set_output(ctx, 0, TFPI_FLOAT, x->ndims, x->dims);
    }
    tp_tfl_qparams in;
    if ((code = prepare_8bit(ctx, &in)) != TFPI_OK)
        return code;
    s->qmin = x->dtype == TFPI_INT8 ? -128 : 0;
    if ((code = expect_output_quant(ctx, 1.0f / 256, s->qmin)) != TFPI_OK)
        return code;
    /* beta x scale x 2^26 (at most 2^31 - 1) as a multiplier above one */
    const double real = fmin((double)s->beta * (double)in.scale * (double)(1 << 26), (double)INT32_MAX);
    tp_tfl_multiplier m;
    if (!(real > 1.0) || !isfinite(real))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "beta %g x input scale %g is too small (or not finite)",
                       (double)s->beta, (double)in.scale);
    m = multiplier_above_one(real);
    const int32_t diff_min = -tp_tfl_input_radius(5, m.shift, 31);
    for (int d = 0; d < 256; d++) {
        s->counted[d] = -d >= diff_min;
        if (s->counted[d]) {
            const int32_t scaled = m.shift >= 31 ? 0 : tp_tfl_multiply(-d, m);
            s->exp_of_diff[d] = tp_tfl_exp_on_negative_values(scaled, 5);
        }
    }
    return TFPI_OK;
}

static void softmax_float_row(const softmax_state *s, const float *x, float *y)
{
    float max = x[0];
    for (int64_t c = 1; c < s->depth; c++)
        max = x[c] > max ? x[c] : max;
    float sum = 0.0f;
    for (int64_t c = 0; c < s->depth; c++) {
        y[c] = expf((x[c] - max) * s->beta);
        sum += y[c];
    }
    for (int64_t c = 0; c < s->depth; c++)
        y[c] = y[c] / sum;
}

/* One row of codes (stored as bytes; is_signed: int8). */
static tfpi_code softmax_row(tp_op_ctx *ctx, const softmax_state *s, const uint8_t *x, uint8_t *y, bool is_signed)
{
    int32_t max = INT32_MIN;
    for (int64_t c = 0; c < s->depth; c++) {
        const int32_t v = is_signed ? (int8_t)x[c] : x[c];
        max = v > max ? v : max;
    }
    uint32_t sum = 0; /* Q12; wraps as TFLite's int32 sum would */
    for (int64_t c = 0; c < s->depth; c++) {
        const int d = max - (is_signed ? (int8_t)x[c] : x[c]);
        if (s->counted[d])
            sum += (uint32_t)tp_tfl_rounding_divide_by_pot(s->exp_of_diff[d], 12);
    }
    int bits_over_unit;
    const int32_t scale = tp_tfl_reciprocal((int32_t)sum, 12, &bits_over_unit);
    /* A sum of at least 512 (in units of the largest value's exp) makes
     * the shift exceed 31, where TFLite's rule stops (a failed check):
     * every product is below 2^31, so each quotient, below 1/2, rounds to 0. */
    const int exponent = bits_over_unit + 31 - 8;
    if (exponent < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the fixed-point sum of a row of %lld values overflowed",
                       (long long)s->depth);
    for (int64_t c = 0; c < s->depth; c++) {
        const int d = max - (is_signed ? (int8_t)x[c] : x[c]);
        int32_t v = s->qmin;
        if (s->counted[d] && exponent <= 31) {
            v = tp_tfl_rounding_divide_by_pot(tp_tfl_rounding_doubling_high_mul(scale, s->exp_of_diff[d]), exponent) +
                s->qmin;
            v = v > s->qmin + 255 ? s->qmin + 255 : v;
        }
        y[c] = (uint8_t)v;
    }
    return TFPI_OK;
}

/* LOG_SOFTMAX (reference/log_softmax.h, uint8 and int8 alike on codes
 * less the type's top code): differences from the row's largest times
 * scale x 2^26 as Q5 values; the Q12 sum of their exps (differences below
 * -radius left out) gives log(sum) in Q5; each output is (difference -
 * log sum) / 2^22 plus the top code, those at or below an adjusted
 * minimum (the larger of -radius - 1 and (log sum - 32) scaled back to
 * codes) the lowest code. Output quantization: scale 16/256, zero point
 * the top code. */
typedef struct log_softmax_state {
    int64_t depth, rows;
    int32_t qmin, qmax, diff_min;
    tp_tfl_multiplier reverse; /* from Q5 back to input codes */
    int32_t scaled_diff[256];  /* Q5 of each difference -d */
    int32_t exp_q12[256];      /* its exp in Q12; 0 below -radius */
} log_softmax_state;

static tfpi_code log_softmax_prepare(tp_op_ctx *ctx)
{
    int64_t depth, rows;
    tfpi_code code = tp_tfl_expect_rows(ctx, &depth, &rows);
    if (code != TFPI_OK)
        return code;
    tp_tfl_qparams in;
    if ((code = prepare_8bit(ctx, &in)) != TFPI_OK)
        return code;
    log_softmax_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->depth = depth, s->rows = rows;
    s->qmin = ctx->inputs[0]->dtype == TFPI_INT8 ? -128 : 0;
    s->qmax = s->qmin + 255;
    if ((code = expect_output_quant(ctx, 16.0f / 256, s->qmax)) != TFPI_OK)
        return code;
    const double real = fmin((double)in.scale * (double)(1 << 26), (double)INT32_MAX);
    if (!(real > 1.0) || !isfinite(real))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input scale %g is too small (or not finite)", (double)in.scale);
    const tp_tfl_multiplier m = multiplier_above_one(real);
    /* 2^(31 - shift) / mantissa, a multiplier below one */
    if (!tp_tfl_quantize_multiplier((double)(INT64_C(1) << (31 - m.shift)) / (double)m.mantissa, &s->reverse))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input scale %g gives no reverse multiplier", (double)in.scale);
    s->diff_min = -tp_tfl_input_radius(5, m.shift, 31);
    for (int d = 0; d < 256; d++) {
        s->scaled_diff[d] = m.shift >= 31 ? 0 : tp_tfl_multiply(-d, m);
        s->exp_q12[d] = -d >= s->diff_min ? tp_tfl_rounding_divide_by_pot(
                                                tp_tfl_exp_on_negative_values(s->scaled_diff[d], 5), 12)
                                          : 0;
    }
    return TFPI_OK;
}

static void log_softmax_row(const log_softmax_state *s, const uint8_t *x, uint8_t *y, bool is_signed)
{
    int32_t max = INT32_MIN;
    for (int64_t c = 0; c < s->depth; c++) {
        const int32_t v = is_signed ? (int8_t)x[c] : x[c];
        max = v > max ? v : max;
    }
    uint32_t sum = 0; /* Q12; wraps as TFLite's int32 sum would */
    for (int64_t c = 0; c < s->depth; c++)
        sum += (uint32_t)s->exp_q12[max - (is_signed ? (int8_t)x[c] : x[c])];
    const int32_t log_sum = tp_tfl_log_x_ge_1((int32_t)sum, 12, 5);
    const int32_t back = tp_tfl_multiply((int32_t)((uint32_t)log_sum + (uint32_t)INT32_MIN), s->reverse);
    const int32_t adjusted_min = s->diff_min - 1 > back ? s->diff_min - 1 : back;
    for (int64_t c = 0; c < s->depth; c++) {
        const int d = max - (is_signed ? (int8_t)x[c] : x[c]);
        int32_t v = s->qmin;
        if (-d > adjusted_min) {
            const int32_t diff = (int32_t)((uint32_t)s->scaled_diff[d] - (uint32_t)log_sum);
            v = tp_tfl_rounding_divide_by_pot(diff, 31 - 5 - 4) + s->qmax;
            v = v < s->qmin ? s->qmin : v > s->qmax ? s->qmax : v;
        }
        y[c] = (uint8_t)v;
    }
}

static tfpi_code log_softmax_run(tp_op_ctx *ctx)
{
    const log_softmax_state *s = ctx->state;
    const bool is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    for (int64_t r = 0; r < s->rows; r++)
        log_softmax_row(s, (const uint8_t *)ctx->inputs[0]->data + r * s->depth,
                        (uint8_t *)ctx->outputs[0].data + r * s->depth, is_signed);
    return TFPI_OK;
}

static tfpi_code softmax_run(tp_op_ctx *ctx)
{
    const softmax_state *s = ctx->state;
    const bool is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    for (int64_t r = 0; r < s->rows; r++) {
        if (s->is_float) {
            softmax_float_row(s, (const float *)ctx->inputs[0]->data + r * s->depth,
                              (float *)ctx->outputs[0].data + r * s->depth);
            continue;
        }
        tfpi_code code = softmax_row(ctx, s, (const uint8_t *)ctx->inputs[0]->data + r * s->depth,
                                     (uint8_t *)ctx->outputs[0].data + r * s->depth, is_signed);
        if (code != TFPI_OK)
            return code;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_softmax[] = {
    TP_KERNEL("SOFTMAX", softmax_prepare, softmax_run, state_release, TP_TFLITE_OP),
    TP_KERNEL("LOG_SOFTMAX", log_softmax_prepare, log_softmax_run, state_release, TP_TFLITE_OP),
    TP_KERNEL("LOGISTIC", logistic_prepare, lut_run, state_release, TP_TFLITE_OP),
    TP_KERNEL("TANH", tanh_prepare, lut_run, state_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
