/* quantized_resize.c - QuantizedResizeBilinear on quint8 or qint32 NHWC
 * codes (../shared/docs/quantized.md 3.11): TF's integer bilinear
 * interpolation in fixed point (7 fraction bits for quint8, 30 for qint32)
 * with its truncating divisions, align_corners and half_pixel_centers; the
 * range passes through. The size input must be known while planning. */
#include <math.h>
#include <string.h>

#include "kernel/kernel.h"
#include "compute/quantized_args.h"

static tfpi_code resize_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 4, 4)) != TFPI_OK || (code = tp_expect_dtype(ctx, 1, TFPI_INT32)) != TFPI_OK ||
        (code = tp_expect_known(ctx, 1)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 2, 2)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *size = ctx->inputs[1];
    char shape[96];
    if (in->dtype != TFPI_QUINT8 && in->dtype != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "images are %s; this kernel handles quint8 and qint32",
                       tfpi_dtype_name(in->dtype));
    if (in->ndims != 4 || tp_num_elements(size) != 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "images must be 4-D NHWC and size hold 2 values, got %s",
                       tp_shape_string(in, shape, sizeof shape));
    const int32_t *hw = size->data;
    if (hw[0] <= 0 || hw[1] <= 0 || in->dims[1] <= 0 || in->dims[2] <= 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "sizes must be positive: %dx%d from %s", hw[0], hw[1],
                       tp_shape_string(in, shape, sizeof shape));
    if (tp_attr_bool(ctx->def, "align_corners", false) && tp_attr_bool(ctx->def, "half_pixel_centers", false))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "half_pixel_centers and align_corners cannot both be true");
    int64_t dims[4] = {in->dims[0], hw[0], hw[1], in->dims[3]};
    return tp_q_prepare_outputs(ctx, in->dtype, 4, dims);
}

typedef struct axis_sample {
    int64_t lower, upper, weight; /* weight: the fraction in fixed point */
} axis_sample;

static axis_sample sample(const tp_op_ctx *ctx, int64_t i, int64_t in, int64_t out, int fraction_bits)
{
    bool align = tp_attr_bool(ctx->def, "align_corners", false);
    bool half = tp_attr_bool(ctx->def, "half_pixel_centers", false);
    float scale = align && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    float p = half ? (float)((float)((float)i + 0.5f) * scale) - 0.5f : (float)i * scale;
    axis_sample s;
    float below = floorf(p);
    s.upper = (int64_t)fminf(ceilf(p), (float)(in - 1));
    s.lower = (int64_t)fmaxf(below, 0.0f);
    s.lower = s.lower < s.upper ? s.lower : s.upper;
    s.weight = (int64_t)((p - below) * (float)((int64_t)1 << fraction_bits));
    return s;
}

static tfpi_code resize_run(tp_op_ctx *ctx)
{
    float min, max;
    tfpi_code code = tp_q_read_range(ctx, 2, 3, "the images", &min, &max);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    const tp_qtype *t = tp_qtype_of(in->dtype);
    const int bits = t->bits == 8 ? 7 : 30;
    const int64_t one = (int64_t)1 << bits, n = in->dims[0], h = in->dims[1], w = in->dims[2], c = in->dims[3];
    const int64_t oh = out->dims[1], ow = out->dims[2];
    tp_q_write_range(ctx, 1, min, max);
    if (oh == h && ow == w) {
        memcpy(out->data, in->data, tp_byte_size(in));
        return TFPI_OK;
    }
    for (int64_t y = 0; y < oh; y++) {
        axis_sample sy = sample(ctx, y, h, oh, bits);
        for (int64_t x = 0; x < ow; x++) {
            axis_sample sx = sample(ctx, x, w, ow, bits);
            for (int64_t b = 0; b < n; b++)
                for (int64_t ch = 0; ch < c; ch++) {
                    int64_t tl = tp_qcode_get(t, in->data, ((b * h + sy.lower) * w + sx.lower) * c + ch);
                    int64_t tr = tp_qcode_get(t, in->data, ((b * h + sy.lower) * w + sx.upper) * c + ch);
                    int64_t bl = tp_qcode_get(t, in->data, ((b * h + sy.upper) * w + sx.lower) * c + ch);
                    int64_t br = tp_qcode_get(t, in->data, ((b * h + sy.upper) * w + sx.upper) * c + ch);
                    int64_t top = tl * one + (tr - tl) * sx.weight, bottom = bl * one + (br - bl) * sx.weight;
                    int64_t v = (top + (bottom - top) / one * sy.weight + one / 2) / one;
                    tp_qcode_set(t, out->data, ((b * oh + y) * ow + x) * c + ch, v < t->lo ? t->lo : v > t->hi ? t->hi : v);
                }
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_quantized_resize[] = {
    TP_KERNEL("QuantizedResizeBilinear", resize_prepare, resize_run, NULL, TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
