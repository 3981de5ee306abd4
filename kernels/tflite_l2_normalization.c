/* tflite_l2_normalization.c - TensorFlow Lite's L2_NORMALIZATION along the
 * last dimension: float32 (x / max(sqrt(sum x^2), 1e-6)) and uint8 / int8
 * with the integer rules of its reference kernels (reference/
 * l2normalization.h, integer_ops/l2normalization.h): the sum of squares of
 * the codes less the zero point, its inverse square root as a fixed-point
 * multiplier (tp_tfl_inv_sqrt), each value scaled to the output, whose
 * quantization must be scale 1/128 with zero point 128 (uint8) or 0
 * (int8). */
#include <math.h>
#include <stdlib.h>

#include "compute/tflite_node.h"

typedef struct l2_state {
    int64_t depth, rows;
    int32_t in_zero;
} l2_state;

static tfpi_code l2_prepare(tp_op_ctx *ctx)
{
    int64_t depth, rows;
    tfpi_code code = tp_tfl_expect_rows(ctx, &depth, &rows);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    if ((code = tp_set_output(ctx, 0, x->dtype, x->ndims, x->dims)) != TFPI_OK)
        return code;
    l2_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->depth = depth;
    s->rows = rows;
    if (x->dtype == TFPI_FLOAT)
        return TFPI_OK;
    tp_tfl_qparams in, out;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &in)) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "out", 0, &out)) != TFPI_OK)
        return code;
    const int32_t zero = x->dtype == TFPI_INT8 ? 0 : 128;
    if (out.scale != 1.0f / 128 || out.zero_point != zero)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "output quantization (scale %g, zero point %d) must be scale 0.0078125, zero point %d",
                       (double)out.scale, (int)out.zero_point, (int)zero);
    s->in_zero = in.zero_point;
    return TFPI_OK;
}

static void l2_float_row(const float *x, float *y, int64_t depth)
{
    float squares = 0.0f;
    for (int64_t c = 0; c < depth; c++)
        squares += x[c] * x[c];
    const float norm = fmaxf(sqrtf(squares), 1e-6f);
    for (int64_t c = 0; c < depth; c++)
        y[c] = x[c] / norm;
}

static void l2_code_row(const l2_state *s, const uint8_t *x, uint8_t *y, bool is_signed)
{
    uint32_t squares = 0; /* wraps as TFLite's int32 sum would */
    for (int64_t c = 0; c < s->depth; c++) {
        const int32_t d = (is_signed ? (int8_t)x[c] : x[c]) - s->in_zero;
        squares += (uint32_t)(d * d);
    }
    tp_tfl_multiplier m;
    tp_tfl_inv_sqrt((int32_t)squares, &m.mantissa, &m.shift);
    for (int64_t c = 0; c < s->depth; c++) {
        const int32_t d = (is_signed ? (int8_t)x[c] : x[c]) - s->in_zero;
        int32_t v;
        if (is_signed) {
            v = tp_tfl_multiply(d, (tp_tfl_multiplier){m.mantissa, m.shift + 7});
        } else {
            v = 128 + tp_tfl_multiply(128 * d, m);
        }
        const int32_t lo = is_signed ? -128 : 0;
        y[c] = (uint8_t)(v < lo ? lo : v > lo + 255 ? lo + 255 : v);
    }
}

static tfpi_code l2_run(tp_op_ctx *ctx)
{
    const l2_state *s = ctx->state;
    const tfpi_tensor *x = ctx->inputs[0];
    for (int64_t r = 0; r < s->rows; r++) {
        if (x->dtype == TFPI_FLOAT)
            l2_float_row((const float *)x->data + r * s->depth, (float *)ctx->outputs[0].data + r * s->depth,
                         s->depth);
        else
            l2_code_row(s, (const uint8_t *)x->data + r * s->depth, (uint8_t *)ctx->outputs[0].data + r * s->depth,
                        x->dtype == TFPI_INT8);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_l2_normalization[] = {
    TP_KERNEL("L2_NORMALIZATION", l2_prepare, l2_run, free, TP_TFLITE_OP),
    TP_KERNELS_END,
};
