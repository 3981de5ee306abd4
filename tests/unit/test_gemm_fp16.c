/* test_gemm_fp16.c - the half-precision GEMM (src/compute/gemm.c with the
 * kernels of gemm_fp16.c and gemm_fp16_portable.c) and the binary16
 * emulation under the portable one (binary16.h), against binary16 rounding
 * computed from its definition (tests/common/half_oracle.c):
 *   - the conversions: every binary16 pattern decoded, every value halfway
 *     between two neighbours and just either side of it rounded (ties to
 *     the even pattern), overflow, subnormals, random floats of every
 *     magnitude; the multiply-add rounded once, ties included;
 *   - the product, value for value: the reference converts A and B to
 *     binary16 (to nearest: the test values are not binary16 numbers, a
 *     third of them exactly halfway between two), sums each block of k by
 *     rounded multiply-adds in k's order, adds the blocks and applies the
 *     epilogue in fp32 as the kernels do; C must equal it exactly. So a
 *     conversion that truncates, a sum rounded twice, a value read from the
 *     wrong row, lane, panel or block all show: tiles cut at every edge of
 *     C, k in one step, in quads and a tail, in several blocks, taps of
 *     every depth, strided C, threads, the epilogue and the add of C
 *     between blocks of k.
 * The portable kernels run on every build (the pool's CPU said to lack
 * fp16); the aarch64 ones too where the CPU has fp16 arithmetic, which
 * qemu's -cpu max (the tests' QEMU for aarch64) must have. Also: the
 * session's precision (the pool carries it; fp16 emulated where asked),
 * the panels kept once per graph. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/binary16.h"
#include "compute/gemm.h"
#include "compute/gemm_fp16.h"
#include "compute/gemm_weights.h"
#include "core/cpu.h"
#include "graph_builder.h"
#include "half_oracle.h"
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
    tp_cpu_emulate_fp16(true);
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP16) == TP_PRECISION_FP16);
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP32) == TP_PRECISION_FP32);
    tp_cpu_emulate_fp16(false);
    cpu.fp16 = true;
#if defined(__aarch64__)
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP16) == TP_PRECISION_FP16);
#else
    CHECK(tp_cpu_precision(cpu, TP_PRECISION_FP16) == TP_PRECISION_FP32); /* no fp16 kernels here */
#endif
    CHECK(!tp_gemm_fp16_wanted(NULL));
}

/* A session's precision: fp16 where the CPU and build have it or it is
 * emulated, fp32 otherwise; a bad name fails with a message naming it. */
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
    for (int emulated = 0; emulated < 2; emulated++) {
        tp_cpu_emulate_fp16(emulated);
        for (int i = 0; i < 4; i++) {
            tfpi_session_options options = {.num_threads = 1, .precision = asked[i]};
            tfpi_session *s = tfpi_session_new(graph, &options, &status);
            CHECK(s);
            CHECK(strcmp(tfpi_session_precision(s), i == 3 && (fp16 || emulated) ? "fp16" : "fp32") == 0);
            tfpi_session_free(s);
        }
    }
    tp_cpu_emulate_fp16(false);
    tfpi_session_options bad = {.precision = "fp8"};
    CHECK(!tfpi_session_new(graph, &bad, &status));
    CHECK(status.code == TFPI_INVALID_ARGUMENT);
    CHECK_MSG(strstr(status.message, "precision option fp8") && strstr(status.message, "fp16"), "%s",
              status.message);
    CHECK(strcmp(tfpi_session_precision(NULL), "fp32") == 0);
    tfpi_graph_free(graph);
}

/* The value of the binary16 pattern h through the library. */
static double library_value(uint16_t h) { return tp_half_to_float(h); }

/* x (a float) converted by the library: the oracle's rounding, both signs. */
static void check_conversion(float x)
{
    for (int sign = 0; sign < 2; sign++, x = -x) {
        const double got = library_value(tp_half_from_float(x)), want = half_round(x);
        if (!(got == want || (isnan(got) && isnan(want)))) {
            check_fail(__FILE__, __LINE__, "binary16 of %.9g (%a): %.9g, nearest is %.9g", x, x, got, want);
            return;
        }
    }
}

static void test_binary16_conversions(void)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        const double want = half_value((uint16_t)h), got = library_value((uint16_t)h);
        CHECK_MSG(got == want || (isnan(got) && isnan(want)), "pattern %04x: %.9g, should be %.9g", h, got, want);
        if (!isnan(want))
            CHECK_MSG(tp_half_from_float((float)want) == h, "%.9g converts to %04x, not its pattern %04x", want,
                      tp_half_from_float((float)want), h);
        if (check_failures_in_test)
            return;
    }
    /* Between each two neighbours (0 .. 65504, then 65504 .. 65536, where
     * the next would lie): the midpoint (a float: 12 significant bits) and
     * the floats either side of it. */
    for (uint32_t h = 0; h < 0x7c00 && check_failures_in_test == 0; h++) {
        const float lo = (float)half_value((uint16_t)h), hi = h + 1 < 0x7c00 ? (float)half_value((uint16_t)(h + 1)) : 65536.0f;
        const float mid = (lo + hi) / 2;
        check_conversion(mid);
        check_conversion(nextafterf(mid, 0.0f));
        check_conversion(nextafterf(mid, INFINITY));
    }
    CHECK(tp_half_from_float(65519.996f) == 0x7bff && tp_half_from_float(65520.0f) == 0x7c00);
    CHECK(tp_half_from_float(0x1p-25f) == 0 && tp_half_from_float(0x1.000002p-25f) == 1); /* half of 2^-24 */
    CHECK(tp_half_from_float(0x1.8p-24f) == 2 && tp_half_from_float(1.0f + 0x1p-11f) == 0x3c00);
    CHECK(tp_half_from_float(1.0f + 0x1.8p-10f) == 0x3c02 && tp_half_from_float(-1e9f) == 0xfc00);
    CHECK(isnan(tp_half_to_float(tp_half_from_float(NAN))) && tp_half_from_float(INFINITY) == 0x7c00);
    srand(3);
    for (int i = 0; i < 200000 && check_failures_in_test == 0; i++) { /* every magnitude, 2^-30 .. 2^18 */
        const float x = ldexpf((float)rand() / (float)RAND_MAX + 0.5f, rand() % 48 - 30);
        check_conversion(x);
    }
}

/* The multiply-add, rounded once: random operands whose exact sum a double
 * holds (a, b in [2^-7, 2^8): products multiples of 2^-34 below 2^16),
 * then ties. */
static void check_fma(uint16_t acc, uint16_t a, uint16_t b)
{
    const double got = tp_half_fma(tp_half_to_float(acc), tp_half_to_float(a), tp_half_to_float(b));
    const double want = half_fma(half_value(acc), half_value(a), half_value(b));
    CHECK_MSG(got == want, "fma(%.9g, %.9g, %.9g) = %.9g, nearest is %.9g", half_value(acc), half_value(a),
              half_value(b), got, want);
}

static uint16_t random_pattern(int min_exponent, int max_exponent)
{
    const int exponent = min_exponent + rand() % (max_exponent - min_exponent + 1);
    return (uint16_t)((rand() & 1) << 15 | exponent << 10 | (rand() & 1023));
}

static void test_binary16_fma(void)
{
    srand(5);
    for (int i = 0; i < 300000 && check_failures_in_test == 0; i++)
        check_fma(random_pattern(0, 30), random_pattern(8, 22), random_pattern(8, 22));
    check_fma(0x3c00, 0x2800, 0x1400); /* 1 + 2^-11: to 1 */
    check_fma(0x3c01, 0x2800, 0x1400); /* 1 + 2^-10 + 2^-11: to 1 + 2^-9 */
    check_fma(0x3c00, 0xa800, 0x1400); /* 1 - 2^-12: stays 1 - 2^-12 (a binary16 number) */
    check_fma(0x7bff, 0x4c00, 0x4000); /* 65504 + 16: to infinity */
    check_fma(0x7bff, 0x4bfc, 0x4000); /* 65504 + 15.97: stays */
    check_fma(0x0001, 0x0001, 0x3800); /* 2^-24 + 2^-25: a tie below the normal numbers, to 2^-23 */
    check_fma(0x0000, 0x0001, 0x3800); /* 2^-25: to 0 */
    CHECK(isnan(tp_half_fma(1.0f, INFINITY, 0.0f))); /* inf x 0 */
}

/* A binary16 number in [2^-6, 1) plus half its last place: a tie. */
static float halfway_value(void)
{
    const uint16_t h = random_pattern(9, 14) & 0x7fff;
    return (float)(half_value(h) + ldexp(1.0, (h >> 10) - 15 - 11));
}

/* n test values: small integers in [-2, 2] (every sum exact), or values
 * that are not binary16 numbers, |x| in [2^-6, 1] (so the reference's sums
 * stay exact in a double), a third of them exactly halfway between two
 * binary16 neighbours. */
static float *values(int64_t n, bool integers)
{
    float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; x && i < n; i++) {
        const float sign = rand() & 1 ? -1.0f : 1.0f;
        x[i] = integers          ? (float)(rand() % 5 - 2)
               : rand() % 3 == 0 ? sign * halfway_value()
                                 : sign * (0x1p-6f + (float)rand() / (float)RAND_MAX * (1.0f - 0x1p-6f));
    }
    return x;
}

/* The blocks of k the fp16 path sums in binary16, in order: whole taps
 * (as many as fit TP_GEMM_FP16_K_BLOCK steps, at most 16), or, where the
 * depth is longer than a block, each tap's depth cut into equal parts. */
static int64_t next_block_end(int64_t k0, int64_t taps, int64_t depth)
{
    if (depth <= TP_GEMM_FP16_K_BLOCK) {
        int64_t taps_per_block = depth > 0 ? TP_GEMM_FP16_K_BLOCK / depth : 1;
        taps_per_block = taps_per_block < 16 ? taps_per_block : 16;
        const int64_t end = k0 + taps_per_block * depth;
        return end < taps * depth ? end : taps * depth;
    }
    const int64_t parts = (depth + TP_GEMM_FP16_K_BLOCK - 1) / TP_GEMM_FP16_K_BLOCK;
    const int64_t part = (depth + parts - 1) / parts, d = k0 % depth;
    return k0 - d + (d + part < depth ? d + part : depth);
}

/* x's values rounded to binary16 by the oracle (a new array). */
static double *rounded(const float *x, int64_t n)
{
    double *r = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; r && i < n; i++)
        r[i] = half_round(x[i]);
    return r;
}

/* C[i][j] as the fp16 path computes it, from the oracle: from a row of A
 * and B rounded to binary16, each block summed by rounded multiply-adds
 * from zero, the blocks added in fp32, then x * scale, + bias and the
 * clamp in fp32. */
static float reference_value(const double *a, const double *b, int64_t n, int64_t taps, int64_t depth, int64_t j,
                             const tp_gemm_epilogue *e)
{
    const int64_t k = taps * depth;
    float c = 0.0f;
    int64_t k0 = 0;
    do {
        const int64_t k1 = next_block_end(k0, taps, depth);
        double acc = 0.0;
        for (int64_t l = k0; l < k1; l++)
            acc = half_fma(acc, a[l], b[l * n + j]);
        c = k0 == 0 ? (float)acc : c + (float)acc;
        k0 = k1;
    } while (k0 < k);
    c *= e->scale ? e->scale[j] : 1.0f;
    c += e->bias ? e->bias[j] : 0.0f;
    return c < e->min ? e->min : c > e->max ? e->max : c;
}

typedef struct product {
    int64_t m, n, taps, depth, ldc;
    bool integers, epilogue;
    int threads;
} product;

/* C (ldc apart, padded with 12345) computed by the fp16 path with the
 * kernels of cpu, checked against `want` (m x n) value for value; C's
 * padding columns must stay untouched. */
static void check_product_on(product q, const tp_gemm *g, const float *want, tp_cpu cpu)
{
    for (int64_t i = 0; i < q.m * q.ldc; i++)
        g->c[i] = 12345.0f;
    tp_threadpool *pool = tp_threadpool_new(q.threads);
    tp_threadpool_set_cpu(pool, cpu);
    tp_threadpool_set_precision(pool, TP_PRECISION_FP16);
    CHECK(tp_gemm_fp16_wanted(pool));
    CHECK(tp_gemm_run(g, pool));
    tp_threadpool_free(pool);

    char what[160];
    snprintf(what, sizeof what, "%s: m=%lld n=%lld taps=%lld depth=%lld ldc=%lld%s%s threads=%d",
             tp_gemm_fp16_kernels_for(cpu)->name, (long long)q.m, (long long)q.n, (long long)q.taps,
             (long long)q.depth, (long long)q.ldc, q.integers ? " integers" : " random",
             q.epilogue ? " epilogue" : "", q.threads);
    for (int64_t i = 0; i < q.m && check_failures_in_test == 0; i++) {
        const float *c = g->c + i * q.ldc;
        for (int64_t j = 0; j < q.n; j++) {
            if (c[j] != want[i * q.n + j]) {
                check_fail(__FILE__, __LINE__, "%s: C[%lld][%lld] = %.9g, reference %.9g", what, (long long)i,
                           (long long)j, c[j], want[i * q.n + j]);
                break;
            }
        }
        for (int64_t j = q.n; j < q.ldc; j++)
            CHECK_MSG(c[j] == 12345.0f, "%s: wrote C[%lld][%lld] past n", what, (long long)i, (long long)j);
    }
}

/* One product through the fp16 path with every fp16 kernel this machine
 * runs (the portable one, and the aarch64 one where the CPU has fp16),
 * each checked against the reference. */
static void check_product(product q)
{
    const int64_t k = q.taps * q.depth;
    float *source = values(TAP_SOURCE_ROWS * q.depth, q.integers), *b = values(k * q.n, q.integers);
    tap_source s = {source, q.depth};
    float *a = tap_source_matrix(&s, q.m, q.taps), *c = malloc(sizeof(float) * (size_t)(q.m * q.ldc + 1));
    float *scale = values(q.n, false), *bias = values(q.n, true);
    uint16_t *panels = malloc(sizeof(uint16_t) * (size_t)(tp_gemm_fp16_panel_halves(k, q.n) + 1));
    tp_gemm_fp16_pack_panels_into(b, k, q.n, q.n, panels);
    tp_gemm g = {q.m, q.n, q.taps, q.depth, tap_source_rows, &s, NULL, 0, c, q.ldc, tp_gemm_no_epilogue(), false, panels};
    if (q.epilogue)
        g.epilogue = (tp_gemm_epilogue){scale, bias, -20.0f, 30.0f};

    double *a16 = rounded(a, q.m * k), *b16 = rounded(b, k * q.n);
    float *want = malloc(sizeof(float) * (size_t)(q.m * q.n + 1));
    for (int64_t i = 0; i < q.m; i++)
        for (int64_t j = 0; j < q.n; j++)
            want[i * q.n + j] = reference_value(a16 + i * k, b16, q.n, q.taps, q.depth, j, &g.epilogue);

    tp_cpu cpu = tp_cpu_detect();
    const bool hardware = cpu.fp16 && tp_gemm_fp16_kernels_for(cpu) != &tp_gemm_kernels_fp16_portable;
    cpu.fp16 = false;
    check_product_on(q, &g, want, cpu);
    if (hardware) {
        cpu.fp16 = true;
        check_product_on(q, &g, want, cpu);
    }
    free(source), free(b), free(a), free(c), free(scale), free(bias), free(panels), free(a16), free(b16), free(want);
}

static void test_fp16_edges_of_every_tile(void)
{
    const int64_t ms[] = {1, 2, 5, 7, 8, 9, 15, 16, 17, 49};
    const int64_t ns[] = {1, 3, 8, 9, 15, 16, 17, 31, 32, 33, 100};
    const int64_t ks[] = {0, 1, 3, 4, 5, 8, 27, 64};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
            for (size_t l = 0; l < sizeof ks / sizeof *ks; l++)
                check_product((product){ms[i], ns[j], 1, ks[l], ns[j], (i + j + l) % 3 == 0, (i + j + l) % 2 == 0, 1});
}

static void test_fp16_k_in_several_blocks(void)
{
    const int64_t ks[] = {255, 256, 257, 300, 515, 1024, 1025};
    for (size_t l = 0; l < sizeof ks / sizeof *ks; l++) {
        check_product((product){9, 20, 1, ks[l], 20, true, l % 2 == 0, 1});
        check_product((product){9, 17, 1, ks[l], 17, false, l % 2 == 1, 1});
    }
}

static void test_fp16_taps(void)
{
    check_product((product){7, 20, 9, 3, 20, false, true, 1});    /* a 3x3 convolution of an RGB image */
    check_product((product){30, 70, 9, 80, 70, true, false, 1});   /* taps one at a time, depth in one block */
    check_product((product){13, 64, 40, 2, 64, false, true, 2});   /* more taps than one block holds */
    check_product((product){25, 33, 7, 200, 33, false, false, 2}); /* depth in two blocks */
    check_product((product){9, 48, 9, 6, 48, true, true, 1});      /* quads across taps */
    check_product((product){12, 32, 9, 64, 32, false, true, 2});   /* random: 576 of k */
}

static void test_fp16_strided_c_and_threads(void)
{
    check_product((product){17, 33, 1, 40, 41, false, false, 1});
    check_product((product){8, 64, 1, 200, 65, true, true, 3});
    check_product((product){40, 96, 1, 300, 96, false, true, 3});    /* rows split */
    check_product((product){49, 200, 1, 129, 203, false, false, 3}); /* both */
    check_product((product){300, 40, 1, 52, 40, false, true, 2});    /* several blocks of row tiles */
    check_product((product){16, 1024, 1, 64, 1024, false, true, 2});  /* as wide as MobileNet's widest layer */
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
    for (int64_t row = 0; p1 && row < k && check_failures_in_test == 0; row++)
        for (int64_t col = 0; col < 32; col++) {
            const double want = col < n ? half_round(b[row * n + col]) : 0.0;
            CHECK_MSG(half_value(p1[(col / 16 * k + row) * 16 + col % 16]) == want, "panel value of B[%lld][%lld]",
                      (long long)row, (long long)col);
        }
    free(b);
    tfpi_graph_free(graph);
}

/* qemu's -cpu max (the tests' QEMU for aarch64) has fp16: there the
 * aarch64 kernels must run. */
static void test_fp16_under_qemu(void)
{
    const char *qemu = getenv("QEMU");
    CHECK_MSG(tp_cpu_detect().fp16 || !(qemu && strstr(qemu, "qemu-aarch64")), "no fp16 under QEMU=%s", qemu);
}

int main(void)
{
    RUN(test_precision_names);
    RUN(test_session_precision);
    RUN(test_binary16_conversions);
    RUN(test_binary16_fma);
    RUN(test_fp16_under_qemu);
    if (tp_gemm_fp16_kernels_for(tp_cpu_detect()) == &tp_gemm_kernels_fp16_portable)
        printf("this CPU has no fp16 arithmetic: the portable fp16 kernels only\n");
    srand(11);
    RUN(test_fp16_edges_of_every_tile);
    RUN(test_fp16_k_in_several_blocks);
    RUN(test_fp16_taps);
    RUN(test_fp16_strided_c_and_threads);
    RUN(test_fp16_panels_per_graph);
    return check_summary();
}
