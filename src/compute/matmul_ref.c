/* matmul_ref.c - the reference matrix product. With b as stored ([k][n]) a
 * row of c is built as a sum of scaled rows of b; with b transposed ([n][k])
 * each element of c is a dot product of two contiguous rows. Both keep the
 * innermost loop contiguous and sum over k in increasing order. */
#include "compute/matmul_ref.h"

#include <string.h>

void tp_matmul_rows_ref(const tp_matmul_params *p, const float *a, const float *b, float *c,
                        int64_t row_begin, int64_t row_end)
{
    /* Element (i, kk) of op(a) is a_row[kk * a_step]. */
    const int64_t a_step = p->transpose_a ? p->m : 1;
    for (int64_t i = row_begin; i < row_end; i++) {
        const float *a_row = p->transpose_a ? a + i : a + i * p->k;
        float *restrict c_row = c + i * p->n;
        if (p->transpose_b) {
            for (int64_t j = 0; j < p->n; j++) {
                const float *b_row = b + j * p->k;
                float sum = 0.0f;
                for (int64_t kk = 0; kk < p->k; kk++)
                    sum += a_row[kk * a_step] * b_row[kk];
                c_row[j] = sum;
            }
        } else {
            memset(c_row, 0, (size_t)p->n * sizeof *c_row);
            for (int64_t kk = 0; kk < p->k; kk++) {
                const float v = a_row[kk * a_step];
                const float *restrict b_row = b + kk * p->n;
                for (int64_t j = 0; j < p->n; j++)
                    c_row[j] += v * b_row[j];
            }
        }
    }
}
