/* gemv.c - the one-row product (tp_gemm with m == 1: a batch-1 MatMul, the
 * 1x1 logits convolution of an image net): y[n] = epilogue(sum over k of
 * a[k] * B[k][n]). The micro-kernel would use one of its TP_GEMM_MR rows
 * and B would be packed for a single use, so this streams B once, in place:
 * each task owns a block of columns, keeps them in vector registers and
 * walks every row of B over that block. */
#include "compute/gemv.h"

#include <stdlib.h>

#include "compute/simd.h"

/* Columns per block: BLOCK_VECS vectors, whose accumulators, the row of B
 * loaded for them and the broadcast value of a fit the vector registers
 * (armv7 NEON has 16). */
#if defined(__arm__)
enum { BLOCK_VECS = 6 };
#else
enum { BLOCK_VECS = 8 };
#endif
#define BLOCK_COLS (BLOCK_VECS * TP_VEC_WIDTH)
/* Below this many multiply-adds the product runs on the caller alone. */
#define MIN_PARALLEL_MACS (1 << 18)

/* The full vectors of columns [col, col + BLOCK_COLS). */
static void full_block(const tp_gemm *g, const float *const *a, int64_t col)
{
    tp_vec acc[BLOCK_VECS]; /* in registers: every loop over it is unrolled */
#pragma GCC unroll 8
    for (int v = 0; v < BLOCK_VECS; v++)
        acc[v] = tp_vec_zero();
    const size_t depth = (size_t)g->depth; /* the target's word: a cheap loop on armv7 */
    for (int64_t t = 0; t < g->taps; t++) {
        const float *row = g->b + t * g->depth * g->ldb + col;
        for (size_t d = 0; d < depth; d++, row += g->ldb) {
            const tp_vec x = tp_vec_broadcast(a[t] + d);
#pragma GCC unroll 8
            for (int v = 0; v < BLOCK_VECS; v++)
                acc[v] = tp_vec_fma(acc[v], x, tp_vec_load(row + v * TP_VEC_WIDTH));
        }
    }
    const tp_gemm_epilogue *e = &g->epilogue;
#pragma GCC unroll 8
    for (int v = 0; v < BLOCK_VECS; v++) {
        const int64_t c = col + v * TP_VEC_WIDTH;
        tp_vec y = acc[v];
        if (e->scale)
            y = tp_vec_mul(y, tp_vec_load(e->scale + c));
        if (e->bias)
            y = tp_vec_add(y, tp_vec_load(e->bias + c));
        tp_vec_store(g->c + c, tp_vec_min(tp_vec_max(y, tp_vec_set1(e->min)), tp_vec_set1(e->max)));
    }
}

/* Columns [col, end) one at a time (the last, partial block). */
static void tail_columns(const tp_gemm *g, const float *const *a, int64_t col, int64_t end)
{
    const tp_gemm_epilogue *e = &g->epilogue;
    for (int64_t c = col; c < end; c++) {
        float sum = 0.0f;
        for (int64_t t = 0; t < g->taps; t++)
            for (int64_t d = 0; d < g->depth; d++)
                sum += a[t][d] * g->b[(t * g->depth + d) * g->ldb + c];
        g->c[c] = tp_gemm_epilogue_apply(e, sum, c);
    }
}

typedef struct gemv_job {
    const tp_gemm *g;
    const float *const *a; /* the row's pointer for each tap */
} gemv_job;

static void run_blocks(void *arg, int64_t begin, int64_t end)
{
    const gemv_job *job = arg;
    const tp_gemm *g = job->g;
    for (int64_t block = begin; block < end; block++) {
        const int64_t col = block * BLOCK_COLS;
        if (col + BLOCK_COLS <= g->n)
            full_block(g, job->a, col);
        else
            tail_columns(g, job->a, col, g->n);
    }
    const int64_t col_end = end * BLOCK_COLS < g->n ? end * BLOCK_COLS : g->n;
    tp_work_done((col_end - begin * BLOCK_COLS) * g->taps * g->depth);
}

bool tp_gemv_run(const tp_gemm *g, tp_threadpool *pool)
{
    enum { STACK_TAPS = 64 };
    const float *stack_a[STACK_TAPS];
    const float **a = g->taps <= STACK_TAPS ? stack_a : malloc(sizeof *a * (size_t)g->taps);
    if (!a)
        return false;
    for (int64_t t = 0; t < g->taps; t++) {
        const float *ptrs[TP_GEMM_MR];
        g->rows(g->rows_arg, 0, 1, t, 1, ptrs);
        a[t] = ptrs[0];
    }
    const gemv_job job = {g, a};
    const int64_t blocks = (g->n + BLOCK_COLS - 1) / BLOCK_COLS;
    const bool parallel = (double)g->n * (double)(g->taps * g->depth) >= MIN_PARALLEL_MACS;
    tp_parallel_for(parallel ? pool : NULL, blocks, 1, run_blocks, (void *)&job);
    if (a != stack_a)
        free(a);
    return true;
}
