/* test_gemm.c - the fast GEMM (src/compute/gemm.c and the micro-kernel of this
 * target's SIMD layer) against the plain C reference product
 * (src/compute/matmul_ref.c) on many shapes: tiles cut at every edge, k split into
 * several blocks, tasks of many row blocks, many taps, strided B and C, 1
 * and 3 threads (the pool's scratch reused and grown), one-row products (src/compute/gemv.c), B given already
 * in panels, and the fused epilogue (per-column scale and bias, then a
 * clamp). Every result must be within 1e-4 of the reference, relative to
 * its magnitude. The whole suite runs once per set of kernels (TFPI_CPU
 * generic, then an ARM family), so that every micro-kernel this build has
 * is checked: on ARM the portable kernel and the NEON one. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/gemm.h"
#include "compute/gemm_kernel.h"
#include "tap_source.h"
#include "compute/matmul_ref.h"
#include "compute/simd.h"

#define TOLERANCE 1e-4

static float *random_floats(int64_t n)
{
    float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; x && i < n; i++)
        x[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
    return x;
}

/* Fails the test at the first element of got[m][n] (row stride ldc) that
 * is not within tolerance of want[m][n] (dense). */
static void check_close(const float *got, int64_t ldc, const float *want, int64_t m, int64_t n, const char *what)
{
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            const double g = got[i * ldc + j], w = want[i * n + j];
            if (!(fabs(g - w) <= TOLERANCE * fmax(1.0, fabs(w)))) {
                check_fail(__FILE__, __LINE__, "%s: C[%lld][%lld] = %.7g, reference %.7g", what, (long long)i,
                           (long long)j, g, w);
                return;
            }
        }
    }
}

/* y = clamp(x * scale + bias) on the reference, as the epilogue does. */
static void apply_epilogue(float *c, int64_t m, int64_t n, const tp_gemm_epilogue *e)
{
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            float x = c[i * n + j] * (e->scale ? e->scale[j] : 1.0f) + (e->bias ? e->bias[j] : 0.0f);
            c[i * n + j] = fminf(fmaxf(x, e->min), e->max);
        }
    }
}

/* One product of a random m x k matrix and a random k x n one (B with row
 * stride ldb >= n, C with row stride ldc >= n), with or without an
 * epilogue; the padding columns of C must stay untouched. */
/* The epilogues check_product can apply: each step on its own is skipped
 * by the aarch64 kernel where it changes nothing. */
typedef enum epilogue_kind { NONE, FULL, BIAS_ONLY, SCALE_AND_RELU } epilogue_kind;

static void check_product(int64_t m, int64_t n, int64_t k, int64_t ldb, int64_t ldc, epilogue_kind epilogue,
                          tp_threadpool *pool)
{
    float *a = random_floats(m * k), *b = random_floats(k * ldb), *b_dense = random_floats(k * n);
    float *c = random_floats(m * ldc), *c_before = malloc(sizeof(float) * (size_t)(m * ldc + 1));
    float *want = malloc(sizeof(float) * (size_t)(m * n + 1));
    float *scale = random_floats(n), *bias = random_floats(n);
    for (int64_t kk = 0; kk < k; kk++)
        memcpy(b_dense + kk * n, b + kk * ldb, sizeof(float) * (size_t)n);
    memcpy(c_before, c, sizeof(float) * (size_t)(m * ldc));
    tp_matmul_params params = {m, n, k, false, false};
    tp_matmul_rows_ref(&params, a, b_dense, want, 0, m);

    tp_gemm_matrix matrix = {a, k};
    tp_gemm g = {m, n, 1, k, tp_gemm_matrix_rows, &matrix, b, ldb, c, ldc, tp_gemm_no_epilogue(), false, NULL};
    if (epilogue != NONE) {
        g.epilogue = epilogue == FULL        ? (tp_gemm_epilogue){scale, bias, -0.5f, 2.0f}
                     : epilogue == BIAS_ONLY ? (tp_gemm_epilogue){NULL, bias, -INFINITY, INFINITY}
                                             : (tp_gemm_epilogue){scale, NULL, 0.0f, INFINITY};
        apply_epilogue(want, m, n, &g.epilogue);
    }
    tp_gemm_run(&g, pool);

    char what[128];
    snprintf(what, sizeof what, "m=%lld n=%lld k=%lld ldb=%lld ldc=%lld%s threads=%d", (long long)m,
             (long long)n, (long long)k, (long long)ldb, (long long)ldc,
             (const char *const[]){"", " epilogue", " bias", " scale, relu"}[epilogue],
             tp_threadpool_size(pool));
    check_close(c, ldc, want, m, n, what);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = n; j < ldc; j++)
            CHECK_MSG(c[i * ldc + j] == c_before[i * ldc + j], "%s: wrote C[%lld][%lld] past n", what,
                      (long long)i, (long long)j);
    free(a), free(b), free(b_dense), free(c), free(c_before), free(want), free(scale), free(bias);
}

static void test_gemm_edges_of_every_tile(void)
{
    const int64_t ms[] = {1, 2, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 23, 24, 25, 49};
    const int64_t ns[] = {1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100};
    const int64_t ks[] = {0, 1, 3, 27, 64};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
            for (size_t l = 0; l < sizeof ks / sizeof *ks; l++)
                check_product(ms[i], ns[j], ks[l], ns[j], ns[j], NONE, NULL);
}

static void test_gemm_k_in_several_blocks(void)
{
    const int64_t ks[] = {127, 128, 129, 255, 256, 257, 300, 1025};
    for (size_t l = 0; l < sizeof ks / sizeof *ks; l++)
        check_product(23, 70, ks[l], 70, 70, NONE, NULL);
}

static void test_gemm_many_row_blocks(void)
{
    check_product(700, 40, 50, 40, 40, FULL, NULL); /* one task, several blocks of row tiles */
    check_product(1500, 300, 20, 300, 300, NONE, NULL);
}

static void test_gemm_strided_b_and_c(void)
{
    check_product(17, 33, 40, 50, 41, NONE, NULL);
    check_product(8, 64, 200, 80, 65, FULL, NULL);
}

static void test_gemm_epilogue(void)
{
    check_product(1, 1, 1, 1, 1, FULL, NULL);
    check_product(13, 77, 0, 77, 77, FULL, NULL);
    check_product(19, 130, 150, 130, 130, FULL, NULL);
    check_product(19, 130, 150, 130, 130, BIAS_ONLY, NULL);
    check_product(19, 130, 150, 130, 130, SCALE_AND_RELU, NULL);
    check_product(21, 64, 520, 64, 64, SCALE_AND_RELU, NULL);
    /* many rows per k: the scale multiplied into B on ARM, in one block of k and in two */
    check_product(200, 72, 40, 72, 72, SCALE_AND_RELU, NULL);
    check_product(1200, 20, 300, 20, 20, FULL, NULL);
}

static void test_gemm_threads(void)
{
    tp_threadpool *pool = tp_threadpool_new(3);
    CHECK(pool);
    check_product(1, 1008, 256, 1008, 1008, FULL, pool); /* a classifier: columns split */
    check_product(200, 96, 300, 96, 96, FULL, pool);     /* rows split */
    check_product(49, 200, 129, 200, 203, NONE, pool);  /* both */
    check_product(3, 5, 2, 5, 5, NONE, pool);           /* too small to split */
    tp_threadpool_free(pool);
}

/* A pool's packing buffers are one scratch kept across products
 * (tp_threadpool_scratch): products one after the other that need less,
 * more, then less than it holds, on one thread and on three. */
static void test_gemm_pool_scratch(void)
{
    CHECK(tp_threadpool_scratch(NULL, 64) == NULL);
    for (int threads = 1; threads <= 3; threads += 2) {
        tp_threadpool *pool = tp_threadpool_new(threads);
        CHECK(pool);
        float *small = tp_threadpool_scratch(pool, 100);
        CHECK(small && (uintptr_t)small % 64 == 0);
        CHECK(tp_threadpool_scratch(pool, 64) == small); /* kept while big enough */
        check_product(30, 16, 8, 16, 16, FULL, pool);
        check_product(300, 600, 300, 600, 600, NONE, pool); /* a larger buffer */
        check_product(40, 20, 12, 20, 20, SCALE_AND_RELU, pool);
        check_product(120, 1000, 40, 1000, 1000, FULL, pool);
        tp_threadpool_free(pool);
    }
}

static void check_taps(int64_t m, int64_t n, int64_t taps, int64_t depth, bool in_panels, tp_threadpool *pool)
{
    float *source = random_floats(TAP_SOURCE_ROWS * depth), *b = random_floats(taps * depth * n);
    tap_source s = {source, depth};
    float *a = tap_source_matrix(&s, m, taps);
    float *c = malloc(sizeof(float) * (size_t)(m * n + 1)), *want = malloc(sizeof(float) * (size_t)(m * n + 1));
    tp_matmul_params params = {m, n, taps * depth, false, false};
    tp_matmul_rows_ref(&params, a, b, want, 0, m);
    const int64_t k = taps * depth;
    float *panels = calloc((size_t)tp_gemm_panel_floats(k, n) + 1, sizeof(float)); /* B as the GEMM packs it */
    for (int64_t row = 0; row < k; row++)
        for (int64_t col = 0; col < n; col++)
            panels[(col / TP_GEMM_NR * k + row) * TP_GEMM_NR + col % TP_GEMM_NR] = b[row * n + col];
    tp_gemm g = {m,    n, taps, depth, tap_source_rows, &s, in_panels ? panels : b, n, c, n, tp_gemm_no_epilogue(),
                 in_panels, NULL};
    tp_gemm_run(&g, pool);
    char what[96];
    snprintf(what, sizeof what, "m=%lld n=%lld taps=%lld depth=%lld%s", (long long)m, (long long)n,
             (long long)taps, (long long)depth, in_panels ? " B in panels" : "");
    check_close(c, n, want, m, n, what);
    free(source), free(b), free(a), free(c), free(want), free(panels);
}

static void test_gemm_taps(void)
{
    tp_threadpool *pool = tp_threadpool_new(2);
    for (int in_panels = 0; in_panels <= 1; in_panels++) {
        check_taps(7, 20, 9, 3, in_panels, NULL);    /* a 3x3 convolution of an RGB image */
        check_taps(30, 70, 9, 80, in_panels, NULL);  /* taps one at a time, depth in one block */
        check_taps(13, 64, 40, 2, in_panels, pool);  /* more taps than one block holds */
        check_taps(25, 33, 7, 200, in_panels, pool); /* depth in two blocks */
        check_taps(6, 130, 1, 300, in_panels, pool); /* one tap in three blocks of depth */
    }
    check_taps(1, 300, 9, 5, false, pool);  /* one row: column blocks and a tail */
    check_taps(1, 130, 70, 3, false, NULL); /* one row, more taps than its stack holds */
    check_taps(1, 70, 9, 5, true, NULL);    /* one row, B in panels: the tiled path */
    tp_threadpool_free(pool);
}

/* Every ARM family gets the ARM kernels (A packed) where this build has
 * them, "generic" and other builds the portable one. */
static void test_gemm_kernels_per_cpu(void)
{
    static const char *const names[] = {"generic", "a53", "a72", "a76"};
    for (int i = 0; i < 4; i++) {
        tp_cpu cpu;
        CHECK(tp_cpu_force(names[i], &cpu));
        const tp_gemm_kernels *k = tp_gemm_kernels_for(cpu);
#if defined(TP_GEMM_ARM_KERNELS)
        CHECK((k->pack_a != NULL) == (i > 0));
        CHECK(strcmp(k->name, i > 0 ? "neon" : "portable") == 0);
#else
        CHECK(!k->pack_a);
#endif
    }
    tp_cpu cpu;
    CHECK(!tp_cpu_force("a99", &cpu));
}

int main(void)
{
    printf("SIMD layer: %s, %d lanes\n", TP_SIMD_NAME, TP_VEC_WIDTH);
    RUN(test_gemm_kernels_per_cpu);
    static const char *const cpus[] = {"generic", "a72"};
    for (int i = 0; i < 2; i++) {
        setenv("TFPI_CPU", cpus[i], 1);
        srand(7);
        printf("TFPI_CPU=%s: %s kernels\n", cpus[i], tp_gemm_kernels_for(tp_cpu_default())->name);
        RUN(test_gemm_edges_of_every_tile);
        RUN(test_gemm_k_in_several_blocks);
        RUN(test_gemm_many_row_blocks);
        RUN(test_gemm_strided_b_and_c);
        RUN(test_gemm_epilogue);
        RUN(test_gemm_threads);
        RUN(test_gemm_pool_scratch);
        RUN(test_gemm_taps);
    }
    return check_summary();
}
