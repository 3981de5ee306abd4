/* gemm_kernel.h - the GEMM micro-kernels: one TP_GEMM_MR x TP_GEMM_NR tile of
 * C (shape in gemm.h) kept in vector registers while it sums over k, then
 * stored through the epilogue. Two kinds:
 *   - the portable kernel (gemm_kernel.c, over simd.h), which reads A in
 *     place through row pointers and broadcasts one value per row and k;
 *   - on ARM, a kernel in inline assembly (gemm_neon64.c, gemm_neon32.c)
 *     that reads A packed a tile at a time, in a layout of its own (its
 *     pack_a), and multiplies by lanes of it, so every operand is one vector
 *     load.
 * tp_gemm_kernels_for picks the set for a CPU (core/cpu.h). */
#ifndef TFPI_GEMM_KERNEL_H
#define TFPI_GEMM_KERNEL_H

#include <stdbool.h>

#include "compute/gemm.h"
#include "core/cpu.h"

typedef struct tp_gemm_tile {
    const float *const *a; /* in place: taps x TP_GEMM_MR row pointers */
    int64_t a_offset;      /* where in each row this block of depth starts */
    const float *a_packed; /* packed by the kernels' pack_a: TP_GEMM_MR x taps x depth values */
    int64_t taps, depth;
    const float *b; /* packed B: taps x depth rows of the kernels' nr values, zero beyond cols */
    float *c;
    int64_t ldc;
    int rows, cols;            /* the part of the tile inside C */
    bool accumulate;           /* add to what C holds (a previous block of k) */
    bool finish;               /* the last block of k: apply the epilogue */
    const float *scale, *bias; /* epilogue values from this tile's first column, or NULL */
    float min, max;
} tp_gemm_tile;

typedef void (*tp_gemm_kernel_fn)(const tp_gemm_tile *tile);
/* Packs one row tile's block of A: for taps [0, taps) and depth
 * [d0, d0 + depth), from its row pointers (ptrs[t * TP_GEMM_MR + r]).
 * The fp16 kernel's values in a_packed, b and dst are binary16 (gemm_fp16.h). */
typedef void (*tp_gemm_pack_a_fn)(const float *const *ptrs, int taps, int64_t d0, int64_t depth, float *dst);

/* Runs `panels` (> 0) whole tiles side by side (rows TP_GEMM_MR, cols nr
 * each): the first as tile says, each next one's B panel_stride values on
 * and its C, scale and bias nr columns on. */
typedef void (*tp_gemm_row_fn)(const tp_gemm_tile *tile, int64_t panels, int64_t panel_stride);

typedef struct tp_gemm_kernels {
    const char *name;
    tp_gemm_kernel_fn tile;
    tp_gemm_pack_a_fn pack_a; /* NULL: the kernel reads A in place (a, a_offset) */
    int nr;                   /* columns of its tile and of B's panels: TP_GEMM_NR but for fp16 (gemm_fp16.h) */
    tp_gemm_row_fn row;       /* NULL: every tile through `tile` */
} tp_gemm_kernels;

/* The portable kernel (in-place A). */
void tp_gemm_micro_kernel(const tp_gemm_tile *tile);

/* The kernels for a CPU: the ARM ones for every ARM family where this build
 * has them, the portable one for "generic" and elsewhere. */
const tp_gemm_kernels *tp_gemm_kernels_for(tp_cpu cpu);

#if defined(__ARM_NEON) && (defined(__aarch64__) || defined(__ARM_FEATURE_FMA))
/* The ARM kernels (gemm_neon64.c, gemm_neon32.c): one set for every core
 * family, the A53's schedule, which the A72 and A76 run at their
 * multiply-add bound too. */
#define TP_GEMM_ARM_KERNELS 1
extern const tp_gemm_kernels tp_gemm_kernels_neon;
#endif

/* Stores a finished tile from acc[r * TP_GEMM_NR + col] (a full tile of
 * values) through the epilogue: the ARM kernels' path for tiles cut by
 * the edge of C. */
void tp_gemm_store_tile(const tp_gemm_tile *tile, const float *acc);

#endif
