/* gemm_kernel.h - the GEMM micro-kernel: one TP_GEMM_MR x TP_GEMM_NR tile of
 * C (shape in gemm.h) kept in vector registers while it sums over k, then
 * stored through the epilogue. */
#ifndef TFPI_GEMM_KERNEL_H
#define TFPI_GEMM_KERNEL_H

#include <stdbool.h>

#include "compute/gemm.h"

typedef struct tp_gemm_tile {
    const float *const *a; /* taps x TP_GEMM_MR row pointers */
    int64_t a_offset;      /* where in each row this block of depth starts */
    int64_t taps, depth;
    const float *b; /* packed B: taps x depth rows of TP_GEMM_NR floats, zero beyond cols */
    float *c;
    int64_t ldc;
    int rows, cols;            /* the part of the tile inside C */
    bool accumulate;           /* add to what C holds (a previous block of k) */
    bool finish;               /* the last block of k: apply the epilogue */
    const float *scale, *bias; /* epilogue values from this tile's first column, or NULL */
    float min, max;
} tp_gemm_tile;

void tp_gemm_micro_kernel(const tp_gemm_tile *tile);

#endif
