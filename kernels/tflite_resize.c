/* tflite_resize.c - TensorFlow Lite's RESIZE_BILINEAR on uint8 and int8
 * NHWC tensors and RESIZE_NEAREST_NEIGHBOR on any NHWC tensor, to the
 * [height, width] of input 1 (int32, known while planning), with the
 * align_corners and half_pixel_centers options (tflite-micro:
 * reference/resize_bilinear.h ResizeBilinearInteger,
 * resize_nearest_neighbor.h):
 *  - bilinear: coordinates in 1/1024ths: scale = round(1024 x in / out)
 *    (align_corners: (in - 1) / (out - 1)), y = out_y x scale (half pixel:
 *    + scale / 2 - 512), the two rows floor(y / 1024) (>= 0) and
 *    ceil(y / 1024) (<= in - 1); the four codes weighted in 1/2^20ths,
 *    rounded half away from zero. Input and output share a quantization.
 *  - nearest: the source index min(floor((out_i + offset) x scale), in - 1)
 *    in float (align_corners: rounded half away from zero; half pixel:
 *    offset 0.5 and at least 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"
#include "kernel/array_kernel_util.h"

typedef struct resize_state {
    bool bilinear, is_signed;
    int64_t batch, in_h, in_w, channels, out_h, out_w;
    size_t elem;
    /* per output row / column: the two source indices and the position
     * in 1/1024ths (bilinear), or the one source index (nearest) */
    int64_t *y0, *y1, *x0, *x1;
    int32_t *y, *x;
} resize_state;

static void resize_release(void *state)
{
    resize_state *s = state;
    if (s)
        free(s->y0);
    free(s);
}

/* TFLite's integer coordinates of output index i (bilinear). */
static void integer_coordinate(int64_t i, int64_t scale_10, bool half_pixel, int64_t in, int32_t *pos, int64_t *lo,
                               int64_t *hi)
{
    const int64_t scaled = half_pixel ? i * scale_10 + scale_10 / 2 - (1 << 9) : i * scale_10;
    const int64_t down = scaled / (1 << 10), up = (scaled + (1 << 10) - 1) / (1 << 10);
    *pos = (int32_t)scaled;
    *lo = down > 0 ? down : 0;
    *hi = up < in - 1 ? up : in - 1;
}

/* TFLite's nearest source index of output index i. */
static int64_t nearest(int64_t i, int64_t in, int64_t out, bool align_corners, bool half_pixel)
{
    const float scale = align_corners && out > 1 ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float v = ((float)i + (half_pixel ? 0.5f : 0.0f)) * scale;
    int64_t index = (int64_t)(align_corners ? roundf(v) : floorf(v));
    index = index < in - 1 ? index : in - 1;
    return half_pixel && index < 0 ? 0 : index;
}

static tfpi_code resize_prepare(tp_op_ctx *ctx, bool bilinear)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK || (code = tp_expect_known(ctx, 1)) != TFPI_OK ||
        (bilinear && (code = tp_tfl_expect_8bit(ctx, 0, false)) != TFPI_OK))
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    char shape[96];
    if (in->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must be NHWC (rank 4), not %s",
                       tp_shape_string(in, shape, sizeof shape));
    int64_t size[2];
    int count;
    if ((code = tp_read_index_values(ctx, 1, "size", size, 2, &count)) != TFPI_OK)
        return code;
    if (count != 2 || size[0] < 1 || size[1] < 1 || size[0] > (1 << 20) || size[1] > (1 << 20) ||
        in->dims[1] > (1 << 20) || in->dims[2] > (1 << 20))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "size must be two values in 1..2^20 (and the input at most 2^20 high and wide)");
    const bool align = tp_attr_bool(ctx->def, "align_corners", false);
    const bool half = tp_attr_bool(ctx->def, "half_pixel_centers", false);
    if (align && half)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "align_corners and half_pixel_centers exclude each other");
    const int64_t dims[4] = {in->dims[0], size[0], size[1], in->dims[3]};
    if ((code = tp_set_output(ctx, 0, in->dtype, 4, dims)) != TFPI_OK)
        return code;
    if (bilinear) {
        tp_tfl_qparams qin, qout;
        if ((code = tp_tfl_qparams_of(ctx, "in", 0, &qin)) != TFPI_OK ||
            (code = tp_tfl_qparams_of(ctx, "out", 0, &qout)) != TFPI_OK)
            return code;
        if (qin.scale != qout.scale || qin.zero_point != qout.zero_point)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input and output must share one quantization");
    }
    resize_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    *s = (resize_state){bilinear, in->dtype == TFPI_INT8, in->dims[0], in->dims[1], in->dims[2], in->dims[3],
                        size[0], size[1], tfpi_dtype_size(in->dtype), 0, 0, 0, 0, 0, 0};
    const size_t n = (size_t)(s->out_h + s->out_w);
    s->y0 = malloc(n * (2 * sizeof(int64_t) + sizeof(int32_t)));
    if (!s->y0)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->y1 = s->y0 + s->out_h, s->x0 = s->y1 + s->out_h, s->x1 = s->x0 + s->out_w;
    s->y = (int32_t *)(s->x1 + s->out_w), s->x = s->y + s->out_h;
    if (s->in_h == 0 || s->in_w == 0)
        return tp_num_elements(&ctx->outputs[0]) == 0
                   ? TFPI_OK
                   : tp_fail(ctx, TFPI_INVALID_ARGUMENT, "an input %s high and wide has no pixels to resize",
                             tp_shape_string(in, shape, sizeof shape));
    int64_t scale_h = ((1 << 10) * s->in_h + s->out_h / 2) / s->out_h;
    int64_t scale_w = ((1 << 10) * s->in_w + s->out_w / 2) / s->out_w;
    if (align && s->out_h > 1)
        scale_h = ((1 << 10) * (s->in_h - 1) + (s->out_h - 1) / 2) / (s->out_h - 1);
    if (align && s->out_w > 1)
        scale_w = ((1 << 10) * (s->in_w - 1) + (s->out_w - 1) / 2) / (s->out_w - 1);
    for (int64_t i = 0; i < s->out_h; i++) {
        if (bilinear)
            integer_coordinate(i, scale_h, half, s->in_h, &s->y[i], &s->y0[i], &s->y1[i]);
        else
            s->y0[i] = nearest(i, s->in_h, s->out_h, align, half);
    }
    for (int64_t i = 0; i < s->out_w; i++) {
        if (bilinear)
            integer_coordinate(i, scale_w, half, s->in_w, &s->x[i], &s->x0[i], &s->x1[i]);
        else
            s->x0[i] = nearest(i, s->in_w, s->out_w, align, half);
    }
    return TFPI_OK;
}

static tfpi_code bilinear_prepare(tp_op_ctx *ctx) { return resize_prepare(ctx, true); }
static tfpi_code nearest_prepare(tp_op_ctx *ctx) { return resize_prepare(ctx, false); }

static int32_t code_at(const resize_state *s, const uint8_t *p, int64_t i)
{
    return s->is_signed ? (int32_t)((const int8_t *)p)[i] : (int32_t)p[i];
}

static tfpi_code resize_run(tp_op_ctx *ctx)
{
    const resize_state *s = ctx->state;
    const uint8_t *in = ctx->inputs[0]->data;
    uint8_t *out = ctx->outputs[0].data;
    const int64_t c_count = s->channels;
    for (int64_t b = 0; b < s->batch; b++)
        for (int64_t oy = 0; oy < s->out_h; oy++)
            for (int64_t ox = 0; ox < s->out_w; ox++) {
                uint8_t *dst = out + (((b * s->out_h + oy) * s->out_w) + ox) * c_count * (int64_t)s->elem;
                if (!s->bilinear) {
                    const uint8_t *src = in + (((b * s->in_h + s->y0[oy]) * s->in_w) + s->x0[ox]) * c_count * (int64_t)s->elem;
                    memcpy(dst, src, (size_t)c_count * s->elem);
                    continue;
                }
                const int64_t dy = s->y[oy] - (1 << 10) * s->y0[oy], dx = s->x[ox] - (1 << 10) * s->x0[ox];
                const int64_t r0 = ((b * s->in_h + s->y0[oy]) * s->in_w) * c_count;
                const int64_t r1 = ((b * s->in_h + s->y1[oy]) * s->in_w) * c_count;
                const int64_t c0 = s->x0[ox] * c_count, c1 = s->x1[ox] * c_count;
                for (int64_t c = 0; c < c_count; c++) {
                    const int64_t sum = code_at(s, in, r0 + c0 + c) * ((1 << 10) - dy) * ((1 << 10) - dx) +
                                        code_at(s, in, r1 + c0 + c) * dy * ((1 << 10) - dx) +
                                        code_at(s, in, r0 + c1 + c) * ((1 << 10) - dy) * dx +
                                        code_at(s, in, r1 + c1 + c) * dy * dx;
                    const int64_t v = (sum + (sum > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20);
                    dst[c] = (uint8_t)v; /* a weighted mean of codes: within the type */
                }
            }
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_resize[] = {
    TP_KERNEL("RESIZE_BILINEAR", bilinear_prepare, resize_run, resize_release, TP_TFLITE_OP),
    TP_KERNEL("RESIZE_NEAREST_NEIGHBOR", nearest_prepare, resize_run, resize_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
