/* quantization.c - Dequantize: a quantized tensor (quint8, qint8, qint32)
 * with its float range (min_range, max_range scalars) to float32, in TF's
 * three modes. With T's lowest and highest values L and H, all in float
 * arithmetic as TF's CPU kernel does:
 *   MIN_COMBINED: scale = (max - min) / (H - L);
 *                 out = (q + half) * scale + min, half = (H - L + 1) / 2 for
 *                 signed T (128 for qint8), 0 for unsigned.
 *   MIN_FIRST:    scale = (max - min) / (2^bits - 1);
 *                 min_rounded = round(min / scale) * scale;
 *                 out = (min_rounded - L * scale) + q * scale
 *                 (out = min when max == min). quantize_weights graphs use
 *                 this mode; OpenCV's importer uses the same rounded minimum.
 *   SCALED:       scale = L == 0 ? max / H
 *                                : max(min / (L + narrow_range), max / H);
 *                 out = q * scale. */
#include <math.h>
#include <string.h>

#include "kernel/kernel.h"

typedef enum dequantize_mode { MIN_COMBINED, MIN_FIRST, SCALED, UNKNOWN_MODE } dequantize_mode;

typedef struct quantized_type {
    tfpi_dtype dtype;
    int bits;
    float lowest, highest;
} quantized_type;

static const quantized_type quantized_types[] = {
    {TFPI_QUINT8, 8, 0.0f, 255.0f},
    {TFPI_QINT8, 8, -128.0f, 127.0f},
    {TFPI_QINT32, 32, -2147483648.0f, 2147483647.0f}, /* H rounds to 2^31 in float, as in TF */
};

static const quantized_type *find_quantized_type(tfpi_dtype dtype)
{
    for (size_t i = 0; i < sizeof quantized_types / sizeof *quantized_types; i++)
        if (quantized_types[i].dtype == dtype)
            return &quantized_types[i];
    return NULL;
}

/* Element i of a quantized tensor, converted to float as TF's cast<float>. */
static float quantized_value(const tfpi_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case TFPI_QUINT8: return (float)((const uint8_t *)t->data)[i];
    case TFPI_QINT8: return (float)((const int8_t *)t->data)[i];
    default: return (float)((const int32_t *)t->data)[i]; /* qint32 */
    }
}

static dequantize_mode parse_mode(const tp_op_ctx *ctx)
{
    static const char *const names[] = {"MIN_COMBINED", "MIN_FIRST", "SCALED"};
    char buf[32];
    const char *mode = tp_attr_string(ctx->def, "mode", buf, sizeof buf, "MIN_COMBINED");
    for (int m = 0; m < UNKNOWN_MODE; m++)
        if (strcmp(mode, names[m]) == 0)
            return (dequantize_mode)m;
    return UNKNOWN_MODE;
}

static tfpi_code expect_scalar_range(tp_op_ctx *ctx, int input)
{
    const tfpi_tensor *t = ctx->inputs[input];
    char shape[128];
    tfpi_code code = tp_expect_dtype(ctx, input, TFPI_FLOAT);
    if (code == TFPI_OK && tp_num_elements(t) != 1)
        code = tp_fail(ctx, TFPI_UNIMPLEMENTED, "input %d (%s) must hold one value, has shape %s", input,
                       input == 1 ? "min_range" : "max_range", tp_shape_string(t, shape, sizeof shape));
    return code;
}

static tfpi_code dequantize_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code == TFPI_OK)
        code = expect_scalar_range(ctx, 1);
    if (code == TFPI_OK)
        code = expect_scalar_range(ctx, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (!find_quantized_type(in->dtype))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; this kernel handles quint8, qint8 and qint32",
                       tfpi_dtype_name(in->dtype));
    if (parse_mode(ctx) == UNKNOWN_MODE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "mode must be MIN_COMBINED, MIN_FIRST or SCALED");
    if (tp_attr_int(ctx->def, "axis", -1) != -1)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "per-channel ranges (axis attr) are not supported");
    if (tp_attr_type(ctx->def, "dtype", TFPI_FLOAT) != TFPI_FLOAT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "only float32 output is supported");
    return tp_set_output(ctx, 0, TFPI_FLOAT, in->ndims, in->dims);
}

static tfpi_code dequantize_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    const quantized_type *type = find_quantized_type(in->dtype);
    const float min = *(const float *)ctx->inputs[1]->data;
    const float max = *(const float *)ctx->inputs[2]->data;
    float *out = ctx->outputs[0].data;
    const int64_t n = tp_num_elements(in);
    switch (parse_mode(ctx)) {
    case MIN_COMBINED: {
        const float range = type->highest - type->lowest;
        const float half = type->lowest < 0 ? (range + 1.0f) / 2.0f : 0.0f;
        const float scale = (max - min) / range;
        for (int64_t i = 0; i < n; i++)
            out[i] = (quantized_value(in, i) + half) * scale + min;
        break;
    }
    case MIN_FIRST: {
        const double steps = ldexp(1.0, type->bits);
        const float scale = (float)((max - min) / (steps - 1.0));
        const float min_rounded = scale == 0 ? min : roundf(min / scale) * scale;
        const float offset = min_rounded - type->lowest * scale;
        for (int64_t i = 0; i < n; i++)
            out[i] = offset + quantized_value(in, i) * scale;
        break;
    }
    case SCALED: {
        const bool narrow_range = tp_attr_bool(ctx->def, "narrow_range", false);
        const float scale = type->lowest == 0 ? max / type->highest
                                              : fmaxf(min / (type->lowest + (narrow_range ? 1.0f : 0.0f)),
                                                      max / type->highest);
        for (int64_t i = 0; i < n; i++)
            out[i] = quantized_value(in, i) * scale;
        break;
    }
    case UNKNOWN_MODE: /* rejected by prepare */
        break;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_quantization[] = {
    TP_KERNEL("Dequantize", dequantize_prepare, dequantize_run, NULL, 0),
    TP_KERNELS_END,
};
