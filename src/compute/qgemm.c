/* qgemm.c - the 8-bit matrix product with zero-point correction (see
 * qgemm.h) in plain C: raw code products accumulate in uint32 (wrapping
 * exactly like TF's int32), a block of output columns at a time so the
 * accumulators stay in registers and cache. */
#include "compute/qgemm.h"

enum { COLUMN_BLOCK = 256 };

void tp_qgemm_col_sums(const uint8_t *b, int64_t k, int64_t n, uint32_t *sums)
{
    for (int64_t j = 0; j < n; j++)
        sums[j] = 0;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n; j++)
            sums[j] += b[i * n + j];
}

void tp_qgemm_rows(const tp_qgemm *g, int64_t row_begin, int64_t row_end)
{
    const uint32_t a_zero = (uint32_t)g->a_zero, b_zero = (uint32_t)g->b_zero;
    const uint32_t both_zeros = (uint32_t)g->k * a_zero * b_zero;
    for (int64_t row = row_begin; row < row_end; row++) {
        const uint8_t *a = g->a + row * g->lda;
        uint32_t row_sum = 0;
        for (int64_t i = 0; i < g->k; i++)
            row_sum += a[i];
        const uint32_t row_term = both_zeros - b_zero * row_sum;
        int32_t *c = g->c + row * g->ldc;
        for (int64_t j0 = 0; j0 < g->n; j0 += COLUMN_BLOCK) {
            const int64_t width = g->n - j0 < COLUMN_BLOCK ? g->n - j0 : COLUMN_BLOCK;
            uint32_t acc[COLUMN_BLOCK] = {0};
            for (int64_t i = 0; i < g->k; i++) {
                const uint32_t av = a[i];
                const uint8_t *b = g->b + i * g->n + j0;
                for (int64_t j = 0; j < width; j++)
                    acc[j] += av * b[j];
            }
            for (int64_t j = 0; j < width; j++)
                c[j0 + j] = (int32_t)(acc[j] + row_term - a_zero * g->b_col_sums[j0 + j]);
        }
    }
}
