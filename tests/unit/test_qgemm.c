/* test_qgemm.c - every 8-bit GEMM micro-kernel this CPU runs
 * (src/compute/qgemm_kernel.c: AVX-512 VNNI, AVX2, aarch64 dot product,
 * NEON, plain C) against the plain C product of src/compute/qgemm.c, bit
 * for bit, on random codes and zero points inside and outside 0..255, with
 * sizes that leave partial tiles, partial panels and k not a multiple of 4.
 * Run under qemu for the ARM targets, so the NEON kernels are checked there. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/qgemm.h"
#include "compute/qgemm_kernel.h"

static uint32_t state = 7;
static uint32_t next(void) { return state = state * 1664525u + 1013904223u; }

static void check_isa(const tp_qgemm_isa *isa, int64_t m, int64_t k, int64_t n, int32_t za, int32_t zb)
{
    uint8_t *b = malloc((size_t)(k * n + 1));
    for (int64_t i = 0; i < k * n; i++)
        b[i] = (uint8_t)(next() >> 24);
    tp_qgemm_packed p;
    CHECK(tp_qgemm_pack(isa, b, k, n, &p));
    int64_t lda = tp_qgemm_row_bytes(&p) + 3; /* rows need not be aligned */
    uint8_t *a = calloc((size_t)(m * lda + 1), 1);
    for (int64_t r = 0; r < m; r++)
        for (int64_t i = 0; i < k; i++)
            a[r * lda + i] = (uint8_t)(next() >> 24);
    uint32_t *sums = malloc(sizeof *sums * (size_t)(n + 1));
    tp_qgemm_col_sums(b, k, n, sums);
    int32_t *want = malloc(sizeof *want * (size_t)(m * n + 1)), *got = malloc(sizeof *got * (size_t)(m * n + 1));
    tp_qgemm ref = {.m = m, .n = n, .k = k, .a = a, .lda = lda, .b = b, .b_col_sums = sums, .a_zero = za,
                    .b_zero = zb, .c = want, .ldc = n};
    tp_qgemm_rows(&ref, 0, m);
    tp_qgemm_packed_rows(&p, a, lda, m, za, zb, got, n);
    CHECK_MSG(memcmp(got, want, sizeof *got * (size_t)(m * n)) == 0, "%s: %lldx%lldx%lld, zeros %d %d differ",
              tp_qgemm_isa_name(isa), (long long)m, (long long)k, (long long)n, za, zb);
    tp_qgemm_packed_free(&p);
    free(a);
    free(b);
    free(sums);
    free(want);
    free(got);
}

static void test_every_kernel_matches_plain_c(void)
{
    int count;
    const tp_qgemm_isa *const *isas = tp_qgemm_isas(&count);
    int checked = 0;
    for (int i = 0; i < count; i++) {
        if (!tp_qgemm_isa_available(isas[i]))
            continue;
        checked++;
        for (int trial = 0; trial < 40; trial++) {
            int64_t m = 1 + next() % 13, k = 1 + next() % 70, n = 1 + next() % 80;
            int32_t za = (int32_t)(next() % 256), zb = (int32_t)(next() % 256);
            if (trial % 5 == 0) { /* zeros far outside the codes */
                za = -300000 + (int32_t)(next() % 1000);
                zb = 70000;
            }
            check_isa(isas[i], m, k, n, za, zb);
        }
        check_isa(isas[i], 7, 2304, 70, 3, 250); /* a deep k, where sums wrap 32 bits with offsets */
    }
#if defined(__AVX2__) || defined(__ARM_NEON)
    CHECK(checked >= 2); /* a fast kernel besides plain C */
#else
    CHECK(checked >= 1);
#endif
}

static void test_best_is_available(void)
{
    CHECK(tp_qgemm_isa_available(tp_qgemm_best_isa()));
    printf("  best 8-bit GEMM kernel: %s\n", tp_qgemm_isa_name(tp_qgemm_best_isa()));
}

int main(void)
{
    RUN(test_every_kernel_matches_plain_c);
    RUN(test_best_is_available);
    return check_summary();
}
