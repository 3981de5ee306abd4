/* test_dequantize.c - Dequantize (kernels/quantization.c) in its three modes
 * on quint8, qint8 and qint32, against numbers worked out by hand from the
 * formulas in TF's op documentation (tf.raw_ops.Dequantize; MIN_FIRST with
 * the rounded minimum of TF's kernel, which OpenCV's importer also uses);
 * its errors; and, on the real quantize_weights graph of MobileNet 0.25/224,
 * the dequantized logits weights against the float weights of the frozen
 * graph they were quantized from: every value must land within half a
 * quantization step (a formula without the rounded minimum misses by up to
 * a whole step). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"
#include "test_util.h"

/* Dequantize(q, min, max) of three constants; NULL with status on error. */
static tfpi_tensor *dequantize(tfpi_dtype dtype, const void *q, int64_t n, float min, float max,
                               const char *mode, bool narrow_range, tfpi_status *status)
{
    gb_graph *g = gb_new();
    gb_const(g, "q", dtype, &n, 1, q);
    gb_const(g, "min", TFPI_FLOAT, NULL, 0, &min);
    gb_const(g, "max", TFPI_FLOAT, NULL, 0, &max);
    Tfpi__NodeDef *node = gb_node(g, "Dequantize", "out", "q", "min", "max", NULL);
    gd_attr_set_type(node, "T", dtype);
    if (mode)
        gd_attr_set_string(node, "mode", mode);
    if (narrow_range)
        gd_attr_set_bool(node, "narrow_range", true);
    return op_run(g, 0, NULL, 1, status);
}

typedef struct dequantize_case {
    const char *what;
    tfpi_dtype dtype;
    const char *mode; /* NULL: the default, MIN_COMBINED */
    bool narrow_range;
    float min, max;
    int32_t q[3];
    double want[3];
} dequantize_case;

static const dequantize_case cases[] = {
    /* MIN_COMBINED: min + (q + half) * (max - min) / range(T), half = 128 for qint8 */
    {"quint8 [0,6]", TFPI_QUINT8, NULL, false, 0, 6, {0, 51, 255}, {0, 1.2, 6}},
    {"qint8 [-1,1]", TFPI_QINT8, "MIN_COMBINED", false, -1, 1, {-128, 0, 127}, {-1, 128 * 2.0 / 255 - 1, 1}},
    {"qint32 [-1,1]", TFPI_QINT32, "MIN_COMBINED", false, -1, 1, {INT32_MIN, 0, INT32_MAX}, {-1, 0, 1}},
    /* MIN_FIRST: step s = (max - min) / 255, m = round(min / s) * s, out = m + (q - lowest) * s.
     * (No ties like [-1, 1], where min / s is -127.5 in reals but not in float.)
     * [-0.3, 1.7]: min / s = -38.25 rounds to -38, so m = -76/255 */
    {"quint8 [-0.3,1.7]", TFPI_QUINT8, "MIN_FIRST", false, -0.3f, 1.7f, {0, 38, 255},
     {-76 / 255.0, 0, 434 / 255.0}},
    /* [-0.5, 1.5]: min / s = -63.75 rounds to -64, m = -128/255 */
    {"quint8 [-0.5,1.5]", TFPI_QUINT8, "MIN_FIRST", false, -0.5f, 1.5f, {0, 64, 255},
     {-128 / 255.0, 0, 382 / 255.0}},
    {"quint8 [0,6]", TFPI_QUINT8, "MIN_FIRST", false, 0, 6, {0, 51, 255}, {0, 1.2, 6}},
    {"qint8 [-0.3,1.7]", TFPI_QINT8, "MIN_FIRST", false, -0.3f, 1.7f, {-128, -90, 127},
     {-76 / 255.0, 0, 434 / 255.0}},
    {"quint8 [2,2]", TFPI_QUINT8, "MIN_FIRST", false, 2, 2, {0, 7, 255}, {2, 2, 2}},
    /* SCALED: q * s, s = max / 255 for quint8, max(min / (-128 + narrow), max / 127) for qint8 */
    {"quint8 max 2", TFPI_QUINT8, "SCALED", false, 0, 2, {0, 51, 255}, {0, 0.4, 2}},
    {"qint8 [-3,1]", TFPI_QINT8, "SCALED", false, -3, 1, {-128, 0, 127}, {-3, 0, 127 * 3 / 128.0}},
    {"qint8 [-3,1] narrow", TFPI_QINT8, "SCALED", true, -3, 1, {-127, 0, 127}, {-3, 0, 3}},
};

static void test_modes(void)
{
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const dequantize_case *k = &cases[c];
        uint8_t bytes[3 * 4];
        for (int i = 0; i < 3; i++) { /* the stored form of T */
            if (k->dtype == TFPI_QINT32)
                memcpy(bytes + 4 * i, &k->q[i], 4);
            else
                bytes[i] = (uint8_t)(k->dtype == TFPI_QINT8 ? (uint8_t)(int8_t)k->q[i] : (uint8_t)k->q[i]);
        }
        tfpi_status status;
        tfpi_tensor *out = dequantize(k->dtype, bytes, 3, k->min, k->max, k->mode, k->narrow_range, &status);
        const char *mode = k->mode ? k->mode : "default";
        CHECK_MSG(out != NULL, "%s %s: %s", mode, k->what, status.message);
        for (int i = 0; out && i < 3; i++) {
            float y = ((float *)tfpi_tensor_data(out))[i];
            CHECK_MSG(fabs(y - k->want[i]) <= 2e-6, "%s %s q=%d: %.9g, want %.9g", mode, k->what, k->q[i], y,
                      k->want[i]);
        }
        tfpi_tensor_free(out);
    }
}

static void test_errors(void)
{
    const uint8_t q[2] = {1, 2};
    const float f[2] = {1, 2};
    tfpi_status status;
    tfpi_tensor *out = dequantize(TFPI_QUINT8, q, 2, 0, 1, "FOO", false, &status);
    op_expect_error(out, &status, (const char *[]){"mode"}, 1);
    out = dequantize(TFPI_FLOAT, f, 2, 0, 1, NULL, false, &status);
    op_expect_error(out, &status, (const char *[]){"float"}, 1);

    /* a per-channel range vector */
    gb_graph *g = gb_new();
    const int64_t two = 2;
    gb_const(g, "q", TFPI_QUINT8, &two, 1, q);
    gb_const(g, "min", TFPI_FLOAT, &two, 1, f);
    gb_const(g, "max", TFPI_FLOAT, &two, 1, f);
    gb_node(g, "Dequantize", "out", "q", "min", "max", NULL);
    out = op_run(g, 0, NULL, 1, &status);
    op_expect_error(out, &status, (const char *[]){"input 1 must be a float scalar"}, 1);
}

static tfpi_tensor *fetch_constant(tfpi_graph *graph, const char *name)
{
    tfpi_status status;
    tfpi_tensor *out = NULL;
    tfpi_session *session = tfpi_session_new(graph, NULL, &status);
    if (!session || tfpi_session_run(session, NULL, NULL, 0, &name, &out, 1, &status) != TFPI_OK) {
        CHECK_MSG(0, "fetch %s: %s", name, status.message);
        out = NULL;
    }
    tfpi_session_free(session);
    return out;
}

static void test_mobilenet_weights(void)
{
    /* from the graph: Logits weights quantized_min / quantized_max */
    const double min = -0.6954759955406189, max = 1.0505894422531128, step = (max - min) / 255;
    tfpi_graph *quantized = load_graph_or_fail(testdata_path("mobilenet_v1_0.25_224/quantized_graph.pb"));
    tfpi_graph *frozen = load_graph_or_fail(testdata_path("mobilenet_v1_0.25_224/frozen_graph.pb"));
    tfpi_tensor *deq = NULL, *weights = NULL;
    if (quantized && frozen) {
        deq = fetch_constant(quantized, "MobilenetV1/Logits/Conv2d_1c_1x1/weights/read/_1__cf__1");
        weights = fetch_constant(frozen, "MobilenetV1/Logits/Conv2d_1c_1x1/weights");
    }
    if (deq && weights) {
        CHECK_EQ_INT(tfpi_tensor_num_elements(deq), 256 * 1001);
        CHECK_EQ_INT(tfpi_tensor_num_elements(weights), 256 * 1001);
        const float *a = tfpi_tensor_data(deq), *b = tfpi_tensor_data(weights);
        double worst = compare_floats(a, b, (size_t)tfpi_tensor_num_elements(deq)).max_abs; /* NaN: infinite */
        CHECK_MSG(worst <= step / 2 * 1.001, "worst error %g, half a step is %g", worst, step / 2);
    }
    tfpi_tensor_free(deq);
    tfpi_tensor_free(weights);
    tfpi_graph_free(quantized);
    tfpi_graph_free(frozen);
}

int main(void)
{
    RUN(test_modes);
    RUN(test_errors);
    RUN(test_mobilenet_weights);
    return check_summary();
}
