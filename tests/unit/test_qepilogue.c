/* test_qepilogue.c - the chains QuantizedConv2D, QuantizedMatMul and
 * QuantizeV2 take over (compute/qepilogue.h) give the bytes of the same
 * nodes run one by one: QuantizedConv2D (both of its paths) or
 * QuantizedMatMul -> Requantize -> QuantizedBiasAdd -> Requantize ->
 * QuantizedRelu/Relu6 [-> Dequantize], and QuantizeV2 -> QuantizedBiasAdd
 * [-> Requantize -> QuantizedRelu6 [-> Dequantize]] of random floats,
 * on random codes (a third of them 0 or 255) and random ranges (some
 * inputs' excluding 0, which takes the conv's direct loop), run once
 * fetching only the chain's end (the profile shows the chain ran as one
 * node) and once also fetching the product, which keeps every node
 * separate; on 1 and 3 threads. A second run with another range remakes
 * the tables the first one made; a requested range computed by a later
 * step keeps its Requantize separate. A bad requested range in the middle of a
 * chain fails naming that Requantize, as it does unfused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "op_test.h"

static uint8_t random_code(void)
{
    int r = rand() % 6;
    return r == 0 ? 0 : r == 1 ? 255 : (uint8_t)(rand() % 256);
}

static void random_codes(uint8_t *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = random_code();
}

/* A range of 0.1 to 10 that holds 0 (or, rarely, not). */
static void random_range(float *min, float *max)
{
    float width = op_random(0.1f, 10.0f);
    float low = op_random(-1.0f, rand() % 10 == 0 ? 0.4f : 0.0f) * width;
    *min = low;
    *max = low + width;
}

typedef struct chain {
    bool matmul, relu6, dequantize;
    bool zero_outside; /* the input's range excludes 0: the conv's direct loop */
    float requested_min; /* of the second Requantize */
    bool computed_request; /* the first Requantize's min is Minimum(fed "m", 0), a step */
} chain;

/* The product "p" of fed x and Const w, then the chain ending in "out". */
static gb_graph *build(const chain *c, const int64_t *x_dims, int x_ndims, const int64_t *w_dims, int w_ndims,
                       const uint8_t *w, int64_t channels, const uint8_t *bias)
{
    gb_graph *g = gb_new();
    float min, max;
    gb_placeholder(g, "x", TFPI_QUINT8, x_dims, x_ndims);
    gb_const(g, "w", TFPI_QUINT8, w_dims, w_ndims, w);
    gb_const(g, "b", TFPI_QUINT8, &channels, 1, bias);
    random_range(&min, &max);
    gb_range_consts(g, "x", c->zero_outside ? 0.5f : fminf(min, 0.0f), c->zero_outside ? 2.0f : max);
    random_range(&min, &max);
    gb_range_consts(g, "w", min, max);
    random_range(&min, &max);
    gb_range_consts(g, "b", min, max);
    random_range(&min, &max);
    gb_range_consts(g, "r1", fminf(min, 0.0f), max * 100.0f);
    if (c->computed_request) {
        float zero = 0.0f;
        gb_placeholder(g, "m", TFPI_FLOAT, NULL, 0);
        gb_const(g, "zero", TFPI_FLOAT, NULL, 0, &zero);
        gb_node(g, "Minimum", "r1_low", "m", "zero", NULL);
    }
    random_range(&min, &max);
    gb_range_consts(g, "r2", c->requested_min, max);
    Tfpi__NodeDef *p = gb_node(g, c->matmul ? "QuantizedMatMul" : "QuantizedConv2D", "p", "x", "w", "x_min", "x_max",
                               "w_min", "w_max", NULL);
    if (!c->matmul) {
        int64_t stride = 1 + rand() % 2;
        gd_attr_set_ints(p, "strides", (const int64_t[]){1, stride, stride, 1}, 4);
        gd_attr_set_string(p, "padding", rand() % 2 ? "SAME" : "VALID");
    }
    gb_node(g, "Requantize", "r1", "p", "p:1", "p:2", c->computed_request ? "r1_low" : "r1_min", "r1_max", NULL);
    gb_node(g, "QuantizedBiasAdd", "bias", "r1", "b", "r1:1", "r1:2", "b_min", "b_max", NULL);
    gb_node(g, "Requantize", "r2", "bias", "bias:1", "bias:2", "r2_min", "r2_max", NULL);
    gb_node(g, c->relu6 ? "QuantizedRelu6" : "QuantizedRelu", c->dequantize ? "relu" : "out", "r2", "r2:1", "r2:2",
            NULL);
    if (c->dequantize)
        gd_attr_set_string(gb_node(g, "Dequantize", "out", "relu", "relu:1", "relu:2", NULL), "mode", "MIN_FIRST");
    return g;
}

/* Runs g on x, fetching out (and its range unless dequantized), plus p when
 * `separate`; *nodes receives how many nodes the run executed. */
static tfpi_code run(const gb_graph *g, tfpi_tensor *x, bool dequantize, bool separate, int threads,
                     tfpi_tensor *got[4], int *nodes, tfpi_status *status)
{
    const char *names[] = {"x"};
    const char *fetch[4] = {"out:0"};
    int n = 1;
    if (!dequantize) {
        fetch[n++] = "out:1";
        fetch[n++] = "out:2";
    }
    if (separate)
        fetch[n++] = "p:0";
    memset(got, 0, 4 * sizeof *got);
    tfpi_graph *graph = gb_load(g, status);
    if (!graph)
        return status->code;
    tfpi_session_options options = {.num_threads = threads};
    tfpi_session *session = tfpi_session_new(graph, &options, status);
    tfpi_code code = status->code;
    if (session) {
        tfpi_session_set_profiling(session, 1);
        code = tfpi_session_run(session, names, &x, 1, fetch, got, n, status);
        const tfpi_node_profile *profile;
        *nodes = tfpi_session_profile(session, &profile);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return code;
}

static void free_all(tfpi_tensor *t[4])
{
    for (int i = 0; i < 4; i++)
        tfpi_tensor_free(t[i]);
}

static void check_chain(int trial, const chain *c)
{
    int64_t channels = 1 + rand() % 100, in_c = 1 + rand() % 12, h = 3 + rand() % 7, wd = 3 + rand() % 7;
    int64_t x_dims[4] = {1 + rand() % 2, h, wd, in_c}, w_dims[4] = {1 + rand() % 3, 1 + rand() % 3, in_c, channels};
    int x_ndims = 4, w_ndims = 4;
    if (c->matmul) {
        x_dims[0] = h * wd;
        x_dims[1] = in_c;
        w_dims[0] = in_c;
        w_dims[1] = channels;
        x_ndims = w_ndims = 2;
    }
    int64_t x_count = 1, w_count = 1;
    for (int i = 0; i < x_ndims; i++)
        x_count *= x_dims[i];
    for (int i = 0; i < w_ndims; i++)
        w_count *= w_dims[i];
    uint8_t *x = malloc((size_t)x_count), *w = malloc((size_t)w_count), *bias = malloc((size_t)channels);
    random_codes(x, x_count);
    random_codes(w, w_count);
    random_codes(bias, channels);
    gb_graph *g = build(c, x_dims, x_ndims, w_dims, w_ndims, w, channels, bias);
    tfpi_tensor *xt = op_tensor(TFPI_QUINT8, x_dims, x_ndims, x);
    tfpi_tensor *fused[4], *separate[4];
    tfpi_status status;
    int fused_nodes = 0, separate_nodes = 0, threads = 1 + 2 * (trial % 2);
    tfpi_code a = run(g, xt, c->dequantize, false, threads, fused, &fused_nodes, &status);
    CHECK_MSG(a == TFPI_OK, "trial %d fused: %s", trial, status.message);
    tfpi_code b = run(g, xt, c->dequantize, true, threads, separate, &separate_nodes, &status);
    CHECK_MSG(b == TFPI_OK, "trial %d separate: %s", trial, status.message);
    if (a == TFPI_OK && b == TFPI_OK) {
        CHECK_MSG(fused_nodes == 1 && separate_nodes == 5 + c->dequantize, "trial %d ran %d and %d nodes", trial,
                  fused_nodes, separate_nodes);
        const size_t bytes = tfpi_tensor_byte_size(fused[0]);
        CHECK_MSG(bytes == tfpi_tensor_byte_size(separate[0]) &&
                      memcmp(tfpi_tensor_data(fused[0]), tfpi_tensor_data(separate[0]), bytes) == 0,
                  "trial %d (%s, %lld channels, %s%s): the chain's output differs", trial,
                  c->matmul ? "matmul" : "conv", (long long)channels, c->relu6 ? "relu6" : "relu",
                  c->dequantize ? ", dequantized" : "");
        for (int i = 1; !c->dequantize && i < 3; i++)
            CHECK(*(const float *)tfpi_tensor_data(fused[i]) == *(const float *)tfpi_tensor_data(separate[i]));
    }
    free_all(fused);
    free_all(separate);
    tfpi_tensor_free(xt);
    gb_free(g);
    free(x);
    free(w);
    free(bias);
}

static void test_chains_equal_separate_nodes(void)
{
    srand(21);
    for (int trial = 0; trial < 120; trial++) {
        chain c = {.matmul = trial % 3 == 2, .relu6 = rand() % 2, .dequantize = rand() % 2,
                   .zero_outside = trial % 6 == 1, .requested_min = op_random(-5.0f, 0.0f)};
        check_chain(trial, &c);
    }
}

/* Fed floats x -> QuantizeV2 "p" (quint8, MIN_FIRST, over Const ranges)
 * -> QuantizedBiasAdd [-> Requantize -> QuantizedRelu6 [-> Dequantize]],
 * the chain after MobileNet's depthwise layers; `end` 0, 1, 2 says where
 * it stops ("out"). Ending at the qint32 BiasAdd needs the quint8
 * producer's buffer to grow (run under ASan). */
static gb_graph *build_quantize_chain(int end, const int64_t *dims, int64_t channels, const uint8_t *bias,
                                      bool fed_range)
{
    gb_graph *g = gb_new();
    float min, max;
    gb_placeholder(g, "x", TFPI_FLOAT, dims, 2);
    gb_const(g, "b", TFPI_QUINT8, &channels, 1, bias);
    random_range(&min, &max);
    if (fed_range) {
        gb_placeholder(g, "x_min", TFPI_FLOAT, NULL, 0);
        gb_placeholder(g, "x_max", TFPI_FLOAT, NULL, 0);
    } else {
        gb_range_consts(g, "x", min, max);
    }
    random_range(&min, &max);
    gb_range_consts(g, "b", min, max);
    random_range(&min, &max);
    gb_range_consts(g, "r2", fminf(min, 0.0f), max);
    Tfpi__NodeDef *q = gb_node(g, "QuantizeV2", "p", "x", "x_min", "x_max", NULL);
    gd_attr_set_type(q, "T", TFPI_QUINT8);
    gd_attr_set_string(q, "mode", "MIN_FIRST");
    gb_node(g, "QuantizedBiasAdd", end == 0 ? "out" : "bias", "p", "b", "p:1", "p:2", "b_min", "b_max", NULL);
    if (end == 0)
        return g;
    gb_node(g, "Requantize", "r2", "bias", "bias:1", "bias:2", "r2_min", "r2_max", NULL);
    gb_node(g, "QuantizedRelu6", end == 1 ? "out" : "relu", "r2", "r2:1", "r2:2", NULL);
    if (end == 2)
        gd_attr_set_string(gb_node(g, "Dequantize", "out", "relu", "relu:1", "relu:2", NULL), "mode", "MIN_FIRST");
    return g;
}

static void test_quantize_chains_equal_separate_nodes(void)
{
    srand(22);
    for (int trial = 0; trial < 60; trial++) {
        const int end = trial % 3;
        int64_t channels = 1 + rand() % 100, dims[2] = {1 + rand() % 40, channels};
        float *x = malloc(sizeof(float) * (size_t)(dims[0] * channels));
        uint8_t *bias = malloc((size_t)channels);
        for (int64_t i = 0; i < dims[0] * channels; i++)
            x[i] = op_random(-12.0f, 12.0f);
        random_codes(bias, channels);
        gb_graph *g = build_quantize_chain(end, dims, channels, bias, false);
        tfpi_tensor *xt = op_tensor(TFPI_FLOAT, dims, 2, x), *fused[4], *separate[4];
        tfpi_status status;
        int fused_nodes = 0, separate_nodes = 0;
        tfpi_code a = run(g, xt, end == 2, false, 1, fused, &fused_nodes, &status);
        CHECK_MSG(a == TFPI_OK, "trial %d fused: %s", trial, status.message);
        tfpi_code b = run(g, xt, end == 2, true, 1, separate, &separate_nodes, &status);
        CHECK_MSG(b == TFPI_OK, "trial %d separate: %s", trial, status.message);
        if (a == TFPI_OK && b == TFPI_OK) {
            CHECK_MSG(fused_nodes == 1 && separate_nodes == 2 + 2 * (end > 0) + (end == 2),
                      "trial %d ran %d and %d nodes", trial, fused_nodes, separate_nodes);
            const size_t bytes = tfpi_tensor_byte_size(fused[0]);
            CHECK_MSG(bytes == tfpi_tensor_byte_size(separate[0]) &&
                          memcmp(tfpi_tensor_data(fused[0]), tfpi_tensor_data(separate[0]), bytes) == 0,
                      "trial %d (%lld channels, ending %d): the chain's output differs", trial, (long long)channels,
                      end);
        }
        free_all(fused);
        free_all(separate);
        tfpi_tensor_free(xt);
        gb_free(g);
        free(x);
        free(bias);
    }
}

/* Runs g fetching "out:0" (and "p:0" when separate) with x and its range
 * fed, twice in one session, the second time with another range: the
 * chain's tables made for the first range must not be reused. */
static void run_twice(const gb_graph *g, tfpi_tensor *x, const float ranges[2][2], bool separate,
                      tfpi_tensor *got[2][2])
{
    const char *names[] = {"x", "x_min", "x_max"}, *fetch[] = {"out:0", "p:0"};
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    for (int r = 0; r < 2; r++) {
        tfpi_tensor *feeds[3] = {x, op_tensor(TFPI_FLOAT, NULL, 0, &ranges[r][0]),
                                 op_tensor(TFPI_FLOAT, NULL, 0, &ranges[r][1])};
        got[r][0] = got[r][1] = NULL;
        tfpi_code code = session ? tfpi_session_run(session, names, feeds, 3, fetch, got[r], 1 + separate, &status)
                                 : status.code;
        CHECK_MSG(code == TFPI_OK, "%s", status.message);
        tfpi_tensor_free(feeds[1]);
        tfpi_tensor_free(feeds[2]);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
}

static void test_new_ranges_remake_the_tables(void)
{
    srand(23);
    int64_t channels = 70, dims[2] = {3, channels};
    float x[3 * 70];
    uint8_t bias[70];
    for (int i = 0; i < 3 * 70; i++)
        x[i] = op_random(-3.0f, 3.0f);
    random_codes(bias, channels);
    const float ranges[2][2] = {{-3, 3}, {-0.5f, 7}};
    gb_graph *g = build_quantize_chain(1, dims, channels, bias, true);
    tfpi_tensor *xt = op_tensor(TFPI_FLOAT, dims, 2, x), *fused[2][2], *separate[2][2];
    run_twice(g, xt, ranges, false, fused);
    run_twice(g, xt, ranges, true, separate);
    for (int r = 0; r < 2; r++) {
        CHECK_MSG(fused[r][0] && separate[r][0] &&
                      memcmp(tfpi_tensor_data(fused[r][0]), tfpi_tensor_data(separate[r][0]), 3 * 70) == 0,
                  "run %d differs", r);
        for (int i = 0; i < 2; i++) {
            tfpi_tensor_free(fused[r][i]);
            tfpi_tensor_free(separate[r][i]);
        }
    }
    tfpi_tensor_free(xt);
    gb_free(g);
}

/* A Requantize whose requested range a later step computes is not taken
 * over (the product runs first): the output still equals the nodes'. */
static void test_computed_ranges_stay_separate(void)
{
    srand(24);
    chain c = {.matmul = true, .relu6 = true, .computed_request = true};
    int64_t x_dims[2] = {6, 20}, w_dims[2] = {20, 70}, channels = 70;
    uint8_t x[120], w[1400], bias[70];
    random_codes(x, 120);
    random_codes(w, 1400);
    random_codes(bias, 70);
    gb_graph *g = build(&c, x_dims, 2, w_dims, 2, w, channels, bias);
    const float m = -2.5f;
    tfpi_tensor *feeds[2] = {op_tensor(TFPI_QUINT8, x_dims, 2, x), op_tensor(TFPI_FLOAT, NULL, 0, &m)};
    const char *names[] = {"x", "m"}, *fetch[] = {"out:0", "p:0"};
    tfpi_tensor *fused[2] = {NULL, NULL}, *separate[2] = {NULL, NULL};
    tfpi_status status;
    CHECK_MSG(op_run_graph(g, 2, names, feeds, 1, fetch, fused, 1, &status) == TFPI_OK, "%s", status.message);
    CHECK_MSG(op_run_graph(g, 2, names, feeds, 2, fetch, separate, 1, &status) == TFPI_OK, "%s", status.message);
    CHECK(fused[0] && separate[0] && memcmp(tfpi_tensor_data(fused[0]), tfpi_tensor_data(separate[0]), 6 * 70) == 0);
    for (int i = 0; i < 2; i++) {
        tfpi_tensor_free(fused[i]);
        tfpi_tensor_free(separate[i]);
        tfpi_tensor_free(feeds[i]);
    }
    gb_free(g);
}

static void test_bad_range_names_the_requantize(void)
{
    for (int separate = 0; separate < 2; separate++) {
        chain c = {.requested_min = 0.5f};
        int64_t x_dims[4] = {1, 2, 2, 3}, w_dims[4] = {1, 1, 3, 4}, channels = 4;
        uint8_t x[12] = {0}, w[12] = {0}, bias[4] = {0};
        gb_graph *g = build(&c, x_dims, 4, w_dims, 4, w, channels, bias);
        tfpi_tensor *xt = op_tensor(TFPI_QUINT8, x_dims, 4, x), *got[4];
        tfpi_status status;
        int nodes;
        CHECK(run(g, xt, false, separate, 1, got, &nodes, &status) == TFPI_INVALID_ARGUMENT);
        CHECK_MSG(strstr(status.message, "'r2'") && strstr(status.message, "requested_output_min 0.5 must be <= 0"),
                  "%s", status.message);
        free_all(got);
        tfpi_tensor_free(xt);
        gb_free(g);
    }
}

int main(void)
{
    RUN(test_chains_equal_separate_nodes);
    RUN(test_quantize_chains_equal_separate_nodes);
    RUN(test_new_ranges_remake_the_tables);
    RUN(test_computed_ranges_stay_separate);
    RUN(test_bad_range_names_the_requantize);
    return check_summary();
}
