/* test_cwise_unary.c - the elementwise kernels of one operand (activations,
 * float math, integer Neg/Abs/Square/Sign and Cast in kernels/cwise_unary.c)
 * and BiasAdd (kernels/bias_add.c), run through small graphs. Expected
 * values come from numpy 1.24 (/usr/bin/python3), hard-coded below with the
 * numpy expression that produced them (float64 math rounded to float32), or
 * from a naive double-precision formula in this file on pseudo-random
 * inputs (a large input split across 4 threads); errors must name the node. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"

/* ---- unary ops ------------------------------------------------------------- */

/* numpy on float32 x (float64 math, rounded to float32), see each row. */
static const float unary_x[10] = {-7.5f, -2.5f, -1.5f, -0.5f, 0, 0.5f, 1.5f, 2.5f, 6.5f, 20};

typedef struct unary_case {
    const char *op;
    float want[10];
} unary_case;

static const unary_case unary_cases[] = {
    {"Relu", {0, 0, 0, 0, 0, 0.5f, 1.5f, 2.5f, 6.5f, 20}},
    {"Relu6", {0, 0, 0, 0, 0, 0.5f, 1.5f, 2.5f, 6, 6}},
    /* np.where(x < 0, np.expm1(x), x) */
    {"Elu", {-0.999446929f, -0.917914987f, -0.776869833f, -0.393469334f, 0, 0.5f, 1.5f, 2.5f, 6.5f, 20}},
    /* np.where(x < 0, scale*alpha*np.expm1(x), scale*x) */
    {"Selu", {-1.75712693f, -1.61378574f, -1.36581433f, -0.691758215f, 0, 0.525350511f, 1.57605147f,
              2.62675238f, 6.82955647f, 21.014019f}},
    /* 1 / (1 + np.exp(-x)) */
    {"Sigmoid", {0.000552778656f, 0.0758581832f, 0.182425529f, 0.377540678f, 0.5f, 0.622459352f,
                 0.817574501f, 0.924141824f, 0.998498797f, 1}},
    {"Tanh", {-0.999999404f, -0.986614287f, -0.905148268f, -0.462117165f, 0, 0.462117165f, 0.905148268f,
              0.986614287f, 0.99999547f, 1}},
    /* np.log1p(np.exp(x)) */
    {"Softplus", {0.000552931451f, 0.078889735f, 0.201413274f, 0.474076986f, 0.693147182f, 0.974076986f,
                  1.70141327f, 2.57888985f, 6.50150251f, 20}},
    /* x / (1 + abs(x)) */
    {"Softsign", {-0.882352948f, -0.714285731f, -0.600000024f, -0.333333343f, 0, 0.333333343f,
                  0.600000024f, 0.714285731f, 0.866666675f, 0.952380955f}},
    {"Exp", {0.000553084363f, 0.0820849985f, 0.223130167f, 0.606530666f, 1, 1.64872122f, 4.48168898f,
             12.1824942f, 665.141663f, 485165184.0f}},
    {"Expm1", {-0.999446929f, -0.917914987f, -0.776869833f, -0.393469334f, 0, 0.648721278f, 3.48168898f,
               11.1824942f, 664.141663f, 485165184.0f}},
    {"Neg", {7.5f, 2.5f, 1.5f, 0.5f, 0, -0.5f, -1.5f, -2.5f, -6.5f, -20}},
    {"Abs", {7.5f, 2.5f, 1.5f, 0.5f, 0, 0.5f, 1.5f, 2.5f, 6.5f, 20}},
    {"Sign", {-1, -1, -1, -1, 0, 1, 1, 1, 1, 1}},
    {"Floor", {-8, -3, -2, -1, 0, 0, 1, 2, 6, 20}},
    {"Ceil", {-7, -2, -1, 0, 0, 1, 2, 3, 7, 20}},
    /* np.round: halves to even */
    {"Round", {-8, -2, -2, 0, 0, 0, 2, 2, 6, 20}},
    {"Square", {56.25f, 6.25f, 2.25f, 0.25f, 0, 0.25f, 2.25f, 6.25f, 42.25f, 400}},
    {"Reciprocal", {-0.13333334f, -0.400000006f, -0.666666687f, -2, INFINITY, 2, 0.666666687f, 0.400000006f,
                    0.15384616f, 0.0500000007f}},
    {"Inv", {-0.13333334f, -0.400000006f, -0.666666687f, -2, INFINITY, 2, 0.666666687f, 0.400000006f,
             0.15384616f, 0.0500000007f}},
    /* np.where(x > 0, x, 0.2*x): the default alpha */
    {"LeakyRelu", {-1.5f, -0.5f, -0.3f, -0.1f, 0, 0.5f, 1.5f, 2.5f, 6.5f, 20}},
};

/* numpy on positive p = [0.25, 1, 2, 10, 1e-6] */
static const float positive_x[5] = {0.25f, 1, 2, 10, 1e-6f};
static const unary_case positive_cases[] = {
    {"Log", {-1.38629436f, 0, 0.693147182f, 2.30258512f, -13.8155107f}},
    {"Log1p", {0.223143548f, 0.693147182f, 1.09861231f, 2.39789534f, 9.99999543e-07f}},
    {"Sqrt", {0.5f, 1, 1.41421354f, 3.1622777f, 0.00100000005f}},
    {"Rsqrt", {2, 1, 0.707106769f, 0.316227764f, 1000}},
};

static tfpi_tensor *run_unary(const char *op, tfpi_dtype dtype, const void *x, int64_t n, float alpha,
                              tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", dtype, &n, 1);
    Tfpi__NodeDef *node = gb_node(g, op, "out", "a", NULL);
    if (alpha != 0)
        gd_attr_set_float(node, "alpha", alpha);
    tfpi_tensor *in = op_tensor(dtype, &n, 1, x);
    tfpi_tensor *out = op_run(g, 1, &in, 1, status);
    tfpi_tensor_free(in);
    return out;
}

static void check_unary_cases(const unary_case *cases, size_t num_cases, const float *x, int n)
{
    for (size_t c = 0; c < num_cases; c++) {
        tfpi_status status;
        tfpi_tensor *out = run_unary(cases[c].op, TFPI_FLOAT, x, n, 0, &status);
        CHECK_MSG(out != NULL, "%s: %s", cases[c].op, status.message);
        for (int i = 0; out && i < n; i++) {
            float y = ((float *)tfpi_tensor_data(out))[i];
            CHECK_MSG(op_near(y, cases[c].want[i], 2e-6), "%s(%g) = %.9g, want %.9g", cases[c].op, x[i], y,
                      cases[c].want[i]);
        }
        tfpi_tensor_free(out);
    }
}

static void test_unary_float(void)
{
    check_unary_cases(unary_cases, sizeof unary_cases / sizeof *unary_cases, unary_x, 10);
    check_unary_cases(positive_cases, sizeof positive_cases / sizeof *positive_cases, positive_x, 5);
    /* alpha attr 0.1: np.where(x > 0, x, 0.1*x) */
    const float want[10] = {-0.75f, -0.25f, -0.15f, -0.05f, 0, 0.5f, 1.5f, 2.5f, 6.5f, 20};
    tfpi_status status;
    tfpi_tensor *out = run_unary("LeakyRelu", TFPI_FLOAT, unary_x, 10, 0.1f, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    for (int i = 0; out && i < 10; i++)
        CHECK(op_near(((float *)tfpi_tensor_data(out))[i], want[i], 1e-6));
    tfpi_tensor_free(out);
    /* NaN passes through Relu6, Sign, Sqrt; Sqrt(-1) and Log(0) as IEEE says */
    const float specials[3] = {NAN, -1, 0};
    tfpi_tensor *sqrt_ = run_unary("Sqrt", TFPI_FLOAT, specials, 3, 0, &status);
    tfpi_tensor *log_ = run_unary("Log", TFPI_FLOAT, specials, 3, 0, &status);
    tfpi_tensor *relu6 = run_unary("Relu6", TFPI_FLOAT, specials, 3, 0, &status);
    CHECK(sqrt_ && log_ && relu6);
    if (sqrt_ && log_ && relu6) {
        CHECK(isnan(((float *)tfpi_tensor_data(sqrt_))[1]));
        CHECK(((float *)tfpi_tensor_data(log_))[2] == -INFINITY);
        CHECK(isnan(((float *)tfpi_tensor_data(relu6))[0]));
    }
    tfpi_tensor_free(sqrt_);
    tfpi_tensor_free(log_);
    tfpi_tensor_free(relu6);
}

static void test_unary_int(void)
{
    /* numpy int32 on [-5, 0, 7, -2**31]: -x, abs(x), x*x, sign(x) (all wrap) */
    const int32_t x[4] = {-5, 0, 7, INT32_MIN};
    static const struct {
        const char *op;
        int32_t want[4];
    } cases[] = {
        {"Neg", {5, 0, -7, INT32_MIN}},
        {"Abs", {5, 0, 7, INT32_MIN}},
        {"Square", {25, 0, 49, 0}},
        {"Sign", {-1, 0, 1, -1}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tfpi_status status;
        tfpi_tensor *out = run_unary(cases[c].op, TFPI_INT32, x, 4, 0, &status);
        CHECK_MSG(out != NULL, "%s: %s", cases[c].op, status.message);
        for (int i = 0; out && i < 4; i++)
            CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[i], cases[c].want[i]);
        tfpi_tensor_free(out);
    }
    tfpi_status status;
    tfpi_tensor *out = run_unary("Exp", TFPI_INT32, x, 4, 0, &status);
    op_expect_error(out, &status, (const char *[]){"int32"}, 1);
}

/* A large input splits across threads; compare with a naive Relu6/Sigmoid. */
static void test_unary_threads(void)
{
    enum { N = 100003 };
    float *x = malloc(sizeof(float) * N);
    for (int i = 0; i < N; i++)
        x[i] = op_random(-10, 10);
    for (int threads = 1; threads <= 4; threads += 3) {
        gb_graph *g = gb_new();
        const int64_t n = N;
        gb_placeholder(g, "a", TFPI_FLOAT, &n, 1);
        gb_node(g, "Relu6", "r", "a", NULL);
        gb_node(g, "Sigmoid", "out", "r", NULL);
        tfpi_tensor *in = op_tensor(TFPI_FLOAT, &n, 1, x);
        tfpi_status status;
        tfpi_tensor *out = op_run(g, 1, &in, threads, &status);
        CHECK_MSG(out != NULL, "%s", status.message);
        int bad = 0;
        for (int i = 0; out && i < N && bad < 5; i++) {
            double r = x[i] < 0 ? 0 : x[i] > 6 ? 6 : x[i];
            double want = 1 / (1 + exp(-r));
            float got = ((float *)tfpi_tensor_data(out))[i];
            if (!op_near(got, want, 1e-6)) {
                bad++;
                CHECK_MSG(0, "element %d: %.9g, want %.9g (%d threads)", i, got, want, threads);
            }
        }
        tfpi_tensor_free(out);
        tfpi_tensor_free(in);
    }
    free(x);
}

/* ---- Cast ------------------------------------------------------------------ */

static tfpi_tensor *run_cast(tfpi_dtype src, tfpi_dtype dst, const void *x, int64_t n, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", src, &n, 1);
    Tfpi__NodeDef *node = gb_node(g, "Cast", "out", "a", NULL);
    gd_attr_set_type(node, "SrcT", src);
    gd_attr_set_type(node, "DstT", dst);
    tfpi_tensor *in = op_tensor(src, &n, 1, x);
    tfpi_tensor *out = op_run(g, 1, &in, 1, status);
    tfpi_tensor_free(in);
    return out;
}

static void test_cast(void)
{
    tfpi_status status;
    /* float -> int32: truncation toward zero (np.trunc); out of range and NaN saturate / give 0 */
    const float f[7] = {2.7f, -2.7f, 0.5f, -0.5f, 1e10f, -1e10f, NAN};
    const int32_t want_i32[7] = {2, -2, 0, 0, INT32_MAX, INT32_MIN, 0};
    tfpi_tensor *out = run_cast(TFPI_FLOAT, TFPI_INT32, f, 7, &status);
    CHECK_MSG(out != NULL, "%s", status.message);
    for (int i = 0; out && i < 7; i++)
        CHECK_EQ_INT(((int32_t *)tfpi_tensor_data(out))[i], want_i32[i]);
    tfpi_tensor_free(out);

    /* float -> uint8 saturates: [300, -1, 254.9] -> [255, 0, 254] */
    const float f8[3] = {300, -1, 254.9f};
    const uint8_t want_u8[3] = {255, 0, 254};
    out = run_cast(TFPI_FLOAT, TFPI_UINT8, f8, 3, &status);
    CHECK(out && memcmp(tfpi_tensor_data(out), want_u8, 3) == 0);
    tfpi_tensor_free(out);

    /* float -> bool: nonzero is true, NaN too */
    const float fb[4] = {0, -0.0f, 0.25f, NAN};
    const uint8_t want_b[4] = {0, 0, 1, 1};
    out = run_cast(TFPI_FLOAT, TFPI_BOOL, fb, 4, &status);
    CHECK(out && memcmp(tfpi_tensor_data(out), want_b, 4) == 0);
    tfpi_tensor_free(out);

    /* bool -> float, any nonzero byte is 1 */
    const uint8_t b[3] = {0, 1, 7};
    out = run_cast(TFPI_BOOL, TFPI_FLOAT, b, 3, &status);
    CHECK(out != NULL);
    for (int i = 0; out && i < 3; i++)
        CHECK_NEAR(((float *)tfpi_tensor_data(out))[i], i ? 1.0 : 0.0, 0);
    tfpi_tensor_free(out);

    /* int64 -> int32 wraps like np.int64(2**32 + 5).astype(np.int32) = 5; uint8 -> float; int32 -> int64 */
    const int64_t big[2] = {((int64_t)1 << 32) + 5, -3};
    out = run_cast(TFPI_INT64, TFPI_INT32, big, 2, &status);
    CHECK(out && ((int32_t *)tfpi_tensor_data(out))[0] == 5 && ((int32_t *)tfpi_tensor_data(out))[1] == -3);
    tfpi_tensor_free(out);
    const uint8_t pixels[2] = {0, 255};
    out = run_cast(TFPI_UINT8, TFPI_FLOAT, pixels, 2, &status);
    CHECK(out && ((float *)tfpi_tensor_data(out))[1] == 255.0f);
    tfpi_tensor_free(out);
    const int32_t small[2] = {-7, 9};
    out = run_cast(TFPI_INT32, TFPI_INT64, small, 2, &status);
    CHECK(out && ((int64_t *)tfpi_tensor_data(out))[0] == -7 && ((int64_t *)tfpi_tensor_data(out))[1] == 9);
    tfpi_tensor_free(out);

    out = run_cast(TFPI_FLOAT, TFPI_STRING, f, 2, &status);
    op_expect_error(out, &status, (const char *[]){"cannot cast float to string"}, 1);
}

/* ---- BiasAdd ------------------------------------------------------------- */

static void check_bias_add(const char *op, const char *format, const int64_t *dims, int channel_dim)
{
    const int64_t count = dims[0] * dims[1] * dims[2] * dims[3], channels = dims[channel_dim];
    float *x = malloc(sizeof(float) * (size_t)count), bias[8];
    for (int64_t i = 0; i < count; i++)
        x[i] = op_random(-1, 1);
    for (int64_t c = 0; c < channels; c++)
        bias[c] = op_random(-1, 1);
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_FLOAT, dims, 4);
    gb_const(g, "bias", TFPI_FLOAT, &channels, 1, bias);
    Tfpi__NodeDef *node = gb_node(g, op, "out", "a", "bias", NULL);
    if (format)
        gd_attr_set_string(node, "data_format", format);
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, dims, 4, x);
    tfpi_status status;
    tfpi_tensor *out = op_run(g, 1, &in, 2, &status);
    CHECK_MSG(out != NULL, "%s %s: %s", op, format ? format : "", status.message);
    for (int64_t i = 0; out && i < count; i++) {
        int64_t inner = 1;
        for (int d = channel_dim + 1; d < 4; d++)
            inner *= dims[d];
        double want = (double)x[i] + bias[(i / inner) % channels];
        CHECK_MSG(op_near(((float *)tfpi_tensor_data(out))[i], want, 1e-6), "%s element %lld", op, (long long)i);
    }
    tfpi_tensor_free(out);
    tfpi_tensor_free(in);
    free(x);
}

static void test_bias_add(void)
{
    const int64_t nhwc[4] = {2, 3, 4, 5}, nchw[4] = {2, 5, 3, 4};
    check_bias_add("BiasAdd", NULL, nhwc, 3);
    check_bias_add("BiasAdd", "NHWC", nhwc, 3);
    check_bias_add("BiasAdd", "NCHW", nchw, 1);
    check_bias_add("BiasAddV1", NULL, nhwc, 3);

    /* a bias that does not match the channels */
    const int64_t dims[2] = {2, 3}, four = 4;
    const float zeros[6] = {0};
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, dims, 2, zeros);
    gb_const(g, "bias", TFPI_FLOAT, &four, 1, zeros);
    gb_node(g, "BiasAdd", "out", "x", "bias", NULL);
    tfpi_status status;
    tfpi_tensor *out = op_run(g, 0, NULL, 1, &status);
    op_expect_error(out, &status, (const char *[]){"[4]", "[2,3]"}, 2);
}

int main(void)
{
    RUN(test_unary_float);
    RUN(test_unary_int);
    RUN(test_unary_threads);
    RUN(test_cast);
    RUN(test_bias_add);
    return check_summary();
}
