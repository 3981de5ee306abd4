/* quantized_pooling.c - QuantizedMaxPool and QuantizedAvgPool on quint8
 * NHWC codes (../shared/docs/quantized.md 3.5): the window and padding of
 * float pooling, the range passes through. Max never takes padding; the
 * average is the int32 sum over the in-image taps divided by their count
 * with C's truncating division, as TF does (no rounding). */
#include <stdlib.h>

#include "kernel/kernel.h"
#include "compute/quantized_args.h"
#include "compute/window_geometry.h"

typedef struct qpool_state {
    tp_window_params params;
} qpool_state;

static void qpool_release(void *state) { free(state); }

static tfpi_code qpool_prepare(tp_op_ctx *ctx)
{
    int64_t ksize[4], strides[4];
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 3, 3)) != TFPI_OK || (code = tp_expect_dtype(ctx, 0, TFPI_QUINT8)) != TFPI_OK ||
        (code = tp_q_expect_scalars(ctx, 1, 2)) != TFPI_OK)
        return code;
    qpool_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    int ksize_count = tp_attr_int_list(ctx->def, "ksize", ksize, 4);
    int strides_count = tp_attr_int_list(ctx->def, "strides", strides, 4);
    const tp_window_params *p = &s->params;
    if ((code = tp_pool_window_geometry(ctx, ksize, ksize_count, strides, strides_count, false, &s->params)) !=
        TFPI_OK)
        return code;
    int64_t dims[4] = {p->batch, p->out_h, p->out_w, p->out_c};
    return tp_q_prepare_outputs(ctx, TFPI_QUINT8, 4, dims);
}

enum { CHANNEL_BLOCK = 64 }; /* channels pooled together: a fixed width -O2 vectorizes */

/* One output pixel's `width` channels from the window's taps [fy0, fy1) x
 * [fx0, fx1) of in, the window's top-left tap's first channel at offset
 * `origin` (in the padding, maybe before in), rows row_stride and taps
 * `channels` apart. */
static inline void pool_channels(const uint8_t *in, int64_t origin, int64_t row_stride, int64_t channels,
                                 int64_t fy0, int64_t fy1, int64_t fx0, int64_t fx1, int width, bool average,
                                 uint8_t *out)
{
    int32_t acc[CHANNEL_BLOCK] = {0}; /* codes are >= 0, so 0 also starts a max */
    for (int64_t fy = fy0; fy < fy1; fy++)
        for (int64_t fx = fx0; fx < fx1; fx++) {
            const uint8_t *pixel = in + (origin + fy * row_stride + fx * channels);
            if (average)
                for (int c = 0; c < width; c++)
                    acc[c] += pixel[c];
            else
                for (int c = 0; c < width; c++)
                    acc[c] = pixel[c] > acc[c] ? pixel[c] : acc[c];
        }
    /* The average truncates, as TF's. acc <= 255 * count, so the float quotient is
     * within 255 * 2^-24 of the true one, closer than any fraction k / count gets to
     * an integer: truncating it is exact, and vdivps is far faster than idiv. */
    const int32_t count = (int32_t)((fy1 - fy0) * (fx1 - fx0));
    const float divisor = count > 0 ? (float)count : 1.0f;
    if (average && count > 65535) /* past the bound: C's division */
        for (int c = 0; c < width; c++)
            out[c] = (uint8_t)(acc[c] / count);
    else if (average)
        for (int c = 0; c < width; c++)
            out[c] = (uint8_t)(int32_t)((float)acc[c] / divisor);
    else
        for (int c = 0; c < width; c++)
            out[c] = (uint8_t)acc[c];
}

static tfpi_code qpool_run(tp_op_ctx *ctx, bool average)
{
    float min, max;
    tfpi_code code = tp_q_read_range(ctx, 1, 2, "the input", &min, &max);
    if (code != TFPI_OK)
        return code;
    const tp_window_params *p = &((const qpool_state *)ctx->state)->params;
    const uint8_t *in = ctx->inputs[0]->data;
    uint8_t *out = ctx->outputs[0].data;
    const int64_t channels = p->in_c, row_stride = p->in_w * channels;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t oy = 0; oy < p->out_h; oy++)
            for (int64_t ox = 0; ox < p->out_w; ox++) {
                int64_t y0 = oy * p->stride_h - p->pad_top, x0 = ox * p->stride_w - p->pad_left;
                int64_t fy0, fy1, fx0, fx1;
                tp_window_taps(y0, 1, p->window_h, p->in_h, &fy0, &fy1);
                tp_window_taps(x0, 1, p->window_w, p->in_w, &fx0, &fx1);
                const int64_t origin = (b * p->in_h + y0) * row_stride + x0 * channels;
                uint8_t *o = out + ((b * p->out_h + oy) * p->out_w + ox) * channels;
                int64_t c = 0;
                for (; c + CHANNEL_BLOCK <= channels; c += CHANNEL_BLOCK)
                    pool_channels(in, origin + c, row_stride, channels, fy0, fy1, fx0, fx1, CHANNEL_BLOCK, average,
                                  o + c);
                if (c < channels)
                    pool_channels(in, origin + c, row_stride, channels, fy0, fy1, fx0, fx1, (int)(channels - c),
                                  average, o + c);
            }
    tp_q_write_range(ctx, 1, min, max);
    return TFPI_OK;
}

static tfpi_code max_pool_run(tp_op_ctx *ctx) { return qpool_run(ctx, false); }
static tfpi_code avg_pool_run(tp_op_ctx *ctx) { return qpool_run(ctx, true); }

const tp_kernel tp_kernels_quantized_pooling[] = {
    TP_KERNEL("QuantizedMaxPool", qpool_prepare, max_pool_run, qpool_release, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedAvgPool", qpool_prepare, avg_pool_run, qpool_release, TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
