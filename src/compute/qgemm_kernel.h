/* qgemm_kernel.h - the fast 8-bit GEMM behind QuantizedConv2D and
 * QuantizedMatMul: weights packed once while planning into panels of NR
 * columns, 4 consecutive k per column together ([k/4][NR][4] bytes), and a
 * register-blocked micro-kernel per instruction set that sums raw code
 * products into uint32 (wrapping, like TF's int32):
 *   avx512vnni  vpdpbusd, u8 x s8 (weights stored as w - 128), 6 x 32
 *   avx2        widened to 16 bits, vpmaddwd (exact, no saturation), 4 x 16
 *   dotprod     aarch64 udot, chosen at run time (Pi 5's Cortex-A76), 4 x 16
 *   neon        vmull.u8 + vpadal.u16 on armv7 and aarch64, 2 x 16
 *   c           plain C, 4 x 16
 * The zero-point corrections of qgemm.h are applied as each tile is stored,
 * so every variant gives the bytes of tp_qgemm_rows (tests/unit/test_qgemm.c
 * checks each one available on the machine, under qemu for ARM). */
#ifndef TFPI_QGEMM_KERNEL_H
#define TFPI_QGEMM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/threadpool.h"

typedef struct tp_qgemm_isa tp_qgemm_isa;

/* The variants this build has, best first; count via *count. */
const tp_qgemm_isa *const *tp_qgemm_isas(int *count);
const char *tp_qgemm_isa_name(const tp_qgemm_isa *isa);
bool tp_qgemm_isa_available(const tp_qgemm_isa *isa);
/* The best variant this CPU runs. */
const tp_qgemm_isa *tp_qgemm_best_isa(void);

typedef struct tp_qgemm_packed {
    const tp_qgemm_isa *isa;
    int64_t k, n, quads; /* quads = ceil(k / 4) */
    uint8_t *panels;
    uint32_t *col_sums;  /* sum over k of each column's codes */
} tp_qgemm_packed;

/* Packs b ([k][n] quint8 codes, row-major) for isa; false if out of memory. */
bool tp_qgemm_pack(const tp_qgemm_isa *isa, const uint8_t *b, int64_t k, int64_t n, tp_qgemm_packed *out);
void tp_qgemm_packed_free(tp_qgemm_packed *p);

/* Bytes an A row must provide: 4 * quads, codes past k being 0. */
static inline int64_t tp_qgemm_row_bytes(const tp_qgemm_packed *p) { return 4 * p->quads; }

/* C rows [0, rows): c[r][j] = sum_k (a[r][k] - a_zero) * (b[k][j] - b_zero),
 * a's rows at a + r * lda, each tp_qgemm_row_bytes long. */
void tp_qgemm_packed_rows(const tp_qgemm_packed *p, const uint8_t *a, int64_t lda, int64_t rows, int32_t a_zero,
                          int32_t b_zero, int32_t *c, int64_t ldc);

#endif
