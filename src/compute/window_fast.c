/* window_fast.c - one walk over output pixels shared by the SIMD depthwise
 * convolution, max pool and average pool. Along an output row, pixels whose
 * window lies inside the input in x go in groups. When the window is 3 or 5
 * taps wide at stride 1 or 2 (undilated: the depthwise layers of the
 * MobileNets, the pools of most image nets), a group is 8 or 4 pixels of one
 * or two vectors of channels that slide along each row of taps: every input
 * vector of that row is loaded once and feeds each pixel whose window covers
 * it, and the row's taps are loaded once for all of them (13 loads per 24
 * multiply-adds at 3 taps, stride 1, against 30). Other windows, and the
 * channels left over after the whole vectors, go in groups of four pixels,
 * each group one block of channels (two vectors) at a time; pixels at the
 * left and right edges, with their taps clipped to the input, go one by one,
 * eight vectors of channels at a time. Either way eight or more independent
 * accumulators hide the latency of the multiply-adds, each filter tap loaded
 * serves the whole group, and the group's input stays in the first-level
 * cache while its channels go by. Rows clip their taps in y. */
#include "compute/window_fast.h"

#include <float.h>

#include "core/checked_math.h"

typedef enum window_op { WINDOW_DEPTHWISE, WINDOW_MAX, WINDOW_AVG } window_op;

/* A group: 4 pixels x 2 vectors of channels, or a lone pixel x 8 vectors;
 * either way 8 independent chains of multiply-adds. */
enum { GROUP_ACCUMULATORS = 8, GROUP_PIXELS = 4, MAX_BLOCK_VECS = GROUP_ACCUMULATORS };

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

/* The last step of a vector of outputs of channels [c, c + lanes): the
 * average's division, or the depthwise epilogue (values loaded once per
 * block of channels, before its stores). */
typedef struct vector_finish {
    tp_vec scale, bias, lo, hi, inv_taps;
} vector_finish;

static inline __attribute__((always_inline)) vector_finish load_finish(const window_job *job, window_op op,
                                                                       int64_t taps, int64_t c, int lanes)
{
    const tp_gemm_epilogue *e = &job->epilogue;
    vector_finish f = {.lo = tp_vec_set1(e->min), .hi = tp_vec_set1(e->max),
                       .inv_taps = tp_vec_set1(1.0f / (float)taps)};
    if (op == WINDOW_DEPTHWISE) {
        f.scale = e->scale ? tp_vec_load_lanes(e->scale + c, lanes) : tp_vec_set1(1.0f);
        f.bias = e->bias ? tp_vec_load_lanes(e->bias + c, lanes) : tp_vec_zero();
    }
    return f;
}

static inline __attribute__((always_inline)) tp_vec finish(const vector_finish *f, window_op op, tp_vec x)
{
    if (op == WINDOW_AVG)
        return tp_vec_mul(x, f->inv_taps);
    if (op == WINDOW_DEPTHWISE)
        return tp_vec_min(tp_vec_max(tp_vec_fma(f->bias, x, f->scale), f->lo), f->hi);
    return x;
}

/* Output pixels [ox, ox + pixels) of one row for one channel block, taps in
 * x limited to [kx0, kx1) (the same for every pixel of the group). op,
 * pixels and b.vecs are constants at every call, so each use is
 * specialised and its loops unroll. */
static inline __attribute__((always_inline)) void pixel_group(const window_job *job, window_op op,
                                                              const row_taps *row, int64_t ox, int pixels,
                                                              int64_t kx0, int64_t kx1, channel_block b)
{
    enum { W = TP_VEC_WIDTH };
    const tp_window_params *p = job->p;
    tp_vec acc[GROUP_PIXELS][MAX_BLOCK_VECS];
#pragma GCC unroll 4
    for (int i = 0; i < pixels; i++)
#pragma GCC unroll 8
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
#pragma GCC unroll 8
                for (int v = 0; v < b.vecs; v++)
                    w[v] = tp_vec_load_lanes(tap + v * W, v == b.vecs - 1 ? b.lanes : W);
            }
#pragma GCC unroll 4
            for (int i = 0; i < pixels; i++) {
#pragma GCC unroll 8
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
    vector_finish f[MAX_BLOCK_VECS];
#pragma GCC unroll 8
    for (int v = 0; v < b.vecs; v++)
        f[v] = load_finish(job, op, (row->ky1 - row->ky0) * (kx1 - kx0), b.c + v * W,
                           v == b.vecs - 1 ? b.lanes : W);
#pragma GCC unroll 4
    for (int i = 0; i < pixels; i++) {
        float *out = row->out + (ox + i) * p->out_c + b.c;
#pragma GCC unroll 8
        for (int v = 0; v < b.vecs; v++)
            tp_vec_store_lanes(out + v * W, finish(&f[v], op, acc[i][v]), v == b.vecs - 1 ? b.lanes : W);
    }
}

/* The larger sliding group, in pixels (the smaller is half of it), and its
 * vectors of channels at 3 taps: two where there are 32 vector registers,
 * so that 16 chains of multiply-adds hide their latency, one where there
 * are 16. */
enum { SLIDING_PIXELS = 8 };
#if defined(__aarch64__) || defined(__AVX512F__)
enum { SLIDING_VECS = 2 };
#else
enum { SLIDING_VECS = 1 };
#endif
#if defined(__aarch64__) || defined(__ARM_NEON)
enum { WHOLE_3X3 = 1 };
#else
enum { WHOLE_3X3 = 0 };
#endif

/* Pixels [ox, ox + pixels) of a row, all of whose taps in x lie inside the
 * input, for the vecs whole vectors of channels from c; the window is kw
 * taps wide at stride s, undilated in x, and its rows of taps those inside
 * the input, or all `whole` of them (0: not known to be whole). op, pixels,
 * vecs, kw, s and whole are constants at every call, so each use is
 * specialised and its loops unroll into straight code: tap row by tap row,
 * input vector j feeds pixel i through tap j - i * s. */
static inline __attribute__((always_inline)) void sliding_group(const window_job *job, window_op op,
                                                                const row_taps *row, int64_t ox, int pixels,
                                                                int vecs, int kw, int s, int whole, int64_t c)
{
    enum { W = TP_VEC_WIDTH, MAX_KW = 5 };
    const tp_window_params *p = job->p;
    const int64_t in_c = p->in_c, out_c = p->out_c, row_floats = p->in_w * in_c;
    const float *const filter = op == WINDOW_DEPTHWISE ? job->filter + c : NULL; /* pools have none */
    tp_vec acc[SLIDING_PIXELS][SLIDING_VECS];
#pragma GCC unroll 8
    for (int i = 0; i < pixels; i++)
#pragma GCC unroll 2
        for (int v = 0; v < vecs; v++)
            acc[i][v] = op == WINDOW_MAX ? tp_vec_set1(-FLT_MAX) : tp_vec_zero();
    const int span = (pixels - 1) * s + kw;
    const int64_t ky0 = whole ? 0 : row->ky0, ky1 = whole ? whole : row->ky1;
    const float *in_row = row->image + (row->iy0 + ky0 * p->dilation_h) * row_floats + (ox * s - p->pad_left) * in_c + c;
#pragma GCC unroll 5
    for (int64_t ky = ky0; ky < ky1; ky++, in_row += p->dilation_h * row_floats) {
        tp_vec w[MAX_KW][SLIDING_VECS];
        if (op == WINDOW_DEPTHWISE)
#pragma GCC unroll 5
            for (int kx = 0; kx < kw; kx++)
#pragma GCC unroll 2
                for (int v = 0; v < vecs; v++)
                    w[kx][v] = tp_vec_load(filter + (ky * kw + kx) * in_c + v * W);
        const float *in = in_row;
#pragma GCC unroll 19
        for (int j = 0; j < span; j++, in += in_c) {
#pragma GCC unroll 2
            for (int v = 0; v < vecs; v++) {
                const tp_vec x = tp_vec_load(in + v * W);
#pragma GCC unroll 5
                for (int kx = 0; kx < kw; kx++) {
                    const int i = (j - kx) / s;
                    if (j - kx < 0 || (j - kx) % s != 0 || i >= pixels)
                        continue;
                    if (op == WINDOW_DEPTHWISE)
                        acc[i][v] = tp_vec_fma(acc[i][v], x, w[kx][v]);
                    else if (op == WINDOW_MAX)
                        acc[i][v] = tp_vec_max(acc[i][v], x);
                    else
                        acc[i][v] = tp_vec_add(acc[i][v], x);
                }
            }
        }
    }
    vector_finish f[SLIDING_VECS];
#pragma GCC unroll 2
    for (int v = 0; v < vecs; v++)
        f[v] = load_finish(job, op, (ky1 - ky0) * kw, c + v * W, W);
    float *out = row->out + ox * out_c + c;
#pragma GCC unroll 8
    for (int i = 0; i < pixels; i++, out += out_c)
#pragma GCC unroll 2
        for (int v = 0; v < vecs; v++)
            tp_vec_store(out + v * W, finish(&f[v], op, acc[i][v]));
}

/* Pixels [ox, ox + pixels) of a row inside the input in x, every channel:
 * the whole vectors sliding, the rest as a block of pixel_group. */
static inline __attribute__((always_inline)) void sliding_pixels(const window_job *job, window_op op,
                                                                 const row_taps *row, int64_t ox, int pixels,
                                                                 int kw, int s, int whole)
{
    enum { W = TP_VEC_WIDTH };
    const int64_t channels = job->p->in_c;
    int64_t c = 0;
    if (kw == 3)
        for (; c + SLIDING_VECS * W <= channels; c += SLIDING_VECS * W)
            sliding_group(job, op, row, ox, pixels, SLIDING_VECS, kw, s, whole, c);
    for (; c + W <= channels; c += W)
        sliding_group(job, op, row, ox, pixels, 1, kw, s, whole, c);
    for (int64_t i = 0; i < pixels && c < channels; i += 4) {
        const int group = pixels - i < 4 ? (int)(pixels - i) : 4;
        if (group == 4)
            pixel_group(job, op, row, ox + i, 4, 0, kw, (channel_block){c, 1, (int)(channels - c)});
        else
            for (int k = 0; k < group; k++)
                pixel_group(job, op, row, ox + i + k, 1, 0, kw, (channel_block){c, 1, (int)(channels - c)});
    }
}

/* The inner pixels [ox, ox1) of a row in sliding groups of 8, then 4. */
static inline __attribute__((always_inline)) int64_t sliding_row(const window_job *job, window_op op,
                                                                 const row_taps *row, int64_t ox, int64_t ox1,
                                                                 int kw, int s, int whole)
{
    for (; ox + SLIDING_PIXELS <= ox1; ox += SLIDING_PIXELS)
        sliding_pixels(job, op, row, ox, SLIDING_PIXELS, kw, s, whole);
    if (ox + SLIDING_PIXELS / 2 <= ox1) {
        sliding_pixels(job, op, row, ox, SLIDING_PIXELS / 2, kw, s, whole);
        ox += SLIDING_PIXELS / 2;
    }
    return ox;
}

/* Slides the inner pixels [ox, ox1) if the window's shape has a sliding
 * path; returns the first pixel it did not do. A function of its own, so
 * that its unrolled groups have the registers to themselves. */
static __attribute__((noinline)) int64_t slide_inner(const window_job *job, const row_taps *row, int64_t ox,
                                                     int64_t ox1)
{
    const tp_window_params *p = job->p;
    if (p->dilation_w != 1 || p->in_c < TP_VEC_WIDTH)
        return ox;
    /* A 3x3 window whose rows all lie inside the input: its 3 rows of taps
     * a constant, so that a group is one straight block (on ARM, where
     * this was measured: 1% of MobileNet v2 on the A72). */
    const bool whole = WHOLE_3X3 && p->window_w == 3 && p->window_h == 3 && p->dilation_h == 1 && row->ky0 == 0 &&
                       row->ky1 == 3;
    const int shape = p->window_w == 3 && p->stride_w <= 2 ? (int)p->stride_w + (whole ? 4 : 0)
                      : p->window_w == 5 && p->stride_w <= 2 ? 2 + (int)p->stride_w
                                                             : 0;
#define SLIDE_SHAPES(op)                                          \
    switch (shape) {                                              \
    case 1: return sliding_row(job, op, row, ox, ox1, 3, 1, 0);   \
    case 2: return sliding_row(job, op, row, ox, ox1, 3, 2, 0);   \
    case 3: return sliding_row(job, op, row, ox, ox1, 5, 1, 0);   \
    case 4: return sliding_row(job, op, row, ox, ox1, 5, 2, 0);   \
    case 5: return sliding_row(job, op, row, ox, ox1, 3, 1, 3);   \
    case 6: return sliding_row(job, op, row, ox, ox1, 3, 2, 3);   \
    default: return ox;                                           \
    }
    switch (job->op) {
    case WINDOW_DEPTHWISE: SLIDE_SHAPES(WINDOW_DEPTHWISE)
    case WINDOW_MAX: SLIDE_SHAPES(WINDOW_MAX)
    case WINDOW_AVG: SLIDE_SHAPES(WINDOW_AVG)
    }
#undef SLIDE_SHAPES
    return ox;
}

/* Output pixels [ox, ox + pixels) of a row, every channel block; taps in x
 * limited to [kx0, kx1). */
static inline __attribute__((always_inline)) void pixels_all_channels(const window_job *job, window_op op,
                                                                      const row_taps *row, int64_t ox,
                                                                      int pixels, int64_t kx0, int64_t kx1)
{
    enum { W = TP_VEC_WIDTH };
    const int64_t channels = job->p->in_c;
    const int vecs = GROUP_ACCUMULATORS / pixels;
    int64_t c = 0;
    for (; c + vecs * W <= channels; c += vecs * W)
        pixel_group(job, op, row, ox, pixels, kx0, kx1, (channel_block){c, vecs, W});
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
    enum { GROUP = GROUP_PIXELS };
    const tp_window_params *p = job->p;
    /* Pixels [inner0, inner1) have every tap in x inside the input. */
    const int64_t last_origin = p->in_w - 1 - (p->window_w - 1) * p->dilation_w + p->pad_left;
    int64_t inner1 = last_origin >= 0 ? last_origin / p->stride_w + 1 : 0;
    inner1 = inner1 < p->out_w ? inner1 : p->out_w;
    const int64_t inner0 = (p->pad_left + p->stride_w - 1) / p->stride_w;
    for (int64_t ox = 0; ox < p->out_w;) {
        if (ox == inner0 && ox < inner1 && (ox = slide_inner(job, row, ox, inner1)) == p->out_w)
            break;
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
    if (job->op == WINDOW_DEPTHWISE) /* tp_work_done's multiply-adds */
        tp_work_done(tp_sat_mul(tp_sat_mul(end - begin, p->out_w * p->out_c), p->window_h * p->window_w));
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
