/* tflite_lut.c - TensorFlow Lite's elementwise operators of one 8-bit
 * input whose output code depends on the input code alone: EXP, LOG,
 * ELU, SQRT, RSQRT and ABS on int8 tensors quantized per tensor (the
 * types TFLite's kernels take; EXP, LOG, ELU and ABS also on uint8 by the
 * same rule), each as a 256-entry table made while planning by TFLite's
 * rule (exp.cc, elementwise.cc, activations.cc):
 *  - EXP, LOG, ELU: TFLite's LUTPopulate: the code's value in float (input
 *    scale x (code - zero point)), transformed (expf; logf, or for a value
 *    <= 0 the output's lowest value (qmin - zero point) x output scale;
 *    expm1f below 0 and the value itself above),
 *    times 1 / output scale (a float), rounded half away from zero, plus
 *    the output zero point, clamped to the type (an infinite result to
 *    its end: TFLite's cast of an infinity is undefined).
 *  - SQRT: the square root of the value in float, divided by the output
 *    scale, truncated toward zero (TFLite's static_cast), plus the output
 *    zero point, clamped. A negative value is an error when run, as in
 *    TFLite.
 *  - RSQRT: q = code - zero point; q = 0 gives 127; else TFLite's
 *    integer inverse square root of q (GetInvSqrtQuantizedMultiplierExp)
 *    applied to 1 with a shift of 20, then the multiplier of
 *    1 / (sqrt(input scale) x output scale) with the shift less 20, plus
 *    the output zero point, clamped. A negative q is an error when run.
 *  - ABS: |code - zero point|, times input scale / output scale when the
 *    scales differ, plus the output zero point, clamped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"

typedef enum lut_op { LUT_EXP, LUT_LOG, LUT_ELU, LUT_SQRT, LUT_RSQRT, LUT_ABS } lut_op;

typedef struct lut_state {
    uint8_t table[256];
    bool allowed[256]; /* SQRT, RSQRT: codes of values >= 0 */
    bool check;        /* whether some code is not allowed */
} lut_state;

static void lut_release(void *state) { free(state); }

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A float result r (already in output steps, rounded or truncated) plus the
 * zero point, clamped to the codes in float first. */
static int32_t code_of_steps(float r, const tp_tfl_qparams *out)
{
    const float v = r + (float)out->zero_point;
    return v >= (float)out->qmax ? out->qmax : v <= (float)out->qmin ? out->qmin : (int32_t)v;
}

static int32_t table_code(lut_op op, int32_t c, const tp_tfl_qparams *in, const tp_tfl_qparams *out,
                          tp_tfl_multiplier rescale)
{
    const int32_t q = c - in->zero_point;
    const float value = in->scale * (float)q;
    switch (op) {
    case LUT_EXP: return code_of_steps(roundf(expf(value) * (1.0f / out->scale)), out);
    case LUT_LOG: {
        const float y = value <= 0.0f ? (float)(out->qmin - out->zero_point) * out->scale : logf(value);
        return code_of_steps(roundf(y * (1.0f / out->scale)), out);
    }
    case LUT_ELU: return code_of_steps(roundf((value < 0.0f ? expm1f(value) : value) * (1.0f / out->scale)), out);
    case LUT_SQRT: return code_of_steps(truncf(sqrtf(value) / out->scale), out);
    case LUT_RSQRT: {
        if (q == 0)
            return out->qmax;
        int32_t mantissa;
        int shift;
        tp_tfl_inv_sqrt(q, &mantissa, &shift);
        const int32_t data = tp_tfl_multiply(1, (tp_tfl_multiplier){mantissa, shift + 20});
        const int32_t v = tp_tfl_multiply(data, (tp_tfl_multiplier){rescale.mantissa, rescale.shift - 20});
        return clamp32((int32_t)((uint32_t)v + (uint32_t)out->zero_point), out->qmin, out->qmax);
    }
    default: {
        const int32_t a = q < 0 ? -q : q;
        const int32_t v = in->scale == out->scale ? a : tp_tfl_multiply(a, rescale);
        return clamp32(v + out->zero_point, out->qmin, out->qmax);
    }
    }
}

static tfpi_code lut_prepare(tp_op_ctx *ctx, lut_op op)
{
    tfpi_code code;
    if ((code = tp_tfl_prepare_elementwise(ctx, false)) != TFPI_OK)
        return code;
    const bool is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    if (!is_signed && (op == LUT_SQRT || op == LUT_RSQRT))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input 0 is uint8: TFLite's quantized form of this operator is int8");
    tp_tfl_qparams in, out;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &in)) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "out", 0, &out)) != TFPI_OK)
        return code;
    tp_tfl_multiplier rescale = {0, 0}; /* RSQRT's and ABS's, from float arithmetic as TFLite's */
    const double real = op == LUT_RSQRT ? 1.0 / (double)(sqrtf(in.scale) * out.scale) : (double)(in.scale / out.scale);
    if ((op == LUT_RSQRT || op == LUT_ABS) && !tp_tfl_quantize_multiplier(real, &rescale))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the rescale %g is out of range", real);
    lut_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    for (int b = 0; b < 256; b++) {
        const int32_t c = is_signed ? (int32_t)(int8_t)b : b;
        s->allowed[b] = !(op == LUT_SQRT || op == LUT_RSQRT) || c >= in.zero_point;
        s->check |= !s->allowed[b];
        s->table[b] = s->allowed[b] ? (uint8_t)table_code(op, c, &in, &out, rescale) : 0;
    }
    return TFPI_OK;
}

static tfpi_code lut_run(tp_op_ctx *ctx)
{
    const lut_state *s = ctx->state;
    const int64_t n = tp_num_elements(ctx->inputs[0]);
    const uint8_t *x = ctx->inputs[0]->data;
    uint8_t *y = ctx->outputs[0].data;
    for (int64_t i = 0; s->check && i < n; i++)
        if (!s->allowed[x[i]])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "element %lld is negative (code %d): %s is only defined for "
                           "values >= 0", (long long)i, (int)(int8_t)x[i], ctx->def->op);
    for (int64_t i = 0; i < n; i++)
        y[i] = s->table[x[i]];
    return TFPI_OK;
}

static tfpi_code exp_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, LUT_EXP); }
static tfpi_code log_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, LUT_LOG); }
static tfpi_code elu_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, LUT_ELU); }
static tfpi_code sqrt_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, LUT_SQRT); }
static tfpi_code rsqrt_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, LUT_RSQRT); }
static tfpi_code abs_prepare(tp_op_ctx *ctx) { return lut_prepare(ctx, LUT_ABS); }

const tp_kernel tp_kernels_tflite_lut[] = {
    TP_KERNEL("EXP", exp_prepare, lut_run, lut_release, TP_TFLITE_OP),
    TP_KERNEL("LOG", log_prepare, lut_run, lut_release, TP_TFLITE_OP),
    TP_KERNEL("ELU", elu_prepare, lut_run, lut_release, TP_TFLITE_OP),
    TP_KERNEL("SQRT", sqrt_prepare, lut_run, lut_release, TP_TFLITE_OP),
    TP_KERNEL("RSQRT", rsqrt_prepare, lut_run, lut_release, TP_TFLITE_OP),
    TP_KERNEL("ABS", abs_prepare, lut_run, lut_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
