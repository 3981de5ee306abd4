/* gemm_kernel.c - the portable GEMM micro-kernel, written once over the SIMD layer
 * (simd.h) and compiled for whatever the target has; gemm.h sets the tile
 * shape per instruction set. For each k the kernel loads one row of B (up
 * to TP_GEMM_NR_VECS vectors), broadcasts one value from each of the
 * TP_GEMM_MR rows of A and does MR x vectors independent multiply-adds into
 * accumulators that stay in registers (the loops over the tile are fully
 * unrolled). A tile narrower than TP_GEMM_NR runs a variant with fewer
 * vectors, so narrow outputs waste no lanes. Also the choice of kernels
 * per CPU and the edge-tile store the ARM kernels share. */
#include "compute/gemm_kernel.h"

#include <stddef.h>

/* Epilogue values for the tile's vector v: `fallback` where there are none. */
static inline tp_vec epilogue_values(const float *values, int v, int cols, float fallback)
{
    const int lanes = cols - v * TP_VEC_WIDTH;
    return values && lanes > 0 ? tp_vec_load_lanes(values + v * TP_VEC_WIDTH, lanes) : tp_vec_set1(fallback);
}

/* The kernel for tiles of `vecs` vectors of columns; vecs is a constant at
 * every call. */
static inline __attribute__((always_inline)) void tile_kernel(const tp_gemm_tile *t, int vecs)
{
    enum { MR = TP_GEMM_MR, NV = TP_GEMM_NR_VECS, W = TP_VEC_WIDTH };
    tp_vec acc[MR][NV];
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < vecs; v++)
            acc[r][v] = tp_vec_zero();

    const float *b = t->b;
    const size_t taps = (size_t)t->taps, depth = (size_t)t->depth; /* the target's word: cheap loops */
    for (size_t tap = 0; tap < taps; tap++) {
        const float *a[MR];
#pragma GCC unroll 8
        for (int r = 0; r < MR; r++)
            a[r] = t->a[tap * MR + r] + t->a_offset;
        for (size_t d = 0; d < depth; d++, b += TP_GEMM_NR) {
            tp_vec b_row[NV];
#pragma GCC unroll 4
            for (int v = 0; v < vecs; v++)
                b_row[v] = tp_vec_load(b + v * W);
#pragma GCC unroll 8
            for (int r = 0; r < MR; r++) {
                const tp_vec x = tp_vec_broadcast(a[r] + d);
#pragma GCC unroll 4
                for (int v = 0; v < vecs; v++)
                    acc[r][v] = tp_vec_fma(acc[r][v], x, b_row[v]);
            }
        }
    }

    tp_vec scale[NV], bias[NV];
#pragma GCC unroll 4
    for (int v = 0; v < vecs; v++) {
        scale[v] = epilogue_values(t->finish ? t->scale : NULL, v, t->cols, 1.0f);
        bias[v] = epilogue_values(t->finish ? t->bias : NULL, v, t->cols, 0.0f);
    }
    const tp_vec lo = tp_vec_set1(t->min), hi = tp_vec_set1(t->max);
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
        if (r >= t->rows)
            break;
        float *c = t->c + r * t->ldc;
#pragma GCC unroll 4
        for (int v = 0; v < vecs; v++) {
            const int lanes = t->cols - v * W;
            tp_vec x = acc[r][v];
            if (t->accumulate)
                x = tp_vec_add(x, tp_vec_load_lanes(c + v * W, lanes));
            if (t->finish)
                x = tp_vec_min(tp_vec_max(tp_vec_fma(bias[v], x, scale[v]), lo), hi);
            tp_vec_store_lanes(c + v * W, x, lanes);
        }
    }
}

void tp_gemm_micro_kernel(const tp_gemm_tile *tile)
{
    switch ((tile->cols + TP_VEC_WIDTH - 1) / TP_VEC_WIDTH) {
#if TP_GEMM_NR_VECS >= 4
    case 4: tile_kernel(tile, 4); break;
#endif
#if TP_GEMM_NR_VECS >= 3
    case 3: tile_kernel(tile, 3); break;
#endif
#if TP_GEMM_NR_VECS >= 2
    case 2: tile_kernel(tile, 2); break;
#endif
    default: tile_kernel(tile, 1); break;
    }
}

void tp_gemm_store_tile(const tp_gemm_tile *t, const float *acc)
{
    for (int r = 0; r < t->rows; r++) {
        float *c = t->c + r * t->ldc;
        for (int col = 0; col < t->cols; col++) {
            float x = acc[r * TP_GEMM_NR + col];
            if (t->accumulate)
                x += c[col];
            if (t->finish) {
                x = x * (t->scale ? t->scale[col] : 1.0f) + (t->bias ? t->bias[col] : 0.0f);
                x = x < t->min ? t->min : x > t->max ? t->max : x;
            }
            c[col] = x;
        }
    }
}

const tp_gemm_kernels *tp_gemm_kernels_for(tp_cpu cpu)
{
    static const tp_gemm_kernels portable = {"portable", tp_gemm_micro_kernel, NULL, TP_GEMM_NR, NULL};
    switch (cpu.core) {
#if defined(TP_GEMM_ARM_KERNELS)
    case TP_CPU_A53:
    case TP_CPU_A72:
    case TP_CPU_A76: return &tp_gemm_kernels_neon;
#endif
    default: return &portable;
    }
}
