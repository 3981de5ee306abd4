/* tflite_qconv_gemm.c - TFLite's quantized CONV_2D and FULLY_CONNECTED by
 * the 8-bit GEMM (tflite_qgemm.h): planning (the variant, the weights
 * packed once per graph, the epilogue's per-channel values) and the run,
 * cut into tasks of output rows (and of columns when rows are few) over
 * the pool. A row of A is one output pixel's taps: read in place where
 * the input already is that matrix (a 1x1 convolution at stride 1,
 * FULLY_CONNECTED; the kernels read a row's depth rounded up to 16, the
 * codes past it unused, so in place where those reads stay inside the
 * input: all rows but the last few of a depth not a multiple of 16), else
 * gathered per task into a small buffer, padding taps holding the input
 * zero point (which then contributes nothing, as a tap outside the image
 * in TFLite). With
 * q->sums the output is the int32 sums, not codes. */
#include "compute/tflite_qconv.h"

#include <stdlib.h>
#include <string.h>


/* n rounded up to 16 (at least 16: what the kernels read past n). */
static int64_t round16(int64_t n) { return n > 0 ? (n + 15) / 16 * 16 : 16; }

static bool holds_min(const tp_tflite_qconv *q, const void *filter, int64_t count)
{
    if (!q->is_int8)
        return false;
    const uint8_t *w = filter;
    for (int64_t i = 0; i < count; i++)
        if (w[i] == 0x80)
            return true;
    return false;
}

/* col_term[j] = bias[j] - za colsum[j] + depth za zb (wrapping), 0 past n. */
static void make_col_terms(const tp_tflite_qconv *q, const tp_tflite_qconv_gemm *g, const void *packed,
                           int32_t *col_term)
{
    const int64_t n = q->geo.out_c;
    const uint32_t za = (uint32_t)q->input_zero, both = (uint32_t)g->depth * za * (uint32_t)q->filter_zero;
    memset(col_term, 0, sizeof(int32_t) * (size_t)round16(n));
    for (int64_t j = 0; j < n; j++) {
        const uint32_t sum = (uint32_t)tp_tfl_qgemm_col_sum(g->kernel, packed, g->depth, n, j);
        col_term[j] = (int32_t)((q->bias ? (uint32_t)q->bias[j] : 0u) - za * sum + both);
    }
}

bool tp_tflite_qconv_gemm_plan(tp_tflite_qconv_gemm *g, const tp_tflite_qconv *q, const void *filter,
                               bool bias_known, tp_cpu cpu, const tfpi_graph *graph, const void *owner)
{
    const tp_window_params *p = &q->geo;
    const int64_t n = p->out_c, padded = round16(n);
    *g = (tp_tflite_qconv_gemm){.depth = p->window_h * p->window_w * p->in_c};
    g->kernel = tp_tfl_qgemm_kernel_for(cpu, q->is_int8, !filter || holds_min(q, filter, n * g->depth));
    g->mantissa = calloc((size_t)padded, sizeof(int32_t));
    g->left = calloc((size_t)padded, sizeof(int32_t));
    g->right = calloc((size_t)padded, sizeof(int32_t));
    if (!g->mantissa || !g->left || !g->right)
        return false;
    for (int64_t j = 0; j < n && !q->sums; j++) {
        g->mantissa[j] = q->rescale[j].mantissa;
        g->left[j] = q->rescale[j].shift > 0 ? q->rescale[j].shift : 0;
        g->right[j] = q->rescale[j].shift > 0 ? 0 : q->rescale[j].shift;
    }
    if (!filter)
        return true;
    if (!(g->packed = tp_tfl_qgemm_pack_for_graph(g->kernel, graph, owner, filter, g->depth, n, g->depth, 1, &g->owned)))
        return false;
    if (bias_known) {
        if (!(g->col_term = malloc(sizeof(int32_t) * (size_t)padded)))
            return false;
        make_col_terms(q, g, g->packed, g->col_term);
    }
    return true;
}

void tp_tflite_qconv_gemm_free(tp_tflite_qconv_gemm *g)
{
    free(g->owned);
    free(g->mantissa);
    free(g->left);
    free(g->right);
    free(g->col_term);
    *g = (tp_tflite_qconv_gemm){0};
}

/* ---- the run ---- */

typedef struct gemm_job {
    const tp_tflite_qconv *q;
    const tp_tflite_qconv_gemm *g;
    const void *packed;
    tp_tfl_qgemm_out out;
    const uint8_t *input;
    uint8_t *output;
    int64_t rows, chunk_rows, col_blocks, block_cols, row_bytes;
    bool in_place;
    int failed;
} gemm_job;

/* n bytes from src to dst: the few bytes of a first layer's taps (a call
 * costs more than the copy) as two fixed-size copies that overlap in the
 * middle (4-16 bytes) or one at a time (1-3), else memcpy. */
static inline void copy_taps(uint8_t *dst, const uint8_t *src, int64_t n)
{
    if (n > 16)
        memcpy(dst, src, (size_t)n);
    else if (n >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else
        for (int64_t i = 0; i < n; i++)
            dst[i] = src[i];
}

/* An output pixel: batch, row, column. */
typedef struct out_pixel {
    int64_t b, oy, ox;
} out_pixel;

/* Output pixel o's taps into dst (row_bytes: padding taps the input zero
 * point, then zeros past the depth). A window row inside the image (at
 * dilation 1) is one copy: its taps lie side by side in the input. */
static void gather_row(const gemm_job *job, out_pixel o, uint8_t *dst)
{
    const tp_window_params *p = &job->q->geo;
    const int64_t x0 = o.ox * p->stride_w - p->pad_left;
    const bool row_inside = p->dilation_w == 1 && x0 >= 0 && x0 + p->window_w <= p->in_w;
    uint8_t *start = dst;
    for (int64_t ky = 0; ky < p->window_h; ky++) {
        const int64_t y = o.oy * p->stride_h - p->pad_top + ky * p->dilation_h;
        const uint8_t *in_row = job->input + (o.b * p->in_h + y) * p->in_w * p->in_c;
        if (row_inside && y >= 0 && y < p->in_h) {
            copy_taps(dst, in_row + x0 * p->in_c, p->window_w * p->in_c);
            dst += p->window_w * p->in_c;
            continue;
        }
        for (int64_t kx = 0; kx < p->window_w; kx++, dst += p->in_c) {
            const int64_t x = x0 + kx * p->dilation_w;
            if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w)
                memset(dst, (uint8_t)job->q->input_zero, (size_t)p->in_c);
            else
                copy_taps(dst, in_row + x * p->in_c, p->in_c);
        }
    }
    memset(dst, 0, (size_t)(job->row_bytes - (dst - start)));
}

/* How many of the rows [first, first + count) are read in place: none
 * unless A is the input, else those whose reads (the depth rounded up to
 * 16) stay inside it: all but the last few of a depth not a multiple of
 * 16. */
static int64_t rows_in_place(const gemm_job *job, int64_t first, int64_t count)
{
    if (!job->in_place)
        return 0;
    const int64_t depth = job->g->depth, room = job->rows * depth - job->row_bytes;
    const int64_t inside = room < 0 ? 0 : room / depth + 1;
    return inside - first < 0 ? 0 : inside - first < count ? inside - first : count;
}

/* C's rows [first, first + count), columns [col_begin, col_end), from the
 * rows of A at a (stride lda). */
static void gemm_rows(const gemm_job *job, const uint8_t *a, int64_t lda, int64_t first, int64_t count,
                      int64_t col_begin, int64_t col_end, int32_t *scratch)
{
    const int64_t n = job->q->geo.out_c;
    tp_tfl_qgemm_run(job->g->kernel, job->packed, job->g->depth, a, lda, count, &job->out,
                     job->output + first * n * (job->q->sums ? 4 : 1), n, col_begin, col_end, scratch);
}

static void gemm_tasks(void *arg, int64_t begin, int64_t end)
{
    gemm_job *job = arg;
    const int64_t n = job->q->geo.out_c, depth = job->g->depth;
    const bool gathers = !job->in_place || depth % TP_TFL_QGEMM_DEPTH_STEP != 0;
    uint8_t *rows = gathers ? malloc((size_t)(job->chunk_rows * job->row_bytes)) : NULL;
    int32_t *scratch = malloc(sizeof(int32_t) * (size_t)job->chunk_rows);
    if ((gathers && !rows) || !scratch) {
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
        end = begin;
    }
    for (int64_t task = begin; task < end; task++) {
        const int64_t chunk = task / job->col_blocks, block = task % job->col_blocks;
        const int64_t first = chunk * job->chunk_rows;
        const int64_t count = job->rows - first < job->chunk_rows ? job->rows - first : job->chunk_rows;
        const int64_t col_begin = block * job->block_cols;
        const int64_t col_end = col_begin + job->block_cols < n ? col_begin + job->block_cols : n;
        const int64_t direct = rows_in_place(job, first, count);
        if (direct > 0)
            gemm_rows(job, job->input + first * depth, depth, first, direct, col_begin, col_end, scratch);
        if (direct == count)
            continue;
        const tp_window_params *p = &job->q->geo;
        const int64_t start = first + direct;
        out_pixel o = {start / p->out_w / p->out_h, start / p->out_w % p->out_h, start % p->out_w};
        for (int64_t r = 0; r < count - direct; r++) {
            gather_row(job, o, rows + r * job->row_bytes);
            if (++o.ox == p->out_w && (o.ox = 0, ++o.oy == p->out_h))
                o.oy = 0, o.b++;
        }
        gemm_rows(job, rows, job->row_bytes, start, count - direct, col_begin, col_end, scratch);
    }
    free(rows);
    free(scratch);
}

/* Whether the input is A itself: every output pixel's taps one input pixel. */
static bool input_is_a(const tp_window_params *p)
{
    return p->window_h == 1 && p->window_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
           p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
}

bool tp_tflite_qconv_gemm_run(const tp_tflite_qconv *q, const tp_tflite_qconv_gemm *g, const void *input,
                              const void *filter, void *output, tp_threadpool *pool)
{
    const tp_window_params *p = &q->geo;
    const int64_t n = p->out_c;
    gemm_job job = {.q = q, .g = g, .packed = g->packed, .input = input, .output = output,
                    .rows = p->batch * p->out_h * p->out_w, .row_bytes = tp_tfl_qgemm_row_bytes(g->depth)};
    job.in_place = input_is_a(p);
    void *packed_now = NULL;
    int32_t *col_term = NULL;
    if (!job.packed && !(job.packed = tp_tfl_qgemm_pack_for_graph(g->kernel, NULL, NULL, filter, g->depth, n, g->depth,
                                                                   1, &packed_now)))
        return false;
    if (!g->col_term) {
        if (!(col_term = malloc(sizeof(int32_t) * (size_t)round16(n)))) {
            free(packed_now);
            return false;
        }
        make_col_terms(q, g, job.packed, col_term);
    }
    job.out = (tp_tfl_qgemm_out){g->col_term ? g->col_term : col_term, g->mantissa, g->left, g->right,
                                 q->filter_zero, q->output_zero, q->act_min, q->act_max, q->sums};
    /* chunks of rows whose taps fit in about 16 KB; columns cut too when
     * rows are too few to give each thread four tasks */
    int64_t chunk = 16384 / job.row_bytes / 8 * 8;
    job.chunk_rows = chunk < 8 ? 8 : chunk > 256 ? 256 : chunk;
    const int64_t chunks = (job.rows + job.chunk_rows - 1) / job.chunk_rows, panels16 = (n + 15) / 16;
    const int64_t threads = tp_threadpool_size(pool);
    job.col_blocks = 1;
    if (threads > 1 && chunks < 4 * threads)
        job.col_blocks = (4 * threads + chunks - 1) / chunks < panels16 ? (4 * threads + chunks - 1) / chunks : panels16;
    job.block_cols = (panels16 + job.col_blocks - 1) / job.col_blocks * 16;
    job.col_blocks = (n + job.block_cols - 1) / job.block_cols;
    tp_parallel_for(pool, chunks * job.col_blocks, 1, gemm_tasks, &job);
    free(packed_now);
    free(col_term);
    return !job.failed;
}
