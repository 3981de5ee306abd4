/* test_conv2d_transpose.c - Conv2DBackpropInput (transposed convolution)
 * against the scatter formulation: every out_backprop value, times every
 * filter tap, is added to the input pixel the forward convolution read
 * through that tap:
 *  (a) two cases computed by numpy (a padded buffer accumulating
 *      np.einsum('no,io->ni', dy[:, oy, ox], w[ky, kx]) at
 *      (oy * stride + ky * dilation, ox * stride + kx * dilation), cropped
 *      by the padding), hard-coded below;
 *  (b) the same scatter written naively here on random inputs over SAME,
 *      VALID and EXPLICIT padding, strides, dilations, batch 2, 2- and
 *      4-value input_sizes, int32 and int64, 1 and 3 threads;
 * and errors (shape mismatch, NCHW, bad or unknown input_sizes) that name
 * the node. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"
#include "test_util.h"

typedef struct transpose_case {
    int64_t input[4];  /* input_sizes: N, H, W, C */
    int64_t filter[4]; /* fh, fw, C, out_c */
    int64_t stride_h, stride_w, dilation_h, dilation_w;
    const char *padding;
    int64_t pads[4]; /* EXPLICIT: top, bottom, left, right */
    int sizes_count; /* 4, or 2 for [H, W] */
    tfpi_dtype sizes_type;
} transpose_case;

/* The forward Conv2D's output size and padding before, along one axis. */
static int64_t forward_size(const transpose_case *c, int axis, int64_t *pad_before)
{
    const int64_t in = c->input[1 + axis], stride = axis ? c->stride_w : c->stride_h;
    const int64_t span = (c->filter[axis] - 1) * (axis ? c->dilation_w : c->dilation_h) + 1;
    if (strcmp(c->padding, "SAME") == 0) {
        const int64_t out = (in + stride - 1) / stride, total = (out - 1) * stride + span - in;
        *pad_before = total > 0 ? total / 2 : 0;
        return out;
    }
    const bool explicit_padding = strcmp(c->padding, "EXPLICIT") == 0;
    *pad_before = explicit_padding ? c->pads[2 * axis] : 0;
    const int64_t padded = in + (explicit_padding ? c->pads[2 * axis] + c->pads[2 * axis + 1] : 0);
    return (padded - span) / stride + 1;
}

static void grad_dims(const transpose_case *c, int64_t *dims)
{
    int64_t pad;
    dims[0] = c->input[0];
    dims[1] = forward_size(c, 0, &pad);
    dims[2] = forward_size(c, 1, &pad);
    dims[3] = c->filter[3];
}

static int64_t count_of(const int64_t *dims)
{
    return dims[0] * dims[1] * dims[2] * dims[3];
}

/* out[n, oy*s - pad + ky*d, ox*s - pad + kx*d, ic] += grad[n, oy, ox, oc] * filter[ky, kx, ic, oc] */
static void naive_scatter(const transpose_case *c, const float *grad, const float *filter, double *out)
{
    int64_t g[4], pad_top, pad_left;
    grad_dims(c, g);
    forward_size(c, 0, &pad_top);
    forward_size(c, 1, &pad_left);
    const int64_t H = c->input[1], W = c->input[2], C = c->input[3], OC = c->filter[3];
    memset(out, 0, (size_t)count_of(c->input) * sizeof *out);
    for (int64_t n = 0; n < g[0]; n++)
        for (int64_t oy = 0; oy < g[1]; oy++)
            for (int64_t ox = 0; ox < g[2]; ox++)
                for (int64_t ky = 0; ky < c->filter[0]; ky++)
                    for (int64_t kx = 0; kx < c->filter[1]; kx++) {
                        const int64_t iy = oy * c->stride_h - pad_top + ky * c->dilation_h;
                        const int64_t ix = ox * c->stride_w - pad_left + kx * c->dilation_w;
                        if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                            continue;
                        for (int64_t ic = 0; ic < C; ic++)
                            for (int64_t oc = 0; oc < OC; oc++)
                                out[((n * H + iy) * W + ix) * C + ic] +=
                                    (double)grad[((n * g[1] + oy) * g[2] + ox) * OC + oc] *
                                    filter[((ky * c->filter[1] + kx) * C + ic) * OC + oc];
                    }
}

/* input_sizes Const, filter Const, out_backprop fed as "grad". */
static gb_graph *build(const transpose_case *c, const float *filter, const char *data_format)
{
    gb_graph *g = gb_new();
    const int64_t sizes_dims[1] = {c->sizes_count};
    const int64_t *sizes = c->sizes_count == 4 ? c->input : c->input + 1;
    if (c->sizes_type == TFPI_INT64) {
        gb_const(g, "sizes", TFPI_INT64, sizes_dims, 1, sizes);
    } else {
        int32_t sizes32[4];
        for (int i = 0; i < c->sizes_count; i++)
            sizes32[i] = (int32_t)sizes[i];
        gb_const(g, "sizes", TFPI_INT32, sizes_dims, 1, sizes32);
    }
    gb_const(g, "filter", TFPI_FLOAT, c->filter, 4, filter);
    int64_t grad[4];
    grad_dims(c, grad);
    gb_placeholder(g, "grad", TFPI_FLOAT, grad, 4);
    Tfpi__NodeDef *n = gb_node(g, "Conv2DBackpropInput", "out", "sizes", "filter", "grad", NULL);
    gd_attr_set_type(n, "T", TFPI_FLOAT);
    gd_attr_set_ints(n, "strides", (const int64_t[]){1, c->stride_h, c->stride_w, 1}, 4);
    gd_attr_set_ints(n, "dilations", (const int64_t[]){1, c->dilation_h, c->dilation_w, 1}, 4);
    gd_attr_set_string(n, "padding", c->padding);
    if (strcmp(c->padding, "EXPLICIT") == 0)
        gd_attr_set_ints(n, "explicit_paddings",
                     (const int64_t[]){0, 0, c->pads[0], c->pads[1], c->pads[2], c->pads[3], 0, 0}, 8);
    gd_attr_set_string(n, "data_format", data_format);
    return g;
}

/* Runs the case; the output or NULL with status set. */
static tfpi_tensor *run_case(const transpose_case *c, const float *grad, const float *filter,
                             const char *data_format, int threads, tfpi_status *status)
{
    gb_graph *g = build(c, filter, data_format);
    int64_t dims[4];
    grad_dims(c, dims);
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, dims, 4, grad), *out = NULL;
    const char *feed = "grad", *fetch = "out";
    op_run_graph(g, 1, &feed, &in, 1, &fetch, &out, threads, status);
    tfpi_tensor_free(in);
    gb_free(g);
    return out;
}

static void check_result(const tfpi_tensor *out, const transpose_case *c, const double *want,
                         const char *what)
{
    const int64_t count = count_of(c->input);
    bool shape_ok = out && tfpi_tensor_ndims(out) == 4;
    for (int i = 0; shape_ok && i < 4; i++)
        shape_ok = tfpi_tensor_dim(out, i) == c->input[i];
    CHECK_MSG(shape_ok, "%s: wrong output shape", what);
    if (!shape_ok)
        return;
    const float *y = tfpi_tensor_const_data(out);
    int bad = 0;
    for (int64_t i = 0; i < count; i++)
        if (!(y[i] - want[i] <= 1e-4 && want[i] - y[i] <= 1e-4) && bad++ < 3)
            CHECK_MSG(0, "%s [%lld]: %.9g, want %.9g", what, (long long)i, y[i], want[i]);
}

/* The values numpy was given: ((i * a) % m - offset) * scale. */
static void pattern(float *x, int64_t n, int a, int m, int offset, float scale)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)((i * a) % m - offset) * scale;
}

static void test_numpy_cases(void)
{
    static const double same_s2[32] = {
        0.625,    0.3125, 0.8125,   0.5,     -1.96875, -2.09375, 0.25,    0.4375, -1.25,   0.46875, 0.96875,
        0.65625,  0.9375, -2.03125, 0.15625, 0.34375,  -2.34375, -0.625,  0.6875, 1.1875,  0.21875, -2.9375,
        -0.65625, 0.5625, 0.375,    -1.25,   0.375,    0.375,    0.53125, -0.875, 0.59375, 0.40625};
    static const double valid[15] = {0.875, -0.65625, -0.875,   0.125,   1.125,   1.09375, 0.125,   -0.75,
                                     0.25,  0.125,    -0.90625, 0.09375, -0.3125, 0.03125, -0.21875};
    const transpose_case cases[2] = {
        {{1, 4, 4, 2}, {3, 3, 2, 3}, 2, 2, 1, 1, "SAME", {0}, 4, TFPI_INT32},
        {{1, 5, 3, 1}, {2, 2, 1, 2}, 1, 1, 1, 1, "VALID", {0}, 4, TFPI_INT32},
    };
    const double *want[2] = {same_s2, valid};
    for (int k = 0; k < 2; k++) {
        int64_t g[4];
        grad_dims(&cases[k], g);
        float grad[64], filter[64];
        pattern(grad, count_of(g), 7, 11, 5, 0.25f);
        pattern(filter, count_of(cases[k].filter), 5, 13, 6, 0.125f);
        tfpi_status status;
        tfpi_tensor *out = run_case(&cases[k], grad, filter, "NHWC", 1, &status);
        CHECK_MSG(out, "%s", status.message);
        check_result(out, &cases[k], want[k], cases[k].padding);
        tfpi_tensor_free(out);
    }
}

static void random_fill(float *x, int64_t n, unsigned *seed)
{
    for (int64_t i = 0; i < n; i++) {
        *seed = *seed * 1664525u + 1013904223u;
        x[i] = (float)((*seed >> 9) & 0x3fff) / 8192.0f - 1.0f;
    }
}

static void test_random_cases(void)
{
    const transpose_case cases[] = {
        {{2, 7, 6, 3}, {3, 2, 3, 4}, 1, 1, 1, 1, "SAME", {0}, 4, TFPI_INT32},
        {{2, 7, 6, 3}, {3, 2, 3, 4}, 2, 2, 1, 1, "SAME", {0}, 4, TFPI_INT32},
        {{2, 8, 9, 3}, {3, 3, 3, 4}, 2, 3, 1, 1, "VALID", {0}, 2, TFPI_INT32},
        {{1, 9, 7, 2}, {3, 2, 2, 5}, 3, 1, 1, 1, "SAME", {0}, 4, TFPI_INT64},
        {{2, 9, 8, 3}, {3, 3, 3, 2}, 1, 1, 2, 1, "SAME", {0}, 4, TFPI_INT32},
        {{1, 6, 6, 2}, {2, 3, 2, 3}, 2, 1, 1, 2, "VALID", {0}, 2, TFPI_INT64},
        {{2, 5, 6, 3}, {3, 3, 3, 4}, 2, 2, 1, 1, "EXPLICIT", {1, 2, 0, 1}, 4, TFPI_INT32},
        {{1, 4, 4, 1}, {5, 5, 1, 1}, 1, 1, 1, 1, "SAME", {0}, 4, TFPI_INT32},    /* filter wider than input */
        {{2, 24, 20, 8}, {3, 3, 8, 16}, 2, 2, 1, 1, "SAME", {0}, 4, TFPI_INT32}, /* rows split over threads */
    };
    unsigned seed = 3;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const transpose_case *c = &cases[k];
        int64_t g[4];
        grad_dims(c, g);
        float *grad = malloc((size_t)count_of(g) * sizeof *grad);
        float *filter = malloc((size_t)count_of(c->filter) * sizeof *filter);
        double *want = malloc((size_t)count_of(c->input) * sizeof *want);
        CHECK(grad && filter && want);
        if (grad && filter && want) {
            random_fill(grad, count_of(g), &seed);
            random_fill(filter, count_of(c->filter), &seed);
            naive_scatter(c, grad, filter, want);
            for (int threads = 1; threads <= 3; threads += 2) {
                tfpi_status status;
                tfpi_tensor *out = run_case(c, grad, filter, "NHWC", threads, &status);
                CHECK_MSG(out, "case %zu: %s", k, status.message);
                char what[32];
                snprintf(what, sizeof what, "case %zu", k);
                check_result(out, c, want, what);
                tfpi_tensor_free(out);
            }
        }
        free(grad);
        free(filter);
        free(want);
    }
}

static void expect_error(gb_graph *g, const int64_t *grad_dims_fed, const char *phrase)
{
    tfpi_status status;
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, grad_dims_fed, 4, NULL), *out = NULL;
    const char *feed = "grad", *fetch = "out";
    tfpi_code code = op_run_graph(g, 1, &feed, &in, 1, &fetch, &out, 0, &status);
    gb_free(g);
    CHECK_MSG(code != TFPI_OK && strstr(status.message, "node 'out' (Conv2DBackpropInput)") &&
                  strstr(status.message, phrase),
              "expected an error naming the node and saying '%s', got '%s'", phrase,
              code == TFPI_OK ? "success" : status.message);
    tfpi_tensor_free(in);
    tfpi_tensor_free(out);
}

static void test_errors(void)
{
    static const float filter[3 * 3 * 2 * 3];
    const transpose_case c = {{1, 4, 4, 2}, {3, 3, 2, 3}, 2, 2, 1, 1, "SAME", {0}, 4, TFPI_INT32};
    expect_error(build(&c, filter, "NCHW"), (const int64_t[]){1, 2, 2, 3}, "data_format 'NCHW'");

    /* out_backprop [1,3,2,3] where Conv2D of [1,4,4,2] gives [1,2,2,3] */
    gb_graph *g = gb_new();
    const int32_t sizes[4] = {1, 4, 4, 2};
    gb_const(g, "sizes", TFPI_INT32, (const int64_t[]){4}, 1, sizes);
    gb_const(g, "filter", TFPI_FLOAT, c.filter, 4, filter);
    gb_placeholder(g, "grad", TFPI_FLOAT, (const int64_t[]){1, 3, 2, 3}, 4);
    Tfpi__NodeDef *n = gb_node(g, "Conv2DBackpropInput", "out", "sizes", "filter", "grad", NULL);
    gd_attr_set_ints(n, "strides", (const int64_t[]){1, 2, 2, 1}, 4);
    gd_attr_set_string(n, "padding", "SAME");
    expect_error(g, (const int64_t[]){1, 3, 2, 3}, "out_backprop has shape [1,3,2,3]");

    g = gb_new();
    gb_const(g, "sizes", TFPI_INT32, (const int64_t[]){3}, 1, sizes);
    gb_const(g, "filter", TFPI_FLOAT, c.filter, 4, filter);
    gb_placeholder(g, "grad", TFPI_FLOAT, (const int64_t[]){1, 2, 2, 3}, 4);
    n = gb_node(g, "Conv2DBackpropInput", "out", "sizes", "filter", "grad", NULL);
    gd_attr_set_ints(n, "strides", (const int64_t[]){1, 2, 2, 1}, 4);
    gd_attr_set_string(n, "padding", "SAME");
    expect_error(g, (const int64_t[]){1, 2, 2, 3}, "input_sizes must be a vector of 4");

    /* input_sizes not known while planning: it comes from a feed */
    g = gb_new();
    gb_placeholder(g, "grad", TFPI_FLOAT, (const int64_t[]){1, 2, 2, 3}, 4);
    gb_const(g, "filter", TFPI_FLOAT, c.filter, 4, filter);
    gb_node(g, "Identity", "sizes", "grad", NULL);
    n = gb_node(g, "Conv2DBackpropInput", "out", "sizes", "filter", "grad", NULL);
    gd_attr_set_ints(n, "strides", (const int64_t[]){1, 2, 2, 1}, 4);
    gd_attr_set_string(n, "padding", "SAME");
    expect_error(g, (const int64_t[]){1, 2, 2, 3}, "input 0 must be computable");
}

int main(void)
{
    RUN(test_numpy_cases);
    RUN(test_random_cases);
    RUN(test_errors);
    return check_summary();
}
