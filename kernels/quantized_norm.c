/* quantized_norm.c - the two 8-bit normalisations
 * (../shared/docs/quantized.md 3.9, 3.10):
 * QuantizedBatchNormWithGlobalNormalization (what quantize_graph.py emits
 * for the old BatchNormWithGlobalNormalization): per channel a scale and
 * offset worked out in float, then applied to qint32 codes of the fixed
 * range +-2^20 in integers with TF's wrapping product and truncating
 * division; and QuantizedInstanceNorm (per image and channel: subtract the
 * mean, divide by the standard deviation, in float, then quantize to the
 * output's own or the given range). */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel.h"
#include "compute/quantized_args.h"

/* ---- QuantizedBatchNormWithGlobalNormalization ---- */

enum { BN_T, BN_MEAN = 3, BN_VARIANCE = 6, BN_BETA = 9, BN_GAMMA = 12, BN_INPUTS = 15 };

static tfpi_code batch_norm_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, BN_INPUTS, BN_INPUTS);
    for (int k = 0; code == TFPI_OK && k < BN_INPUTS; k += 3)
        if ((code = tp_expect_dtype(ctx, k, TFPI_QUINT8)) == TFPI_OK)
            code = tp_q_expect_scalars(ctx, k + 1, 2);
    if (code != TFPI_OK)
        return code;
    if (tp_attr_type(ctx->def, "out_type", TFPI_QINT32) != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "out_type must be qint32");
    const tfpi_tensor *t = ctx->inputs[BN_T];
    char shape[96];
    if (t->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "t must be 4-D NHWC, got %s", tp_shape_string(t, shape, sizeof shape));
    for (int k = BN_MEAN; k < BN_INPUTS; k += 3)
        if (ctx->inputs[k]->ndims != 1 || ctx->inputs[k]->dims[0] != t->dims[3])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d %s must be a vector of the %lld channels", k,
                           tp_shape_string(ctx->inputs[k], shape, sizeof shape), (long long)t->dims[3]);
    return tp_q_prepare_outputs(ctx, TFPI_QINT32, 4, t->dims);
}

/* Channel c of quantized vector input k as a float. */
static float channel_value(tp_op_ctx *ctx, int k, int64_t c)
{
    const uint8_t *q = ctx->inputs[k]->data;
    return tp_q_q2f(q[c], tp_q_scalar(ctx, k + 1), tp_q_scalar(ctx, k + 2), tp_qtype_of(TFPI_QUINT8));
}

static tfpi_code batch_norm_run(tp_op_ctx *ctx)
{
    for (int k = 0; k < BN_INPUTS; k += 3) {
        float min, max;
        tfpi_code code = tp_q_read_range(ctx, k + 1, k + 2, "an input", &min, &max);
        if (code != TFPI_OK)
            return code;
    }
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8), *i32 = tp_qtype_of(TFPI_QINT32);
    const float out_max = 1048576.0f, out_min = -out_max, epsilon = tp_attr_float(ctx->def, "variance_epsilon", 0.0f);
    const bool gamma = tp_attr_bool(ctx->def, "scale_after_normalization", false);
    const tfpi_tensor *t = ctx->inputs[BN_T];
    const int64_t channels = t->dims[3], n = tp_num_elements(t);
    int64_t *scale = malloc(sizeof *scale * (size_t)(2 * channels + 1)), *offset = scale + channels;
    if (!scale)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int64_t c = 0; c < channels; c++) {
        float s = (float)(1.0f / sqrtf((float)(channel_value(ctx, BN_VARIANCE, c) + epsilon)));
        if (gamma)
            s = (float)(s * channel_value(ctx, BN_GAMMA, c));
        float o = (float)((float)(-channel_value(ctx, BN_MEAN, c) * s) + channel_value(ctx, BN_BETA, c));
        scale[c] = tp_q_f2q(s, out_min, out_max, i32);
        offset[c] = tp_q_f2q(o, out_min, out_max, i32);
    }
    const int64_t one = tp_q_f2q(1.0, out_min, out_max, i32);
    const float t_min = tp_q_scalar(ctx, BN_T + 1), t_max = tp_q_scalar(ctx, BN_T + 2);
    const uint8_t *q = t->data;
    int32_t *out = ctx->outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = tp_q_f2q(tp_q_q2f(q[i], t_min, t_max, u8), out_min, out_max, i32);
        int32_t product = (int32_t)(uint32_t)(uint64_t)(x * scale[i % channels]); /* wraps, as TF's */
        int32_t quotient = one ? (int32_t)(product / one) : 0;
        out[i] = (int32_t)((uint32_t)quotient + (uint32_t)offset[i % channels]);
    }
    free(scale);
    tp_q_write_range(ctx, 1, out_min, out_max);
    return TFPI_OK;
}

/* ---- QuantizedInstanceNorm ---- */

static tfpi_code instance_norm_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 3, 3)) != TFPI_OK || (code = tp_expect_dtype(ctx, 0, TFPI_QUINT8)) != TFPI_OK ||
        (code = tp_q_expect_scalars(ctx, 1, 2)) != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    char shape[96];
    if (x->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "x must be 4-D NHWC, got %s", tp_shape_string(x, shape, sizeof shape));
    return tp_q_prepare_outputs(ctx, TFPI_QUINT8, 4, x->dims);
}

static tfpi_code instance_norm_run(tp_op_ctx *ctx)
{
    float min, max;
    tfpi_code code = tp_q_read_range(ctx, 1, 2, "x", &min, &max);
    if (code != TFPI_OK)
        return code;
    if (!(min < max))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "x_min %g must be below x_max %g", (double)min, (double)max);
    const tfpi_tensor *x = ctx->inputs[0];
    const int64_t n = x->dims[0], pixels = x->dims[1] * x->dims[2], channels = x->dims[3], total = tp_num_elements(x);
    const float step = (float)((float)(max - min) / 255.0f), epsilon = tp_attr_float(ctx->def, "variance_epsilon", 1e-5f);
    float *y = malloc(sizeof *y * (size_t)(total + 1));
    if (!y)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    const uint8_t *q = x->data;
    float y_min = INFINITY, y_max = -INFINITY;
    for (int64_t b = 0; b < n; b++)
        for (int64_t c = 0; c < channels; c++) {
            const int64_t base = b * pixels * channels + c;
            float sum = 0.0f, squares = 0.0f;
            for (int64_t p = 0; p < pixels; p++)
                sum += (float)q[base + p * channels];
            const float mean = sum / (float)pixels;
            for (int64_t p = 0; p < pixels; p++) {
                float d = (float)(step * (float)((float)q[base + p * channels] - mean));
                squares += (float)(d * d);
            }
            const float inv_std = 1.0f / sqrtf((float)(squares / (float)pixels) + epsilon);
            for (int64_t p = 0; p < pixels; p++) {
                float v = (float)((float)(step * (float)((float)q[base + p * channels] - mean)) * inv_std);
                y[base + p * channels] = v;
                y_min = fminf(y_min, v);
                y_max = fmaxf(y_max, v);
            }
        }
    if (tp_attr_bool(ctx->def, "output_range_given", false)) {
        y_min = tp_attr_float(ctx->def, "given_y_min", 0.0f);
        y_max = tp_attr_float(ctx->def, "given_y_max", 0.0f);
    }
    const float separation = tp_attr_float(ctx->def, "min_separation", 1e-3f);
    if (total == 0 || !(y_max - y_min >= separation))
        y_max = (total == 0 ? (y_min = 0.0f) : y_min) + separation;
    tp_q_quantizer qz = tp_q_quantizer_make(y_min, y_max, tp_qtype_of(TFPI_QUINT8));
    uint8_t *out = ctx->outputs[0].data;
    for (int64_t i = 0; i < total; i++)
        out[i] = (uint8_t)tp_q_quantize_e(&qz, y[i]);
    free(y);
    tp_q_write_range(ctx, 1, y_min, y_max);
    return TFPI_OK;
}

const tp_kernel tp_kernels_quantized_norm[] = {
    TP_KERNEL("QuantizedBatchNormWithGlobalNormalization", batch_norm_prepare, batch_norm_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedInstanceNorm", instance_norm_prepare, instance_norm_run, NULL, TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
