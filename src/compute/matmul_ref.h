/* matmul_ref.h - the plain C reference matrix product (float) behind MatMul
 * and BatchMatMul: what the kernels run on every target, and the baseline
 * any optimised GEMM is tested against. */
#ifndef TFPI_MATMUL_REF_H
#define TFPI_MATMUL_REF_H

#include <stdbool.h>
#include <stdint.h>

/* c[m][n] = op(a) * op(b): a is [m][k] ([k][m] if transpose_a), b is [k][n]
 * ([n][k] if transpose_b); all row-major and dense. */
typedef struct tp_matmul_params {
    int64_t m, n, k;
    bool transpose_a, transpose_b;
} tp_matmul_params;

/* Computes rows [row_begin, row_end) of c, summing over k in order. */
void tp_matmul_rows_ref(const tp_matmul_params *p, const float *a, const float *b, float *c,
                        int64_t row_begin, int64_t row_end);

#endif
