/* test_quantized_ops.c - the 8-bit kernels on small graphs: QuantizeV2 and
 * Dequantize in every mode against ../shared/docs/quantized.md 6.1's
 * hand-computed codes, QuantizedBiasAdd, QuantizedRelu6, the pools, and the
 * integer kernels (QuantizedConv2D on both of its paths, QuantizedMatMul
 * with transposes, QuantizedMul, QuantizedAdd) against naive int64 loops
 * (and QuantizedResizeBilinear, the batch and instance norms by hand)
 * reduced modulo 2^32 on random codes and ranges, on 1 and 3 threads; then
 * every bad input (inverted, NaN and infinite ranges, mismatched shapes, an
 * MKL-only op) fails with an error naming the node. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/quantize_math.h"
#include "op_test.h"

/* Runs g and fetches out:0, out:1 and out:2 into got (NULL-filled on error). */
static tfpi_code run3(gb_graph *g, int threads, tfpi_tensor *got[3], tfpi_status *status)
{
    const char *fetch[] = {"out:0", "out:1", "out:2"};
    memset(got, 0, 3 * sizeof *got);
    tfpi_code code = op_run_graph(g, 0, NULL, NULL, 3, fetch, got, threads, status);
    gb_free(g);
    return code;
}

static void free3(tfpi_tensor *got[3])
{
    for (int i = 0; i < 3; i++)
        tfpi_tensor_free(got[i]);
}

static float scalar(tfpi_tensor *t) { return *(const float *)tfpi_tensor_data(t); }

/* QuantizeV2 of x[7] over [min, max] into T with mode; checks codes and range. */
static void check_quantize(const char *mode, tfpi_dtype dtype, float min, float max, const int want[7],
                           float want_min, float want_max)
{
    const float x[7] = {-1, -0.5f, 0, 0.25f, 0.5f, 1, 1.2f};
    int64_t n = 7;
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, &n, 1, x);
    gb_range_consts(g, "x", min, max);
    Tfpi__NodeDef *node = gb_node(g, "QuantizeV2", "out", "x", "x_min", "x_max", NULL);
    gd_attr_set_type(node, "T", dtype);
    gd_attr_set_string(node, "mode", mode);
    tfpi_tensor *got[3];
    tfpi_status status;
    if (run3(g, 1, got, &status) != TFPI_OK) {
        CHECK_MSG(0, "%s: %s", mode, status.message);
        return;
    }
    const tp_qtype *t = tp_qtype_of(dtype);
    for (int i = 0; i < 7; i++)
        CHECK_MSG(tp_qcode_get(t, tfpi_tensor_data(got[0]), i) == want[i], "%s %s x=%g: %lld, want %d", mode,
                  tfpi_dtype_name(dtype), (double)x[i], (long long)tp_qcode_get(t, tfpi_tensor_data(got[0]), i),
                  want[i]);
    CHECK_NEAR(scalar(got[1]), want_min, 1e-6);
    CHECK_NEAR(scalar(got[2]), want_max, 1e-6);
    free3(got);
}

static void test_quantize_v2(void)
{
    check_quantize("MIN_FIRST", TFPI_QUINT8, -1, 1, (const int[]){0, 64, 128, 160, 192, 255, 255}, -1, 1);
    check_quantize("MIN_FIRST", TFPI_QINT8, -1, 1, (const int[]){-128, -64, 0, 32, 64, 127, 127}, -1, 1);
    check_quantize("MIN_COMBINED", TFPI_QUINT8, -1, 1, (const int[]){0, 64, 128, 159, 191, 255, 255}, -1, 1);
    check_quantize("MIN_COMBINED", TFPI_QINT8, -1, 1, (const int[]){-128, -64, -1, 31, 63, 127, 127}, -1, 1);
    check_quantize("SCALED", TFPI_QINT8, -1, 1, (const int[]){-127, -64, 0, 32, 64, 127, 127}, -1.007874f, 1);
    check_quantize("SCALED", TFPI_QINT8, -0.5f, 2, (const int[]){-64, -32, 0, 16, 32, 64, 76}, -2.015748f, 2);
    check_quantize("SCALED", TFPI_QUINT8, -1, 1, (const int[]){0, 0, 0, 64, 128, 255, 255}, 0, 1);
    /* the range is widened to hold 0: [0.5, 1] becomes [0, 1] */
    check_quantize("MIN_FIRST", TFPI_QUINT8, 0.5f, 1, (const int[]){0, 0, 0, 64, 128, 255, 255}, 0, 1);
    /* 16 bits: [-1, 1] over 65535 steps */
    check_quantize("MIN_FIRST", TFPI_QUINT16, -1, 1, (const int[]){0, 16384, 32768, 40960, 49152, 65535, 65535},
                   -1, 1);
}

static void test_dequantize_min_combined(void)
{
    const uint8_t q[3] = {0, 128, 255};
    int64_t n = 3;
    gb_graph *g = gb_new();
    gb_const(g, "q", TFPI_QUINT8, &n, 1, q);
    gb_range_consts(g, "q", -1, 1);
    gd_attr_set_type(gb_node(g, "Dequantize", "out", "q", "q_min", "q_max", NULL), "T", TFPI_QUINT8);
    tfpi_status status;
    tfpi_tensor *out = op_run(g, 0, NULL, 1, &status);
    CHECK_TENSOR_NEAR(out, 1, (int64_t[]){3}, (const float[]){-1.0f, 0.0039216f, 1.0f}, 1e-7);
}

/* Runs QuantizedBiasAdd of x ([rows][channels] codes of in_type) and the
 * quint8 bias, ranges {x_min, x_max, b_min, b_max}, into got. */
static tfpi_code run_bias_add(tfpi_dtype in_type, const uint8_t *x, int64_t rows, int64_t channels,
                              const uint8_t *bias, const float ranges[4], tfpi_tensor *got[3], tfpi_status *status)
{
    int64_t dims[2] = {rows, channels};
    gb_graph *g = gb_new();
    gb_const(g, "x", in_type, dims, 2, x);
    gb_const(g, "b", TFPI_QUINT8, &channels, 1, bias);
    gb_range_consts(g, "x", ranges[0], ranges[1]);
    gb_range_consts(g, "b", ranges[2], ranges[3]);
    gb_node(g, "QuantizedBiasAdd", "out", "x", "b", "x_min", "x_max", "b_min", "b_max", NULL);
    return run3(g, 1, got, status);
}

static void test_bias_add(void)
{
    /* docs 6.1: input [-1,1] codes 0, 128, 255 plus bias [0,2] codes 0, 255 */
    const uint8_t in[6] = {0, 0, 7, 128, 255, 9}, bias[2] = {0, 255};
    tfpi_tensor *got[3];
    tfpi_status status;
    CHECK_MSG(run_bias_add(TFPI_QUINT8, in, 3, 2, bias, (const float[4]){-1, 1, 0, 2}, got, &status) == TFPI_OK, "%s",
              status.message);
    if (!got[0])
        return;
    const int32_t *v = tfpi_tensor_data(got[0]);
    CHECK_EQ_INT(v[0], -8160);
    CHECK_EQ_INT(v[3], 16448);
    CHECK_EQ_INT(v[4], 8224);
    CHECK(scalar(got[1]) == -262144.0f && scalar(got[2]) == 262144.0f);
    free3(got);
}

/* QuantizedBiasAdd over rows of 70 channels (a vectorized block of 64 and
 * a tail) of random codes and ranges, quint8 and qint8 inputs, against
 * quantized.md 3.3 written out with the Eigen forms. */
static void test_bias_add_matches_formula(void)
{
    enum { ROWS = 5, C = 70 };
    static uint8_t in[ROWS * C], bias[C];
    srand(31);
    for (int trial = 0; trial < 40; trial++) {
        const tfpi_dtype in_type = trial % 4 == 3 ? TFPI_QINT8 : TFPI_QUINT8;
        for (int i = 0; i < ROWS * C; i++)
            in[i] = (uint8_t)(i < 4 ? (i & 1) * 255 : rand() & 255);
        for (int i = 0; i < C; i++)
            bias[i] = (uint8_t)(rand() & 255);
        float x_min = op_random(-8, 0), x_max = x_min + op_random(0.01f, 20);
        float b_min = op_random(-3, 0.5f), b_max = b_min + op_random(0.01f, 4);
        tfpi_tensor *got[3];
        tfpi_status status;
        CHECK_MSG(run_bias_add(in_type, in, ROWS, C, bias, (const float[4]){x_min, x_max, b_min, b_max}, got,
                               &status) == TFPI_OK,
                  "%s", status.message);
        if (!got[0])
            return;
        const tp_qtype *t_in = tp_qtype_of(in_type), *i32 = tp_qtype_of(TFPI_QINT32);
        float m = (float)(fmaxf(fmaxf(x_max, -x_min), fmaxf(b_max, -b_min)) * 131072.0f);
        tp_q_quantizer to_out = tp_q_quantizer_make(-m, m, i32);
        tp_q_dequantizer from_x = tp_q_dequantizer_make(x_min, x_max, t_in);
        tp_q_dequantizer from_b = tp_q_dequantizer_make(b_min, b_max, tp_qtype_of(TFPI_QUINT8));
        int64_t zero = tp_q_f2q(0.0, -m, m, i32);
        const int32_t *v = tfpi_tensor_data(got[0]);
        int bad = 0;
        for (int i = 0; i < ROWS * C; i++) {
            int64_t x = tp_q_quantize_e(&to_out, tp_q_dequantize_e(&from_x, tp_qcode_get(t_in, in, i)));
            int64_t b = tp_q_quantize_e(&to_out, tp_q_dequantize_e(&from_b, bias[i % C]));
            bad += v[i] != (int32_t)(uint32_t)(uint64_t)(x + b + zero);
        }
        CHECK_MSG(bad == 0, "trial %d: %d of %d codes differ", trial, bad, ROWS * C);
        free3(got);
    }
}

static void test_relu6_and_pools(void)
{
    /* [-2, 10] at 21.25 codes per unit: code of 0 is 0 + 43 = 43, of 6 is 128 (127.5 rounded away) + 43 = 171 */
    const uint8_t q[4] = {1, 2, 3, 5}, wide[4] = {0, 60, 200, 255};
    int64_t dims[4] = {1, 2, 2, 1};
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, dims, 4, wide);
    gb_range_consts(g, "x", -2, 10);
    gb_node(g, "QuantizedRelu6", "out", "x", "x_min", "x_max", NULL);
    tfpi_status status;
    CHECK_TENSOR(op_run(g, 0, NULL, 1, &status), TFPI_QUINT8, 4, dims, (const uint8_t[]){43, 60, 171, 171});

    int64_t one[4] = {1, 1, 1, 1};
    for (int average = 0; average < 2; average++) {
        g = gb_new();
        gb_const(g, "x", TFPI_QUINT8, dims, 4, q);
        gb_range_consts(g, "x", 0, 1);
        Tfpi__NodeDef *node = gb_node(g, average ? "QuantizedAvgPool" : "QuantizedMaxPool", "out", "x", "x_min",
                                      "x_max", NULL);
        gd_attr_set_ints(node, "ksize", (const int64_t[]){1, 2, 2, 1}, 4);
        gd_attr_set_ints(node, "strides", (const int64_t[]){1, 2, 2, 1}, 4);
        gd_attr_set_string(node, "padding", "VALID");
        CHECK_TENSOR(op_run(g, 0, NULL, 1, &status), TFPI_QUINT8, 4, one,
                     (const uint8_t[]){average ? 2 : 5}); /* 11 / 4 truncates to 2 */
    }
    /* SAME 2x2 windows at stride 2 on 3x3: the last window has one pixel inside, the others two or four */
    const uint8_t nine[9] = {9, 9, 9, 9, 9, 9, 9, 9, 77};
    int64_t three[4] = {1, 3, 3, 1}, two[4] = {1, 2, 2, 1};
    g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, three, 4, nine);
    gb_range_consts(g, "x", 0, 1);
    Tfpi__NodeDef *node = gb_node(g, "QuantizedAvgPool", "out", "x", "x_min", "x_max", NULL);
    gd_attr_set_ints(node, "ksize", (const int64_t[]){1, 2, 2, 1}, 4);
    gd_attr_set_ints(node, "strides", (const int64_t[]){1, 2, 2, 1}, 4);
    gd_attr_set_string(node, "padding", "SAME");
    CHECK_TENSOR(op_run(g, 0, NULL, 1, &status), TFPI_QUINT8, 4, two, (const uint8_t[]){9, 9, 9, 77});
}

static uint8_t random_code(void) { return (uint8_t)(rand() & 255); }

/* AvgPool and MaxPool 3x3 SAME over random codes, 70 channels (a block of
 * 64 and a tail): each output the truncated integer mean, or the maximum, of
 * its in-image taps. */
static void test_pools_match_integer_loops(void)
{
    enum { H = 7, W = 9, C = 70 };
    static uint8_t q[H * W * C], want[2][H * W * C];
    for (int i = 0; i < H * W * C; i++)
        q[i] = random_code();
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < C; c++) {
                int sum = 0, count = 0, top = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++)
                        if (y + dy >= 0 && y + dy < H && x + dx >= 0 && x + dx < W) {
                            int v = q[((y + dy) * W + x + dx) * C + c];
                            sum += v;
                            top = v > top ? v : top;
                            count++;
                        }
                want[0][(y * W + x) * C + c] = (uint8_t)(sum / count);
                want[1][(y * W + x) * C + c] = (uint8_t)top;
            }
    int64_t dims[4] = {1, H, W, C};
    for (int max = 0; max < 2; max++) {
        gb_graph *g = gb_new();
        gb_const(g, "x", TFPI_QUINT8, dims, 4, q);
        gb_range_consts(g, "x", 0, 1);
        Tfpi__NodeDef *node = gb_node(g, max ? "QuantizedMaxPool" : "QuantizedAvgPool", "out", "x", "x_min", "x_max",
                                      NULL);
        gd_attr_set_ints(node, "ksize", (const int64_t[]){1, 3, 3, 1}, 4);
        gd_attr_set_ints(node, "strides", (const int64_t[]){1, 1, 1, 1}, 4);
        gd_attr_set_string(node, "padding", "SAME");
        tfpi_status status;
        CHECK_TENSOR(op_run(g, 0, NULL, 1, &status), TFPI_QUINT8, 4, dims, want[max]);
    }
}

/* A random range that holds 0 most of the time, but not always. */
static void random_range(float *min, float *max)
{
    *min = op_random(-3, rand() % 8 == 0 ? 1.0f : 0.0f);
    *max = *min + op_random(0.1f, 5);
}

/* The naive convolution: sum of (in - zi)(w - zf) over in-image taps, int64, mod 2^32. */
static void naive_conv(const uint8_t *in, const int64_t *d, const uint8_t *w, const int64_t *wd, int stride,
                       int64_t top, int64_t left, int64_t zi, int64_t zf, const int64_t *od, int32_t *out)
{
    for (int64_t y = 0; y < od[1]; y++)
        for (int64_t x = 0; x < od[2]; x++)
            for (int64_t k = 0; k < od[3]; k++) {
                int64_t sum = 0;
                for (int64_t fy = 0; fy < wd[0]; fy++)
                    for (int64_t fx = 0; fx < wd[1]; fx++) {
                        int64_t iy = y * stride - top + fy, ix = x * stride - left + fx;
                        if (iy < 0 || iy >= d[1] || ix < 0 || ix >= d[2])
                            continue;
                        for (int64_t c = 0; c < d[3]; c++)
                            sum += (in[(iy * d[2] + ix) * d[3] + c] - zi) * (w[((fy * wd[1] + fx) * wd[2] + c) * wd[3] + k] - zf);
                    }
                out[(y * od[2] + x) * od[3] + k] = (int32_t)(uint32_t)(uint64_t)sum;
            }
}

static void check_one_conv(int trial)
{
    int64_t d[4] = {1, 3 + rand() % 8, 3 + rand() % 8, 1 + rand() % 9};
    int64_t wd[4] = {1 + rand() % 3, 1 + rand() % 3, d[3], 1 + rand() % 17};
    int stride = 1 + rand() % 3;
    bool same = rand() % 2;
    uint8_t *in = malloc((size_t)(d[1] * d[2] * d[3])), *w = malloc((size_t)(wd[0] * wd[1] * wd[2] * wd[3]));
    for (int64_t i = 0; i < d[1] * d[2] * d[3]; i++)
        in[i] = random_code();
    for (int64_t i = 0; i < wd[0] * wd[1] * wd[2] * wd[3]; i++)
        w[i] = random_code();
    float in_min, in_max, w_min, w_max;
    random_range(&in_min, &in_max);
    random_range(&w_min, &w_max);
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, d, 4, in);
    gb_const(g, "w", TFPI_QUINT8, wd, 4, w);
    gb_range_consts(g, "x", in_min, in_max);
    gb_range_consts(g, "w", w_min, w_max);
    Tfpi__NodeDef *node = gb_node(g, "QuantizedConv2D", "out", "x", "w", "x_min", "x_max", "w_min", "w_max", NULL);
    gd_attr_set_ints(node, "strides", (const int64_t[]){1, stride, stride, 1}, 4);
    gd_attr_set_string(node, "padding", same ? "SAME" : "VALID");
    int64_t od[4] = {1, 0, 0, wd[3]};
    for (int a = 1; a <= 2; a++)
        od[a] = same ? (d[a] + stride - 1) / stride : (d[a] - wd[a - 1] + stride) / stride;
    int64_t top = ((od[1] - 1) * stride + wd[0] - d[1] + (same ? 0 : 1)) / 2;
    int64_t left = ((od[2] - 1) * stride + wd[1] - d[2] + (same ? 0 : 1)) / 2;
    int32_t *want = malloc(sizeof(int32_t) * (size_t)(od[1] * od[2] * od[3] + 1));
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    naive_conv(in, d, w, wd, stride, top, left, tp_q_f2qu(0, in_min, in_max, u8), tp_q_f2qu(0, w_min, w_max, u8),
               od, want);
    tfpi_tensor *got[3];
    tfpi_status status;
    if (od[1] > 0 && od[2] > 0) {
        tfpi_code code = run3(g, 1 + 2 * (trial % 2), got, &status);
        CHECK_MSG(code == TFPI_OK, "conv trial %d: %s", trial, status.message);
        if (code == TFPI_OK) {
            CHECK_MSG(memcmp(tfpi_tensor_data(got[0]), want, sizeof(int32_t) * (size_t)(od[1] * od[2] * od[3])) == 0,
                      "conv trial %d (in %lldx%lldx%lld, filter %lldx%lldx%lld, stride %d, %s, zero %lld) differs",
                      trial, (long long)d[1], (long long)d[2], (long long)d[3], (long long)wd[0], (long long)wd[1],
                      (long long)wd[3], stride, same ? "SAME" : "VALID", (long long)tp_q_f2qu(0, in_min, in_max, u8));
            float min, max;
            tp_q_range_for_multiplication(in_min, in_max, w_min, w_max, tp_qtype_of(TFPI_QINT32), &min, &max);
            CHECK(scalar(got[1]) == min && scalar(got[2]) == max);
            free3(got);
        }
    } else {
        gb_free(g);
    }
    free(want);
    free(in);
    free(w);
}

static void test_conv_matches_naive_loop(void)
{
    srand(12);
    for (int trial = 0; trial < 300; trial++)
        check_one_conv(trial);
}

static void test_matmul_matches_naive_loop(void)
{
    srand(13);
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    for (int trial = 0; trial < 100; trial++) {
        int64_t m = 1 + rand() % 9, k = 1 + rand() % 40, n = 1 + rand() % 300;
        bool ta = rand() % 2, tb = rand() % 2;
        uint8_t *a = malloc((size_t)(m * k)), *b = malloc((size_t)(k * n));
        for (int64_t i = 0; i < m * k; i++)
            a[i] = random_code();
        for (int64_t i = 0; i < k * n; i++)
            b[i] = random_code();
        float a_min, a_max, b_min, b_max;
        random_range(&a_min, &a_max);
        random_range(&b_min, &b_max);
        int64_t za = tp_q_f2qu(0, a_min, a_max, u8), zb = tp_q_f2qu(0, b_min, b_max, u8);
        gb_graph *g = gb_new();
        gb_const(g, "a", TFPI_QUINT8, ta ? (int64_t[]){k, m} : (int64_t[]){m, k}, 2, a);
        gb_const(g, "b", TFPI_QUINT8, tb ? (int64_t[]){n, k} : (int64_t[]){k, n}, 2, b);
        gb_range_consts(g, "a", a_min, a_max);
        gb_range_consts(g, "b", b_min, b_max);
        Tfpi__NodeDef *node = gb_node(g, "QuantizedMatMul", "out", "a", "b", "a_min", "a_max", "b_min", "b_max", NULL);
        gd_attr_set_bool(node, "transpose_a", ta);
        gd_attr_set_bool(node, "transpose_b", tb);
        tfpi_tensor *got[3];
        tfpi_status status;
        if (run3(g, 1 + 2 * (trial % 2), got, &status) == TFPI_OK) {
            const int32_t *c = tfpi_tensor_data(got[0]);
            int bad = 0;
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    int64_t sum = 0;
                    for (int64_t l = 0; l < k; l++)
                        sum += (a[ta ? l * m + i : i * k + l] - za) * (b[tb ? j * k + l : l * n + j] - zb);
                    bad += c[i * n + j] != (int32_t)(uint32_t)(uint64_t)sum;
                }
            CHECK_MSG(bad == 0, "matmul trial %d (%lldx%lldx%lld, ta %d, tb %d): %d values differ", trial,
                      (long long)m, (long long)k, (long long)n, ta, tb, bad);
            free3(got);
        } else {
            CHECK_MSG(0, "matmul trial %d: %s", trial, status.message);
        }
        free(a);
        free(b);
    }
}

static void test_mul_and_add(void)
{
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8), *i32 = tp_qtype_of(TFPI_QINT32);
    uint8_t x[24], y[4];
    for (int i = 0; i < 24; i++)
        x[i] = random_code();
    for (int i = 0; i < 4; i++)
        y[i] = random_code();
    int64_t xd[3] = {2, 3, 4}, yd[1] = {4};
    for (int add = 0; add < 2; add++) {
        gb_graph *g = gb_new();
        gb_const(g, "x", TFPI_QUINT8, xd, 3, x);
        gb_const(g, "y", TFPI_QUINT8, yd, 1, y);
        gb_range_consts(g, "x", -1, 3);
        gb_range_consts(g, "y", -0.5f, 0.25f);
        gb_node(g, add ? "QuantizedAdd" : "QuantizedMul", "out", "x", "y", "x_min", "x_max", "y_min", "y_max", NULL);
        tfpi_tensor *got[3];
        tfpi_status status;
        if (run3(g, 1, got, &status) != TFPI_OK) {
            CHECK_MSG(0, "%s", status.message);
            continue;
        }
        const int32_t *z = tfpi_tensor_data(got[0]);
        float r = 3.0f * 16384.0f;
        for (int i = 0; i < 24; i++) {
            int64_t want;
            if (add) /* each operand mapped into (-r, r) qint32 and added */
                want = tp_q_f2qu(tp_q_q2f(0, -1, 3, u8), -r, r, i32) +
                       x[i] * (tp_q_f2qu(tp_q_q2f(1, -1, 3, u8), -r, r, i32) - tp_q_f2qu(tp_q_q2f(0, -1, 3, u8), -r, r, i32)) +
                       tp_q_f2qu(tp_q_q2f(0, -0.5f, 0.25f, u8), -r, r, i32) +
                       y[i % 4] * (tp_q_f2qu(tp_q_q2f(1, -0.5f, 0.25f, u8), -r, r, i32) -
                                   tp_q_f2qu(tp_q_q2f(0, -0.5f, 0.25f, u8), -r, r, i32));
            else
                want = (x[i] - tp_q_f2qu(0, -1, 3, u8)) * (y[i % 4] - tp_q_f2qu(0, -0.5f, 0.25f, u8));
            CHECK_MSG(z[i] == want, "%s[%d]: %d, want %lld", add ? "add" : "mul", i, z[i], (long long)want);
        }
        if (add)
            CHECK(scalar(got[1]) == -r && scalar(got[2]) == r);
        free3(got);
    }
}

/* QuantizedAdd of same-shape operands (vectorized blocks of 64 and a tail)
 * over random codes and ranges: quantized.md 3.6's Map8to32 of each,
 * added with int32 wrap-around. */
static void test_add_same_shapes(void)
{
    enum { N = 150 };
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8), *i32 = tp_qtype_of(TFPI_QINT32);
    uint8_t x[N], y[N];
    int64_t dims[1] = {N};
    srand(32);
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < N; i++) {
            x[i] = random_code();
            y[i] = random_code();
        }
        float r[4];
        random_range(&r[0], &r[1]);
        random_range(&r[2], &r[3]);
        gb_graph *g = gb_new();
        gb_const(g, "x", TFPI_QUINT8, dims, 1, x);
        gb_const(g, "y", TFPI_QUINT8, dims, 1, y);
        gb_range_consts(g, "x", r[0], r[1]);
        gb_range_consts(g, "y", r[2], r[3]);
        gb_node(g, "QuantizedAdd", "out", "x", "y", "x_min", "x_max", "y_min", "y_max", NULL);
        tfpi_tensor *got[3];
        tfpi_status status;
        if (run3(g, 1, got, &status) != TFPI_OK) {
            CHECK_MSG(0, "%s", status.message);
            continue;
        }
        float big = (float)(fmaxf(fabsf(fminf(r[0], r[2])), fabsf(fmaxf(r[1], r[3]))) * 16384.0f);
        const int32_t *z = tfpi_tensor_data(got[0]);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            int64_t sum = 0;
            for (int k = 0; k < 2; k++) {
                const float min = r[2 * k], max = r[2 * k + 1];
                int64_t c0 = tp_q_f2qu(tp_q_q2f(0, min, max, u8), -big, big, i32);
                int64_t c1 = tp_q_f2qu(tp_q_q2f(1, min, max, u8), -big, big, i32);
                int64_t v = c0 + (k ? y[i] : x[i]) * (int64_t)(int32_t)(c1 - c0);
                sum += v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v;
            }
            bad += z[i] != (int32_t)(uint32_t)(uint64_t)sum;
        }
        CHECK_MSG(bad == 0, "add trial %d: %d of %d differ", trial, bad, N);
        free3(got);
    }
}

static void test_concat_and_reshape(void)
{
    /* [0,1] and [0,2] codes joined on axis 1: the output range is [0,2]; the first input's codes are
     * requantized through TF's float path (code 255 of [0,1] is 1.0 -> 127.5 -> 128), the second copied */
    const uint8_t x[4] = {0, 255, 51, 102}, y[2] = {7, 200};
    const int32_t axis = 1;
    int64_t x_dims[2] = {2, 2}, y_dims[2] = {2, 1}, out_dims[2] = {2, 3};
    gb_graph *g = gb_new();
    gb_const(g, "axis", TFPI_INT32, NULL, 0, &axis);
    gb_const(g, "x", TFPI_QUINT8, x_dims, 2, x);
    gb_const(g, "y", TFPI_QUINT8, y_dims, 2, y);
    gb_range_consts(g, "x", 0, 1);
    gb_range_consts(g, "y", 0, 2);
    gd_attr_set_int(gb_node(g, "QuantizedConcat", "out", "axis", "x", "y", "x_min", "y_min", "x_max", "y_max", NULL),
                    "N", 2);
    tfpi_tensor *got[3];
    tfpi_status status;
    if (run3(g, 1, got, &status) != TFPI_OK) {
        CHECK_MSG(0, "%s", status.message);
        return;
    }
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    tp_q_dequantizer dq = tp_q_dequantizer_make(0, 1, u8);
    tp_q_quantizer qz = tp_q_quantizer_make(0, 2, u8);
    uint8_t want[6];
    for (int r = 0; r < 2; r++) {
        for (int c = 0; c < 2; c++)
            want[3 * r + c] = (uint8_t)tp_q_quantize_e(&qz, tp_q_dequantize_e(&dq, x[2 * r + c]));
        want[3 * r + 2] = y[r];
    }
    CHECK_EQ_INT(want[1], 128);
    CHECK_TENSOR(got[0], TFPI_QUINT8, 2, out_dims, want);
    CHECK(scalar(got[1]) == 0.0f && scalar(got[2]) == 2.0f);
    tfpi_tensor_free(got[1]);
    tfpi_tensor_free(got[2]);

    const int32_t shape[2] = {-1, 2};
    int64_t two = 2, flat = 4, reshaped[2] = {2, 2};
    g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, &flat, 1, x);
    gb_const(g, "shape", TFPI_INT32, &two, 1, shape);
    gb_range_consts(g, "x", -3, 3);
    gb_node(g, "QuantizedReshape", "out", "x", "shape", "x_min", "x_max", NULL);
    if (run3(g, 1, got, &status) != TFPI_OK) {
        CHECK_MSG(0, "%s", status.message);
        return;
    }
    CHECK_TENSOR(got[0], TFPI_QUINT8, 2, reshaped, x);
    CHECK(scalar(got[1]) == -3.0f && scalar(got[2]) == 3.0f);
    tfpi_tensor_free(got[1]);
    tfpi_tensor_free(got[2]);
}

static void test_resize_bilinear(void)
{
    /* docs 6.1: 2x2 {0,255; 255,0} to 4x4, legacy centres, 7-bit weights, truncating steps */
    const uint8_t q[4] = {0, 255, 255, 0};
    const int32_t size[2] = {4, 4};
    int64_t dims[4] = {1, 2, 2, 1}, two = 2, out_dims[4] = {1, 4, 4, 1};
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, dims, 4, q);
    gb_const(g, "size", TFPI_INT32, &two, 1, size);
    gb_range_consts(g, "x", -1, 1);
    gb_node(g, "QuantizedResizeBilinear", "out", "x", "size", "x_min", "x_max", NULL);
    tfpi_status status;
    CHECK_TENSOR(op_run(g, 0, NULL, 1, &status), TFPI_QUINT8, 4, out_dims,
                 (const uint8_t[]){0, 128, 255, 255, 128, 128, 128, 128, 255, 128, 0, 0, 255, 128, 0, 0});
}

static void test_norms(void)
{
    /* batch norm with mean 0, variance 1, beta 0: the output is t again, as qint32 of +-2^20 */
    const uint8_t t[3] = {0, 128, 255}, zero = 0, full = 255;
    int64_t dims[4] = {1, 1, 3, 1}, one = 1;
    gb_graph *g = gb_new();
    gb_const(g, "t", TFPI_QUINT8, dims, 4, t);
    gb_const(g, "m", TFPI_QUINT8, &one, 1, &zero);
    gb_const(g, "v", TFPI_QUINT8, &one, 1, &full);
    gb_range_consts(g, "t", -1, 1);
    gb_range_consts(g, "u", 0, 1);
    gb_node(g, "QuantizedBatchNormWithGlobalNormalization", "out", "t", "t_min", "t_max", "m", "u_min", "u_max", "v",
            "u_min", "u_max", "m", "u_min", "u_max", "v", "u_min", "u_max", NULL);
    tfpi_tensor *got[3];
    tfpi_status status;
    if (run3(g, 1, got, &status) == TFPI_OK) {
        const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8), *i32 = tp_qtype_of(TFPI_QINT32);
        for (int i = 0; i < 3; i++)
            CHECK_NEAR(tp_q_q2f(((const int32_t *)tfpi_tensor_data(got[0]))[i], -1048576, 1048576, i32),
                       tp_q_q2f(t[i], -1, 1, u8), 2e-3);
        CHECK(scalar(got[2]) == 1048576.0f);
        free3(got);
    } else {
        CHECK_MSG(0, "%s", status.message);
    }
    /* instance norm: each channel to mean 0, deviation 1; codes of the output's own range */
    const uint8_t x[4] = {0, 10, 255, 30};
    int64_t x_dims[4] = {1, 1, 2, 2};
    g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, x_dims, 4, x);
    gb_range_consts(g, "x", 0, 2);
    gb_node(g, "QuantizedInstanceNorm", "out", "x", "x_min", "x_max", NULL);
    if (run3(g, 1, got, &status) == TFPI_OK) {
        /* channel 1 reaches only -+0.99919 (epsilon): -127.4 steps from the middle, code 1 */
        CHECK_TENSOR(got[0], TFPI_QUINT8, 4, x_dims, (const uint8_t[]){0, 1, 255, 255});
        CHECK_NEAR(scalar(got[1]), -1.0, 1e-4);
        CHECK_NEAR(scalar(got[2]), 1.0, 1e-4);
        tfpi_tensor_free(got[1]);
        tfpi_tensor_free(got[2]);
    } else {
        CHECK_MSG(0, "%s", status.message);
    }
}

/* A QuantizedRelu over [min, max] must fail naming node 'out' with fragment. */
static void check_range_error(float min, float max, const char *fragment)
{
    const uint8_t q[2] = {1, 2};
    int64_t n = 2;
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, &n, 1, q);
    gb_range_consts(g, "x", min, max);
    gb_node(g, "QuantizedRelu", "out", "x", "x_min", "x_max", NULL);
    CHECK_FAILS(g, NULL, "out", "out", fragment);
    gb_free(g);
}

/* ../shared/docs/quantized.md 1.2, written out here in double as the doc
 * gives it: Q2F for qint32, Requant32to8, and Quantize-E / Dequantize-E. */
static double f32(double x) { return (double)(float)x; }

static double q2f_qint32(int64_t q, float min, float max)
{
    const double S = 4294967296.0;
    double range = f32((double)max - (double)min) * (S / (S - 1.0)), rs = range / S, rsf = f32(rs);
    double rmr = f32(f32(round(f32((float)min / (float)rsf))) * rsf);
    return f32(rmr + (double)(q + 2147483648LL) * rs);
}

static int requant_32to8(int32_t v, float in_min, float in_max, float out_min, float out_max)
{
    double ir = f32(in_max - in_min), or = f32(out_max - out_min);
    double recip = or == 0 ? 0 : f32(255.0 / or), rez = f32(f32(in_min + in_max) / 2.0);
    int64_t rsfp = or == 0 ? 0 : (int64_t)(255.0 * 65536 * ir / or);
    int64_t iofp = (int64_t)f32(f32(rez * recip) * 65536), oofp = or == 0 ? 0 : (int64_t)(65536 * (out_min * 255.0) / or);
    int64_t fp = (((int64_t)v * rsfp) >> 32) + iofp - oofp + 32768, q = fp >> 16;
    return q < 0 ? 0 : q > 255 ? 255 : (int)q;
}

static int requant_e_qint8(int32_t v, float in_min, float in_max, float out_min, float out_max)
{
    double rs = f32(f32(in_max - in_min) / 4294967295.0);
    double rmr = in_max == in_min ? in_min : f32(f32(round(f32((float)in_min / (float)rs))) * rs);
    double value = f32(f32(rmr - f32(-2147483648.0 * rs)) + f32((float)v * rs));
    double qs = out_min == out_max ? 0 : f32(255.0 / f32(out_max - out_min)), rms = f32(round(f32(out_min * qs)));
    double q = f32(round(f32(value * qs)) - f32(rms + 128));
    return q < -128 ? -128 : q > 127 ? 127 : (int)q;
}

/* RequantizationRange (the used range, its min forced <= 0), the
 * QuantizeDownAndShrinkRange that narrows to it, and Requantize to qint8
 * over the requested range, on codes of [-10, 10]. */
static void test_requantize_ops(void)
{
    const int32_t pos[4] = {100000000, 200000000, 350000000, 500000000};
    const int32_t mixed[4] = {-500000000, -3, 7, 1000000000};
    const int32_t *sets[2] = {pos, mixed};
    for (int k = 0; k < 2; k++) {
        const int32_t *v = sets[k];
        int64_t n = 4;
        gb_graph *g = gb_new();
        gb_const(g, "v", TFPI_QINT32, &n, 1, v);
        gb_range_consts(g, "v", -10, 10);
        gb_node(g, "RequantizationRange", "range", "v", "v_min", "v_max", NULL);
        gb_node(g, "QuantizeDownAndShrinkRange", "out", "v", "v_min", "v_max", NULL);
        tfpi_tensor *got[3], *range[2] = {0};
        tfpi_status status;
        const char *fetch[] = {"range:0", "range:1"};
        gb_graph *g2 = gb_new();
        gb_const(g2, "v", TFPI_QINT32, &n, 1, v);
        gb_range_consts(g2, "v", -10, 10);
        gb_node(g2, "RequantizationRange", "range", "v", "v_min", "v_max", NULL);
        CHECK_MSG(op_run_graph(g2, 0, NULL, NULL, 2, fetch, range, 1, &status) == TFPI_OK, "%s", status.message);
        gb_free(g2);
        CHECK_MSG(run3(g, 1, got, &status) == TFPI_OK, "%s", status.message);
        if (!got[0] || !range[0]) {
            free3(got);
            continue;
        }
        double lowest = q2f_qint32(v[0], -10, 10), highest = q2f_qint32(v[3], -10, 10);
        double want_min = lowest < 0 ? lowest : 0; /* 0 when every used value is positive */
        CHECK_NEAR(scalar(range[0]), want_min, 1e-6);
        CHECK_NEAR(scalar(range[1]), highest, 1e-6);
        CHECK(scalar(got[1]) == scalar(range[0]) && scalar(got[2]) == scalar(range[1])); /* shrunk to it */
        for (int i = 0; i < 4; i++)
            CHECK_MSG(((const uint8_t *)tfpi_tensor_data(got[0]))[i] ==
                          requant_32to8(v[i], -10, 10, scalar(range[0]), scalar(range[1])),
                      "shrink %d: code %d of %d", k, ((const uint8_t *)tfpi_tensor_data(got[0]))[i], v[i]);
        free3(got);
        tfpi_tensor_free(range[0]);
        tfpi_tensor_free(range[1]);
        /* Requantize to qint8 over the requested [-3, 4] */
        g = gb_new();
        gb_const(g, "v", TFPI_QINT32, &n, 1, v);
        gb_range_consts(g, "v", -10, 10);
        gb_range_consts(g, "r", -3, 4);
        gd_attr_set_type(gb_node(g, "Requantize", "out", "v", "v_min", "v_max", "r_min", "r_max", NULL), "out_type",
                         TFPI_QINT8);
        CHECK_MSG(run3(g, 1, got, &status) == TFPI_OK, "%s", status.message);
        if (!got[0])
            continue;
        CHECK(scalar(got[1]) == -3 && scalar(got[2]) == 4);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(((const int8_t *)tfpi_tensor_data(got[0]))[i] == requant_e_qint8(v[i], -10, 10, -3, 4),
                      "qint8 %d: code %d of %d, want %d", k, ((const int8_t *)tfpi_tensor_data(got[0]))[i], v[i],
                      requant_e_qint8(v[i], -10, 10, -3, 4));
        free3(got);
    }
}

static void test_errors(void)
{
    check_range_error(1, -1, "min > max");
    check_range_error(NAN, 1, "not finite");
    check_range_error(-INFINITY, 1, "not finite");
    /* a bias that does not match the channels */
    const uint8_t q[6] = {0};
    int64_t dims[2] = {2, 3}, c = 2;
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, dims, 2, q);
    gb_const(g, "b", TFPI_QUINT8, &c, 1, q);
    gb_range_consts(g, "x", -1, 1);
    gb_node(g, "QuantizedBiasAdd", "out", "x", "b", "x_min", "x_max", "x_min", "x_max", NULL);
    CHECK_FAILS(g, NULL, "out", "out", "last dimension");
    gb_free(g);
    /* conv with a filter of other depth */
    g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, (int64_t[]){1, 1, 2, 3}, 4, q);
    gb_const(g, "w", TFPI_QUINT8, (int64_t[]){1, 1, 2, 1}, 4, q);
    gb_range_consts(g, "x", -1, 1);
    Tfpi__NodeDef *node = gb_node(g, "QuantizedConv2D", "out", "x", "w", "x_min", "x_max", "x_min", "x_max", NULL);
    gd_attr_set_ints(node, "strides", (const int64_t[]){1, 1, 1, 1}, 4);
    gd_attr_set_string(node, "padding", "SAME");
    CHECK_FAILS(g, NULL, "out", "out", "channels");
    gb_free(g);
    /* an MKL-only fused op */
    g = gb_new();
    gb_const(g, "x", TFPI_QUINT8, &c, 1, q);
    gb_node(g, "QuantizedConv2DWithBiasAndReluAndRequantize", "out", "x", NULL);
    CHECK_FAILS(g, NULL, "out", "out", "Intel MKL");
    gb_free(g);
    /* QuantizeV2 of a range bound that is not a scalar */
    g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, &c, 1, (const float[]){1, 2});
    gb_node(g, "QuantizeV2", "out", "x", "x", "x", NULL);
    CHECK_FAILS(g, NULL, "out", "out", "float scalar");
    gb_free(g);
}

int main(void)
{
    RUN(test_quantize_v2);
    RUN(test_dequantize_min_combined);
    RUN(test_bias_add);
    RUN(test_bias_add_matches_formula);
    RUN(test_relu6_and_pools);
    RUN(test_pools_match_integer_loops);
    RUN(test_conv_matches_naive_loop);
    RUN(test_matmul_matches_naive_loop);
    RUN(test_mul_and_add);
    RUN(test_add_same_shapes);
    RUN(test_concat_and_reshape);
    RUN(test_resize_bilinear);
    RUN(test_norms);
    RUN(test_requantize_ops);
    RUN(test_errors);
    return check_summary();
}
