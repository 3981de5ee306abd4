/* resize.c - ResizeBilinear (float or uint8 images, float output) and
 * ResizeNearestNeighbor (float) on NHWC images, with a size input known
 * while planning and TF's align_corners and half_pixel_centers attrs. The
 * sampling itself is src/image/image_resize.c, shared with the image helpers. */
#include <limits.h>
#include <string.h>

#include "kernel/array_kernel_util.h"
#include "image/image_resize.h"

static bool is_bilinear(const tp_op_ctx *ctx) { return strcmp(ctx->def->op, "ResizeBilinear") == 0; }

static tfpi_code resize_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    int64_t size[2];
    int count = 0;
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 1, TFPI_INT32); /* the size: TensorFlow's op takes int32 only */
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "size", size, 2, &count);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_dtype type = in->dtype;
    if (type != TFPI_FLOAT && !(type == TFPI_UINT8 && is_bilinear(ctx)))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "handles float%s images, not %s",
                       is_bilinear(ctx) ? " and uint8" : "", tfpi_dtype_name(type));
    char shape[128];
    if (in->ndims != 4 || in->dims[1] < 1 || in->dims[2] < 1 || in->dims[3] < 1 || in->dims[1] > INT_MAX ||
        in->dims[2] > INT_MAX || in->dims[3] > INT_MAX || in->dims[0] > INT_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "images must be a non-empty NHWC tensor, not %s",
                       tp_shape_string(in, shape, sizeof shape));
    if (count != 2 || size[0] < 1 || size[1] < 1 || size[0] > INT_MAX || size[1] > INT_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size must be two positive values (height, width)");
    if (tp_attr_bool(ctx->def, "align_corners", false) && tp_attr_bool(ctx->def, "half_pixel_centers", false))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "half_pixel_centers and align_corners cannot both be true");
    const int64_t dims[4] = {in->dims[0], size[0], size[1], in->dims[3]};
    return tp_set_output(ctx, 0, TFPI_FLOAT, 4, dims);
}

static tfpi_code resize_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0], *out = &ctx->outputs[0];
    bool align_corners = tp_attr_bool(ctx->def, "align_corners", false);
    bool half_pixel_centers = tp_attr_bool(ctx->def, "half_pixel_centers", false);
    int batch = (int)in->dims[0], in_h = (int)in->dims[1], in_w = (int)in->dims[2];
    int channels = (int)in->dims[3], out_h = (int)out->dims[1], out_w = (int)out->dims[2];
    if (!is_bilinear(ctx))
        tp_resize_nearest_f32(in->data, batch, in_h, in_w, channels, out->data, out_h, out_w, align_corners,
                              half_pixel_centers);
    else if (in->dtype == TFPI_UINT8)
        tp_resize_bilinear_u8(in->data, batch, in_h, in_w, channels, out->data, out_h, out_w, align_corners,
                              half_pixel_centers);
    else
        tp_resize_bilinear_f32(in->data, batch, in_h, in_w, channels, out->data, out_h, out_w, align_corners,
                               half_pixel_centers);
    return TFPI_OK;
}

const tp_kernel tp_kernels_resize[] = {
    TP_KERNEL("ResizeBilinear", resize_prepare, resize_run, NULL, 0),
    TP_KERNEL("ResizeNearestNeighbor", resize_prepare, resize_run, NULL, 0),
    TP_KERNELS_END,
};
