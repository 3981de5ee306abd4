/* tflite_activations.c - TensorFlow Lite's RELU, RELU6, RELU_N1_TO_1,
 * LEAKY_RELU, HARD_SWISH and GELU on uint8 and int8 tensors (with the rules
 * of tflite-micro: activations_common.cc, leaky_relu.h, hard_swish.h, gelu
 * and their Prepare code) and on float32 (TensorFlow has no op for the last
 * four; the reader may keep the first two under their TFLite names too):
 *  - RELU, RELU6, RELU_N1_TO_1: (q - in zero point) x in_scale / out_scale
 *    (a float division, then TFLite's multiplier) + out zero point,
 *    clamped to the codes of [0 or -1, inf, 6 or 1] in the output's scale.
 *  - LEAKY_RELU: q - in zero point times in_scale / out_scale where it is
 *    >= 0, times |in_scale x alpha / out_scale| (negated for a negative
 *    alpha) elsewhere, + out zero point, clamped to the type.
 *  - HARD_SWISH: TFLite's 16-bit fixed-point form: the input on a 2^-7
 *    finer scale, a "reluish" factor (x + 3) / 6 in [0, 1] from a 16-bit
 *    multiplier, their product rescaled to the output.
 *  - GELU: x/2 erfc(-x / sqrt 2), or with `approximate` x/2 (1 +
 *    tanh(sqrt(2/pi) (x + 0.044715 x^3))), in float; on 8-bit codes
 *    TFLite's lookup table: each code dequantized, transformed in float,
 *    divided by the output scale (times its inverse), rounded half away
 *    from zero, plus the output zero point, clamped.
 * Every result depends on the 8-bit code alone: prepare fills a table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"

typedef enum act_op { ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1, ACT_LEAKY_RELU, ACT_HARD_SWISH, ACT_GELU } act_op;

typedef struct act_state {
    act_op op;
    bool is_float, approximate;
    float alpha;
    uint8_t table[256];
} act_state;

static void act_release(void *state) { free(state); }

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- HARD_SWISH's 16-bit fixed point ---- */

static int16_t sat16(int64_t v) { return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v); }

/* gemmlowp's 16-bit SaturatingRoundingDoublingHighMul. */
static int16_t rounding_high_mul16(int16_t a, int16_t b)
{
    if (a == INT16_MIN && b == INT16_MIN)
        return INT16_MAX;
    const int32_t ab = (int32_t)a * b;
    return (int16_t)((ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14))) / (1 << 15));
}

/* TFLite's own (truncating) SaturatingDoublingHighMul. */
static int16_t high_mul16(int16_t a, int16_t b)
{
    if (a == INT16_MIN && b == INT16_MIN)
        return INT16_MAX;
    return (int16_t)(((int32_t)a * b) / (1 << 15));
}

/* TFLite's DownScaleInt32ToInt16Multiplier. */
static int16_t to_16bit_multiplier(int32_t m)
{
    if (m >= INT32_MAX - (1 << 15))
        return INT16_MAX;
    return (int16_t)((m + (1 << 15)) >> 16);
}

typedef struct hard_swish_params {
    int16_t out_mult, reluish_mult;
    int out_exponent, reluish_exponent;
} hard_swish_params;

static tfpi_code hard_swish_params_of(tp_op_ctx *ctx, const tp_tfl_qparams *in, const tp_tfl_qparams *out,
                                      hard_swish_params *h)
{
    const float hires_scale = (1.0f / 128.0f) * in->scale, reluish_scale = 3.0f / 32768.0f;
    tp_tfl_multiplier m_out, m_reluish;
    if (!tp_tfl_quantize_multiplier((double)(hires_scale / out->scale), &m_out) ||
        !tp_tfl_quantize_multiplier((double)(hires_scale / reluish_scale), &m_reluish) || m_out.shift > 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input scale %g and output scale %g are out of HARD_SWISH's range",
                       (double)in->scale, (double)out->scale);
    *h = (hard_swish_params){to_16bit_multiplier(m_out.mantissa), to_16bit_multiplier(m_reluish.mantissa),
                             m_out.shift, m_reluish.shift};
    return TFPI_OK;
}

static int32_t hard_swish_code(int32_t x, const hard_swish_params *h)
{
    const int16_t hires = (int16_t)(x * (1 << 7)); /* |x| <= 255: fits */
    const int16_t preshift_output = rounding_high_mul16(hires, h->out_mult);
    int16_t reluish = hires;
    if (h->reluish_exponent > 0)
        reluish = sat16((int64_t)reluish * ((int64_t)1 << (h->reluish_exponent - 1)));
    reluish = rounding_high_mul16(reluish, h->reluish_mult);
    if (h->reluish_exponent > 0)
        reluish = sat16((int64_t)reluish * 2);
    if (h->reluish_exponent < 0)
        reluish = (int16_t)tp_tfl_rounding_divide_by_pot(reluish, -h->reluish_exponent);
    reluish = (int16_t)((reluish + (1 << 15)) >> 1);
    const int16_t product = high_mul16(reluish, preshift_output);
    return tp_tfl_rounding_divide_by_pot(product, -h->out_exponent);
}

/* ---- GELU ---- */

static float gelu(float x, bool approximate)
{
    if (approximate)
        return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    return 0.5f * x * erfcf(x * -0.7071067811865476f); /* 1 + erf(x / sqrt 2), without cancellation for x << 0 */
}

/* TFLite's LUTPopulate: the code of gelu(each input code's value). */
static int32_t gelu_code(int32_t x, const tp_tfl_qparams *in, const tp_tfl_qparams *out, bool approximate)
{
    const float y = gelu(in->scale * (float)x, approximate);
    return (int32_t)roundf(y * (1.0f / out->scale));
}

/* ---- the table ---- */

static tfpi_code fill_table(tp_op_ctx *ctx, act_state *s)
{
    tp_tfl_qparams in, out;
    tfpi_code code;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &in)) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "out", 0, &out)) != TFPI_OK)
        return code;
    const bool is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    tp_tfl_multiplier identity, alpha = {0, 0};
    const double identity_m = (double)(in.scale / out.scale);
    if (!tp_tfl_quantize_multiplier(identity_m, &identity))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the multiplier %g (input / output scale) is out of range",
                       identity_m);
    const double alpha_m = (double)(in.scale * s->alpha / out.scale);
    if (s->op == ACT_LEAKY_RELU && !tp_tfl_quantize_multiplier(fabs(alpha_m), &alpha))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "alpha %g gives the multiplier %g, out of range", (double)s->alpha,
                       alpha_m);
    hard_swish_params h = {0};
    if (s->op == ACT_HARD_SWISH && (code = hard_swish_params_of(ctx, &in, &out, &h)) != TFPI_OK)
        return code;
    int32_t lo = out.qmin, hi = out.qmax;
    if (s->op <= ACT_RELU_N1_TO_1)
        tp_tfl_activation_range(s->op == ACT_RELU    ? TP_TFL_ACT_RELU
                                : s->op == ACT_RELU6 ? TP_TFL_ACT_RELU6
                                                     : TP_TFL_ACT_RELU_N1_TO_1,
                                out.scale, out.zero_point, out.qmin, out.qmax, &lo, &hi);
    for (int b = 0; b < 256; b++) {
        const int32_t x = (is_signed ? (int32_t)(int8_t)b : b) - in.zero_point;
        int32_t v;
        if (s->op == ACT_HARD_SWISH)
            v = hard_swish_code(x, &h);
        else if (s->op == ACT_GELU)
            v = gelu_code(x, &in, &out, s->approximate);
        else if (s->op == ACT_LEAKY_RELU && x < 0)
            v = alpha_m < 0 ? -tp_tfl_multiply(x, alpha) : tp_tfl_multiply(x, alpha);
        else
            v = tp_tfl_multiply(x, identity);
        s->table[b] = (uint8_t)clamp32(v + out.zero_point, lo, hi);
    }
    return TFPI_OK;
}

static tfpi_code act_prepare(tp_op_ctx *ctx, act_op op)
{
    tfpi_code code;
    if ((code = tp_tfl_prepare_elementwise(ctx, true)) != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    act_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->op = op;
    s->alpha = tp_attr_float(ctx->def, "alpha", 0.2f);
    s->approximate = tp_attr_bool(ctx->def, "approximate", false);
    if (!isfinite(s->alpha))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "alpha %g is not finite", (double)s->alpha);
    s->is_float = x->dtype == TFPI_FLOAT;
    return s->is_float ? TFPI_OK : fill_table(ctx, s);
}

static float float_value(const act_state *s, float x)
{
    switch (s->op) {
    case ACT_RELU: return x < 0.0f ? 0.0f : x;
    case ACT_RELU6: return x < 0.0f ? 0.0f : x > 6.0f ? 6.0f : x;
    case ACT_RELU_N1_TO_1: return x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x;
    case ACT_LEAKY_RELU: return x > 0.0f ? x : x * s->alpha;
    case ACT_GELU: return gelu(x, s->approximate);
    default: return x * fminf(6.0f, fmaxf(0.0f, x + 3.0f)) / 6.0f;
    }
}

static tfpi_code act_run(tp_op_ctx *ctx)
{
    const act_state *s = ctx->state;
    const int64_t n = tp_num_elements(ctx->inputs[0]);
    if (s->is_float) {
        const float *x = ctx->inputs[0]->data;
        float *y = ctx->outputs[0].data;
        for (int64_t i = 0; i < n; i++)
            y[i] = float_value(s, x[i]);
        return TFPI_OK;
    }
    const uint8_t *x = ctx->inputs[0]->data;
    uint8_t *y = ctx->outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = s->table[x[i]];
    return TFPI_OK;
}

static tfpi_code relu_prepare(tp_op_ctx *ctx) { return act_prepare(ctx, ACT_RELU); }
static tfpi_code relu6_prepare(tp_op_ctx *ctx) { return act_prepare(ctx, ACT_RELU6); }
static tfpi_code relu_n1_to_1_prepare(tp_op_ctx *ctx) { return act_prepare(ctx, ACT_RELU_N1_TO_1); }
static tfpi_code leaky_relu_prepare(tp_op_ctx *ctx) { return act_prepare(ctx, ACT_LEAKY_RELU); }
static tfpi_code hard_swish_prepare(tp_op_ctx *ctx) { return act_prepare(ctx, ACT_HARD_SWISH); }
static tfpi_code gelu_prepare(tp_op_ctx *ctx) { return act_prepare(ctx, ACT_GELU); }

const tp_kernel tp_kernels_tflite_activations[] = {
    TP_KERNEL("RELU", relu_prepare, act_run, act_release, TP_TFLITE_OP),
    TP_KERNEL("RELU6", relu6_prepare, act_run, act_release, TP_TFLITE_OP),
    TP_KERNEL("RELU_N1_TO_1", relu_n1_to_1_prepare, act_run, act_release, TP_TFLITE_OP),
    TP_KERNEL("LEAKY_RELU", leaky_relu_prepare, act_run, act_release, TP_TFLITE_OP),
    TP_KERNEL("HARD_SWISH", hard_swish_prepare, act_run, act_release, TP_TFLITE_OP),
    TP_KERNEL("GELU", gelu_prepare, act_run, act_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
