/* test_gemm_fp16.c - the half-precision GEMM (src/compute/gemm_fp16.c, run
 * by src/compute/gemm.c) against the plain C reference product
 * (src/compute/matmul_ref.c) in double precision:
 *   - exactly, on small integers (every product and every sum of a block of
 *     k is a binary16 integer), so any value read from the wrong row, lane,
 *     panel or block shows: tiles cut at every edge of C, k in one step, in
 *     quads and a tail, in several blocks, taps of every depth, strided C,
 *     threads, the epilogue (scale, bias, clamp) and the add of C between
 *     blocks of k;
 *   - within binary16's error on random values: the reference computes with
 *     A and B rounded to binary16 as the kernel reads them, and each result
 *     must be within 8 x 2^-11 x sum |a b| (a block of k summed in
 *     binary16, recursive summation's error) of it.
 * Also: the session's precision (the pool carries it), the panels kept once
 * per graph, and that fp32 sessions never take the path. Runs on aarch64
 * builds on a CPU with fp16 arithmetic; under qemu (whose -cpu max has it)
 * the kernels must run, elsewhere the program says it skipped them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/gemm.h"
#include "compute/gemm_fp16.h"
#include "compute/gemm_weights.h"
#include "compute/matmul_ref.h"
#include "core/cpu.h"
#include "graph_builder.h"
#include "tap_source.h"

static void test_precision_names(void)
{
    tp_precision p;
    CHECK(tp_precision_named(NULL, &p) && p == TP_PRECISION_FP32);
    CHECK(tp_precision_named("", &p) && p == TP_PRECISION_FP32);
    CHECK(tp_precision_named("fp32", &p) && p == TP_PRECISION_FP32);
    CHECK(tp_precision_named("fp16", &p) && p == TP_PRECISION_FP16);
    CHECK(!tp_precision_named("FP16", &p) && !tp_precision_named("half", &p) && !tp_precision_named("fp8", &p));
    CHECK(strcmp(tp_precision_name(TP_PRECISION_FP16), "fp16") == 0);
    tp_cpu cpu = tp_cpu_detect();
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP32) == TP_PRECISION_FP32);
    cpu.fp16 = false;
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP16) == TP_PRECISION_FP32);
    cpu.fp16 = true;
#if defined(__aarch64__)
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP16) == TP_PRECISION_FP16);
#else
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP16) == TP_PRECISION_FP32); /* no fp16 kernels here */
#endif
    CHECK(!tp_gemm_fp16_wanted(NULL));
}

/* A session's precision: fp16 where the CPU and build have it, fp32
 * otherwise; a bad name fails with a message naming it. */
static void test_session_precision(void)
{
    gb_graph *gb = gb_new();
    gb_placeholder(gb, "x", TFPI_FLOAT, (const int64_t[]){1}, 1);
    tfpi_status status;
    tfpi_graph *graph = gb_load(gb, &status);
    gb_free(gb);
    CHECK(graph);
    const bool fp16 = tp_cpu_precision(tp_cpu_detect(), TP_PRECISION_FP16) == TP_PRECISION_FP16;
    static const char *const asked[] = {NULL, "", "fp32", "fp16"};
    for (int i = 0; i < 4; i++) {
        tfpi_session_options options = {.num_threads = 1, .precision = asked[i]};
        tfpi_session *s = tfpi_session_new(graph, &options, &status);
        CHECK(s);
        CHECK(strcmp(tfpi_session_precision(s), i == 3 && fp16 ? "fp16" : "fp32") == 0);
        tfpi_session_free(s);
    }
    tfpi_session_options bad = {.precision = "fp8"};
    CHECK(!tfpi_session_new(graph, &bad, &status));
    CHECK(status.code == TFPI_INVALID_ARGUMENT);
    CHECK_MSG(strstr(status.message, "precision option fp8") && strstr(status.message, "fp16"), "%s",
              status.message);
    CHECK(strcmp(tfpi_session_precision(NULL), "fp32") == 0);
    tfpi_graph_free(graph);
}

#if defined(TP_GEMM_FP16_KERNELS)
static float to_half(float x) { return (float)(__fp16)x; }

/* n values: small integers in [-2, 2] (exact), or random in [-1, 1)
 * already rounded to binary16. */
static float *values(int64_t n, bool integers)
{
    float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; x && i < n; i++)
        x[i] = integers ? (float)(rand() % 5 - 2) : to_half((float)rand() / (float)RAND_MAX * 2.0f - 1.0f);
    return x;
}

typedef struct product {
    int64_t m, n, taps, depth, ldc;
    bool integers, epilogue;
    int threads;
} product;

/* One product through the fp16 path, checked against the reference; C's
 * padding columns must stay untouched. */
static void check_product(product q)
{
    const int64_t k = q.taps * q.depth;
    float *source = values(TAP_SOURCE_ROWS * q.depth, q.integers), *b = values(k * q.n, q.integers);
    tap_source s = {source, q.depth};
    float *a = tap_source_matrix(&s, q.m, q.taps), *c = malloc(sizeof(float) * (size_t)(q.m * q.ldc + 1));
    float *want = malloc(sizeof(float) * (size_t)(q.m * q.n + 1));
    float *scale = values(q.n, true), *bias = values(q.n, true);
    uint16_t *panels = malloc(sizeof(uint16_t) * (size_t)(tp_gemm_fp16_panel_halves(k, q.n) + 1));
    for (int64_t i = 0; i < q.m * q.ldc; i++)
        c[i] = 12345.0f;
    tp_matmul_params params = {q.m, q.n, k, false, false};
    tp_matmul_rows_ref(&params, a, b, want, 0, q.m);
    tp_gemm_fp16_pack_panels_into(b, k, q.n, q.n, panels);
    tp_gemm g = {q.m, q.n, q.taps, q.depth, tap_source_rows, &s, NULL, 0, c, q.ldc, tp_gemm_no_epilogue(), false, panels};
    if (q.epilogue)
        g.epilogue = (tp_gemm_epilogue){scale, bias, -20.0f, 30.0f};
    tp_threadpool *pool = tp_threadpool_new(q.threads);
    tp_threadpool_set_precision(pool, TP_PRECISION_FP16);
    CHECK(tp_gemm_fp16_wanted(pool));
    CHECK(tp_gemm_run(&g, pool));
    tp_threadpool_free(pool);

    char what[160];
    snprintf(what, sizeof what, "m=%lld n=%lld taps=%lld depth=%lld ldc=%lld%s%s threads=%d", (long long)q.m,
             (long long)q.n, (long long)q.taps, (long long)q.depth, (long long)q.ldc,
             q.integers ? " integers" : " random", q.epilogue ? " epilogue" : "", q.threads);
    for (int64_t i = 0; i < q.m && check_failures_in_test == 0; i++) {
        for (int64_t j = 0; j < q.n; j++) {
            double sum_abs = 0;
            for (int64_t l = 0; l < k; l++)
                sum_abs += fabs((double)a[i * k + l] * b[l * q.n + j]);
            double w = want[i * q.n + j];
            if (q.epilogue) {
                w = fmin(fmax(w * scale[j] + bias[j], -20.0), 30.0);
                sum_abs *= fabs(scale[j]);
            }
            const double tolerance = q.integers ? 1e-6 * fmax(1.0, fabs(w)) : 8 * 0x1p-11 * sum_abs + 1e-6;
            const double got = c[i * q.ldc + j];
            if (!(fabs(got - w) <= tolerance)) {
                check_fail(__FILE__, __LINE__, "%s: C[%lld][%lld] = %.7g, reference %.7g (tolerance %.3g)", what,
                           (long long)i, (long long)j, got, w, tolerance);
                break;
            }
        }
        for (int64_t j = q.n; j < q.ldc; j++)
            CHECK_MSG(c[i * q.ldc + j] == 12345.0f, "%s: wrote C[%lld][%lld] past n", what, (long long)i,
                      (long long)j);
    }
    free(source), free(b), free(a), free(c), free(want), free(scale), free(bias), free(panels);
}

static void test_fp16_edges_of_every_tile(void)
{
    const int64_t ms[] = {1, 2, 5, 7, 8, 9, 15, 16, 17, 49};
    const int64_t ns[] = {1, 3, 8, 9, 15, 16, 17, 31, 32, 33, 100};
    const int64_t ks[] = {0, 1, 3, 4, 5, 8, 27, 64};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
            for (size_t l = 0; l < sizeof ks / sizeof *ks; l++)
                check_product((product){ms[i], ns[j], 1, ks[l], ns[j], true, (i + j + l) % 2 == 0, 1});
}

static void test_fp16_k_in_several_blocks(void)
{
    const int64_t ks[] = {255, 256, 257, 300, 515, 1024, 1025};
    for (size_t l = 0; l < sizeof ks / sizeof *ks; l++) {
        check_product((product){23, 70, 1, ks[l], 70, true, l % 2 == 0, 1});
        check_product((product){17, 40, 1, ks[l], 40, false, l % 2 == 1, 1});
    }
}

static void test_fp16_taps(void)
{
    check_product((product){7, 20, 9, 3, 20, true, true, 1});    /* a 3x3 convolution of an RGB image */
    check_product((product){30, 70, 9, 80, 70, true, false, 1}); /* taps one at a time, depth in one block */
    check_product((product){13, 64, 40, 2, 64, true, true, 2});  /* more taps than one block holds */
    check_product((product){25, 33, 7, 200, 33, true, false, 2}); /* depth in two blocks */
    check_product((product){9, 48, 9, 6, 48, true, true, 1});    /* quads across taps */
    check_product((product){12, 32, 9, 64, 32, false, true, 2}); /* random: 576 of k */
}

static void test_fp16_strided_c_and_threads(void)
{
    check_product((product){17, 33, 1, 40, 41, true, false, 1});
    check_product((product){8, 64, 1, 200, 65, true, true, 3});
    check_product((product){200, 96, 1, 300, 96, true, true, 3});   /* rows split */
    check_product((product){49, 200, 1, 129, 203, false, false, 3}); /* both */
    check_product((product){700, 40, 1, 52, 40, true, true, 2});    /* several blocks of row tiles */
    check_product((product){96, 1024, 1, 256, 1024, false, true, 2}); /* MobileNet's widest layer */
}

/* The panels a graph keeps: built once per node, what the packing gives. */
static void test_fp16_panels_per_graph(void)
{
    gb_graph *gb = gb_new();
    gb_placeholder(gb, "x", TFPI_FLOAT, (const int64_t[]){1}, 1);
    tfpi_status status;
    tfpi_graph *graph = gb_load(gb, &status);
    gb_free(gb);
    CHECK(graph);
    const int64_t k = 30, n = 20;
    float *b = values(k * n, false);
    const int node = 0, other_node = 0;
    const uint16_t *p1 = tp_gemm_graph_panels_fp16(graph, &node, b, k, n);
    const uint16_t *p2 = tp_gemm_graph_panels_fp16(graph, &node, b, k, n);
    const uint16_t *p3 = tp_gemm_graph_panels_fp16(graph, &other_node, b, k, n);
    CHECK(p1 && p1 == p2 && p3 && p3 != p1);
    const __fp16 *h = (const __fp16 *)(const void *)p1;
    for (int64_t row = 0; h && row < k; row++)
        for (int64_t col = 0; col < 32; col++) {
            const float want = col < n ? b[row * n + col] : 0.0f; /* b is exact in binary16 */
            CHECK((float)h[(col / 16 * k + row) * 16 + col % 16] == want);
        }
    free(b);
    tfpi_graph_free(graph);
}

/* qemu's -cpu max (the tests' QEMU for aarch64) has fp16: there the
 * kernels must run. */
static void test_fp16_under_qemu(void)
{
    const char *qemu = getenv("QEMU");
    CHECK_MSG(tp_cpu_detect().fp16 || !(qemu && strstr(qemu, "qemu-aarch64")), "no fp16 under QEMU=%s", qemu);
}
#endif

int main(void)
{
    RUN(test_precision_names);
    RUN(test_session_precision);
#if defined(TP_GEMM_FP16_KERNELS)
    RUN(test_fp16_under_qemu);
    if (!tp_cpu_detect().fp16) {
        printf("this CPU has no fp16 arithmetic: the fp16 kernels were not run\n");
        return check_summary();
    }
    srand(11);
    RUN(test_fp16_edges_of_every_tile);
    RUN(test_fp16_k_in_several_blocks);
    RUN(test_fp16_taps);
    RUN(test_fp16_strided_c_and_threads);
    RUN(test_fp16_panels_per_graph);
#else
    printf("no fp16 kernels on this target\n");
#endif
    return check_summary();
}
