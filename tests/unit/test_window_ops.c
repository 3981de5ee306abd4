/* test_window_ops.c - Conv2D, DepthwiseConv2dNative, MaxPool, MaxPoolV2 and
 * AvgPool run through small graphs, checked against
 *  (a) values computed outside tfpi, hard-coded below: OpenCV DNN 4.6
 *      (cv2.dnn.readNetFromTensorflow on the same GraphDef) and an
 *      independent numpy evaluation (np.pad + np.einsum per output pixel),
 *      which agree on every one of them; the dilated case is numpy only,
 *      because OpenCV ignores TensorFlow's dilations attr;
 *  (b) a deliberately naive direct formula in this file (nested loops with
 *      a bounds check per tap, double sums) on random inputs, over SAME,
 *      VALID and EXPLICIT padding, strides, dilations, non-square windows,
 *      batch 2 and channel multipliers, with 1 and 3 threads, and with a
 *      scale, bias and activation that the plan fuses into the convolution;
 * and the errors for bad ranks, channel mismatches, NCHW and bad windows,
 * which must name the node. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "test_util.h"

typedef struct window_case {
    const char *op;     /* Conv2D, DepthwiseConv2dNative, MaxPool, MaxPoolV2, AvgPool */
    int64_t input[4];   /* NHWC */
    int64_t window[4];  /* filter [h, w, in_c, out_c or multiplier]; pooling: {h, w} */
    int64_t stride_h, stride_w;
    int64_t dilation_h, dilation_w; /* 0 means absent (1) */
    const char *padding;
    int64_t pads[4]; /* EXPLICIT: top, bottom, left, right */
} window_case;

static bool is_conv(const window_case *c) { return strcmp(c->op, "Conv2D") == 0; }
static bool is_depthwise(const window_case *c) { return strcmp(c->op, "DepthwiseConv2dNative") == 0; }
static bool has_filter(const window_case *c) { return is_conv(c) || is_depthwise(c); }
static bool is_max_pool(const window_case *c) { return strncmp(c->op, "MaxPool", 7) == 0; }

static gb_graph *build_case(const window_case *c, const float *filter)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "input", TFPI_FLOAT, c->input, 4);
    const int64_t strides[4] = {1, c->stride_h, c->stride_w, 1};
    const int64_t ksize[4] = {1, c->window[0], c->window[1], 1};
    Tfpi__NodeDef *n;
    if (has_filter(c)) {
        gb_const(g, "filter", TFPI_FLOAT, c->window, 4, filter);
        n = gb_node(g, c->op, "out", "input", "filter", NULL);
    } else if (strcmp(c->op, "MaxPoolV2") == 0) {
        const int32_t ksize32[4] = {1, (int32_t)c->window[0], (int32_t)c->window[1], 1};
        const int32_t strides32[4] = {1, (int32_t)c->stride_h, (int32_t)c->stride_w, 1};
        const int64_t four = 4;
        gb_const(g, "ksize", TFPI_INT32, &four, 1, ksize32);
        gb_const(g, "strides", TFPI_INT32, &four, 1, strides32);
        n = gb_node(g, c->op, "out", "input", "ksize", "strides", NULL);
    } else {
        n = gb_node(g, c->op, "out", "input", NULL);
        gd_attr_set_ints(n, "ksize", ksize, 4);
    }
    gd_attr_set_type(n, "T", TFPI_FLOAT);
    if (strcmp(c->op, "MaxPoolV2") != 0)
        gd_attr_set_ints(n, "strides", strides, 4);
    if (c->dilation_h) {
        const int64_t dilations[4] = {1, c->dilation_h, c->dilation_w, 1};
        gd_attr_set_ints(n, "dilations", dilations, 4);
    }
    gd_attr_set_string(n, "padding", c->padding);
    if (strcmp(c->padding, "EXPLICIT") == 0) {
        const int64_t explicit_paddings[8] = {0, 0, c->pads[0], c->pads[1], c->pads[2], c->pads[3], 0, 0};
        gd_attr_set_ints(n, "explicit_paddings", explicit_paddings, 8);
    }
    gd_attr_set_string(n, "data_format", "NHWC");
    return g;
}

static tfpi_tensor *run_case(const window_case *c, const float *input, const float *filter, int num_threads)
{
    return run_float_graph(build_case(c, filter), "input", input, c->input, 4, "out", num_threads,
                           NULL);
}

/* ---- the naive reference ------------------------------------------------ */

/* Output size and padding before along axis 0 (H) or 1 (W): SAME gives
 * ceil(in / stride) outputs padded by max((out-1)*stride + span - in, 0),
 * the smaller half first; VALID and EXPLICIT count the window positions that
 * fit in the (explicitly padded) input. */
static int64_t naive_output_size(const window_case *c, int axis, int64_t *pad_before)
{
    const int64_t in = c->input[1 + axis], stride = axis ? c->stride_w : c->stride_h;
    const int64_t dilation = c->dilation_h ? (axis ? c->dilation_w : c->dilation_h) : 1;
    const int64_t span = (c->window[axis] - 1) * dilation + 1;
    if (strcmp(c->padding, "SAME") == 0) {
        const int64_t out = (in + stride - 1) / stride, total = (out - 1) * stride + span - in;
        *pad_before = total > 0 ? total / 2 : 0;
        return out;
    }
    const bool padded = strcmp(c->padding, "EXPLICIT") == 0;
    const int64_t before = padded ? c->pads[2 * axis] : 0, after = padded ? c->pads[2 * axis + 1] : 0;
    int64_t out = 0;
    for (int64_t start = 0; start + span <= in + before + after; start += stride)
        out++;
    *pad_before = before;
    return out;
}

static float *naive_window(const window_case *c, const float *x, const float *w, int64_t out_dims[4])
{
    int64_t pad_top, pad_left;
    const int64_t N = c->input[0], H = c->input[1], W = c->input[2], C = c->input[3];
    const int64_t KH = c->window[0], KW = c->window[1];
    const int64_t OH = naive_output_size(c, 0, &pad_top), OW = naive_output_size(c, 1, &pad_left);
    const int64_t OC = is_conv(c) ? c->window[3] : is_depthwise(c) ? C * c->window[3] : C;
    const int64_t DH = c->dilation_h ? c->dilation_h : 1, DW = c->dilation_h ? c->dilation_w : 1;
    out_dims[0] = N, out_dims[1] = OH, out_dims[2] = OW, out_dims[3] = OC;
    float *out = malloc(sizeof(float) * (size_t)(N * OH * OW * OC) + 1);
    for (int64_t n = 0; n < N; n++)
        for (int64_t oy = 0; oy < OH; oy++)
            for (int64_t ox = 0; ox < OW; ox++)
                for (int64_t oc = 0; oc < OC; oc++) {
                    double acc = is_max_pool(c) ? -INFINITY : 0.0;
                    int taps = 0;
                    for (int64_t ky = 0; ky < KH; ky++)
                        for (int64_t kx = 0; kx < KW; kx++) {
                            const int64_t iy = oy * c->stride_h - pad_top + ky * DH;
                            const int64_t ix = ox * c->stride_w - pad_left + kx * DW;
                            if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                                continue;
                            const float *px = x + ((n * H + iy) * W + ix) * C;
                            taps++;
                            if (is_conv(c)) {
                                for (int64_t ic = 0; ic < C; ic++)
                                    acc += (double)px[ic] * w[((ky * KW + kx) * C + ic) * OC + oc];
                            } else if (is_depthwise(c)) {
                                const int64_t mult = c->window[3], ic = oc / mult;
                                acc += (double)px[ic] * w[((ky * KW + kx) * C + ic) * mult + oc % mult];
                            } else if (is_max_pool(c)) {
                                acc = fmax(acc, px[oc]);
                            } else {
                                acc += px[oc];
                            }
                        }
                    if (strcmp(c->op, "AvgPool") == 0)
                        acc /= taps;
                    out[((n * OH + oy) * OW + ox) * OC + oc] = (float)acc;
                }
    return out;
}

static void fill_random(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
}

static void check_output(const window_case *c, const tfpi_tensor *out, const int64_t *dims, const float *want,
                         double tol)
{
    CHECK_EQ_INT(tfpi_tensor_ndims(out), 4);
    for (int i = 0; i < 4 && tfpi_tensor_ndims(out) == 4; i++)
        CHECK_MSG(tfpi_tensor_dim(out, i) == dims[i], "%s: dim %d is %lld, want %lld", c->op, i,
                  (long long)tfpi_tensor_dim(out, i), (long long)dims[i]);
    if (tfpi_tensor_num_elements(out) != dims_product(dims, 4))
        return;
    diff_stats d = compare_floats(tfpi_tensor_const_data(out), want, (size_t)dims_product(dims, 4));
    CHECK_MSG(d.max_abs <= tol, "%s padding %s: max |diff| %g > %g", c->op, c->padding, d.max_abs, tol);
}

/* Runs a case on random data with 1 and 3 threads against the naive formula. */
static void check_against_naive(const window_case *c)
{
    const int64_t in_count = dims_product(c->input, 4);
    const int64_t filter_count = has_filter(c) ? dims_product(c->window, 4) : 0;
    float *x = malloc(sizeof(float) * (size_t)in_count);
    float *w = malloc(sizeof(float) * (size_t)filter_count + 1);
    fill_random(x, in_count);
    fill_random(w, filter_count);
    int64_t dims[4];
    float *want = naive_window(c, x, w, dims);
    for (int threads = 1; threads <= 3; threads += 2) {
        tfpi_tensor *out = run_case(c, x, w, threads);
        if (out)
            check_output(c, out, dims, want, 1e-4);
        tfpi_tensor_free(out);
    }
    free(want);
    free(x);
    free(w);
}

/* ---- hard-coded cases ----------------------------------------------------- */

/* The inputs of the hard-coded cases: exact binary fractions. In numpy:
 * input  = ((np.arange(n) * 7) % 11 - 5) * 0.25,
 * filter = ((np.arange(n) * 5) % 9 - 4) * 0.125, reshaped to NHWC / HWIO. */
static void check_fixed(const window_case *c, const int64_t *out_dims, const float *want)
{
    float x[64], w[64];
    for (int i = 0; i < dims_product(c->input, 4) && i < 64; i++)
        x[i] = (float)((i * 7) % 11 - 5) * 0.25f;
    for (int i = 0; i < 64; i++)
        w[i] = (float)((i * 5) % 9 - 4) * 0.125f;
    tfpi_tensor *out = run_case(c, x, w, 1);
    if (out)
        check_output(c, out, out_dims, want, 1e-6);
    tfpi_tensor_free(out);
}

static void test_conv2d_fixed_same_stride2(void)
{
    const window_case c = {"Conv2D", {1, 4, 5, 2}, {3, 3, 2, 3}, 2, 2, 0, 0, "SAME", {0}};
    const int64_t dims[4] = {1, 2, 3, 3};
    const float want[] = {0.125,   0.4375,  -0.09375, 0.53125, 0.125,    0.84375,
                          -0.0625, -0.03125, 0,       -0.5,    -0.0625,  -0.75,
                          0.625,   -0.53125, 0.5625,  -1.40625, 0.5625,  -1.125};
    check_fixed(&c, dims, want);
}

static void test_conv2d_fixed_dilation2(void)
{
    const window_case c = {"Conv2D", {1, 5, 4, 1}, {2, 2, 1, 2}, 1, 1, 2, 2, "SAME", {0}};
    const int64_t dims[4] = {1, 5, 4, 2};
    const float want[] = {0.09375,  -0.375,   -0.1875,  0.59375,  0.1875,   -0.28125, -0.25,    0.375,
                          -0.28125, 0.5,      1.09375,  -0.78125, -0.75,    0.03125,  0.3125,   -0.15625,
                          0.34375,  -0.4375,  -0.78125, 1.09375,  0.46875,  -0.15625, -0.8125,  0.59375,
                          -0.40625, 0.6875,   0.78125,  -0.46875, -0.03125, -0.34375, 0.125,    -0.03125,
                          0.1875,   -0.125,   -0.71875, 0.375,    0.15625,  0,        -0.625,   0.15625};
    check_fixed(&c, dims, want);
}

static void test_depthwise_fixed_multiplier2_stride2(void)
{
    const window_case c = {"DepthwiseConv2dNative", {1, 4, 5, 2}, {3, 3, 2, 2}, 2, 2, 0, 0, "SAME", {0}};
    const int64_t dims[4] = {1, 2, 3, 4};
    const float want[] = {-0.375,   -0.21875, 1.03125,  -0.5,     1.40625, -1.25,    -1,       -0.15625,
                          -0.34375, -0.3125,  0.78125,  0.5,      -0.59375, 0.84375, 0.03125,  -0.6875,
                          0.46875,  -0.09375, -0.71875, 1.21875,  -0.4375, 0.09375,  -0.125,   -0.09375};
    check_fixed(&c, dims, want);
}

static void test_avg_pool_fixed_same_edges(void)
{
    /* Edge windows average only their in-bounds taps (e.g. 6 of 9, 4 of 9). */
    const window_case c = {"AvgPool", {1, 4, 5, 2}, {3, 3}, 2, 2, 0, 0, "SAME", {0}};
    const int64_t dims[4] = {1, 2, 3, 2};
    const float want[] = {-1.0f / 3, 1.0f / 24, 1.0f / 36, 0.25, 1.0f / 12, 0,
                          -0.4375,   -0.0625,   0,         -1.0f / 12, 0.4375, 0.125};
    check_fixed(&c, dims, want);
}

static void test_max_pool_fixed_same(void)
{
    const window_case c = {"MaxPool", {1, 4, 5, 2}, {2, 2}, 2, 2, 0, 0, "SAME", {0}};
    const int64_t dims[4] = {1, 2, 3, 2};
    const float want[] = {0.5, 1.25, 1.25, 1, 0, 0.75, 0.75, 0.75, 1.25, 1.25, 1, 1};
    check_fixed(&c, dims, want);
}

/* ---- random cases against the naive formula ------------------------------ */

static void test_conv2d_against_naive(void)
{
    static const window_case cases[] = {
        {"Conv2D", {1, 7, 6, 3}, {3, 3, 3, 4}, 1, 1, 0, 0, "VALID", {0}},
        {"Conv2D", {2, 9, 8, 3}, {3, 3, 3, 5}, 2, 2, 0, 0, "SAME", {0}},       /* batch 2, stride 2 */
        {"Conv2D", {1, 6, 7, 2}, {3, 2, 2, 3}, 2, 1, 0, 0, "SAME", {0}},       /* non-square */
        {"Conv2D", {1, 9, 9, 2}, {3, 3, 2, 3}, 1, 1, 2, 2, "SAME", {0}},       /* dilation 2 */
        {"Conv2D", {1, 10, 9, 2}, {2, 3, 2, 2}, 1, 2, 2, 3, "VALID", {0}},     /* mixed dilations */
        {"Conv2D", {1, 6, 5, 3}, {3, 3, 3, 4}, 2, 2, 0, 0, "EXPLICIT", {1, 2, 0, 3}},
        {"Conv2D", {1, 5, 5, 16}, {1, 1, 16, 24}, 1, 1, 0, 0, "VALID", {0}},   /* pointwise */
        {"Conv2D", {2, 17, 19, 8}, {3, 3, 8, 16}, 1, 1, 0, 0, "SAME", {0}},    /* many rows */
        {"Conv2D", {1, 8, 8, 2}, {5, 5, 2, 2}, 3, 3, 0, 0, "SAME", {0}},       /* stride 3 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_against_naive(&cases[i]);
}

static void test_depthwise_against_naive(void)
{
    static const window_case cases[] = {
        {"DepthwiseConv2dNative", {1, 7, 7, 8}, {3, 3, 8, 1}, 1, 1, 0, 0, "SAME", {0}},
        {"DepthwiseConv2dNative", {2, 8, 9, 3}, {3, 3, 3, 2}, 2, 2, 0, 0, "SAME", {0}}, /* multiplier 2 */
        {"DepthwiseConv2dNative", {1, 9, 8, 2}, {3, 2, 2, 3}, 1, 1, 2, 2, "VALID", {0}},
        {"DepthwiseConv2dNative", {1, 6, 6, 4}, {3, 3, 4, 1}, 2, 2, 0, 0, "EXPLICIT", {2, 1, 1, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_against_naive(&cases[i]);
}

static void test_pooling_against_naive(void)
{
    static const window_case cases[] = {
        {"MaxPool", {1, 8, 8, 3}, {2, 2}, 2, 2, 0, 0, "VALID", {0}},
        {"MaxPool", {2, 7, 9, 4}, {3, 3}, 2, 2, 0, 0, "SAME", {0}},
        {"MaxPool", {1, 6, 7, 2}, {3, 2}, 1, 2, 0, 0, "EXPLICIT", {1, 1, 0, 1}},
        {"MaxPoolV2", {1, 7, 6, 3}, {3, 3}, 2, 2, 0, 0, "SAME", {0}},
        {"AvgPool", {2, 7, 9, 4}, {3, 3}, 2, 2, 0, 0, "SAME", {0}},
        {"AvgPool", {1, 6, 9, 2}, {2, 3}, 1, 2, 0, 0, "VALID", {0}},
        {"AvgPool", {1, 7, 7, 5}, {7, 7}, 1, 1, 0, 0, "VALID", {0}}, /* global, as in MobileNet */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_against_naive(&cases[i]);
}

/* ---- fused scale, bias and activation ------------------------------------ */

/* A convolution followed by Mul, Add or Sub by constants and an activation,
 * which the plan fuses into the convolution: the result must equal the
 * naive convolution followed by the same float operations, and only the
 * convolution may run. */
static void check_fused(const window_case *c, bool scalar_scale, const char *bias_op, const char *activation)
{
    const int64_t in_count = dims_product(c->input, 4), filter_count = dims_product(c->window, 4);
    float *x = malloc(sizeof(float) * (size_t)in_count), *w = malloc(sizeof(float) * (size_t)filter_count);
    fill_random(x, in_count);
    fill_random(w, filter_count);
    int64_t dims[4];
    float *want = naive_window(c, x, w, dims);
    const int64_t channels = dims[3], scale_dims[1] = {scalar_scale ? 1 : channels};
    float scale[64], bias[64];
    for (int64_t ch = 0; ch < channels && ch < 64; ch++) {
        scale[ch] = 0.5f + 1.5f * (float)ch;
        bias[ch] = 0.25f * (float)ch - 1.0f;
    }
    for (int64_t i = 0; i < dims_product(dims, 4); i++) {
        const int64_t ch = i % channels;
        float y = want[i] * scale[scalar_scale ? 0 : ch];
        y = strcmp(bias_op, "Sub") == 0 ? y - bias[ch] : y + bias[ch];
        y = y < 0 ? 0.0f : y;
        want[i] = strcmp(activation, "Relu6") == 0 && y > 6 ? 6.0f : y;
    }
    gb_graph *g = build_case(c, w);
    gb_const(g, "scale", TFPI_FLOAT, scale_dims, 1, scale);
    gb_const(g, "bias", TFPI_FLOAT, &channels, 1, bias);
    gb_node(g, "Mul", "scaled", "out", "scale", NULL);
    gb_node(g, bias_op, "shifted", "scaled", "bias", NULL);
    gb_node(g, activation, "activated", "shifted", NULL);
    int steps = 0;
    tfpi_tensor *out = run_float_graph(g, "input", x, c->input, 4, "activated", 2, &steps);
    if (out)
        check_output(c, out, dims, want, 1e-4);
    CHECK_MSG(steps == 1, "%s: %d nodes ran; Mul, %s and %s should be fused into it", c->op, steps, bias_op,
              activation);
    tfpi_tensor_free(out);
    free(want);
    free(x);
    free(w);
}

static void test_fused_scale_bias_activation(void)
{
    const window_case conv = {"Conv2D", {2, 7, 6, 3}, {3, 3, 3, 5}, 2, 2, 0, 0, "SAME", {0}};
    check_fused(&conv, false, "Add", "Relu6");
    const window_case depthwise = {"DepthwiseConv2dNative", {1, 6, 7, 4}, {3, 3, 4, 2}, 1, 1, 0, 0, "SAME",
                                   {0}};
    check_fused(&depthwise, true, "Sub", "Relu");
    check_fused(&depthwise, false, "BiasAdd", "Relu6");
}

/* ---- errors --------------------------------------------------------------- */

/* Runs a graph whose node "op_under_test" must fail planning with `code`,
 * and checks that the message names the node and contains `detail`. */
static void check_error(gb_graph *g, const int64_t *in_dims, int in_ndims, tfpi_code code, const char *detail)
{
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    gb_free(g);
    CHECK_MSG(graph, "load: %s", status.message);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    tfpi_tensor *in = tfpi_tensor_new(TFPI_FLOAT, in_dims, in_ndims, &status), *out = NULL;
    const char *feed = "input", *fetch = "op_under_test";
    CHECK_MSG(session && in, "setup: %s", status.message);
    if (session && in) {
        CHECK_EQ_INT(tfpi_session_run(session, &feed, &in, 1, &fetch, &out, 1, &status), code);
        CHECK_MSG(strstr(status.message, "'op_under_test'") && strstr(status.message, detail),
                  "message \"%s\" should name 'op_under_test' and say \"%s\"", status.message, detail);
    }
    tfpi_tensor_free(out);
    tfpi_tensor_free(in);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

/* input -> op "op_under_test", reading a zero filter if filter_dims is not
 * NULL; the caller adds the attributes. */
static Tfpi__NodeDef *error_graph(gb_graph *g, const char *op, const int64_t *in_dims, int in_ndims,
                                  const int64_t *filter_dims)
{
    static const float zeros[256];
    gb_placeholder(g, "input", TFPI_FLOAT, in_dims, in_ndims);
    if (!filter_dims)
        return gb_node(g, op, "op_under_test", "input", NULL);
    gb_const(g, "filter", TFPI_FLOAT, filter_dims, 4, zeros);
    return gb_node(g, op, "op_under_test", "input", "filter", NULL);
}

static const int64_t ones4[4] = {1, 1, 1, 1};

static void test_conv_errors(void)
{
    const int64_t in4[4] = {1, 5, 5, 3}, in3[3] = {5, 5, 3}, small[4] = {1, 2, 2, 3};
    const int64_t f_in2[4] = {3, 3, 2, 2}, f_in3[4] = {3, 3, 3, 1}, f_big[4] = {5, 5, 3, 1};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = error_graph(g, "Conv2D", in3, 3, f_in3);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "SAME");
    check_error(g, in3, 3, TFPI_INVALID_ARGUMENT, "input (input 0) must be 4-D");

    n = error_graph(g = gb_new(), "Conv2D", in4, 4, f_in2);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "SAME");
    check_error(g, in4, 4, TFPI_INVALID_ARGUMENT, "the input has 3 channels but the filter expects 2");

    n = error_graph(g = gb_new(), "DepthwiseConv2dNative", in4, 4, f_in2);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "SAME");
    check_error(g, in4, 4, TFPI_INVALID_ARGUMENT, "the input has 3 channels but the filter expects 2");

    n = error_graph(g = gb_new(), "Conv2D", in4, 4, f_in3);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "SAME");
    gd_attr_set_string(n, "data_format", "NCHW");
    check_error(g, in4, 4, TFPI_UNIMPLEMENTED, "data_format 'NCHW' is not supported");

    n = error_graph(g = gb_new(), "Conv2D", small, 4, f_big);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "VALID");
    check_error(g, small, 4, TFPI_INVALID_ARGUMENT, "output size would be negative");

    n = error_graph(g = gb_new(), "Conv2D", in4, 4, f_in3);
    gd_attr_set_string(n, "padding", "SAME");
    check_error(g, in4, 4, TFPI_INVALID_ARGUMENT, "missing attr 'strides'");
}

static void test_window_attr_errors(void)
{
    const int64_t in4[4] = {1, 5, 5, 3}, f_in3[4] = {3, 3, 3, 1};
    const int64_t batch_stride[4] = {2, 1, 1, 1}, depth_ksize[4] = {1, 2, 2, 2}, short_pads[4] = {0, 0, 1, 1};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = error_graph(g, "Conv2D", in4, 4, f_in3);
    gd_attr_set_ints(n, "strides", batch_stride, 4);
    gd_attr_set_string(n, "padding", "SAME");
    check_error(g, in4, 4, TFPI_UNIMPLEMENTED, "strides other than 1 in the batch and depth");

    n = error_graph(g = gb_new(), "Conv2D", in4, 4, f_in3);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "FULL");
    check_error(g, in4, 4, TFPI_INVALID_ARGUMENT, "padding 'FULL' is not supported");

    n = error_graph(g = gb_new(), "Conv2D", in4, 4, f_in3);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "EXPLICIT");
    gd_attr_set_ints(n, "explicit_paddings", short_pads, 4);
    check_error(g, in4, 4, TFPI_INVALID_ARGUMENT, "needs 8 explicit_paddings");

    n = error_graph(g = gb_new(), "MaxPool", in4, 4, NULL);
    gd_attr_set_ints(n, "ksize", depth_ksize, 4);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "VALID");
    check_error(g, in4, 4, TFPI_UNIMPLEMENTED, "ksize other than 1 in the batch and depth");

    n = error_graph(g = gb_new(), "AvgPool", in4, 4, NULL);
    gd_attr_set_ints(n, "ksize", ones4, 4);
    gd_attr_set_ints(n, "strides", ones4, 4);
    gd_attr_set_string(n, "padding", "EXPLICIT");
    check_error(g, in4, 4, TFPI_INVALID_ARGUMENT, "padding 'EXPLICIT' is not supported");

    g = gb_new();
    const float float_ksize[4] = {1, 2, 2, 1};
    const int64_t four = 4;
    gb_placeholder(g, "input", TFPI_FLOAT, in4, 4);
    gb_const(g, "ksize", TFPI_FLOAT, &four, 1, float_ksize);
    n = gb_node(g, "MaxPoolV2", "op_under_test", "input", "ksize", "ksize", NULL);
    gd_attr_set_string(n, "padding", "VALID");
    check_error(g, in4, 4, TFPI_UNIMPLEMENTED, "input 1 is float");
}

int main(void)
{
    srand(12345);
    RUN(test_conv2d_fixed_same_stride2);
    RUN(test_conv2d_fixed_dilation2);
    RUN(test_depthwise_fixed_multiplier2_stride2);
    RUN(test_avg_pool_fixed_same_edges);
    RUN(test_max_pool_fixed_same);
    RUN(test_conv2d_against_naive);
    RUN(test_depthwise_against_naive);
    RUN(test_pooling_against_naive);
    RUN(test_fused_scale_bias_activation);
    RUN(test_conv_errors);
    RUN(test_window_attr_errors);
    return check_summary();
}
