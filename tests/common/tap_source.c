/* tap_source.c - GEMM rows made of taps for the GEMM tests (see tap_source.h). */
#include "tap_source.h"

#include <stdlib.h>
#include <string.h>

#include "compute/gemm.h"

void tap_source_rows(const void *arg, int64_t row, int rows, int64_t tap, int taps, const float **ptrs)
{
    const tap_source *s = arg;
    for (int t = 0; t < taps; t++)
        for (int r = 0; r < rows; r++)
            ptrs[t * TP_GEMM_MR + r] = s->data + ((3 * (row + r) + tap + t) % TAP_SOURCE_ROWS) * s->depth;
}

float *tap_source_matrix(const tap_source *s, int64_t m, int64_t taps)
{
    float *a = malloc(sizeof(float) * (size_t)(m * taps * s->depth + 1));
    for (int64_t i = 0; a && i < m; i++)
        for (int64_t t = 0; t < taps; t++)
            memcpy(a + (i * taps + t) * s->depth, s->data + ((3 * i + t) % TAP_SOURCE_ROWS) * s->depth,
                   sizeof(float) * (size_t)s->depth);
    return a;
}
