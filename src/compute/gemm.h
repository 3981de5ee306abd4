/* src/compute/ - the numeric primitives kernels share: the GEMM and its
 * SIMD micro-kernels (this file, gemm_kernel.h, simd.h), convolution
 * lowering, window geometry and walks, fused epilogues, broadcasting,
 * strided copies, the FFT, TF's quantization arithmetic and the 8-bit GEMM
 * (quantize_math.h, qgemm*.h), and the plain C references the tests compare
 * with. Uses src/core/, src/graph/ and src/kernel/.
 *
 * gemm.h - the fast float matrix product behind Conv2D and MatMul:
 * C[m][n] = epilogue(sum over k of A[m][k] * B[k][n]), cache-blocked,
 * register-blocked by the micro-kernel of gemm_kernel.h and split over a
 * thread pool.
 *
 * K is laid out as taps x depth (k = tap * depth + d): a convolution's filter
 * taps times its input channels, or one tap for a plain matrix. A is never
 * materialised: a rows function gives, for a tile of rows and a range of
 * taps, a pointer to the `depth` contiguous values of each (row, tap), so a
 * convolution reads its NHWC input in place (padding taps point at zeros).
 * B (the weights as stored in the model, HWIO) is packed a block at a time
 * into a buffer of a few hundred KB per worker, never copied whole. */
#ifndef TFPI_GEMM_H
#define TFPI_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "compute/simd.h"
#include "core/cpu.h"
#include "core/threadpool.h"

/* The micro-kernel's tile of C, per instruction set, chosen so that the
 * accumulators and one step of k's operands fill the registers:
 *   AVX-512  6 x 64: 24 of 32 zmm     AVX2 + FMA  6 x 16: 12 of 16 ymm
 *   aarch64  8 x  8: 16 of 32 q       armv7 NEON  6 x  8: 12 of 16 q
 *   scalar   4 x  4
 * On ARM the NEON kernels (gemm_kernel.h) take A packed a tile at a
 * time and multiply by its lanes: aarch64 holds four steps of k's operands
 * (8 + 8 vectors) beside its 16 accumulators, armv7 one step's (2 + 2). */
#if TP_VEC_WIDTH == 16
#define TP_GEMM_MR 6
#define TP_GEMM_NR_VECS 4
#elif TP_VEC_WIDTH == 8
#define TP_GEMM_MR 6
#define TP_GEMM_NR_VECS 2
#elif TP_VEC_WIDTH == 4 && defined(__aarch64__)
#define TP_GEMM_MR 8
#define TP_GEMM_NR_VECS 2
#elif TP_VEC_WIDTH == 4
#define TP_GEMM_MR 6
#define TP_GEMM_NR_VECS 2
#else
#define TP_GEMM_MR 4
#define TP_GEMM_NR_VECS 4
#endif
#define TP_GEMM_NR (TP_GEMM_NR_VECS * TP_VEC_WIDTH)

/* Applied to each output as it is stored: y = clamp(x * scale[col] +
 * bias[col], min, max). NULL scale means 1, NULL bias means 0. */
typedef struct tp_gemm_epilogue {
    const float *scale, *bias;
    float min, max; /* -INFINITY, INFINITY: no clamp */
} tp_gemm_epilogue;

/* The epilogue applied to one value of column col, for the paths that
 * store outside the micro-kernel. */
static inline float tp_gemm_epilogue_apply(const tp_gemm_epilogue *e, float x, int64_t col)
{
    const float y = x * (e->scale ? e->scale[col] : 1.0f) + (e->bias ? e->bias[col] : 0.0f);
    return y < e->min ? e->min : y > e->max ? e->max : y;
}

/* Fills ptrs[t * TP_GEMM_MR + r] for rows row..row+rows-1 and taps
 * tap..tap+taps-1: where the `depth` values A[row + r][(tap + t) * depth ...]
 * start. */
typedef void (*tp_gemm_rows_fn)(const void *arg, int64_t row, int rows, int64_t tap, int taps,
                                const float **ptrs);

typedef struct tp_gemm {
    int64_t m, n, taps, depth;
    tp_gemm_rows_fn rows;
    const void *rows_arg;
    const float *b; /* row k of B at b + k * ldb, n columns (unless b_in_panels) */
    int64_t ldb;
    float *c; /* row i of C at c + i * ldc */
    int64_t ldc;
    tp_gemm_epilogue epilogue;
    bool b_in_panels; /* b is already in the micro-kernel's panels (ldb unused) */
    /* Non-NULL: B in the fp16 kernel's binary16 panels instead of b (b, ldb
     * and b_in_panels unused), and the product runs in half precision
     * (gemm_fp16.h). */
    const uint16_t *b_fp16;
} tp_gemm;

/* A plain row-major matrix as a rows function's argument (one tap). */
typedef struct tp_gemm_matrix {
    const float *data;
    int64_t stride; /* floats from one row to the next */
} tp_gemm_matrix;

void tp_gemm_matrix_rows(const void *matrix, int64_t row, int rows, int64_t tap, int taps, const float **ptrs);

/* B in panels (b_in_panels), the micro-kernel's own layout, for a producer that
 * writes B itself (Winograd's transformed filters) and so saves the GEMM
 * packing it: TP_GEMM_NR columns at a time, panel p at b + p * k *
 * TP_GEMM_NR, its row k at + k * TP_GEMM_NR, columns past n zero. This is
 * the panels' size in floats for k rows and n columns. */
static inline int64_t tp_gemm_panel_floats(int64_t k, int64_t n)
{
    return (n + TP_GEMM_NR - 1) / TP_GEMM_NR * TP_GEMM_NR * k;
}

/* B (k x n, row k at b + k * ldb) in panels, in a new buffer the caller
 * frees (free()); NULL if out of memory. Weights known while planning are
 * packed once this way and then run with b_in_panels. */
float *tp_gemm_pack_panels(const float *b, int64_t k, int64_t n, int64_t ldb);
/* The same into panels (tp_gemm_panel_floats(k, n) floats). */
void tp_gemm_pack_panels_into(const float *b, int64_t k, int64_t n, int64_t ldb, float *panels);

/* The identity epilogue: nothing applied. */
tp_gemm_epilogue tp_gemm_no_epilogue(void);

/* false if the packing buffers could not be allocated (C is untouched).
 * The kernels are those of the pool's CPU (tp_threadpool_cpu). */
bool tp_gemm_run(const tp_gemm *g, tp_threadpool *pool);

/* The same on the calling thread alone with the kernels of cpu, for a
 * caller whose own tasks already share out the pool (Winograd's). */
bool tp_gemm_run_alone(const tp_gemm *g, tp_cpu cpu);

#endif
