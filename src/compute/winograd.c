/* winograd.c - F(4x4, 3x3) convolution (see winograd.h). The work is cut
 * into tasks, each a block of tiles times a block of output channels, that
 * the pool's workers take in turn. A task transforms its tiles' inputs into
 * 36 matrices [tiles][in_c] and its channels' filters into 36 matrices
 * [in_c][channels], runs the 36 GEMMs on its own thread into [tiles]
 * [channels] matrices, and transforms those into outputs, all in buffers of
 * its worker that stay in the caches.
 *
 * The transforms are the Toom-Cook ones for the interpolation points
 * 0, 3/2, -3/2, 2/3, -2/3 and infinity. The usual points 0, 1, -1, 2, -2
 * need the same arithmetic but lose about 4x more precision in float32
 * (max error 1.4e-5 against 3.2e-6 of the output's range, 64 channels):
 *   B^T = [1 0 -97/36 0 1 0;  0 -2/3 -4/9 3/2 1 0;  0 2/3 -4/9 -3/2 1 0;
 *          0 -3/2 -9/4 2/3 1 0;  0 3/2 -9/4 -2/3 1 0;  0 1 0 -97/36 0 1]
 *   G   = [1 0 0;  8/65 12/65 18/65;  8/65 -12/65 18/65;
 *          -81/130 -27/65 -18/65;  -81/130 27/65 -18/65;  0 0 1]
 *   A^T = [1 1 1 1 1 0;  0 3/2 -3/2 2/3 -2/3 0;  0 9/4 9/4 4/9 4/9 0;
 *          0 27/8 -27/8 8/27 -8/27 1] */
#include "compute/winograd.h"

#include "compute/simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    ALPHA = 6, /* input block side */
    TILE = 4,  /* output block side */
    POSITIONS = ALPHA * ALPHA,
    LANES = 16,                /* channels transformed together */
    TILE_BLOCK_FLOATS = 1 << 18, /* a task's input and product matrices, in floats (1 MB) */
    FILTER_BLOCK_FLOATS = 1 << 17, /* a task's transformed filter, in floats (512 KB) */
    TASKS_PER_THREAD = 3,
};

/* The rule: a 3x3 window at stride 1 and dilation 1; at least 64 input
 * channels, so that the GEMM's sums average out the transforms' rounding
 * (with Inception v3's 32-channel layers its softmax moved 1.7e-4 from a
 * float64 evaluation, against 3e-5 without them); at least 16 output
 * channels, so the 36 GEMMs outweigh the transforms; and an output of at
 * least 8x8, so the 4x4 tiles do not pad much. */
bool tp_winograd_applies(const tp_window_params *p)
{
    return p->window_h == 3 && p->window_w == 3 && p->stride_h == 1 && p->stride_w == 1 && p->dilation_h == 1 &&
           p->dilation_w == 1 && p->in_c >= 64 && p->out_c >= 16 && p->out_h >= 8 && p->out_w >= 8;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Copies `lanes` floats (at most LANES); whole blocks compile to a few
 * vector moves instead of a call. */
static inline void copy_lanes(float *restrict dst, const float *restrict src, int lanes)
{
    if (lanes == LANES)
        memcpy(dst, src, sizeof(float) * LANES);
    else
        memcpy(dst, src, sizeof(float) * (size_t)lanes);
}

/* ---- the three 1-D transforms, on LANES channels of `stride`-spaced rows ---- */

#define LOAD(p) tp_vec_load(p)
#define K(x) tp_vec_set1(x)

static void filter_1d(const float *restrict g, int64_t g_stride, float *restrict u, int64_t u_stride)
{
    for (int j = 0; j < LANES; j += TP_VEC_WIDTH) {
        const tp_vec g0 = LOAD(g + j), g1 = LOAD(g + g_stride + j), g2 = LOAD(g + 2 * g_stride + j);
        const tp_vec even1 = tp_vec_fma(tp_vec_mul(g0, K(8.0f / 65)), g2, K(18.0f / 65));
        const tp_vec odd1 = tp_vec_mul(g1, K(12.0f / 65));
        const tp_vec even3 = tp_vec_fma(tp_vec_mul(g0, K(-81.0f / 130)), g2, K(-18.0f / 65));
        const tp_vec odd3 = tp_vec_mul(g1, K(27.0f / 65));
        tp_vec_store(u + j, g0);
        tp_vec_store(u + u_stride + j, tp_vec_add(even1, odd1));
        tp_vec_store(u + 2 * u_stride + j, tp_vec_sub(even1, odd1));
        tp_vec_store(u + 3 * u_stride + j, tp_vec_sub(even3, odd3));
        tp_vec_store(u + 4 * u_stride + j, tp_vec_add(even3, odd3));
        tp_vec_store(u + 5 * u_stride + j, g2);
    }
}

static void input_1d(const float *restrict x, int64_t x_stride, float *restrict y, int64_t y_stride)
{
    for (int j = 0; j < LANES; j += TP_VEC_WIDTH) {
        const tp_vec x0 = LOAD(x + j), x1 = LOAD(x + x_stride + j), x2 = LOAD(x + 2 * x_stride + j);
        const tp_vec x3 = LOAD(x + 3 * x_stride + j), x4 = LOAD(x + 4 * x_stride + j);
        const tp_vec x5 = LOAD(x + 5 * x_stride + j);
        const tp_vec even1 = tp_vec_fma(x4, x2, K(-4.0f / 9));
        const tp_vec odd1 = tp_vec_fma(tp_vec_mul(x3, K(1.5f)), x1, K(-2.0f / 3));
        const tp_vec even3 = tp_vec_fma(x4, x2, K(-2.25f));
        const tp_vec odd3 = tp_vec_fma(tp_vec_mul(x3, K(2.0f / 3)), x1, K(-1.5f));
        tp_vec_store(y + j, tp_vec_add(tp_vec_fma(x0, x2, K(-97.0f / 36)), x4));
        tp_vec_store(y + y_stride + j, tp_vec_add(even1, odd1));
        tp_vec_store(y + 2 * y_stride + j, tp_vec_sub(even1, odd1));
        tp_vec_store(y + 3 * y_stride + j, tp_vec_add(even3, odd3));
        tp_vec_store(y + 4 * y_stride + j, tp_vec_sub(even3, odd3));
        tp_vec_store(y + 5 * y_stride + j, tp_vec_add(tp_vec_fma(x1, x3, K(-97.0f / 36)), x5));
    }
}

static void output_1d(const float *restrict m, int64_t m_stride, float *restrict o, int64_t o_stride)
{
    for (int j = 0; j < LANES; j += TP_VEC_WIDTH) {
        const tp_vec m0 = LOAD(m + j), m1 = LOAD(m + m_stride + j), m2 = LOAD(m + 2 * m_stride + j);
        const tp_vec m3 = LOAD(m + 3 * m_stride + j), m4 = LOAD(m + 4 * m_stride + j);
        const tp_vec m5 = LOAD(m + 5 * m_stride + j);
        const tp_vec s12 = tp_vec_add(m1, m2), d12 = tp_vec_sub(m1, m2);
        const tp_vec s34 = tp_vec_add(m3, m4), d34 = tp_vec_sub(m3, m4);
        tp_vec_store(o + j, tp_vec_add(tp_vec_add(m0, s12), s34));
        tp_vec_store(o + o_stride + j, tp_vec_fma(tp_vec_mul(d12, K(1.5f)), d34, K(2.0f / 3)));
        tp_vec_store(o + 2 * o_stride + j, tp_vec_fma(tp_vec_mul(s12, K(2.25f)), s34, K(4.0f / 9)));
        tp_vec_store(o + 3 * o_stride + j, tp_vec_add(tp_vec_fma(tp_vec_mul(d12, K(3.375f)), d34, K(8.0f / 27)), m5));
    }
}

#undef LOAD
#undef K

/* ---- one task ---- */

typedef struct wino_job {
    const tp_window_params *p;
    const float *input, *filter;
    const float *transformed; /* the whole filter transformed (tp_winograd_transform_filter), or NULL */
    float *output;
    tp_gemm_epilogue epilogue;
    int64_t tiles_h, tiles_w, tiles;
    int64_t tile_block, channel_block; /* a task's tiles and output channels */
    int64_t tile_blocks, channel_blocks;
    tp_cpu cpu; /* whose GEMM kernels the tasks run (the pool's) */
    atomic_bool failed;
} wino_job;

/* A worker's buffers: v[pos][tile][in_c]; u[pos], the transformed filters
 * as the GEMM's panels (tp_gemm_panel_floats(in_c, channels) floats per
 * position), so the GEMM packs nothing; m[pos][tile][channel_block]. */
typedef struct wino_buffers {
    float *v, *u, *m;
} wino_buffers;

/* Writes count values of row c, columns [k, k + count), into panels of
 * in_c rows, splitting them where a panel ends. */
static void store_in_panels(float *panels, int64_t in_c, int64_t c, int64_t k, const float *src, int count)
{
    while (count > 0) {
        const int64_t offset = k % TP_GEMM_NR;
        const int piece = (int)min64(count, TP_GEMM_NR - offset);
        copy_lanes(panels + (k / TP_GEMM_NR * in_c + c) * TP_GEMM_NR + offset, src, piece);
        k += piece, src += piece, count -= piece;
    }
}

/* u as above for output channels [k0, k0 + n) of filter. */
static void transform_filters(const tp_window_params *p, const float *filter, int64_t k0, int64_t n, float *u)
{
    const int64_t in_c = p->in_c, out_c = p->out_c, tap_stride = in_c * out_c;
    const int64_t pos_floats = tp_gemm_panel_floats(in_c, n);
    float g[3 * 3 * LANES], rows[ALPHA * 3 * LANES], out[ALPHA * LANES];
    for (int64_t c = 0; c < in_c; c++) {
        for (int64_t l0 = 0; l0 < n; l0 += LANES) {
            const int lanes = (int)min64(LANES, n - l0);
            if (lanes < LANES)
                memset(g, 0, sizeof g);
            for (int tap = 0; tap < 9; tap++)
                copy_lanes(g + tap * LANES, filter + tap * tap_stride + c * out_c + k0 + l0, lanes);
            for (int kx = 0; kx < 3; kx++) /* down each filter column */
                filter_1d(g + kx * LANES, 3 * LANES, rows + kx * LANES, 3 * LANES);
            for (int y = 0; y < ALPHA; y++) { /* along each row, into the 6 positions of that row */
                filter_1d(rows + y * 3 * LANES, LANES, out, LANES);
                for (int x = 0; x < ALPHA; x++)
                    store_in_panels(u + (y * ALPHA + x) * pos_floats, in_c, c, l0, out + x * LANES, lanes);
            }
        }
    }
    const int64_t used = n % TP_GEMM_NR; /* zero the last panel's columns past n */
    if (used)
        for (int pos = 0; pos < POSITIONS; pos++)
            for (int64_t c = 0; c < in_c; c++)
                memset(u + pos * pos_floats + ((n / TP_GEMM_NR) * in_c + c) * TP_GEMM_NR + used, 0,
                       sizeof(float) * (size_t)(TP_GEMM_NR - used));
}

/* Input and output pixel origin of tile t. */
static void tile_origin(const wino_job *job, int64_t t, int64_t *batch, int64_t *oy, int64_t *ox)
{
    const int64_t per_image = job->tiles_h * job->tiles_w;
    *batch = t / per_image;
    *oy = t % per_image / job->tiles_w * TILE;
    *ox = t % job->tiles_w * TILE;
}

/* v[pos][i][c] for tiles [t0, t0 + n). A whole block of channels of a
 * tile inside the input is read from the image and written into v in
 * place; the others go through buffers, zero where they leave the input. */
static void transform_inputs(const wino_job *job, int64_t t0, int64_t n, float *v)
{
    const tp_window_params *p = job->p;
    const int64_t in_c = p->in_c, row_stride = p->in_w * in_c, pos_stride = n * in_c;
    float d[POSITIONS * LANES], rows[POSITIONS * LANES], out[ALPHA * LANES];
    for (int64_t i = 0; i < n; i++) {
        int64_t batch, oy, ox;
        tile_origin(job, t0 + i, &batch, &oy, &ox);
        const int64_t iy0 = oy - p->pad_top, ix0 = ox - p->pad_left;
        const bool inside = iy0 >= 0 && iy0 + ALPHA <= p->in_h && ix0 >= 0 && ix0 + ALPHA <= p->in_w;
        const float *image = job->input + batch * p->in_h * row_stride;
        for (int64_t c0 = 0; c0 < in_c; c0 += LANES) {
            const int lanes = (int)min64(LANES, in_c - c0);
            if (inside && lanes == LANES) {
                const float *corner = image + iy0 * row_stride + ix0 * in_c + c0;
                for (int x = 0; x < ALPHA; x++) /* down each column */
                    input_1d(corner + x * in_c, row_stride, rows + x * LANES, ALPHA * LANES);
            } else {
                for (int y = 0; y < ALPHA; y++) {
                    for (int x = 0; x < ALPHA; x++) {
                        float *dst = d + (y * ALPHA + x) * LANES;
                        memset(dst, 0, sizeof(float) * LANES);
                        if (iy0 + y >= 0 && iy0 + y < p->in_h && ix0 + x >= 0 && ix0 + x < p->in_w)
                            copy_lanes(dst, image + (iy0 + y) * row_stride + (ix0 + x) * in_c + c0, lanes);
                    }
                }
                for (int x = 0; x < ALPHA; x++)
                    input_1d(d + x * LANES, ALPHA * LANES, rows + x * LANES, ALPHA * LANES);
            }
            for (int y = 0; y < ALPHA; y++) { /* along each row, into the 6 positions of that row */
                float *row_v = v + (y * ALPHA * n + i) * in_c + c0;
                if (lanes == LANES) {
                    input_1d(rows + y * ALPHA * LANES, LANES, row_v, pos_stride);
                } else {
                    input_1d(rows + y * ALPHA * LANES, LANES, out, LANES);
                    for (int x = 0; x < ALPHA; x++)
                        copy_lanes(row_v + x * pos_stride, out + x * LANES, lanes);
                }
            }
        }
    }
}

/* dst[0, lanes) = the epilogue of src[0, lanes) for output channels from k. */
static inline void store_through_epilogue(float *dst, const float *src, int lanes, const tp_gemm_epilogue *e,
                                          int64_t k)
{
    if (lanes < LANES) {
        for (int j = 0; j < lanes; j++)
            dst[j] = tp_gemm_epilogue_apply(e, src[j], k + j);
        return;
    }
    const tp_vec lo = tp_vec_set1(e->min), hi = tp_vec_set1(e->max);
    for (int j = 0; j < LANES; j += TP_VEC_WIDTH) {
        tp_vec x = tp_vec_load(src + j);
        if (e->scale)
            x = tp_vec_mul(x, tp_vec_load(e->scale + k + j));
        if (e->bias)
            x = tp_vec_add(x, tp_vec_load(e->bias + k + j));
        tp_vec_store(dst + j, tp_vec_min(tp_vec_max(x, lo), hi));
    }
}

/* Output channels [k0, k0 + channels) of tiles [t0, t0 + n) from
 * m[pos][i][k - k0], through the epilogue, clipped to the output's edges.
 * A whole block of channels is read from m in place. */
static void transform_outputs(const wino_job *job, int64_t t0, int64_t n, int64_t k0, int64_t channels,
                              const float *m)
{
    const tp_window_params *p = job->p;
    const int64_t pos_stride = n * channels;
    float gathered[POSITIONS * LANES], rows[TILE * ALPHA * LANES], y[TILE * TILE * LANES];
    for (int64_t i = 0; i < n; i++) {
        int64_t batch, oy, ox;
        tile_origin(job, t0 + i, &batch, &oy, &ox);
        float *image = job->output + batch * p->out_h * p->out_w * p->out_c;
        for (int64_t l0 = 0; l0 < channels; l0 += LANES) {
            const int lanes = (int)min64(LANES, channels - l0);
            const float *mi = m + i * channels + l0;
            int64_t m_stride = ALPHA * pos_stride, m_column = pos_stride;
            if (lanes < LANES) {
                memset(gathered, 0, sizeof gathered);
                for (int pos = 0; pos < POSITIONS; pos++)
                    copy_lanes(gathered + pos * LANES, mi + pos * pos_stride, lanes);
                mi = gathered, m_stride = ALPHA * LANES, m_column = LANES;
            }
            for (int x = 0; x < ALPHA; x++) /* down each column: 6 rows to 4 */
                output_1d(mi + x * m_column, m_stride, rows + x * LANES, ALPHA * LANES);
            for (int r = 0; r < TILE; r++) /* along each row: 6 columns to 4 */
                output_1d(rows + r * ALPHA * LANES, LANES, y + r * TILE * LANES, LANES);
            for (int r = 0; r < TILE && oy + r < p->out_h; r++)
                for (int x = 0; x < TILE && ox + x < p->out_w; x++)
                    store_through_epilogue(image + ((oy + r) * p->out_w + ox + x) * p->out_c + k0 + l0,
                                           y + (r * TILE + x) * LANES, lanes, &job->epilogue, k0 + l0);
        }
    }
}

static void run_task(wino_job *job, int64_t task, const wino_buffers *b)
{
    const tp_window_params *p = job->p;
    const int64_t t0 = task / job->channel_blocks * job->tile_block, k0 = task % job->channel_blocks * job->channel_block;
    const int64_t n = min64(job->tile_block, job->tiles - t0), channels = min64(job->channel_block, p->out_c - k0);
    transform_inputs(job, t0, n, b->v);
    const float *u = b->u;
    if (job->transformed)
        u = job->transformed + k0 / job->channel_block * POSITIONS * tp_gemm_panel_floats(p->in_c, job->channel_block);
    else
        transform_filters(p, job->filter, k0, channels, b->u);
    for (int pos = 0; pos < POSITIONS; pos++) {
        const tp_gemm_matrix rows = {b->v + pos * n * p->in_c, p->in_c};
        const tp_gemm g = {
            .m = n,
            .n = channels,
            .taps = 1,
            .depth = p->in_c,
            .rows = tp_gemm_matrix_rows,
            .rows_arg = &rows,
            .b = u + pos * tp_gemm_panel_floats(p->in_c, channels),
            .b_in_panels = true,
            .c = b->m + pos * n * channels,
            .ldc = channels,
            .epilogue = tp_gemm_no_epilogue(),
        };
        if (!tp_gemm_run_alone(&g, job->cpu)) {
            atomic_store(&job->failed, true);
            return;
        }
    }
    transform_outputs(job, t0, n, k0, channels, b->m);
}

static void run_tasks(void *arg, int64_t begin, int64_t end)
{
    wino_job *job = arg;
    const int64_t in_c = job->p->in_c;
    const size_t v = (size_t)(POSITIONS * job->tile_block * in_c);
    const size_t u = job->transformed ? 0 : (size_t)(POSITIONS * tp_gemm_panel_floats(in_c, job->channel_block));
    const size_t m = (size_t)(POSITIONS * job->tile_block * job->channel_block);
    float *buffer = aligned_alloc(64, ((v + u + m) * sizeof(float) + 63) & ~(size_t)63);
    if (!buffer) {
        atomic_store(&job->failed, true);
        return;
    }
    const wino_buffers b = {buffer, buffer + v, buffer + v + u};
    for (int64_t task = begin; task < end && !atomic_load(&job->failed); task++)
        run_task(job, task, &b);
    free(buffer);
}

/* Output channels per task: all of them if their transformed filter fits
 * a task's buffer, else as many whole micro-kernel panels as fit (at least
 * one). The same for every thread count: a filter transformed once serves
 * them all. */
static int64_t channel_block(const tp_window_params *p)
{
    if (POSITIONS * p->in_c * p->out_c <= FILTER_BLOCK_FLOATS)
        return p->out_c;
    return max64(1, FILTER_BLOCK_FLOATS / (POSITIONS * p->in_c) / TP_GEMM_NR) * TP_GEMM_NR;
}

size_t tp_winograd_filter_floats(const tp_window_params *p)
{
    const int64_t block = channel_block(p), full = p->out_c / block, last = p->out_c % block;
    return (size_t)(POSITIONS * (full * tp_gemm_panel_floats(p->in_c, block) + tp_gemm_panel_floats(p->in_c, last)));
}

void tp_winograd_transform_filter(const tp_window_params *p, const float *filter, float *transformed)
{
    const int64_t block = channel_block(p);
    for (int64_t k0 = 0; k0 < p->out_c; k0 += block) {
        transform_filters(p, filter, k0, min64(block, p->out_c - k0), transformed);
        transformed += POSITIONS * tp_gemm_panel_floats(p->in_c, block);
    }
}

/* Tiles per task: as many as fit the buffers, in whole micro-kernel rows,
 * but few enough that every thread gets several tasks. */
static void plan_blocks(wino_job *job, int64_t threads)
{
    const tp_window_params *p = job->p;
    job->channel_block = channel_block(p);
    job->channel_blocks = ceil_div(p->out_c, job->channel_block);
    int64_t tile_block = TILE_BLOCK_FLOATS / (POSITIONS * (p->in_c + job->channel_block));
    if (threads > 1)
        tile_block = min64(tile_block, ceil_div(job->tiles * job->channel_blocks, TASKS_PER_THREAD * threads));
    job->tile_block = min64(max64(tile_block / TP_GEMM_MR, 1) * TP_GEMM_MR, job->tiles);
    job->tile_blocks = ceil_div(job->tiles, job->tile_block);
}

bool tp_winograd_conv(const tp_window_params *p, const float *input, const float *filter, const float *transformed,
                      float *output, const tp_gemm_epilogue *epilogue, tp_threadpool *pool)
{
    wino_job job = {.p = p, .input = input, .filter = filter, .transformed = transformed, .output = output,
                    .epilogue = *epilogue, .cpu = tp_threadpool_cpu(pool)};
    job.tiles_h = ceil_div(p->out_h, TILE);
    job.tiles_w = ceil_div(p->out_w, TILE);
    job.tiles = p->batch * job.tiles_h * job.tiles_w;
    if (job.tiles == 0 || p->out_c == 0)
        return true;
    plan_blocks(&job, tp_threadpool_size(pool));
    atomic_init(&job.failed, false);
    tp_parallel_for(pool, job.tile_blocks * job.channel_blocks, 1, run_tasks, &job);
    return !atomic_load(&job.failed);
}
