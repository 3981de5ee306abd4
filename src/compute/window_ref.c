/* window_ref.c - one walk over output pixels and their in-bounds window taps
 * shared by the reference Conv2D, DepthwiseConv2dNative, MaxPool and AvgPool.
 * Each output pixel accumulates its taps in (ky, kx, channel) order, the
 * order of TensorFlow's im2col patches; the innermost loops run over
 * contiguous channels. Work is split by output row (one batch, one y). */
#include "compute/window_ref.h"

#include <float.h>
#include <string.h>

#include "core/checked_math.h"

typedef enum window_op { WINDOW_CONV, WINDOW_DEPTHWISE, WINDOW_MAX, WINDOW_AVG } window_op;

typedef struct window_job {
    window_op op;
    const tp_window_params *p;
    const float *input;
    const float *filter; /* NULL for pooling */
    float *output;
} window_job;

/* Adds one in-bounds input pixel's contribution to one output pixel. */
static void accumulate_tap(const window_job *job, const float *restrict in_px,
                           const float *restrict filter_tap, float *restrict out_px)
{
    const tp_window_params *p = job->p;
    switch (job->op) {
    case WINDOW_CONV:
        for (int64_t ic = 0; ic < p->in_c; ic++, filter_tap += p->out_c) {
            const float v = in_px[ic];
            for (int64_t oc = 0; oc < p->out_c; oc++)
                out_px[oc] += v * filter_tap[oc];
        }
        break;
    case WINDOW_DEPTHWISE: {
        const int64_t multiplier = p->in_c ? p->out_c / p->in_c : 0;
        for (int64_t c = 0; c < p->in_c; c++, filter_tap += multiplier, out_px += multiplier) {
            const float v = in_px[c];
            for (int64_t m = 0; m < multiplier; m++)
                out_px[m] += v * filter_tap[m];
        }
        break;
    }
    case WINDOW_MAX:
        for (int64_t c = 0; c < p->in_c; c++)
            if (in_px[c] > out_px[c])
                out_px[c] = in_px[c];
        break;
    case WINDOW_AVG:
        for (int64_t c = 0; c < p->in_c; c++)
            out_px[c] += in_px[c];
        break;
    }
}

static void start_pixel(window_op op, float *out_px, int64_t channels)
{
    if (op == WINDOW_MAX) {
        for (int64_t c = 0; c < channels; c++)
            out_px[c] = -FLT_MAX;
    } else {
        memset(out_px, 0, (size_t)channels * sizeof *out_px);
    }
}

static void window_rows(void *arg, int64_t begin, int64_t end)
{
    const window_job *job = arg;
    const tp_window_params *p = job->p;
    const int64_t in_row_size = p->in_w * p->in_c;
    const int64_t filter_tap_size = job->op == WINDOW_CONV ? p->in_c * p->out_c : p->out_c;
    for (int64_t row = begin; row < end; row++) {
        const int64_t batch = row / p->out_h, oy = row % p->out_h;
        const int64_t iy_origin = oy * p->stride_h - p->pad_top;
        int64_t ky_first, ky_end;
        tp_window_taps(iy_origin, p->dilation_h, p->window_h, p->in_h, &ky_first, &ky_end);
        const float *image = job->input + batch * p->in_h * in_row_size;
        float *out_px = job->output + row * p->out_w * p->out_c;
        for (int64_t ox = 0; ox < p->out_w; ox++, out_px += p->out_c) {
            const int64_t ix_origin = ox * p->stride_w - p->pad_left;
            int64_t kx_first, kx_end;
            tp_window_taps(ix_origin, p->dilation_w, p->window_w, p->in_w, &kx_first, &kx_end);
            start_pixel(job->op, out_px, p->out_c);
            for (int64_t ky = ky_first; ky < ky_end; ky++) {
                const float *in_row = image + (iy_origin + ky * p->dilation_h) * in_row_size;
                const float *filter_row =
                    job->filter ? job->filter + ky * p->window_w * filter_tap_size : NULL;
                for (int64_t kx = kx_first; kx < kx_end; kx++)
                    accumulate_tap(job, in_row + (ix_origin + kx * p->dilation_w) * p->in_c,
                                   filter_row ? filter_row + kx * filter_tap_size : NULL, out_px);
            }
            if (job->op == WINDOW_AVG) {
                const float taps = (float)((ky_end - ky_first) * (kx_end - kx_first));
                for (int64_t c = 0; c < p->out_c; c++)
                    out_px[c] /= taps;
            }
        }
    }
    if (job->op == WINDOW_CONV || job->op == WINDOW_DEPTHWISE) /* tp_work_done's multiply-adds */
        tp_work_done(tp_sat_mul(tp_sat_mul(tp_sat_mul(end - begin, p->out_w), p->window_h * p->window_w),
                                filter_tap_size));
}

static void run_window(window_op op, const tp_window_params *p, const float *input, const float *filter,
                       float *output, tp_threadpool *pool)
{
    window_job job = {op, p, input, filter, output};
    /* Aim for chunks of at least ~16k multiply-adds so small layers stay on one thread. */
    int64_t per_tap = op == WINDOW_CONV ? tp_sat_mul(p->in_c, p->out_c) : p->out_c;
    tp_parallel_for(pool, p->batch * p->out_h, tp_window_rows_per_chunk(p, per_tap, 16384), window_rows, &job);
}

void tp_conv2d_ref(const tp_window_params *p, const float *input, const float *filter, float *output,
                   tp_threadpool *pool)
{
    run_window(WINDOW_CONV, p, input, filter, output, pool);
}

void tp_depthwise_conv2d_ref(const tp_window_params *p, const float *input, const float *filter,
                             float *output, tp_threadpool *pool)
{
    run_window(WINDOW_DEPTHWISE, p, input, filter, output, pool);
}

void tp_max_pool_ref(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool)
{
    run_window(WINDOW_MAX, p, input, NULL, output, pool);
}

void tp_avg_pool_ref(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool)
{
    run_window(WINDOW_AVG, p, input, NULL, output, pool);
}
