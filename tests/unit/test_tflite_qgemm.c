/* test_tflite_qgemm.c - every variant of the 8-bit GEMM under TFLite's
 * quantized convolutions (src/compute/tflite_qgemm.h: dot products, the
 * pair and wide NEON kernels, AVX2, plain C) that this machine runs,
 * against the plain C reference (tp_tflite_qconv_ref as a
 * FULLY_CONNECTED), bit for bit: random sizes that leave partial tiles and
 * panels and depths that are not multiples of 16, int8 and uint8 codes with
 * zero points across their range, per-channel rescales from tiny to larger
 * than 1, biases that wrap, every clamp. Run under qemu for the ARM
 * targets (qemu's "max" CPU has the dot product), so each kernel is checked
 * there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/tflite_qconv.h"
#include "compute/tflite_qgemm.h"

static uint32_t state = 99;
static uint32_t next(void) { return state = state * 1664525u + 1013904223u; }
static int32_t uniform(int32_t lo, int32_t hi) { return lo + (int32_t)((next() >> 8) % (uint32_t)(hi - lo + 1)); }

/* A code of the type: any (spread 0), else within spread of center. */
static uint8_t code_near(bool is_int8, int32_t center, int32_t spread, bool hold_min)
{
    const int32_t lo = is_int8 ? (hold_min ? -128 : -127) : 0, hi = is_int8 ? 127 : 255;
    if (!spread)
        return (uint8_t)uniform(lo, hi);
    const int32_t v = center + uniform(-spread, spread);
    return (uint8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* The int32 sums mode (TensorFlow's QuantizedConv2D) on the same codes,
 * with the weights packed from their transpose ([depth][n], TensorFlow's
 * filter layout) and zero points anywhere in int32 (TF's zero codes are
 * unclamped), against a plain loop: sum (a - za)(b - zb) + bias, wrapping. */
static void check_sums(const tp_tfl_qgemm_kernel *k, bool is_int8, const uint8_t *a, int64_t lda, int64_t m,
                       int64_t depth, const uint8_t *w, int64_t n, const int32_t *bias)
{
    const int32_t za = uniform(0, 3) ? uniform(-300, 300) : uniform(-300000, 300000);
    const int32_t zb = uniform(0, 3) ? uniform(-300, 300) : 70000;
    uint8_t *transposed = malloc((size_t)(n * depth + 1));
    for (int64_t j = 0; j < n; j++)
        for (int64_t d = 0; d < depth; d++)
            transposed[d * n + j] = w[j * depth + d];
    void *packed = aligned_alloc(64, (size_t)((tp_tfl_qgemm_packed_bytes(k, depth, n) + 63) / 64 * 64));
    tp_tfl_qgemm_pack(k, transposed, depth, n, 1, n, packed);
    const int64_t padded_n = (n + 15) / 16 * 16;
    int32_t *col_term = calloc((size_t)padded_n, 4), *zeros = calloc((size_t)padded_n, 4);
    for (int64_t j = 0; j < n; j++)
        col_term[j] = (int32_t)((uint32_t)bias[j] - (uint32_t)za * (uint32_t)tp_tfl_qgemm_col_sum(k, packed, depth, n, j) +
                                (uint32_t)depth * (uint32_t)za * (uint32_t)zb);
    tp_tfl_qgemm_out out = {.col_term = col_term, .mantissa = zeros, .left = zeros, .right = zeros, .row_zero = zb,
                            .sums = true};
    int32_t *got = malloc(sizeof(int32_t) * (size_t)(m * n + 1)), *scratch = malloc(sizeof(int32_t) * (size_t)(m + 1));
    tp_tfl_qgemm_run(k, packed, depth, a, lda, m, &out, got, n, 0, n, scratch);
    int64_t bad = -1;
    int32_t want = 0;
    for (int64_t r = 0; r < m && bad < 0; r++)
        for (int64_t j = 0; j < n && bad < 0; j++) {
            uint32_t sum = (uint32_t)bias[j];
            for (int64_t d = 0; d < depth; d++) {
                const int64_t x = is_int8 ? (int8_t)a[r * lda + d] : a[r * lda + d];
                const int64_t v = is_int8 ? (int8_t)w[j * depth + d] : w[j * depth + d];
                sum += (uint32_t)((x - za) * (v - zb));
            }
            want = (int32_t)sum;
            if (got[r * n + j] != want)
                bad = r * n + j;
        }
    CHECK_MSG(bad < 0, "%s sums: %lld x %lld x %lld (zeros %d %d): sum %lld is %d, the loop %d",
              tp_tfl_qgemm_kernel_name(k), (long long)m, (long long)depth, (long long)n, za, zb, (long long)bad,
              bad >= 0 ? got[bad] : 0, want);
    free(transposed), free(packed), free(col_term), free(zeros), free(got), free(scratch);
}

/* One product of m rows, `depth` deep, n columns. With ties, the codes lie
 * within 6 of the zero points, the biases within 40 and the factors are
 * 2^-1 ... 2^-5: most outputs meet a tie of the rescale, both signs. */
static void check_kernel(const tp_tfl_qgemm_kernel *k, bool is_int8, int64_t m, int64_t depth, int64_t n,
                         bool hold_min, bool ties)
{
    const int64_t row_bytes = tp_tfl_qgemm_row_bytes(depth), lda = row_bytes + 16 * uniform(0, 1);
    uint8_t *a = malloc((size_t)(m * lda)), *w = malloc((size_t)(n * depth));
    const int32_t lo_code = is_int8 ? -128 : 0, hi_code = is_int8 ? 127 : 255;
    const int32_t za = uniform(lo_code, hi_code), zb = uniform(0, 2) == 0 ? 0 : uniform(lo_code, hi_code);
    for (int64_t i = 0; i < m * lda; i++)
        a[i] = code_near(is_int8, za, ties ? 6 : 0, true);
    for (int64_t i = 0; i < n * depth; i++)
        w[i] = code_near(is_int8, zb, ties ? 6 : 0, hold_min);
    const int32_t zo = uniform(lo_code, hi_code);
    int32_t lo = lo_code, hi = hi_code;
    if (uniform(0, 1)) {
        lo = uniform(lo_code, zo);
        hi = uniform(zo, hi_code);
    }
    const int64_t padded_n = (n + 15) / 16 * 16;
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)n), *col_term = calloc((size_t)padded_n, 4);
    int32_t *mantissa = calloc((size_t)padded_n, 4), *left = calloc((size_t)padded_n, 4), *right = calloc((size_t)padded_n, 4);
    tp_tfl_multiplier *rescale = malloc(sizeof *rescale * (size_t)n);
    void *packed = aligned_alloc(64, (size_t)((tp_tfl_qgemm_packed_bytes(k, depth, n) + 63) / 64 * 64));
    tp_tfl_qgemm_pack(k, w, depth, n, depth, 1, packed);
    const double typical = 40.0 * sqrt((double)depth) * 100.0;
    for (int64_t j = 0; j < n; j++) {
        bias[j] = ties ? uniform(-40, 40) : uniform(0, 7) == 0 ? (int32_t)next() : uniform(-100000, 100000);
        /* mostly factors that keep outputs inside the codes; a third of them
         * powers of two (so the rescale meets ties), some far smaller or larger */
        const int kind = uniform(0, 5);
        const double real = ties        ? exp2(-uniform(1, 5))
                            : kind == 0 ? exp2(uniform(-40, 8))
                            : kind <= 2 ? exp2(round(log2(60.0 / typical)))
                                        : exp2(uniform(-300, 300) / 100.0) * 60.0 / typical;
        CHECK(tp_tfl_quantize_multiplier(real, &rescale[j]));
        mantissa[j] = rescale[j].mantissa;
        left[j] = rescale[j].shift > 0 ? rescale[j].shift : 0;
        right[j] = rescale[j].shift > 0 ? 0 : rescale[j].shift;
        col_term[j] = (int32_t)((uint32_t)bias[j] - (uint32_t)za * (uint32_t)tp_tfl_qgemm_col_sum(k, packed, depth, n, j) +
                                (uint32_t)depth * (uint32_t)za * (uint32_t)zb);
    }
    /* the reference: a FULLY_CONNECTED over the same rows (copied dense) */
    uint8_t *dense = malloc((size_t)(m * depth + 1));
    for (int64_t r = 0; r < m; r++)
        memcpy(dense + r * depth, a + r * lda, (size_t)depth);
    tp_tflite_qconv q = {.geo = {.batch = m, .in_h = 1, .in_w = 1, .in_c = depth, .window_h = 1, .window_w = 1,
                                 .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1, .out_h = 1,
                                 .out_w = 1, .out_c = n},
                         .is_int8 = is_int8, .input_zero = za, .filter_zero = zb, .output_zero = zo,
                         .act_min = lo, .act_max = hi, .bias = bias, .rescale = rescale};
    uint8_t *want = malloc((size_t)(m * n + 1)), *got = malloc((size_t)(m * n + 1));
    tp_tflite_qconv_ref(&q, dense, w, want, 0, m);
    tp_tfl_qgemm_out out = {col_term, mantissa, left, right, zb, zo, lo, hi, false};
    int32_t *scratch = malloc(sizeof(int32_t) * (size_t)(m + 1));
    memset(got, 0xAB, (size_t)(m * n));
    /* columns in two calls, split at a multiple of 16, as tasks do */
    const int64_t split = n > 16 && uniform(0, 1) ? 16 * uniform(1, (int32_t)((n - 1) / 16)) : n;
    tp_tfl_qgemm_run(k, packed, depth, a, lda, m, &out, got, n, 0, split, scratch);
    if (split < n)
        tp_tfl_qgemm_run(k, packed, depth, a, lda, m, &out, got, n, split, n, scratch);
    int64_t bad = -1;
    for (int64_t i = 0; i < m * n && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    CHECK_MSG(bad < 0, "%s: %lld x %lld x %lld (zeros %d %d %d): output %lld is %d, the reference %d",
              tp_tfl_qgemm_kernel_name(k), (long long)m, (long long)depth, (long long)n, za, zb, zo, (long long)bad,
              bad >= 0 ? got[bad] : 0, bad >= 0 ? want[bad] : 0);
    check_sums(k, is_int8, a, lda, m, depth, w, n, bias);
    free(a), free(w), free(bias), free(col_term), free(mantissa), free(left), free(right), free(rescale);
    free(packed), free(dense), free(want), free(got), free(scratch);
}

static void test_every_kernel_matches_the_reference(void)
{
    int count, checked = 0;
    const tp_tfl_qgemm_kernel *const *kernels = tp_tfl_qgemm_kernels(&count);
    for (int i = 0; i < count; i++)
        for (int type = 0; type < 2; type++)
            for (int hold_min = 0; hold_min < 2; hold_min++) {
                const bool is_int8 = type == 0;
                if (!tp_tfl_qgemm_kernel_fits(kernels[i], is_int8, hold_min) || (!is_int8 && hold_min))
                    continue;
                checked++;
                for (int trial = 0; trial < 30; trial++)
                    check_kernel(kernels[i], is_int8, uniform(1, 21), uniform(1, 70), uniform(1, 45), hold_min,
                                 trial % 3 == 0);
                check_kernel(kernels[i], is_int8, 9, 1152, 37, hold_min, false); /* deep: sums past 16 bits */
                check_kernel(kernels[i], is_int8, 64, 32, 96, hold_min, false);  /* whole tiles only */
                check_kernel(kernels[i], is_int8, 64, 3, 96, hold_min, true);
            }
#if defined(__ARM_NEON) || defined(__AVX2__)
    CHECK(checked >= 4); /* SIMD variants besides plain C's two */
#else
    CHECK(checked >= 3);
#endif
}

static void test_each_cpu_gets_a_fitting_kernel(void)
{
    const char *const families[] = {"generic", "a53", "a72", "a76"};
    for (int f = 0; f < 4; f++)
        for (int type = 0; type < 2; type++)
            for (int hold_min = 0; hold_min < 2; hold_min++) {
                tp_cpu cpu;
                CHECK(tp_cpu_force(families[f], &cpu));
                const tp_tfl_qgemm_kernel *k = tp_tfl_qgemm_kernel_for(cpu, type == 0, hold_min);
                CHECK_MSG(tp_tfl_qgemm_kernel_fits(k, type == 0, hold_min), "%s for %s", tp_tfl_qgemm_kernel_name(k),
                          families[f]);
                if (type == 0 && !hold_min)
                    printf("  %s: int8 kernel %s\n", families[f], tp_tfl_qgemm_kernel_name(k));
            }
}

int main(void)
{
    RUN(test_every_kernel_matches_the_reference);
    RUN(test_each_cpu_gets_a_fitting_kernel);
    return check_summary();
}
