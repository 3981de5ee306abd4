/* test_batch_norm_lrn.c - FusedBatchNorm (V2, V3),
 * BatchNormWithGlobalNormalization and LRN through small graphs, against
 *  (a) numpy results hard-coded below, computed with
 *        y = (x - mean) / np.sqrt(var + eps) * scale + offset
 *      (training: mean and var = x.reshape(-1, C).mean(0) / .var(0)) and
 *        y[..., c] = x[..., c] / (bias + alpha * (x**2)[..., c-r:c+r+1].sum(-1)) ** beta;
 *  (b) the same formulas written naively here in double, on random inputs,
 *      over NHWC and NCHW, constant and fed operands, 1 and 3 threads;
 * plus the statistics outputs and errors that must name the node. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"
#include "test_util.h"

/* ---- graphs with float feeds ------------------------------------------------ */

typedef struct float_feed {
    const char *name;
    const float *data;
    const int64_t *dims;
    int ndims;
} float_feed;

/* Loads g (and frees it), runs it with the feeds on `threads` threads and
 * fetches n tensors; TFPI_OK or the error in status. */
static tfpi_code run_graph(gb_graph *g, const float_feed *feeds, int num_feeds, const char *const *fetches,
                           int n, tfpi_tensor **out, int threads, tfpi_status *status)
{
    tfpi_tensor *tensors[4];
    const char *names[4];
    for (int i = 0; i < num_feeds; i++) {
        names[i] = feeds[i].name;
        tensors[i] = op_tensor(TFPI_FLOAT, feeds[i].dims, feeds[i].ndims, feeds[i].data);
    }
    tfpi_code code = op_run_graph(g, num_feeds, names, tensors, n, fetches, out, threads, status);
    for (int i = 0; i < num_feeds; i++)
        tfpi_tensor_free(tensors[i]);
    gb_free(g);
    return code;
}

static void check_values(const tfpi_tensor *t, const double *want, int64_t count, double rel_tol,
                         const char *what)
{
    CHECK_MSG(t && tfpi_tensor_num_elements(t) == count, "%s: wrong size", what);
    if (!t || tfpi_tensor_num_elements(t) != count)
        return;
    const float *got = tfpi_tensor_const_data(t);
    int bad = 0;
    for (int64_t i = 0; i < count; i++)
        if (!(fabs(got[i] - want[i]) <= rel_tol * (1 + fabs(want[i]))) && bad++ < 3)
            CHECK_MSG(0, "%s[%lld]: %.9g, want %.9g", what, (long long)i, got[i], want[i]);
}

/* Deterministic values in [lo, hi). */
static void fill_random(float *x, int64_t n, unsigned *seed, float lo, float hi)
{
    for (int64_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        x[i] = lo + (hi - lo) * (float)((*seed >> 8) & 0xffff) / 65536.0f;
    }
}

/* ---- FusedBatchNorm: numpy values -------------------------------------------- */

static const float bn_x[12] = {0.5f, -1.0f, 2.0f, 3.0f, 0.25f, -0.75f, -2.0f, 1.5f, 0.0f, 1.0f, 1.0f, 1.0f};
static const float bn_scale[3] = {1.5f, 0.5f, -2.0f}, bn_offset[3] = {0.1f, -0.2f, 0.3f};
static const float bn_mean[3] = {0.5f, 0.25f, -0.5f}, bn_variance[3] = {4.0f, 0.5f, 1.0f};
static const int64_t bn_x_dims[4] = {1, 2, 2, 3}, channels3[1] = {3}, empty[1] = {0};

/* x fed [1,2,2,3]; operands Const; outputs "bn", "bn:1".."bn:5". Training
 * without running averages (average_factor 1) gets empty mean and variance. */
static gb_graph *small_fused_graph(const char *op, bool training, float average_factor)
{
    const int64_t *running = training && average_factor == 1.0f ? empty : channels3;
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, bn_x_dims, 4);
    gb_const(g, "scale", TFPI_FLOAT, channels3, 1, bn_scale);
    gb_const(g, "offset", TFPI_FLOAT, channels3, 1, bn_offset);
    gb_const(g, "mean", TFPI_FLOAT, running, 1, bn_mean);
    gb_const(g, "variance", TFPI_FLOAT, running, 1, bn_variance);
    Tfpi__NodeDef *n = gb_node(g, op, "bn", "x", "scale", "offset", "mean", "variance", NULL);
    gd_attr_set_float(n, "epsilon", 0.001f);
    gd_attr_set_bool(n, "is_training", training);
    gd_attr_set_string(n, "data_format", "NHWC");
    if (average_factor != 1.0f)
        gd_attr_set_float(n, "exponential_avg_factor", average_factor);
    return g;
}

static void test_fused_batch_norm_numpy(void)
{
    static const double want_y[12] = {0.100000001,  -1.08300102, -4.69750166, 1.97476578,
                                      -0.200000003, 0.799750209, -1.77476573, 0.683000982,
                                      -0.699500382, 0.474953145, 0.329800606, -2.69850135};
    const double mean[3] = {0.5, 0.25, -0.5}, variance[3] = {4, 0.5, 1};
    const char *fetches[6] = {"bn", "bn:1", "bn:2", "bn:3", "bn:4", "bn:5"};
    const char *ops[3] = {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"};
    for (int op = 0; op < 3; op++) {
        tfpi_tensor *out[6] = {NULL};
        tfpi_status status;
        const float_feed feed = {"x", bn_x, bn_x_dims, 4};
        const int n = op == 2 ? 6 : 5;
        tfpi_code code =
            run_graph(small_fused_graph(ops[op], false, 1.0f), &feed, 1, fetches, n, out, 1, &status);
        CHECK_MSG(code == TFPI_OK, "%s: %s", ops[op], status.message);
        if (code == TFPI_OK) {
            check_values(out[0], want_y, 12, 1e-6, "y");
            check_values(out[1], mean, 3, 0, "batch_mean");
            check_values(out[2], variance, 3, 0, "batch_variance");
            check_values(out[3], mean, 3, 0, "reserve_space_1");
            check_values(out[4], variance, 3, 0, "reserve_space_2");
            if (op == 2)
                CHECK(tfpi_tensor_ndims(out[5]) == 1 && tfpi_tensor_dim(out[5], 0) == 0);
        }
        for (int i = 0; i < 6; i++)
            tfpi_tensor_free(out[i]);
    }
}

static void test_fused_batch_norm_training_numpy(void)
{
    static const double want_y[12] = {-0.00526276976, -0.962851763, -2.47261405,  2.09999251,
                                      -0.299502403,   2.83151722,   -2.11051846,  0.363846958,
                                      1.38493586,     0.415788323,  0.0985072106, -0.543839037};
    const double mean[3] = {0.625, 0.4375, 0.5625}, biased[3] = {3.171875, 0.88671875, 1.0742188};
    const double unbiased[3] = {4.2291665, 1.1822916, 1.4322916};
    const char *fetches[5] = {"bn", "bn:1", "bn:2", "bn:3", "bn:4"};
    tfpi_tensor *out[5] = {NULL};
    tfpi_status status;
    const float_feed feed = {"x", bn_x, bn_x_dims, 4};
    tfpi_code code =
        run_graph(small_fused_graph("FusedBatchNormV3", true, 1.0f), &feed, 1, fetches, 5, out, 1, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    if (code == TFPI_OK) {
        check_values(out[0], want_y, 12, 2e-6, "y");
        check_values(out[1], mean, 3, 1e-6, "batch_mean");
        check_values(out[2], unbiased, 3, 1e-6, "batch_variance");
        check_values(out[3], mean, 3, 1e-6, "reserve_space_1");
        check_values(out[4], biased, 3, 1e-6, "reserve_space_2");
    }
    for (int i = 0; i < 5; i++)
        tfpi_tensor_free(out[i]);
}

/* ---- batch norms on random data against a naive formula ----------------- */

enum { RN = 2, RH = 32, RW = 32, RC = 8, RCOUNT = RN * RH * RW * RC };

typedef struct bn_case {
    const char *op;
    bool nchw, fed_operands, scale_after; /* scale_after: BatchNormWithGlobalNormalization */
} bn_case;

static void naive_batch_norm(const bn_case *c, const float *x, const float *scale, const float *offset,
                             const float *mean, const float *variance, float epsilon, double *y)
{
    for (int64_t i = 0; i < RCOUNT; i++) {
        const int64_t ch = c->nchw ? i / (RH * RW) % RC : i % RC;
        const bool scaled = strcmp(c->op, "BatchNormWithGlobalNormalization") != 0 || c->scale_after;
        y[i] = (x[i] - (double)mean[ch]) / sqrt((double)variance[ch] + epsilon) * (scaled ? scale[ch] : 1.0) +
               offset[ch];
    }
}

static void test_batch_norm_random(void)
{
    static const bn_case cases[] = {
        {"FusedBatchNorm", false, false, false},
        {"FusedBatchNormV2", true, false, false},
        {"FusedBatchNormV3", false, true, false},
        {"FusedBatchNormV3", true, true, false},
        {"BatchNormWithGlobalNormalization", false, false, true},
        {"BatchNormWithGlobalNormalization", false, true, false},
    };
    static float x[RCOUNT];
    static double want[RCOUNT];
    float scale[RC], offset[RC], mean[RC], variance[RC];
    unsigned seed = 7;
    fill_random(x, RCOUNT, &seed, -3, 3);
    fill_random(scale, RC, &seed, -2, 2);
    fill_random(offset, RC, &seed, -1, 1);
    fill_random(mean, RC, &seed, -1, 1);
    fill_random(variance, RC, &seed, 0.1f, 3);
    const int64_t nhwc[4] = {RN, RH, RW, RC}, nchw[4] = {RN, RC, RH, RW}, vector[1] = {RC};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bn_case *c = &cases[k];
        const bool global = strcmp(c->op, "BatchNormWithGlobalNormalization") == 0;
        naive_batch_norm(c, x, scale, offset, mean, variance, 0.01f, want);
        for (int threads = 1; threads <= 3; threads += 2) {
            gb_graph *g = gb_new();
            gb_placeholder(g, "x", TFPI_FLOAT, c->nchw ? nchw : nhwc, 4);
            gb_const(g, "scale", TFPI_FLOAT, vector, 1, scale);
            gb_const(g, "offset", TFPI_FLOAT, vector, 1, offset);
            gb_const(g, "variance", TFPI_FLOAT, vector, 1, variance);
            if (c->fed_operands)
                gb_placeholder(g, "mean", TFPI_FLOAT, vector, 1);
            else
                gb_const(g, "mean", TFPI_FLOAT, vector, 1, mean);
            Tfpi__NodeDef *n =
                global ? gb_node(g, c->op, "bn", "x", "mean", "variance", "offset", "scale", NULL)
                       : gb_node(g, c->op, "bn", "x", "scale", "offset", "mean", "variance", NULL);
            gd_attr_set_float(n, global ? "variance_epsilon" : "epsilon", 0.01f);
            gd_attr_set_bool(n, global ? "scale_after_normalization" : "is_training", c->scale_after);
            if (c->nchw)
                gd_attr_set_string(n, "data_format", "NCHW");
            const float_feed feeds[2] = {{"x", x, c->nchw ? nchw : nhwc, 4}, {"mean", mean, vector, 1}};
            const char *fetch = "bn";
            tfpi_tensor *out = NULL;
            tfpi_status status;
            tfpi_code code = run_graph(g, feeds, c->fed_operands ? 2 : 1, &fetch, 1, &out, threads, &status);
            CHECK_MSG(code == TFPI_OK, "%s: %s", c->op, status.message);
            check_values(out, want, RCOUNT, 2e-6, c->op);
            tfpi_tensor_free(out);
        }
    }
}

/* Training with running averages: outputs 1 and 2 mix the inputs in. */
static void test_exponential_avg_factor(void)
{
    gb_graph *g = small_fused_graph("FusedBatchNormV3", true, 0.25f);
    const char *fetches[2] = {"bn:1", "bn:2"};
    tfpi_tensor *out[2] = {NULL, NULL};
    tfpi_status status;
    const float_feed feed = {"x", bn_x, bn_x_dims, 4};
    tfpi_code code = run_graph(g, &feed, 1, fetches, 2, out, 1, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    /* 0.75 * running + 0.25 * batch (batch variance unbiased, see the numpy values above) */
    const double batch_mean[3] = {0.625, 0.4375, 0.5625}, unbiased[3] = {4.2291665, 1.1822916, 1.4322916};
    double want_mean[3], want_variance[3];
    for (int c = 0; c < 3; c++) {
        want_mean[c] = 0.75 * bn_mean[c] + 0.25 * batch_mean[c];
        want_variance[c] = 0.75 * bn_variance[c] + 0.25 * unbiased[c];
    }
    if (code == TFPI_OK) {
        check_values(out[0], want_mean, 3, 1e-6, "running mean");
        check_values(out[1], want_variance, 3, 1e-6, "running variance");
    }
    tfpi_tensor_free(out[0]);
    tfpi_tensor_free(out[1]);
}

/* Running `g` with x = bn_x (of shape dims) must fail naming `node` and saying `phrase`. */
static void expect_error(gb_graph *g, const int64_t *dims, int ndims, const char *node, const char *phrase)
{
    const float_feed feed = {"x", bn_x, dims, ndims};
    const char *fetch = "out";
    tfpi_tensor *out = NULL;
    tfpi_status status;
    tfpi_code code = run_graph(g, &feed, 1, &fetch, 1, &out, 1, &status);
    CHECK_MSG(code != TFPI_OK && strstr(status.message, node) && strstr(status.message, phrase),
              "expected '%s ... %s', got '%s'", node, phrase, code == TFPI_OK ? "success" : status.message);
    tfpi_tensor_free(out);
}

static void test_batch_norm_errors(void)
{
    const int64_t two[1] = {2};
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, bn_x_dims, 4);
    gb_const(g, "c3", TFPI_FLOAT, channels3, 1, bn_scale);
    gb_const(g, "c2", TFPI_FLOAT, two, 1, bn_scale);
    gd_attr_set_bool(gb_node(g, "FusedBatchNorm", "out", "x", "c3", "c2", "c3", "c3", NULL), "is_training", 0);
    expect_error(g, bn_x_dims, 4, "node 'out' (FusedBatchNorm)", "input 2 must be a vector of 3");

    const int64_t flat[3] = {1, 4, 3};
    g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, flat, 3);
    gb_const(g, "c3", TFPI_FLOAT, channels3, 1, bn_scale);
    gd_attr_set_string(gb_node(g, "FusedBatchNormV3", "out", "x", "c3", "c3", "c3", "c3", NULL), "data_format",
                   "NCHW");
    expect_error(g, flat, 3, "node 'out' (FusedBatchNormV3)", "does not fit data_format 'NCHW'");

    g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, flat, 3);
    gb_const(g, "c3", TFPI_FLOAT, channels3, 1, bn_scale);
    gb_node(g, "BatchNormWithGlobalNormalization", "out", "x", "c3", "c3", "c3", "c3", NULL);
    expect_error(g, flat, 3, "node 'out' (BatchNormWithGlobalNormalization)", "must be 4-D");
}

/* ---- LRN -------------------------------------------------------------------- */

static gb_graph *lrn_graph(const int64_t *dims, int64_t radius, float bias, float alpha, float beta)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, dims, 4);
    Tfpi__NodeDef *n = gb_node(g, "LRN", "out", "x", NULL);
    gd_attr_set_int(n, "depth_radius", radius);
    gd_attr_set_float(n, "bias", bias);
    gd_attr_set_float(n, "alpha", alpha);
    gd_attr_set_float(n, "beta", beta);
    return g;
}

static void test_lrn_numpy(void)
{
    static const float x[12] = {1.0f,  -2.0f, 0.5f,  3.0f,  -1.5f, 2.5f,
                                0.25f, 0.75f, -0.5f, 1.25f, 2.0f,  -3.0f};
    static const double want[12] = {0.380643994,  -0.415587515, 0.0942678675, 0.468971074,
                                    -0.269270271, 0.453092128,  0.190429434,  0.412553221,
                                    -0.169856504, 0.247023866,  0.405114979,  -0.614538848};
    const int64_t dims[4] = {1, 1, 2, 6};
    const float_feed feed = {"x", x, dims, 4};
    const char *fetch = "out";
    tfpi_tensor *out = NULL;
    tfpi_status status;
    tfpi_code code = run_graph(lrn_graph(dims, 2, 1.0f, 0.5f, 0.75f), &feed, 1, &fetch, 1, &out, 1, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    check_values(out, want, 12, 1e-6, "LRN");
    tfpi_tensor_free(out);
}

static void test_lrn_random(void)
{
    enum { N = 2, H = 5, W = 5, C = 16, COUNT = N * H * W * C };
    static float x[COUNT];
    static double want[COUNT];
    unsigned seed = 11;
    fill_random(x, COUNT, &seed, -4, 4);
    const int64_t dims[4] = {N, H, W, C};
    const int64_t radii[3] = {0, 2, 20};
    const float betas[3] = {0.5f, 1.0f, 0.75f};
    for (int r = 0; r < 3; r++) {
        for (int b = 0; b < 3; b++) {
            for (int64_t i = 0; i < COUNT; i++) {
                const int64_t c = i % C;
                double sum = 0;
                for (int64_t k = c - radii[r]; k <= c + radii[r]; k++)
                    if (k >= 0 && k < C)
                        sum += (double)x[i - c + k] * x[i - c + k];
                want[i] = x[i] / pow(2.0 + 0.1 * sum, betas[b]);
            }
            const int threads = 1 + 2 * (b % 2);
            const float_feed feed = {"x", x, dims, 4};
            const char *fetch = "out";
            tfpi_tensor *out = NULL;
            tfpi_status status;
            tfpi_code code = run_graph(lrn_graph(dims, radii[r], 2.0f, 0.1f, betas[b]), &feed, 1, &fetch, 1,
                                       &out, threads, &status);
            CHECK_MSG(code == TFPI_OK, "%s", status.message);
            check_values(out, want, COUNT, 2e-6, "LRN");
            tfpi_tensor_free(out);
        }
    }
}

static void test_lrn_errors(void)
{
    const int64_t flat[3] = {1, 4, 3}, dims[4] = {1, 2, 2, 3};
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, flat, 3);
    gb_node(g, "LRN", "out", "x", NULL);
    expect_error(g, flat, 3, "node 'out' (LRN)", "must be 4-D");
    expect_error(lrn_graph(dims, -1, 1, 1, 0.5f), dims, 4, "node 'out' (LRN)", "depth_radius");
}

int main(void)
{
    RUN(test_fused_batch_norm_numpy);
    RUN(test_fused_batch_norm_training_numpy);
    RUN(test_batch_norm_random);
    RUN(test_exponential_avg_factor);
    RUN(test_batch_norm_errors);
    RUN(test_lrn_numpy);
    RUN(test_lrn_random);
    RUN(test_lrn_errors);
    return check_summary();
}
