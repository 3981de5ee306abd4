/* gemm_fp16.h - the GEMM in half precision, for sessions whose precision is
 * fp16 (core/cpu.h) on an aarch64 CPU with armv8.2-a FP16 arithmetic (the
 * Pi 5's Cortex-A76): B, the weights, converted once per graph to binary16
 * panels of TP_GEMM_FP16_NR columns (gemm_weights.h), A converted to
 * binary16 as each row tile is packed, the products summed in binary16 over
 * a block of k (at most TP_GEMM_FP16_K_BLOCK steps: whole taps, or one
 * tap's range of depth, the blocks in k's order), the blocks summed and the
 * epilogue applied in fp32, C stored as fp32. tp_gemm_run takes this path
 * when the product's b_fp16 is set.
 *
 * Two kernels compute it, to the same values: the aarch64 one
 * (gemm_fp16.c), built with -march=armv8.2-a+fp16 (the Makefile's rule for
 * *_fp16.c), whose code runs only where the CPU has fp16 (so the same
 * static binary runs on a Pi 3 or 4), and the portable one
 * (gemm_fp16_portable.c, on binary16.h), for CPUs without fp16 where a
 * test emulates the precision (tp_cpu_emulate_fp16). */
#ifndef TFPI_GEMM_FP16_H
#define TFPI_GEMM_FP16_H

#include <stdbool.h>
#include <stdint.h>

#include "compute/gemm_kernel.h"
#include "core/threadpool.h"

#if defined(__aarch64__)
#define TP_GEMM_FP16_KERNELS 1
/* The fp16 micro-kernel: an 8 x 16 tile of C, A packed per row tile. */
extern const tp_gemm_kernels tp_gemm_kernels_fp16;
#endif

/* The portable kernel: a TP_GEMM_MR x 16 tile, A packed per row tile. */
extern const tp_gemm_kernels tp_gemm_kernels_fp16_portable;

/* The fp16 kernels for cpu: the aarch64 ones where it has fp16
 * arithmetic, else the portable ones. */
const tp_gemm_kernels *tp_gemm_fp16_kernels_for(tp_cpu cpu);

/* Columns of the fp16 kernels' tile and of their panels of B. */
#define TP_GEMM_FP16_NR 16

/* Steps of k summed in binary16 before the sum goes to fp32, at most. */
#define TP_GEMM_FP16_K_BLOCK 256

/* Whether products run on pool should take the fp16 path: the pool's
 * precision is fp16 (which a session sets only where the CPU has it). */
bool tp_gemm_fp16_wanted(const tp_threadpool *pool);

/* B in the fp16 kernel's panels: TP_GEMM_FP16_NR columns at a time, panel p
 * at p * k * TP_GEMM_FP16_NR, its row k at + k * TP_GEMM_FP16_NR, columns
 * past n zero. This is their size in binary16 values. */
static inline int64_t tp_gemm_fp16_panel_halves(int64_t k, int64_t n)
{
    return (n + TP_GEMM_FP16_NR - 1) / TP_GEMM_FP16_NR * TP_GEMM_FP16_NR * k;
}

/* B (k x n, row k at b + k * ldb) converted (to nearest) into panels
 * (tp_gemm_fp16_panel_halves(k, n) values): by the CPU's conversions where
 * it has fp16 arithmetic, else by binary16.h's (the same values). */
void tp_gemm_fp16_pack_panels_into(const float *b, int64_t k, int64_t n, int64_t ldb, uint16_t *panels);

#if defined(TP_GEMM_FP16_KERNELS)
/* The aarch64 conversion (gemm_fp16.c): only where the CPU has fp16. */
void tp_gemm_fp16_pack_panels_aarch64(const float *b, int64_t k, int64_t n, int64_t ldb, uint16_t *panels);
#endif
/* The portable one (gemm_fp16_portable.c). */
void tp_gemm_fp16_pack_panels_portable(const float *b, int64_t k, int64_t n, int64_t ldb, uint16_t *panels);

#endif
