/* tflite_pooling.c - TensorFlow Lite's MAX_POOL_2D and AVERAGE_POOL_2D on
 * uint8 and int8 NHWC tensors (tflite-micro: reference/pooling.h,
 * integer_ops/pooling.h): the window (filter_height x filter_width, moved
 * by stride_h / stride_w, SAME or VALID padding as TensorFlow computes it)
 * covers only taps inside the input; MAX takes the largest code, AVERAGE
 * the sum of the codes over the number of taps, rounded half away from
 * zero; then the fused activation's clamp. Input and output share one
 * quantization (TFLite requires it). Output rows are spread over the
 * session's threads. */
#include <stdlib.h>

#include "compute/tflite_node.h"
#include "compute/window_geometry.h"

typedef struct pool_state {
    tp_window_params p;
    bool max, is_signed;
    int32_t act_min, act_max;
} pool_state;

static void pool_release(void *state) { free(state); }

static tfpi_code pool_prepare(tp_op_ctx *ctx, bool max)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 1, 1)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, false)) != TFPI_OK)
        return code;
    const int64_t fh = tp_attr_int(ctx->def, "filter_height", 0), fw = tp_attr_int(ctx->def, "filter_width", 0);
    const int64_t sh = tp_attr_int(ctx->def, "stride_h", 0), sw = tp_attr_int(ctx->def, "stride_w", 0);
    const int64_t ksize[4] = {1, fh, fw, 1}, strides[4] = {1, sh, sw, 1};
    pool_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->max = max;
    s->is_signed = ctx->inputs[0]->dtype == TFPI_INT8;
    if ((code = tp_pool_window_geometry(ctx, ksize, 4, strides, 4, false, &s->p)) != TFPI_OK)
        return code;
    const int64_t dims[4] = {s->p.batch, s->p.out_h, s->p.out_w, s->p.out_c};
    if ((code = tp_set_output(ctx, 0, ctx->inputs[0]->dtype, 4, dims)) != TFPI_OK)
        return code;
    tp_tfl_qparams in, out;
    tp_tfl_activation act;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &in)) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "out", 0, &out)) != TFPI_OK || (code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK)
        return code;
    if (in.scale != out.scale || in.zero_point != out.zero_point)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "input (scale %g, zero point %d) and output (%g, %d) must share one quantization",
                       (double)in.scale, (int)in.zero_point, (double)out.scale, (int)out.zero_point);
    if (!tp_tfl_activation_range(act, out.scale, out.zero_point, out.qmin, out.qmax, &s->act_min, &s->act_max))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "a quantized kernel cannot fuse this activation");
    return TFPI_OK;
}

static tfpi_code max_pool_prepare(tp_op_ctx *ctx) { return pool_prepare(ctx, true); }
static tfpi_code average_pool_prepare(tp_op_ctx *ctx) { return pool_prepare(ctx, false); }

typedef struct pool_job {
    const pool_state *s;
    const uint8_t *in;
    uint8_t *out;
} pool_job;

/* Output rows [begin, end) of all images (row r: image r / out_h). */
static void pool_rows(void *arg, int64_t begin, int64_t end)
{
    const pool_job *job = arg;
    const pool_state *s = job->s;
    const tp_window_params *p = &s->p;
    const int64_t c_count = p->in_c;
    for (int64_t r = begin; r < end; r++) {
        const int64_t b = r / p->out_h, oy = r % p->out_h;
        int64_t y0, y1;
        tp_window_taps(oy * p->stride_h - p->pad_top, 1, p->window_h, p->in_h, &y0, &y1);
        for (int64_t ox = 0; ox < p->out_w; ox++) {
            int64_t x0, x1;
            tp_window_taps(ox * p->stride_w - p->pad_left, 1, p->window_w, p->in_w, &x0, &x1);
            const int64_t top = oy * p->stride_h - p->pad_top, left = ox * p->stride_w - p->pad_left;
            uint8_t *out = job->out + ((r * p->out_w) + ox) * c_count;
            const int32_t count = (int32_t)((y1 - y0) * (x1 - x0));
            for (int64_t c = 0; c < c_count; c++) {
                int32_t max = INT32_MIN;
                int64_t sum = 0;
                for (int64_t ky = y0; ky < y1; ky++) {
                    const uint8_t *row = job->in + (((b * p->in_h) + top + ky) * p->in_w + left) * c_count + c;
                    for (int64_t kx = x0; kx < x1; kx++) {
                        const int32_t v = s->is_signed ? (int8_t)row[kx * c_count] : row[kx * c_count];
                        max = v > max ? v : max;
                        sum += v;
                    }
                }
                int32_t acc = max;
                if (!s->max) {
                    acc = (int32_t)(uint32_t)sum; /* TFLite's int32 sum wraps */
                    const int64_t a = acc;
                    acc = count == 0 ? 0 : (int32_t)(a > 0 ? (a + count / 2) / count : (a - count / 2) / count);
                }
                acc = acc < s->act_min ? s->act_min : acc > s->act_max ? s->act_max : acc;
                out[c] = (uint8_t)acc;
            }
        }
    }
}

static tfpi_code pool_run(tp_op_ctx *ctx)
{
    const pool_state *s = ctx->state;
    pool_job job = {s, ctx->inputs[0]->data, ctx->outputs[0].data};
    tp_parallel_for(ctx->pool, s->p.batch * s->p.out_h, tp_window_rows_per_chunk(&s->p, 1, 1 << 16), pool_rows,
                    &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_pooling[] = {
    TP_KERNEL("MAX_POOL_2D", max_pool_prepare, pool_run, pool_release, TP_TFLITE_OP),
    TP_KERNEL("AVERAGE_POOL_2D", average_pool_prepare, pool_run, pool_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
