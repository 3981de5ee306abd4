/* qgemm.h - the plain C 8-bit matrix product the fast one
 * (qgemm_kernel.h, under QuantizedConv2D and QuantizedMatMul) is tested
 * against: C[m][n] = sum over k of (A[m][k] - a_zero) *
 * (B[k][n] - b_zero), uint8 operands, int32 results that wrap around as
 * TF's do. It multiplies the raw codes and corrects once per output:
 *   C = sum(A*B) - b_zero * rowsum(A) - a_zero * colsum(B) + K * a_zero * b_zero
 * which is exact modulo 2^32, so colsum(B) (the weights') is computed once
 * while planning and every summation order gives the same bytes. */
#ifndef TFPI_QGEMM_H
#define TFPI_QGEMM_H

#include <stdint.h>

typedef struct tp_qgemm {
    int64_t m, n, k;
    const uint8_t *a; /* row m at a + m * lda, k contiguous codes */
    int64_t lda;
    const uint8_t *b; /* [k][n], row-major, dense */
    const uint32_t *b_col_sums; /* tp_qgemm_col_sums of b */
    int32_t a_zero, b_zero;
    int32_t *c; /* row m at c + m * ldc */
    int64_t ldc;
} tp_qgemm;

/* sums[j] = sum over i < k of b[i][j] (b is [k][n]), modulo 2^32. */
void tp_qgemm_col_sums(const uint8_t *b, int64_t k, int64_t n, uint32_t *sums);

/* Rows [row_begin, row_end) of C. */
void tp_qgemm_rows(const tp_qgemm *g, int64_t row_begin, int64_t row_end);

#endif
