/* gemm.c - drives the micro-kernel over a whole product. C is cut into
 * tasks (a range of row tiles x a block of column tiles, the part of C a
 * task writes small enough to stay in the second-level cache) that the
 * workers of the thread pool take one at a time. A task walks k in blocks:
 * it packs the block of B it needs, reading B row by row (sequential, so it
 * streams from memory) into tile-column panels one after the other in the
 * worker's buffer, zero-padded at the right edge; then, a block of row
 * tiles at a time (their row pointers looked up once), every row tile
 * reuses each panel while it sits in the first-level cache. The ARM
 * kernels take A packed: there each row tile of the block is packed once
 * (TP_GEMM_MR x k floats, in the first-level cache) and multiplied by
 * every panel in turn, the panels it fills whole in one call of the
 * kernels' row function. A product whose B is in binary16 panels (b_fp16)
 * runs the fp16 kernel the same way, with its own panel width. */
#include "compute/gemm.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "compute/gemm_fp16.h"
#include "compute/gemm_kernel.h"
#include "compute/gemv.h"

enum {
#if defined(TP_GEMM_ARM_KERNELS)
    K_BLOCK = 256, /* rows of B per block of k: a panel of B and a packed tile of A fit the first-level cache */
#else
    K_BLOCK = 128, /* rows of B per block of k: a panel of B fits the first-level cache */
#endif
    MAX_BLOCK_TAPS = 16,     /* taps per block of k */
    M_BLOCK_TILES = 16,      /* row tiles whose row pointers are looked up together */
    TASK_C_FLOATS = 1 << 16, /* the part of C one task writes, unless that leaves too few tasks */
    N_BLOCK = 512,           /* columns per task: a packed block of B fits the second-level cache */
    TASKS_PER_THREAD = 4,    /* enough tasks to even out the threads */
};
/* Below this many multiply-adds a product runs on the caller alone. */
#define MIN_PARALLEL_MACS (1 << 20)

typedef struct gemm_job {
    const tp_gemm *g;
    int64_t m_tiles, n_panels;
    int64_t row_tasks, column_tasks;     /* the task grid: row tiles and panels cut as evenly as they go */
    int64_t tiles_per_task, panels_per_task; /* the fewest row tiles and the most panels of a task */
    int64_t depth_block, taps_block;                       /* a block of k: taps_block x depth_block rows of B */
    int64_t depth_blocks, tap_blocks;                      /* at least one each, even when k is 0 */
    int tasks;
    atomic_int next_task;
    const tp_gemm_kernels *kernels;
    int64_t nr;      /* the kernels' tile width */
    int64_t k_block; /* rows of B per block of k, at most */
    bool prepacked; /* B is in the kernels' panels (b_in_panels or b_fp16) */
    /* The epilogue's scale, multiplied into B as it is packed so that the
     * tiles skip it (the ARM kernels, whose epilogue takes a share of every
     * short product), or NULL. A task scales each of its values of B
     * (k x its columns) instead of each of its outputs (its rows x its
     * columns), at about twice the cost per value (cycles.sh, A72): it pays
     * where a task's rows are at least twice k. */
    const float *b_scale;
    float *buffers; /* one packed block of B (then one tile of A) per worker */
    size_t buffer_floats, b_floats;
} gemm_job;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

tp_gemm_epilogue tp_gemm_no_epilogue(void) { return (tp_gemm_epilogue){NULL, NULL, -INFINITY, INFINITY}; }

void tp_gemm_matrix_rows(const void *matrix, int64_t row, int rows, int64_t tap, int taps, const float **ptrs)
{
    const tp_gemm_matrix *a = matrix;
    (void)tap;
    (void)taps; /* a matrix is one tap */
    for (int r = 0; r < rows; r++)
        ptrs[r] = a->data + (row + r) * a->stride;
}

/* Row pointers of tiles [tile0, tile1) for taps [tap, tap + taps); rows past
 * the end of A repeat the tile's first row. */
static void find_rows(const tp_gemm *g, int64_t tile0, int64_t tile1, int64_t tap, int taps, const float **ptrs)
{
    for (int64_t tile = tile0; tile < tile1; tile++, ptrs += taps * TP_GEMM_MR) {
        const int64_t row = tile * TP_GEMM_MR;
        const int rows = (int)min64(TP_GEMM_MR, g->m - row);
        g->rows(g->rows_arg, row, rows, tap, taps, ptrs);
        for (int t = 0; t < taps; t++)
            for (int r = rows; r < TP_GEMM_MR; r++)
                ptrs[t * TP_GEMM_MR + r] = ptrs[t * TP_GEMM_MR];
    }
}

/* Copies `cols` floats (0 < cols <= TP_GEMM_NR) to a panel row, zero-padded
 * to TP_GEMM_NR, times scale[col] unless scale is NULL. */
static inline void copy_panel_row(float *dst, const float *src, int64_t cols, const float *scale)
{
    if (scale) {
        for (int64_t c = 0; c < TP_GEMM_NR; c++)
            dst[c] = c < cols ? src[c] * scale[c] : 0.0f;
        return;
    }
    int64_t c = 0;
    for (; c + TP_VEC_WIDTH <= cols; c += TP_VEC_WIDTH)
        tp_vec_store(dst + c, tp_vec_load(src + c));
    if (c < cols) {
        tp_vec_store(dst + c, tp_vec_load_partial(src + c, (int)(cols - c)));
        c += TP_VEC_WIDTH;
    }
    for (; c < TP_GEMM_NR; c += TP_VEC_WIDTH)
        tp_vec_store(dst + c, tp_vec_zero());
}

/* Copies the full panels of one row of B: `panels` runs of TP_GEMM_NR
 * floats from src on, to dst, dst + panel_size, ..., times scale[col]
 * unless scale is NULL; two panels' loads go before their stores, so that
 * an in-order core does not wait on each. */
static inline void copy_full_panels(float *restrict dst, const float *restrict src, int64_t panels,
                                    int64_t panel_size, const float *scale)
{
    enum { V = TP_GEMM_NR_VECS, W = TP_VEC_WIDTH };
    int64_t p = 0;
    for (; p + 2 <= panels; p += 2, src += 2 * TP_GEMM_NR, dst += 2 * panel_size) {
        tp_vec x[2 * V];
#pragma GCC unroll 8
        for (int v = 0; v < 2 * V; v++)
            x[v] = tp_vec_load(src + v * W);
        if (scale) {
#pragma GCC unroll 8
            for (int v = 0; v < 2 * V; v++)
                x[v] = tp_vec_mul(x[v], tp_vec_load(scale + v * W));
            scale += 2 * TP_GEMM_NR;
        }
#pragma GCC unroll 4
        for (int v = 0; v < V; v++) {
            tp_vec_store(dst + v * W, x[v]);
            tp_vec_store(dst + panel_size + v * W, x[V + v]);
        }
    }
    if (p < panels)
#pragma GCC unroll 4
        for (int v = 0; v < V; v++)
            tp_vec_store(dst + v * W,
                         scale ? tp_vec_mul(tp_vec_load(src + v * W), tp_vec_load(scale + v * W))
                               : tp_vec_load(src + v * W));
}

/* Packs rows (t0 .. t0 + taps) x (d0 .. d0 + depth) of B, columns
 * [col0, col1), as panels of TP_GEMM_NR columns: panel p, row i at
 * buf + (p * taps * depth + i) * TP_GEMM_NR; each column times scale[col]
 * unless scale is NULL. */
static void pack_b(const tp_gemm *g, int64_t t0, int taps, int64_t d0, int64_t depth, int64_t col0, int64_t col1,
                   const float *scale, float *buf)
{
    const float *col_scale = scale ? scale + col0 : NULL;
    const int64_t panel_size = taps * depth * TP_GEMM_NR;
    for (int t = 0; t < taps; t++) {
        for (int64_t d = 0; d < depth; d++) {
            const float *src = g->b + ((t0 + t) * g->depth + d0 + d) * g->ldb;
            float *dst = buf + (t * depth + d) * TP_GEMM_NR;
            const int64_t full = (col1 - col0) / TP_GEMM_NR;
            copy_full_panels(dst, src + col0, full, panel_size, col_scale);
            if (col0 + full * TP_GEMM_NR < col1)
                copy_panel_row(dst + full * panel_size, src + col0 + full * TP_GEMM_NR, col1 - col0 - full * TP_GEMM_NR,
                               col_scale ? col_scale + full * TP_GEMM_NR : NULL);
        }
    }
}

/* Points the tile at the columns from col on: its panel of B (packed, or at
 * row `prepacked_row` of a prepacked B) and epilogue values. */
static inline void place_columns(const gemm_job *job, int64_t col, int64_t col0, int64_t col1,
                                 int64_t prepacked_row, const float *packed, tp_gemm_tile *tile)
{
    const tp_gemm *g = job->g;
    const int64_t panel_value = (col / job->nr * g->taps * g->depth + prepacked_row) * job->nr;
    tile->b = !job->prepacked ? packed + (col - col0) * tile->taps * tile->depth
              : g->b_fp16     ? (const float *)(const void *)(g->b_fp16 + panel_value)
                              : g->b + panel_value;
    tile->cols = (int)min64(job->nr, col1 - col);
    tile->scale = g->epilogue.scale && !job->b_scale ? g->epilogue.scale + col : NULL;
    tile->bias = g->epilogue.bias ? g->epilogue.bias + col : NULL;
}

/* Points the tile at row tile t of C, columns from col on. */
static inline void place_rows(const tp_gemm *g, int64_t t, int64_t col, tp_gemm_tile *tile)
{
    const int64_t row = t * TP_GEMM_MR;
    tile->rows = (int)min64(TP_GEMM_MR, g->m - row);
    tile->c = g->c + row * g->ldc + col;
}

void tp_gemm_pack_panels_into(const float *b, int64_t k, int64_t n, int64_t ldb, float *panels)
{
    if (k > 0 && n > 0) {
        const tp_gemm g = {.n = n, .taps = 1, .depth = k, .b = b, .ldb = ldb};
        pack_b(&g, 0, 1, 0, k, 0, n, NULL, panels);
    }
}

float *tp_gemm_pack_panels(const float *b, int64_t k, int64_t n, int64_t ldb)
{
    float *panels = aligned_alloc(64, (sizeof(float) * (size_t)tp_gemm_panel_floats(k, n) + 64) & ~(size_t)63);
    if (panels)
        tp_gemm_pack_panels_into(b, k, n, ldb, panels);
    return panels;
}

/* Task `task` of a grid of rows x columns tasks: row tiles [tile0, tile1)
 * and columns [col0, col1), tiles and panels dealt as evenly as they go. */
static void task_range(const gemm_job *job, int64_t rows, int64_t columns, int64_t task, int64_t *tile0,
                       int64_t *tile1, int64_t *col0, int64_t *col1)
{
    const int64_t row_task = task / columns, column_task = task % columns;
    *tile0 = row_task * job->m_tiles / rows;
    *tile1 = (row_task + 1) * job->m_tiles / rows;
    *col0 = column_task * job->n_panels / columns * job->nr;
    *col1 = min64((column_task + 1) * job->n_panels / columns * job->nr, job->g->n);
}

static void run_task(const gemm_job *job, int64_t task, float *packed, float *packed_a)
{
    const tp_gemm *g = job->g;
    int64_t tile0, tile1, col0, col1;
    task_range(job, job->row_tasks, job->column_tasks, task, &tile0, &tile1, &col0, &col1);
    const float *ptrs[M_BLOCK_TILES * MAX_BLOCK_TAPS * TP_GEMM_MR];
    for (int64_t tb = 0; tb < job->tap_blocks; tb++) {
        const int64_t t0 = tb * job->taps_block;
        const int taps = (int)min64(job->taps_block, g->taps - t0);
        for (int64_t db = 0; db < job->depth_blocks; db++) {
            const int64_t d0 = db * job->depth_block, depth = min64(job->depth_block, g->depth - d0);
            /* Rows t0 * depth + d0 on of a prepacked B: a block is whole
             * taps of full depth, or one tap's range of depth. */
            const int64_t prepacked_row = t0 * g->depth + d0;
            const int64_t panel_stride = job->nr * (job->prepacked ? g->taps * g->depth : taps * depth);
            if (!job->prepacked)
                pack_b(g, t0, taps, d0, depth, col0, col1, job->b_scale, packed);
            tp_gemm_tile tile = {
                .a_offset = d0,
                .taps = taps,
                .depth = depth,
                .ldc = g->ldc,
                .accumulate = tb > 0 || db > 0,
                .finish = tb == job->tap_blocks - 1 && db == job->depth_blocks - 1,
                .min = g->epilogue.min,
                .max = g->epilogue.max,
            };
            for (int64_t block0 = tile0; block0 < tile1; block0 += M_BLOCK_TILES) {
                const int64_t block1 = min64(block0 + M_BLOCK_TILES, tile1);
                find_rows(g, block0, block1, t0, taps, ptrs);
                if (job->kernels->pack_a) {
                    tile.a_packed = packed_a;
                    for (int64_t t = block0; t < block1; t++) {
                        tile.a = ptrs + (t - block0) * taps * TP_GEMM_MR;
                        job->kernels->pack_a(tile.a, taps, d0, depth, packed_a);
                        int64_t col = col0;
                        const int64_t whole = (col1 - col0) / job->nr; /* panels that fill a tile */
                        place_rows(g, t, col, &tile);
                        if (job->kernels->row && tile.rows == TP_GEMM_MR && whole > 0) {
                            place_columns(job, col, col0, col1, prepacked_row, packed, &tile);
                            job->kernels->row(&tile, whole, panel_stride);
                            col += whole * job->nr;
                        }
                        for (; col < col1; col += job->nr) {
                            place_columns(job, col, col0, col1, prepacked_row, packed, &tile);
                            place_rows(g, t, col, &tile);
                            job->kernels->tile(&tile);
                        }
                    }
                    continue;
                }
                for (int64_t col = col0; col < col1; col += job->nr) {
                    place_columns(job, col, col0, col1, prepacked_row, packed, &tile);
                    for (int64_t t = block0; t < block1; t++) {
                        tile.a = ptrs + (t - block0) * taps * TP_GEMM_MR;
                        place_rows(g, t, col, &tile);
                        job->kernels->tile(&tile);
                    }
                }
            }
        }
    }
    tp_work_done((min64(tile1 * TP_GEMM_MR, g->m) - tile0 * TP_GEMM_MR) * (col1 - col0) * g->taps * g->depth);
}

/* Items are workers: each takes tasks until none are left, packing into
 * its own buffer. */
static void run_workers(void *arg, int64_t begin, int64_t end)
{
    gemm_job *job = arg;
    for (int64_t worker = begin; worker < end; worker++) {
        float *packed = job->buffers ? job->buffers + (size_t)worker * job->buffer_floats : NULL;
        float *packed_a = packed ? packed + job->b_floats : NULL;
        for (int task; (task = atomic_fetch_add(&job->next_task, 1)) < job->tasks;)
            run_task(job, task, packed, packed_a);
    }
}

/* How long a grid of rows x columns tasks keeps `threads` equal cores busy
 * when each takes the next task as it becomes free, in multiply-adds per
 * row of k (rows x columns of C); INT64_MAX if there are too many cores
 * to tell. */
static int64_t grid_makespan(const gemm_job *job, int64_t rows, int64_t columns, int64_t threads)
{
    enum { MAX_CORES = 64 };
    int64_t loads[MAX_CORES] = {0}, longest = 0;
    if (threads > MAX_CORES)
        return INT64_MAX;
    for (int64_t task = 0; task < rows * columns; task++) {
        int64_t tile0, tile1, col0, col1, core = 0;
        task_range(job, rows, columns, task, &tile0, &tile1, &col0, &col1);
        for (int64_t c = 1; c < threads; c++)
            core = loads[c] < loads[core] ? c : core;
        loads[core] += (min64(tile1 * TP_GEMM_MR, job->g->m) - tile0 * TP_GEMM_MR) * (col1 - col0);
        longest = loads[core] > longest ? loads[core] : longest;
    }
    return longest;
}

/* The smallest count from `count` on, at most `most`, that times `other`
 * is a multiple of threads, or `count`. */
static int64_t to_multiple(int64_t count, int64_t other, int64_t most, int64_t threads)
{
    for (int64_t c = count; c <= most; c++)
        if (c * other % threads == 0)
            return c;
    return count;
}

/* Evens the task grid out over `threads` equal cores: of the grid as
 * planned, the same with more row tasks or more column tasks so that every
 * core gets as many, and all rows cut for the threads in the columns that
 * fit the cache (block_columns), the one that ends first (the fewest tasks
 * if several do): uneven grids left up to a third of four cores idle in
 * MobileNet v2's layers. */
static void even_out(gemm_job *job, int64_t threads, int64_t block_columns, int64_t *row_tasks)
{
    const int64_t rows = *row_tasks, columns = job->column_tasks;
    const int64_t wanted = min64(ceil_div(TASKS_PER_THREAD * threads, block_columns), job->m_tiles);
    const int64_t grids[4][2] = {
        {rows, columns},
        {to_multiple(rows, columns, job->m_tiles, threads), columns},
        {rows, to_multiple(columns, rows, job->n_panels, threads)},
        {to_multiple(wanted, block_columns, job->m_tiles, threads), block_columns},
    };
    int64_t best = 0, best_time = INT64_MAX;
    for (int64_t i = 0; i < 4; i++) {
        const int64_t time = grid_makespan(job, grids[i][0], grids[i][1], threads);
        if (time < best_time ||
            (time == best_time && grids[i][0] * grids[i][1] < grids[best][0] * grids[best][1])) {
            best = i;
            best_time = time;
        }
    }
    *row_tasks = grids[best][0];
    job->column_tasks = grids[best][1];
}

/* Blocks of k, and the task grid for `threads` workers. */
static void plan_job(gemm_job *job, int64_t threads)
{
    const tp_gemm *g = job->g;
    job->m_tiles = ceil_div(g->m, TP_GEMM_MR);
    job->n_panels = ceil_div(g->n, job->nr);
    job->depth_block = g->depth > job->k_block ? ceil_div(g->depth, ceil_div(g->depth, job->k_block)) : g->depth;
    job->depth_block = job->depth_block > 0 ? job->depth_block : 1;
    job->taps_block = min64(job->k_block / job->depth_block, MAX_BLOCK_TAPS);
    job->taps_block = job->taps_block > 0 ? job->taps_block : 1;
    job->depth_blocks = g->depth > 0 ? ceil_div(g->depth, job->depth_block) : 1;
    job->tap_blocks = g->taps > 0 ? ceil_div(g->taps, job->taps_block) : 1;

    const int64_t wanted = threads > 1 ? TASKS_PER_THREAD * threads : 1;
    const int64_t block_columns = ceil_div(job->n_panels, N_BLOCK / job->nr);
    job->column_tasks = block_columns;
    job->panels_per_task = ceil_div(job->n_panels, job->column_tasks);
    /* Where k is one block each value of C is written once, so a task's part
     * of C need not stay in the cache: a task takes all rows (it packs its
     * block of B once) unless the threads need more tasks. */
    job->tiles_per_task = job->depth_blocks * job->tap_blocks == 1
                              ? job->m_tiles
                              : TASK_C_FLOATS / (TP_GEMM_MR * job->nr * job->panels_per_task);
    job->tiles_per_task = min64(job->tiles_per_task > M_BLOCK_TILES ? job->tiles_per_task : M_BLOCK_TILES,
                                job->m_tiles);
    int64_t row_tasks = ceil_div(job->m_tiles, job->tiles_per_task);
    if (row_tasks * job->column_tasks < wanted) {
        job->column_tasks = min64(job->n_panels, ceil_div(wanted, row_tasks));
        job->panels_per_task = ceil_div(job->n_panels, job->column_tasks);
        job->column_tasks = ceil_div(job->n_panels, job->panels_per_task);
    }
    if (row_tasks * job->column_tasks < wanted) {
        job->tiles_per_task = ceil_div(job->m_tiles, ceil_div(wanted, job->column_tasks));
        row_tasks = ceil_div(job->m_tiles, job->tiles_per_task);
    }
    if (threads > 1)
        even_out(job, threads, block_columns, &row_tasks);
    job->row_tasks = row_tasks;
    job->tiles_per_task = job->m_tiles / row_tasks;
    job->panels_per_task = ceil_div(job->n_panels, job->column_tasks);
    job->tasks = (int)(row_tasks * job->column_tasks);
    const size_t k_floats = (size_t)(job->taps_block * job->depth_block);
    job->b_floats = job->prepacked ? 0 : k_floats * (size_t)(job->panels_per_task * job->nr);
    /* whole cache lines per worker */
    job->buffer_floats = (job->b_floats + (job->kernels->pack_a ? k_floats * TP_GEMM_MR : 0) + 15) & ~(size_t)15;
}

bool tp_gemm_fp16_wanted(const tp_threadpool *pool) { return tp_threadpool_precision(pool) == TP_PRECISION_FP16; }

const tp_gemm_kernels *tp_gemm_fp16_kernels_for(tp_cpu cpu)
{
#if defined(TP_GEMM_FP16_KERNELS)
    if (cpu.fp16)
        return &tp_gemm_kernels_fp16;
#else
    (void)cpu;
#endif
    return &tp_gemm_kernels_fp16_portable;
}

/* The product with `kernels`, over pool's workers where it is worth it
 * (pool NULL: on the caller). */
static bool run_with(const tp_gemm *g, tp_threadpool *pool, tp_cpu cpu)
{
    if (g->m <= 0 || g->n <= 0)
        return true;
    if (g->m == 1 && !g->b_in_panels && !g->b_fp16)
        return tp_gemv_run(g, pool);
    const double macs = (double)g->m * (double)g->n * (double)(g->taps * g->depth);
    const int64_t threads = macs >= MIN_PARALLEL_MACS ? tp_threadpool_size(pool) : 1;
    /* b_fp16 is only ever set where tp_gemm_fp16_wanted */
    gemm_job job = {.g = g,
                    .kernels = g->b_fp16 ? tp_gemm_fp16_kernels_for(cpu) : tp_gemm_kernels_for(cpu),
                    .prepacked = g->b_in_panels || g->b_fp16,
                    .k_block = g->b_fp16 ? TP_GEMM_FP16_K_BLOCK : K_BLOCK};
    job.nr = job.kernels->nr;
    plan_job(&job, threads);
    if (job.kernels->pack_a && !job.prepacked && job.tiles_per_task * TP_GEMM_MR >= 2 * g->taps * g->depth)
        job.b_scale = g->epilogue.scale;
    const int64_t workers = min64(threads, job.tasks);
    float *own = NULL; /* without a pool, the buffers are this call's */
    if (job.buffer_floats > 0) { /* B or A to pack: a buffer per worker */
        const size_t bytes = (sizeof(float) * job.buffer_floats * (size_t)workers + 63) & ~(size_t)63;
        job.buffers = pool ? tp_threadpool_scratch(pool, bytes) : (own = aligned_alloc(64, bytes));
        if (!job.buffers)
            return false;
    }
    atomic_init(&job.next_task, 0);
    tp_parallel_for(workers > 1 ? pool : NULL, workers, 1, run_workers, &job);
    free(own);
    return true;
}

bool tp_gemm_run(const tp_gemm *g, tp_threadpool *pool) { return run_with(g, pool, tp_threadpool_cpu(pool)); }

bool tp_gemm_run_alone(const tp_gemm *g, tp_cpu cpu) { return run_with(g, NULL, cpu); }
