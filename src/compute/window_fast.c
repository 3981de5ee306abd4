/* window_fast.c - one walk over output pixels shared by the SIMD depthwise
 * convolution, max pool and average pool. Along an output row, pixels whose
 * window lies inside the input in x go in groups of four, each group one
 * block of channels (two vectors) at a time: eight independent accumulators
 * hide the latency of the multiply-adds, each filter tap loaded serves the
 * whole group, and the group's input stays in the first-level cache while
 * its channel blocks go by. Pixels at the left and right edges go one by
 * one with their taps clipped to the input; rows clip their taps in y. */
#include "compute/window_fast.h"

#include <float.h>

typedef enum window_op { WINDOW_DEPTHWISE, WINDOW_MAX, WINDOW_AVG } window_op;

enum { MAX_BLOCK_VECS = 2, GROUP_ACCUMULATORS = 8 }; /* a group: 4 pixels x 2 vectors */

typedef struct window_job {
    window_op op;
    const tp_window_params *p;
    const float *input, *filter;
    float *output;
    tp_gemm_epilogue epilogue;
} window_job;

/* One output row's view of the input, and where its taps may go. */
typedef struct row_taps {
    const float *image; /* this batch's input */
    int64_t iy0;        /* input row of tap ky = 0 */
    int64_t ky0, ky1;   /* taps in y inside the input */
    float *out;         /* the output row */
} row_taps;

/* A block of channels [c, c + vecs * W), the last vector with `lanes` lanes. */
typedef struct channel_block {
    int64_t c;
    int vecs, lanes;
} channel_block;

/* Output pixels [ox, ox + pixels) of one row for one channel block, taps in
 * x limited to [kx0, kx1) (the same for every pixel of the group). op,
 * pixels and b.vecs are constants at every call, so each use is
 * specialised and its loops unroll. */
static inline __attribute__((always_inline)) void pixel_group(const window_job *job, window_op op,
                                                              const row_taps *row, int64_t ox, int pixels,
                                                              int64_t kx0, int64_t kx1, channel_block b)
{
    enum { W = TP_VEC_WIDTH, MAX_PIXELS = GROUP_ACCUMULATORS / MAX_BLOCK_VECS };
    const tp_window_params *p = job->p;
    tp_vec acc[MAX_PIXELS][MAX_BLOCK_VECS];
#pragma GCC unroll 4
    for (int i = 0; i < pixels; i++)
#pragma GCC unroll 2
        for (int v = 0; v < b.vecs; v++)
            acc[i][v] = op == WINDOW_MAX ? tp_vec_set1(-FLT_MAX) : tp_vec_zero();
    const int64_t pixel_step = p->stride_w * p->in_c;
    for (int64_t ky = row->ky0; ky < row->ky1; ky++) {
        const float *in_row = row->image + (row->iy0 + ky * p->dilation_h) * p->in_w * p->in_c + b.c;
        for (int64_t kx = kx0; kx < kx1; kx++) {
            const float *in = in_row + ((ox * p->stride_w - p->pad_left) + kx * p->dilation_w) * p->in_c;
            tp_vec w[MAX_BLOCK_VECS];
            if (op == WINDOW_DEPTHWISE) {
                const float *tap = job->filter + (ky * p->window_w + kx) * p->in_c + b.c;
#pragma GCC unroll 2
                for (int v = 0; v < b.vecs; v++)
                    w[v] = tp_vec_load_lanes(tap + v * W, v == b.vecs - 1 ? b.lanes : W);
            }
#pragma GCC unroll 4
            for (int i = 0; i < pixels; i++) {
#pragma GCC unroll 2
                for (int v = 0; v < b.vecs; v++) {
                    const tp_vec x = tp_vec_load_lanes(in + i * pixel_step + v * W, v == b.vecs - 1 ? b.lanes : W);
                    if (op == WINDOW_DEPTHWISE)
                        acc[i][v] = tp_vec_fma(acc[i][v], x, w[v]);
                    else if (op == WINDOW_MAX)
                        acc[i][v] = tp_vec_max(acc[i][v], x);
                    else
                        acc[i][v] = tp_vec_add(acc[i][v], x);
                }
            }
        }
    }
    const tp_gemm_epilogue *e = &job->epilogue;
    const tp_vec lo = tp_vec_set1(e->min), hi = tp_vec_set1(e->max);
    const tp_vec taps = tp_vec_set1(1.0f / (float)((row->ky1 - row->ky0) * (kx1 - kx0)));
    tp_vec scale[MAX_BLOCK_VECS], bias[MAX_BLOCK_VECS];
#pragma GCC unroll 2
    for (int v = 0; v < b.vecs; v++) {
        const int n = v == b.vecs - 1 ? b.lanes : W;
        scale[v] = e->scale ? tp_vec_load_lanes(e->scale + b.c + v * W, n) : tp_vec_set1(1.0f);
        bias[v] = e->bias ? tp_vec_load_lanes(e->bias + b.c + v * W, n) : tp_vec_zero();
    }
#pragma GCC unroll 4
    for (int i = 0; i < pixels; i++) {
        float *out = row->out + (ox + i) * p->out_c + b.c;
#pragma GCC unroll 2
        for (int v = 0; v < b.vecs; v++) {
            tp_vec x = acc[i][v];
            if (op == WINDOW_AVG)
                x = tp_vec_mul(x, taps);
            if (op == WINDOW_DEPTHWISE)
                x = tp_vec_min(tp_vec_max(tp_vec_fma(bias[v], x, scale[v]), lo), hi);
            tp_vec_store_lanes(out + v * W, x, v == b.vecs - 1 ? b.lanes : W);
        }
    }
}

/* Output pixels [ox, ox + pixels) of a row, every channel block; taps in x
 * limited to [kx0, kx1). */
static inline __attribute__((always_inline)) void pixels_all_channels(const window_job *job, window_op op,
                                                                      const row_taps *row, int64_t ox,
                                                                      int pixels, int64_t kx0, int64_t kx1)
{
    enum { W = TP_VEC_WIDTH };
    const int64_t channels = job->p->in_c;
    int64_t c = 0;
    for (; c + MAX_BLOCK_VECS * W <= channels; c += MAX_BLOCK_VECS * W)
        pixel_group(job, op, row, ox, pixels, kx0, kx1, (channel_block){c, MAX_BLOCK_VECS, W});
    for (; c + W <= channels; c += W)
        pixel_group(job, op, row, ox, pixels, kx0, kx1, (channel_block){c, 1, W});
    if (c < channels)
        pixel_group(job, op, row, ox, pixels, kx0, kx1, (channel_block){c, 1, (int)(channels - c)});
}

/* A whole output row: pixels whose taps in x all fall inside the input in
 * groups, the others one by one with their taps clipped. */
static inline __attribute__((always_inline)) void window_row(const window_job *job, window_op op,
                                                             const row_taps *row)
{
    enum { GROUP = GROUP_ACCUMULATORS / MAX_BLOCK_VECS };
    const tp_window_params *p = job->p;
    /* Pixels [inner0, inner1) have every tap in x inside the input. */
    const int64_t last_origin = p->in_w - 1 - (p->window_w - 1) * p->dilation_w + p->pad_left;
    int64_t inner1 = last_origin >= 0 ? last_origin / p->stride_w + 1 : 0;
    inner1 = inner1 < p->out_w ? inner1 : p->out_w;
    const int64_t inner0 = (p->pad_left + p->stride_w - 1) / p->stride_w;
    for (int64_t ox = 0; ox < p->out_w;) {
        if (ox >= inner0 && ox + GROUP <= inner1) {
            pixels_all_channels(job, op, row, ox, GROUP, 0, p->window_w);
            ox += GROUP;
        } else {
            int64_t kx0, kx1;
            tp_window_taps(ox * p->stride_w - p->pad_left, p->dilation_w, p->window_w, p->in_w, &kx0, &kx1);
            pixels_all_channels(job, op, row, ox, 1, kx0, kx1);
            ox++;
        }
    }
}

static void window_rows(void *arg, int64_t begin, int64_t end)
{
    const window_job *job = arg;
    const tp_window_params *p = job->p;
    for (int64_t r = begin; r < end; r++) {
        const int64_t batch = r / p->out_h, oy = r % p->out_h;
        row_taps row = {.image = job->input + batch * p->in_h * p->in_w * p->in_c,
                        .iy0 = oy * p->stride_h - p->pad_top,
                        .out = job->output + r * p->out_w * p->out_c};
        tp_window_taps(row.iy0, p->dilation_h, p->window_h, p->in_h, &row.ky0, &row.ky1);
        switch (job->op) {
        case WINDOW_DEPTHWISE: window_row(job, WINDOW_DEPTHWISE, &row); break;
        case WINDOW_MAX: window_row(job, WINDOW_MAX, &row); break;
        case WINDOW_AVG: window_row(job, WINDOW_AVG, &row); break;
        }
    }
}

static void run_window(window_job *job, tp_threadpool *pool)
{
    const tp_window_params *p = job->p;
    /* Chunks of at least ~16k multiply-adds so small layers stay on one thread. */
    tp_parallel_for(pool, p->batch * p->out_h, tp_window_rows_per_chunk(p, p->out_c, 16384), window_rows, job);
}

void tp_depthwise_conv2d_fast(const tp_window_params *p, const float *input, const float *filter,
                              float *output, const tp_gemm_epilogue *epilogue, tp_threadpool *pool)
{
    window_job job = {WINDOW_DEPTHWISE, p, input, filter, output, *epilogue};
    run_window(&job, pool);
}

void tp_max_pool_fast(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool)
{
    window_job job = {WINDOW_MAX, p, input, NULL, output, tp_gemm_no_epilogue()};
    run_window(&job, pool);
}

void tp_avg_pool_fast(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool)
{
    window_job job = {WINDOW_AVG, p, input, NULL, output, tp_gemm_no_epilogue()};
    run_window(&job, pool);
}
