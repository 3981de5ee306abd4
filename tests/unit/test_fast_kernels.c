/* test_fast_kernels.c - the optimised window ops against the plain C
 * references of src/compute/window_ref.c on many geometries: Conv2D through the
 * GEMM (src/compute/conv_gemm.c: 1x1 read in place, every other window through
 * padded taps; with the portable kernel and the NEON one, TFPI_CPU), and the SIMD depthwise convolution, max pool and average
 * pool (src/compute/window_fast.c); odd sizes and channel counts that cut vectors,
 * strides, dilations, SAME and VALID padding, batches, 1 and 2 threads, and
 * the fused epilogue (scale, bias, clamp), and rows of every length around
 * the sliding groups of the depthwise and pooling path. Results must be within 1e-4 of
 * the reference relative to their magnitude. Winograd F(4x4, 3x3)
 * (src/compute/winograd.c) is checked the same way against the reference
 * convolution, within WINOGRAD_TOLERANCE of the output's range (its filter
 * transformed once or as it goes), its rule on both sides of every boundary,
 * and a graph's Conv2D keeps its transformed filter in the graph for all sessions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/conv_gemm.h"
#include "compute/window_fast.h"
#include "compute/window_ref.h"
#include "compute/winograd.h"
#include "graph/graph.h"
#include "test_util.h"

#define TOLERANCE 1e-4
/* Winograd F(4x4, 3x3): max |d| / max |reference| over the output
 * (measured: at most 1.2e-5 here, inputs and weights in [-1, 1]). */
#define WINOGRAD_TOLERANCE 3e-5

typedef struct geometry {
    int64_t batch, in_h, in_w, in_c, window_h, window_w, stride, dilation, out_c;
    bool same;
} geometry;

/* TensorFlow's SAME / VALID arithmetic. */
static tp_window_params params_of(const geometry *g)
{
    tp_window_params p = {.batch = g->batch, .in_h = g->in_h, .in_w = g->in_w, .in_c = g->in_c,
                          .window_h = g->window_h, .window_w = g->window_w, .stride_h = g->stride,
                          .stride_w = g->stride, .dilation_h = g->dilation, .dilation_w = g->dilation,
                          .out_c = g->out_c};
    const int64_t span_h = (g->window_h - 1) * g->dilation + 1, span_w = (g->window_w - 1) * g->dilation + 1;
    if (g->same) {
        p.out_h = (g->in_h + g->stride - 1) / g->stride;
        p.out_w = (g->in_w + g->stride - 1) / g->stride;
        const int64_t pad_h = (p.out_h - 1) * g->stride + span_h - g->in_h;
        const int64_t pad_w = (p.out_w - 1) * g->stride + span_w - g->in_w;
        p.pad_top = pad_h > 0 ? pad_h / 2 : 0;
        p.pad_left = pad_w > 0 ? pad_w / 2 : 0;
    } else {
        p.out_h = (g->in_h - span_h + g->stride) / g->stride;
        p.out_w = (g->in_w - span_w + g->stride) / g->stride;
    }
    return p;
}

static float *random_floats(int64_t n)
{
    float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; x && i < n; i++)
        x[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
    return x;
}

static void check_close(const float *got, const float *want, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++) {
        if (!(fabs((double)got[i] - want[i]) <= TOLERANCE * fmax(1.0, fabs((double)want[i])))) {
            check_fail(__FILE__, __LINE__, "%s: element %lld = %.7g, reference %.7g", what, (long long)i,
                       (double)got[i], (double)want[i]);
            return;
        }
    }
}

static void apply_epilogue(float *x, int64_t n, int64_t channels, const tp_gemm_epilogue *e)
{
    for (int64_t i = 0; i < n; i++) {
        const int64_t c = i % channels;
        const float y = x[i] * (e->scale ? e->scale[c] : 1.0f) + (e->bias ? e->bias[c] : 0.0f);
        x[i] = fminf(fmaxf(y, e->min), e->max);
    }
}

typedef enum fast_op { CONV, DEPTHWISE, MAX_POOL, AVG_POOL, WINOGRAD } fast_op;
static const char *const op_names[] = {"conv", "depthwise", "max_pool", "avg_pool",
                                       "winograd"};

/* max |got - want| / max |want| over the output. */
static void check_range_close(const float *got, const float *want, int64_t n, double tolerance, const char *what)
{
    double max_d = 0, range = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = fabs((double)got[i] - want[i]);
        max_d = d > max_d || d != d ? d : max_d;
        range = fmax(range, fabs((double)want[i]));
    }
    if (!(max_d <= tolerance * range))
        check_fail(__FILE__, __LINE__, "%s: max |d| %.3g is more than %.1g of the output range %.3g", what, max_d,
                   tolerance, range);
}

/* Runs op's fast path and its reference on random data and compares. */
static void check_op(fast_op op, geometry g, bool epilogue, tp_threadpool *pool)
{
    const bool full_conv = op == CONV || op == WINOGRAD;
    if (!full_conv)
        g.out_c = g.in_c;
    const tp_window_params p = params_of(&g);
    const int64_t in_n = p.batch * p.in_h * p.in_w * p.in_c, out_n = p.batch * p.out_h * p.out_w * p.out_c;
    const int64_t filter_n = p.window_h * p.window_w * p.in_c * (full_conv ? p.out_c : 1);
    float *input = random_floats(in_n), *filter = random_floats(filter_n);
    float *got = random_floats(out_n), *want = random_floats(out_n);
    float *scale = random_floats(p.out_c), *bias = random_floats(p.out_c), *zeros = calloc((size_t)p.in_c, 4);
    tp_gemm_epilogue e = epilogue ? (tp_gemm_epilogue){scale, bias, 0.0f, 6.0f} : tp_gemm_no_epilogue();
    switch (op) {
    case CONV:
        tp_conv2d_ref(&p, input, filter, want, NULL);
        tp_conv2d_gemm(&p, input, filter, NULL, zeros, got, &e, pool);
        break;
    case DEPTHWISE:
        tp_depthwise_conv2d_ref(&p, input, filter, want, NULL);
        tp_depthwise_conv2d_fast(&p, input, filter, got, &e, pool);
        break;
    case MAX_POOL:
        tp_max_pool_ref(&p, input, want, NULL);
        tp_max_pool_fast(&p, input, got, pool);
        break;
    case AVG_POOL:
        tp_avg_pool_ref(&p, input, want, NULL);
        tp_avg_pool_fast(&p, input, got, pool);
        break;
    case WINOGRAD: { /* with the filter transformed once when there is an epilogue, else as it goes */
        tp_conv2d_ref(&p, input, filter, want, NULL);
        float *transformed = epilogue ? malloc(sizeof(float) * tp_winograd_filter_floats(&p)) : NULL;
        if (transformed)
            tp_winograd_transform_filter(&p, filter, transformed);
        CHECK(tp_winograd_conv(&p, input, filter, transformed, got, &e, pool));
        free(transformed);
        break;
    }
    }
    apply_epilogue(want, out_n, p.out_c, &e);
    char what[200];
    snprintf(what, sizeof what,
             "%s %lldx%lldx%lldx%lld window %lldx%lld stride %lld dilation %lld %s out_c %lld%s", op_names[op],
             (long long)g.batch, (long long)g.in_h, (long long)g.in_w, (long long)g.in_c, (long long)g.window_h,
             (long long)g.window_w, (long long)g.stride, (long long)g.dilation, g.same ? "SAME" : "VALID",
             (long long)p.out_c, epilogue ? " epilogue" : "");
    if (op == WINOGRAD)
        check_range_close(got, want, out_n, WINOGRAD_TOLERANCE, what);
    else
        check_close(got, want, out_n, what);
    free(input), free(filter), free(got), free(want), free(scale), free(bias), free(zeros);
}

/* Geometries of the models (3x3 stride 1 and 2, 1x1, 1x7 / 7x1, 5x5) and
 * odd ones. */
static const geometry geometries[] = {
    {1, 9, 9, 3, 3, 3, 2, 1, 32, false},     /* first layer of an image net */
    {1, 8, 8, 16, 1, 1, 1, 1, 24, true},     /* pointwise, read as a matrix */
    {2, 7, 5, 17, 1, 1, 2, 1, 33, true},     /* pointwise with stride */
    {1, 11, 13, 19, 3, 3, 1, 1, 70, true},   /* padded on every side */
    {1, 12, 12, 40, 3, 3, 2, 1, 65, true},   /* stride 2, SAME */
    {1, 17, 17, 9, 1, 7, 1, 1, 20, true},    /* 1x7 */
    {1, 17, 17, 9, 7, 1, 1, 1, 20, true},    /* 7x1 */
    {1, 10, 9, 5, 5, 5, 1, 1, 7, true},      /* 5x5 */
    {1, 15, 14, 6, 3, 3, 1, 2, 9, true},     /* dilated */
    {3, 6, 7, 3, 2, 3, 3, 1, 5, false},      /* batch, uneven window and stride */
    {1, 5, 5, 130, 3, 3, 1, 1, 1, true},     /* depth in several blocks, one output channel */
    {1, 4, 4, 1, 4, 4, 1, 1, 64, false},     /* window as large as the input */
    {1, 40, 37, 8, 3, 3, 1, 1, 48, true},    /* many row tiles */
};

static void check_all(fast_op op)
{
    tp_threadpool *pool = tp_threadpool_new(2);
    CHECK(pool);
    for (size_t i = 0; i < sizeof geometries / sizeof *geometries; i++) {
        check_op(op, geometries[i], false, NULL);
        check_op(op, geometries[i], op == CONV || op == DEPTHWISE, pool);
    }
    tp_threadpool_free(pool);
}

/* The GEMM's convolutions with each set of kernels (every ARM family has
 * the same). */
static void test_conv_gemm(void)
{
    static const char *const cpus[] = {"generic", "a72"};
    for (int i = 0; i < 2; i++) {
        setenv("TFPI_CPU", cpus[i], 1);
        check_all(CONV);
    }
    unsetenv("TFPI_CPU");
}

static void test_depthwise_fast(void) { check_all(DEPTHWISE); }

static void test_max_pool_fast(void) { check_all(MAX_POOL); }

static void test_avg_pool_fast(void) { check_all(AVG_POOL); }

/* Channel counts around every vector and block boundary, and shallow
 * convolutions. */
static void test_window_channel_counts(void)
{
    for (int64_t c = 1; c <= 70; c++) {
        geometry g = {1, 5, 6, c, 3, 3, 1, 1, c, true};
        check_op(DEPTHWISE, g, true, NULL);
        check_op(MAX_POOL, g, false, NULL);
        check_op(AVG_POOL, g, false, NULL);
    }
    /* Convolutions over 1 to 6 input channels (an image's few). */
    for (int64_t c = 1; c <= 6; c++) {
        check_op(CONV, (geometry){1, 13, 11, c, 3, 3, 2, 1, 37, true}, true, NULL);
        check_op(CONV, (geometry){2, 9, 8, c, 7, 7, 1, 1, 9, false}, false, NULL);
    }
}

/* The sliding groups of window_fast.c (3 and 5 taps wide, stride 1 and 2):
 * rows of every length around the groups of 8 and 4 pixels and the edges,
 * channels below, at and past whole vectors, SAME and VALID, the epilogue,
 * and a window that only a few pixels of a row see whole. */
static void test_window_sliding(void)
{
    static const int64_t widths[] = {5, 6, 9, 12, 13, 14, 20, 27, 31, 37};
    static const int64_t channels[] = {3, 4, 7, 16, 21};
    tp_threadpool *pool = tp_threadpool_new(2);
    CHECK(pool);
    for (int64_t kw = 3; kw <= 5; kw += 2)
        for (int64_t stride = 1; stride <= 2; stride++)
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                for (size_t c = 0; c < sizeof channels / sizeof *channels; c++) {
                    const bool same = (w + c) % 2 == 0;
                    const geometry g = {1 + (int64_t)(w % 2), 4 + (int64_t)c, widths[w] * stride, channels[c],
                                        kw, kw, stride, 1, channels[c], same};
                    tp_threadpool *threads = c % 2 ? pool : NULL;
                    check_op(DEPTHWISE, g, w % 3 != 0, threads);
                    check_op(MAX_POOL, g, false, threads);
                    check_op(AVG_POOL, g, false, threads);
                }
    tp_threadpool_free(pool);
}

/* Winograd's geometries: 3x3, stride 1, dilation 1; edges that cut tiles,
 * padding, batches, channel counts that cut the 16-lane blocks. */
static const geometry winograd_geometries[] = {
    {1, 8, 8, 16, 3, 3, 1, 1, 16, true},    /* two tiles a side */
    {1, 11, 13, 19, 3, 3, 1, 1, 70, true},  /* tiles cut at both edges */
    {2, 14, 9, 33, 3, 3, 1, 1, 17, false},  /* batch, VALID */
    {1, 5, 5, 130, 3, 3, 1, 1, 1, true},    /* one output channel, deep */
    {1, 40, 37, 8, 3, 3, 1, 1, 48, true},   /* many blocks of tiles */
    {3, 23, 21, 64, 3, 3, 1, 1, 64, true},  /* several blocks per thread */
    {1, 9, 8, 160, 3, 3, 1, 1, 1000, true}, /* output channels in several blocks */
};

static void test_winograd(void)
{
    tp_threadpool *pool = tp_threadpool_new(2);
    CHECK(pool);
    for (size_t i = 0; i < sizeof winograd_geometries / sizeof *winograd_geometries; i++) {
        check_op(WINOGRAD, winograd_geometries[i], false, NULL);
        check_op(WINOGRAD, winograd_geometries[i], true, pool);
    }
    for (int64_t c = 1; c <= 40; c += 3)
        check_op(WINOGRAD, (geometry){1, 9, 10, c, 3, 3, 1, 1, c + 2, true}, true, NULL);
    tp_threadpool_free(pool);
}

static bool refuse_to_derive(void *arg, void *buffer)
{
    (void)arg, (void)buffer;
    return false;
}

/* Whether the graph holds the Winograd filter of node `name` (in_c x out_c):
 * asking with a make function that fails finds only a value already there. */
static bool graph_has_winograd_filter(const tfpi_graph *graph, const char *name, const tp_window_params *p)
{
    const int node = tp_graph_find(graph, name, strlen(name));
    return node >= 0 && tp_graph_derived(graph, graph->nodes[node].def, "winograd", p->in_c << 32 | p->out_c,
                                         tp_winograd_filter_floats(p) * sizeof(float), refuse_to_derive, NULL);
}

/* A Conv2D by Winograd in a graph: its filter is transformed when the
 * first session plans it and is then the graph's, for every session; each
 * session's output equals the reference convolution. */
static void test_winograd_filter_per_graph(void)
{
    const geometry g = {1, 10, 10, 64, 3, 3, 1, 1, 32, true};
    const tp_window_params p = params_of(&g);
    const int64_t in_dims[4] = {1, 10, 10, 64}, filter_dims[4] = {3, 3, 64, 32};
    const int64_t in_n = 10 * 10 * 64, out_n = 10 * 10 * 32;
    float *input = random_floats(in_n), *filter = random_floats(9 * 64 * 32), *want = random_floats(out_n);
    tp_conv2d_ref(&p, input, filter, want, NULL);
    gb_graph *gb = gb_new();
    gb_placeholder(gb, "in", TFPI_FLOAT, in_dims, 4);
    gb_const(gb, "w", TFPI_FLOAT, filter_dims, 4, filter);
    Tfpi__NodeDef *conv = gb_node(gb, "Conv2D", "conv", "in", "w", NULL);
    gd_attr_set_type(conv, "T", TFPI_FLOAT);
    gd_attr_set_ints(conv, "strides", (const int64_t[]){1, 1, 1, 1}, 4);
    gd_attr_set_string(conv, "padding", "SAME");
    tfpi_status status_value = {0}, *status = &status_value;
    tfpi_graph *graph = gb_load(gb, status);
    CHECK(graph);
    CHECK(!graph_has_winograd_filter(graph, "conv", &p));
    for (int threads = 1; graph && threads <= 2; threads++) {
        tfpi_session *session = tfpi_session_new(graph, &(tfpi_session_options){.num_threads = threads}, status);
        tfpi_tensor *out = run_float(session, "in", input, in_dims, 4, "conv");
        CHECK(graph_has_winograd_filter(graph, "conv", &p));
        if (out)
            check_range_close(out->data, want, out_n, WINOGRAD_TOLERANCE, "Conv2D by Winograd in a session");
        tfpi_tensor_free(out);
        tfpi_session_free(session);
    }
    CHECK(!graph || graph_has_winograd_filter(graph, "conv", &p)); /* outlives its sessions */
    tfpi_graph_free(graph);
    gb_free(gb);
    free(input), free(filter), free(want);
}

/* The rule, on both sides of each of its boundaries. */
static void test_winograd_rule(void)
{
    const geometry yes = {1, 8, 8, 64, 3, 3, 1, 1, 16, true};
    tp_window_params p = params_of(&yes);
    CHECK(tp_winograd_applies(&p));
    geometry g = yes;
    g.in_c = 63;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
    g = yes;
    g.out_c = 15;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
    g = yes;
    g.in_w = 7;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
    g = yes;
    g.in_h = 7;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
    g = yes;
    g.stride = 2;
    g.in_h = g.in_w = 16;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
    g = yes;
    g.dilation = 2;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
    g = yes;
    g.window_h = g.window_w = 5;
    p = params_of(&g);
    CHECK(!tp_winograd_applies(&p));
}

int main(void)
{
    srand(11);
    RUN(test_conv_gemm);
    RUN(test_depthwise_fast);
    RUN(test_max_pool_fast);
    RUN(test_avg_pool_fast);
    RUN(test_window_channel_counts);
    RUN(test_window_sliding);
    RUN(test_winograd);
    RUN(test_winograd_rule);
    RUN(test_winograd_filter_per_graph);
    return check_summary();
}
