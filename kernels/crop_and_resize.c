/* crop_and_resize.c - CropAndResize (Faster R-CNN's second stage): for each
 * box (normalised y1, x1, y2, x2 into image box_ind), a crop_size crop
 * sampled bilinearly or at the nearest pixel, TF's coordinates:
 * in_y = y1*(H-1) + y*(y2-y1)*(H-1)/(ch-1) (the box centre when ch == 1);
 * samples outside the image get extrapolation_value (a whole row when the
 * row is outside). Flipped boxes (y1 > y2) flip the crop. Output float32
 * [num_boxes, ch, cw, C] from a float32 or uint8 image. */
#include <math.h>
#include <string.h>

#include "kernel/kernel.h"

static tfpi_code crop_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 4, 4);
    if (code == TFPI_OK)
        code = tp_expect_known(ctx, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *image = ctx->inputs[0], *boxes = ctx->inputs[1], *ind = ctx->inputs[2];
    const tfpi_tensor *size = ctx->inputs[3];
    if (image->ndims != 4 || (image->dtype != TFPI_FLOAT && image->dtype != TFPI_UINT8))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "image must be a float or uint8 [batch,height,width,depth] tensor");
    if (boxes->dtype != TFPI_FLOAT || boxes->ndims != 2 || boxes->dims[1] != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "boxes must be a float [num_boxes,4] matrix");
    if (ind->ndims != 1 || ind->dims[0] != boxes->dims[0])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "box_ind must hold one image index per box");
    if (tp_num_elements(size) != 2 || tp_get_int(size, 0) <= 0 || tp_get_int(size, 1) <= 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "crop_size must be two positive numbers");
    char method[16];
    tp_attr_string(ctx->def, "method", method, sizeof method, "bilinear");
    if (strcmp(method, "bilinear") != 0 && strcmp(method, "nearest") != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "method must be bilinear or nearest, not '%s'", method);
    int64_t dims[4] = {boxes->dims[0], tp_get_int(size, 0), tp_get_int(size, 1), image->dims[3]};
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_FLOAT, 4, dims);
    return TFPI_OK;
}

static float pixel(const tfpi_tensor *image, int64_t b, int64_t y, int64_t x, int64_t c)
{
    int64_t i = ((b * image->dims[1] + y) * image->dims[2] + x) * image->dims[3] + c;
    return image->dtype == TFPI_UINT8 ? ((const uint8_t *)image->data)[i] : ((const float *)image->data)[i];
}

/* The source coordinate of output position p of n along an edge of `size`. */
static float source(float a, float b, int64_t p, int64_t n, int64_t size)
{
    return n > 1 ? a * (float)(size - 1) + (float)p * (b - a) * (float)(size - 1) / (float)(n - 1)
                 : 0.5f * (a + b) * (float)(size - 1);
}

static tfpi_code crop_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *image = ctx->inputs[0], *ind = ctx->inputs[2];
    const float *boxes = ctx->inputs[1]->data;
    tfpi_tensor *out = &ctx->outputs[0];
    const int64_t h = image->dims[1], w = image->dims[2], depth = image->dims[3];
    const int64_t ch = out->dims[1], cw = out->dims[2];
    float extrapolation = tp_attr_float(ctx->def, "extrapolation_value", 0);
    char method[16];
    bool nearest = strcmp(tp_attr_string(ctx->def, "method", method, sizeof method, "bilinear"), "nearest") == 0;
    float *o = out->data;
    for (int64_t n = 0; n < out->dims[0]; n++) {
        const float *box = &boxes[4 * n];
        int64_t b = tp_get_int(ind, n);
        if (b < 0 || b >= image->dims[0])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "box_index has values outside [0, batch_size)");
        for (int64_t y = 0; y < ch; y++) {
            float in_y = source(box[0], box[2], y, ch, h);
            for (int64_t x = 0; x < cw; x++) {
                float in_x = source(box[1], box[3], x, cw, w);
                float *px = &o[((n * ch + y) * cw + x) * depth];
                /* written so that a NaN coordinate (a NaN box) is outside, never an index */
                bool outside = !(in_y >= 0 && in_y <= (float)(h - 1) && in_x >= 0 && in_x <= (float)(w - 1));
                for (int64_t c = 0; c < depth; c++) {
                    if (outside) {
                        px[c] = extrapolation;
                    } else if (nearest) {
                        px[c] = pixel(image, b, (int64_t)roundf(in_y), (int64_t)roundf(in_x), c);
                    } else {
                        int64_t t = (int64_t)floorf(in_y), bo = (int64_t)ceilf(in_y);
                        int64_t l = (int64_t)floorf(in_x), r = (int64_t)ceilf(in_x);
                        float dy = in_y - (float)t, dx = in_x - (float)l;
                        float top = pixel(image, b, t, l, c) + (pixel(image, b, t, r, c) - pixel(image, b, t, l, c)) * dx;
                        float bot = pixel(image, b, bo, l, c) + (pixel(image, b, bo, r, c) - pixel(image, b, bo, l, c)) * dx;
                        px[c] = top + (bot - top) * dy;
                    }
                }
            }
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_crop_and_resize[] = {
    TP_KERNEL("CropAndResize", crop_prepare, crop_run, NULL, 0),
    TP_KERNELS_END,
};
