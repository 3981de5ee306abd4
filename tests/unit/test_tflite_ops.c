/* test_tflite_ops.c - the kernels of TensorFlow Lite operators
 * (kernels/tflite_*.c) on hostile nodes: mismatched shapes, scales that are
 * zero, negative or not finite, zero points outside the type, output
 * quantizations an op does not define, wrong types, outputs past the memory
 * budget; each must fail with one error naming the node, never crash.
 * Their values are checked bit for bit against numpy by
 * tests/cli/test_tflite_ops.sh; a few hand-worked cases here pin the
 * rules where a reader can follow them: ADD's left shift and per-input
 * multipliers, requantizing uint8 <-> int8. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/tflite_fixed_point.h"
#include "graph_builder.h"
#include "op_test.h"

/* q_<role><i>_scale / _zero_point / _dim as the .tflite reader writes
 * them: count scales and zero points (more than one: per channel along
 * dimension 0). */
static void set_quants(Tfpi__NodeDef *n, const char *role, int i, const float *scales, const int64_t *zero_points,
                       int count)
{
    char key[48];
    snprintf(key, sizeof key, "q_%s%d_scale", role, i);
    Tfpi__AttrValue *v = gd_attr_set(n, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_LIST;
    v->list = calloc(1, sizeof *v->list);
    tfpi__attr_value__list_value__init(v->list);
    v->list->f = malloc(sizeof *v->list->f * (size_t)count);
    memcpy(v->list->f, scales, sizeof *v->list->f * (size_t)count);
    v->list->n_f = (size_t)count;
    snprintf(key, sizeof key, "q_%s%d_zero_point", role, i);
    gd_attr_set_ints(n, key, zero_points, count);
}

static void set_quant(Tfpi__NodeDef *n, const char *role, int i, float scale, int64_t zero_point)
{
    set_quants(n, role, i, &scale, &zero_point, 1);
}

/* x (and y if given) as Consts of dtype, fed into node "out" of op. */
static Tfpi__NodeDef *tflite_node(gb_graph *g, const char *op, tfpi_dtype dtype, const int64_t *x_dims, int x_ndims,
                                  const void *x, const int64_t *y_dims, int y_ndims, const void *y)
{
    gb_const(g, "x", dtype, x_dims, x_ndims, x);
    if (y_dims) {
        gb_const(g, "y", dtype, y_dims, y_ndims, y);
        return gb_node(g, op, "out", "x", "y", NULL);
    }
    return gb_node(g, op, "out", "x", NULL);
}

static tfpi_tensor *eval(const gb_graph *g) { return op_eval(g, NULL, "out"); }

/* ADD by hand: x scale 0.5 zp 128, y scale 0.25 zp 128, out scale 1 zp 128.
 * twice the larger scale is 1: x's multiplier 1/2, y's 1/4, the output's
 * 1 / 2^20. (200 - 128) << 20 = 75497472 -> x 37748736; (100 - 128) << 20
 * -> y -7340032; sum 30408704 / 2^20 = 29 -> 157. A tie: x 129, y 128:
 * 2^19 / 2^20 = 0.5 rounds away from zero -> 129; x 127: -0.5 -> 127. */
static void test_add_by_hand(void)
{
    static const uint8_t x[3] = {200, 129, 127}, y[3] = {100, 128, 128}, want[3] = {157, 129, 127};
    const int64_t dims[1] = {3};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = tflite_node(g, "ADD", TFPI_UINT8, dims, 1, x, dims, 1, y);
    set_quant(n, "in", 0, 0.5f, 128);
    set_quant(n, "in", 1, 0.25f, 128);
    set_quant(n, "out", 0, 1.0f, 128);
    CHECK_TENSOR(eval(g), TFPI_UINT8, 1, dims, want);
    gb_free(g);
}

/* ADD and SUB against TFLite's rule written out here (tp_tfl_multiply of
 * each input less its zero point shifted left by 20, the sum or difference
 * rescaled, the output zero point, the activation's clamp): uint8 and int8,
 * random scales (equal ones, ratios down to 1e-7, powers of two that make
 * ties, outputs scaled so that sums saturate), zero points and activations, over every pair of codes
 * and an odd tail (the NEON kernels' sixteen at a time, then the rest),
 * the second input also broadcast along an odd row (of random codes); 1 and 3 threads and,
 * on ARM, every core family. */
enum { ADDITIVE_CASES = 40, ADDITIVE_LENGTH = 256 * 256 + 41, ADDITIVE_ROW = 37 };

typedef struct additive_case {
    bool int8, sub, broadcast;
    float scale[3]; /* x, y, output */
    int zero[3];
    int act; /* NONE, RELU, RELU6, RELU_N1_TO_1 */
} additive_case;

/* The output code of codes cx and cy. */
static int32_t additive_want(const additive_case *c, int32_t cx, int32_t cy)
{
    const double twice = 2.0 * (double)fmaxf(c->scale[0], c->scale[1]);
    tp_tfl_multiplier mx = {0, 0}, my = mx, mo = mx;
    CHECK(tp_tfl_quantize_multiplier((double)c->scale[0] / twice, &mx) &&
          tp_tfl_quantize_multiplier((double)c->scale[1] / twice, &my) &&
          tp_tfl_quantize_multiplier(twice / ((double)(1 << 20) * (double)c->scale[2]), &mo));
    const int32_t a = tp_tfl_multiply((cx - c->zero[0]) * (1 << 20), mx);
    const int32_t b = tp_tfl_multiply((cy - c->zero[1]) * (1 << 20), my);
    int32_t v = tp_tfl_multiply(c->sub ? a - b : a + b, mo) + c->zero[2];
    int32_t lo = c->int8 ? -128 : 0, hi = c->int8 ? 127 : 255;
    const float so = c->scale[2];
    if (c->act == 1 || c->act == 2)
        lo = lo > c->zero[2] ? lo : c->zero[2];
    if (c->act == 2)
        hi = hi < c->zero[2] + (int32_t)roundf(6.0f / so) ? hi : c->zero[2] + (int32_t)roundf(6.0f / so);
    if (c->act == 3) {
        const int32_t l1 = c->zero[2] + (int32_t)roundf(-1.0f / so), h1 = c->zero[2] + (int32_t)roundf(1.0f / so);
        lo = lo > l1 ? lo : l1, hi = hi < h1 ? hi : h1;
    }
    return v < lo ? lo : v > hi ? hi : v;
}

static void random_additive_case(additive_case *c, int i)
{
    c->int8 = i % 2, c->sub = (i / 2) % 2, c->broadcast = i % 5 == 4, c->act = (i / 4) % 4;
    /* equal scales, a ratio near 1, a wide one; powers of two (whose exact
     * products make ties in every rounding) */
    const int kind = (i / 3) % 4;
    if (kind == 3) {
        c->scale[0] = ldexpf(1.0f, -(int)op_random(0.0f, 10.0f));
        c->scale[1] = ldexpf(c->scale[0], (int)op_random(-6.0f, 6.0f));
        c->scale[2] = ldexpf(fmaxf(c->scale[0], c->scale[1]), (int)op_random(-5.0f, 4.0f));
    } else {
        c->scale[0] = powf(10.0f, op_random(-3.0f, 0.0f));
        const float ratio = kind == 0 ? 1.0f : kind == 1 ? op_random(0.5f, 2.0f) : powf(10.0f, op_random(-7.0f, 1.0f));
        c->scale[1] = c->scale[0] * ratio;
        /* the output scale from 1/64 (sums saturate) to 16 times the larger input's */
        c->scale[2] = fmaxf(c->scale[0], c->scale[1]) * powf(2.0f, op_random(-6.0f, 4.0f));
    }
    for (int k = 0; k < 3; k++)
        c->zero[k] = (int)op_random(0.0f, 255.99f) - (c->int8 ? 128 : 0);
}

static void check_additive_case(const additive_case *c, int id, const uint8_t *x, const uint8_t *y)
{
    if (c->broadcast)
        y += 256 * 256; /* the random tail */
    static const char *const acts[] = {"NONE", "RELU", "RELU6", "RELU_N1_TO_1"};
    const tfpi_dtype t = c->int8 ? TFPI_INT8 : TFPI_UINT8;
    const int64_t rows = ADDITIVE_LENGTH / ADDITIVE_ROW;
    const int64_t flat[1] = {ADDITIVE_LENGTH}, matrix[2] = {rows, ADDITIVE_ROW}, row[1] = {ADDITIVE_ROW};
    const int64_t count = c->broadcast ? rows * ADDITIVE_ROW : ADDITIVE_LENGTH;
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", t, c->broadcast ? matrix : flat, c->broadcast ? 2 : 1);
    gb_placeholder(g, "y", t, c->broadcast ? row : flat, 1);
    Tfpi__NodeDef *n = gb_node(g, c->sub ? "SUB" : "ADD", "out", "x", "y", NULL);
    gd_attr_set_string(n, "fused_activation_function", acts[c->act]);
    for (int k = 0; k < 2; k++)
        set_quant(n, "in", k, c->scale[k], c->zero[k]);
    set_quant(n, "out", 0, c->scale[2], c->zero[2]);
    tfpi_tensor *feeds[2] = {op_tensor(t, c->broadcast ? matrix : flat, c->broadcast ? 2 : 1, x),
                             op_tensor(t, c->broadcast ? row : flat, 1, y)};
    const char *const names[2] = {"x", "y"}, *fetch = "out";
    int16_t *want = malloc(256 * 256 * sizeof *want); /* [x code byte][y code byte] */
    for (int i = 0; i < 256 * 256; i++)
        want[i] = (int16_t)additive_want(c, c->int8 ? (int8_t)(i >> 8) : i >> 8, c->int8 ? (int8_t)i : i & 255);
    static const char *const families[] = {"generic", "a53", "a72", "a76"};
#if defined(__arm__) || defined(__aarch64__)
    const int num_families = 4;
#else
    const int num_families = 1;
#endif
    for (int fam = 0; fam < num_families; fam++)
        for (int threads = 1; threads <= 3; threads += 2) {
            setenv("TFPI_CPU", families[fam], 1);
            tfpi_tensor *out = NULL;
            tfpi_status status;
            const tfpi_code code = op_run_graph(g, 2, names, feeds, 1, &fetch, &out, threads, &status);
            CHECK_MSG(code == TFPI_OK, "case %d: %s", id, status.message);
            int64_t bad = -1;
            int32_t got = 0, expected = 0;
            for (int64_t i = 0; code == TFPI_OK && i < count && bad < 0; i++) {
                const int64_t j = c->broadcast ? i % ADDITIVE_ROW : i;
                got = c->int8 ? ((const int8_t *)tfpi_tensor_data(out))[i] : ((const uint8_t *)tfpi_tensor_data(out))[i];
                expected = want[x[i] * 256 + y[j]];
                if (got != expected)
                    bad = i;
            }
            CHECK_MSG(bad < 0,
                      "case %d (%s %s, scales %g %g %g, zero points %d %d %d, %s%s, cpu %s, %d threads): "
                      "output %lld is %d, want %d",
                      id, c->sub ? "SUB" : "ADD", c->int8 ? "int8" : "uint8", (double)c->scale[0],
                      (double)c->scale[1], (double)c->scale[2], c->zero[0], c->zero[1], c->zero[2], acts[c->act],
                      c->broadcast ? ", broadcast" : "", families[fam], threads, (long long)bad, got, expected);
            tfpi_tensor_free(out);
        }
    unsetenv("TFPI_CPU");
    free(want);
    tfpi_tensor_free(feeds[0]);
    tfpi_tensor_free(feeds[1]);
    gb_free(g);
}

static void test_additive_matches_c_rule(void)
{
    uint8_t *x = malloc(ADDITIVE_LENGTH), *y = malloc(ADDITIVE_LENGTH);
    for (int64_t i = 0; i < ADDITIVE_LENGTH; i++) { /* every pair of codes, then random ones */
        x[i] = i < 65536 ? (uint8_t)i : (uint8_t)op_random(0.0f, 255.99f);
        y[i] = i < 65536 ? (uint8_t)(i >> 8) : (uint8_t)op_random(0.0f, 255.99f);
    }
    for (int i = 0; i < ADDITIVE_CASES; i++) {
        additive_case c;
        random_additive_case(&c, i);
        check_additive_case(&c, i, x, y);
    }
    free(x);
    free(y);
}

/* QUANTIZE uint8 -> int8 at one scale: code - 128; to half the scale: the
 * difference doubled, clamped. */
static void test_requantize_by_hand(void)
{
    static const uint8_t x[4] = {0, 127, 128, 255};
    static const int8_t same[4] = {-128, -1, 0, 127}, doubled[4] = {-128, -2, 0, 127};
    const int64_t dims[1] = {4};
    for (int k = 0; k < 2; k++) {
        gb_graph *g = gb_new();
        Tfpi__NodeDef *n = tflite_node(g, "QUANTIZE", TFPI_UINT8, dims, 1, x, NULL, 0, NULL);
        gd_attr_set_type(n, "T", TFPI_INT8);
        set_quant(n, "in", 0, 0.1f, 128);
        set_quant(n, "out", 0, k ? 0.05f : 0.1f, 0);
        CHECK_TENSOR(eval(g), TFPI_INT8, 1, dims, k ? doubled : same);
        gb_free(g);
    }
}

/* A binary op on two uint8 Consts whose quantization `bad` spoils. */
static void expect_binary_fails(const char *op, int bad, const char *fragment)
{
    static const uint8_t x[4] = {1, 2, 3, 4};
    const int64_t dims[1] = {4}, other[1] = {3};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = tflite_node(g, op, TFPI_UINT8, dims, 1, x, bad == 5 ? other : dims, 1, x);
    set_quant(n, "in", 0, bad == 0 ? 0.0f : bad == 1 ? NAN : 0.5f, bad == 2 ? 300 : 1);
    set_quant(n, "in", 1, bad == 3 ? -1.0f : 0.5f, 2);
    if (bad != 4)
        set_quant(n, "out", 0, bad == 6 ? INFINITY : 1.0f, 3);
    if (bad == 7)
        gd_attr_set_string(n, "fused_activation_function", "SOFTPLUS");
    if (bad == 8)
        gd_attr_set_type(n, "T", TFPI_INT8);
    CHECK_FAILS(g, NULL, "out", "out", fragment);
    gb_free(g);
}

static void test_hostile_binary(void)
{
    static const char *const ops[] = {"ADD", "SUB", "MUL", "SQUARED_DIFFERENCE", "DIV"};
    for (int k = 0; k < 5; k++) {
        expect_binary_fails(ops[k], 0, "scale 0");
        expect_binary_fails(ops[k], 1, "scale nan");
        expect_binary_fails(ops[k], 2, "zero point 300");
        expect_binary_fails(ops[k], 3, "scale -1");
        expect_binary_fails(ops[k], 4, "output 0 has no quantization");
        expect_binary_fails(ops[k], 5, "incompatible shapes [4] and [3]");
        expect_binary_fails(ops[k], 6, "scale inf");
        expect_binary_fails(ops[k], 7, "unknown fused_activation_function 'SOFTPLUS'");
        expect_binary_fails(ops[k], 8, "one type");
    }
}

/* An output of 2^40 bytes: over any budget, refused while planning (on a
 * 32-bit build its size does not fit in size_t, which is said first). */
static void test_output_past_budget(void)
{
    uint8_t *x = calloc(1 << 20, 1);
    const int64_t column[2] = {1 << 20, 1}, row[2] = {1, 1 << 20};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = tflite_node(g, "ADD", TFPI_UINT8, column, 2, x, row, 2, x);
    set_quant(n, "in", 0, 0.5f, 0);
    set_quant(n, "in", 1, 0.5f, 0);
    set_quant(n, "out", 0, 1.0f, 0);
    CHECK_FAILS(g, NULL, "out", "out", sizeof(size_t) < 8 ? "is negative or too large" : "memory budget");
    gb_free(g);
    free(x);
}

/* The unary ops: an output quantization they do not define, a float or
 * int32 input, a quantization per channel where one scale belongs. */
static void test_hostile_unary(void)
{
    static const int8_t x[4] = {-5, 0, 5, 100};
    const int64_t dims[1] = {4};
    static const struct {
        const char *op;
        float out_scale;
        int64_t out_zero;
        const char *fragment;
    } cases[] = {
        {"LOGISTIC", 1.0f / 128, -128, "must be scale 0.00390625, zero point -128"},
        {"TANH", 1.0f / 128, -128, "must be scale 0.0078125, zero point 0"},
        {"SOFTMAX", 1.0f / 256, 0, "must be scale 0.00390625, zero point -128"},
        {"QUANTIZE", 0.5f, 128, "zero point 128, outside its type's -128..127"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_graph *g = gb_new();
        Tfpi__NodeDef *n = tflite_node(g, cases[i].op, TFPI_INT8, dims, 1, x, NULL, 0, NULL);
        set_quant(n, "in", 0, 0.1f, 0);
        set_quant(n, "out", 0, cases[i].out_scale, cases[i].out_zero);
        CHECK_FAILS(g, NULL, "out", "out", cases[i].fragment);
        gb_free(g);
    }
    static const int32_t ints[2] = {1, 2};
    const int64_t two[1] = {2};
    static const char *const ops[] = {"LOGISTIC", "SOFTMAX", "QUANTIZE", "DEQUANTIZE", "ADD"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        gb_graph *g = gb_new();
        tflite_node(g, ops[i], TFPI_INT32, two, 1, ints, i == 4 ? two : NULL, 1, ints);
        CHECK_FAILS(g, NULL, "out", "out", "input 0 is int32");
        gb_free(g);
    }
    /* DEQUANTIZE per channel: three scales for a dimension of four */
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = tflite_node(g, "DEQUANTIZE", TFPI_INT8, dims, 1, x, NULL, 0, NULL);
    static const int64_t zeros[3] = {0, 0, 0};
    Tfpi__AttrValue *v = gd_attr_set(n, "q_in0_scale");
    v->value_case = TFPI__ATTR_VALUE__VALUE_LIST;
    v->list = calloc(1, sizeof *v->list);
    tfpi__attr_value__list_value__init(v->list);
    v->list->f = calloc(3, sizeof *v->list->f);
    v->list->f[0] = v->list->f[1] = v->list->f[2] = 0.5f;
    v->list->n_f = 3;
    gd_attr_set_ints(n, "q_in0_zero_point", zeros, 3);
    CHECK_FAILS(g, NULL, "out", "out", "3 scales, but dimension 0 of the input has 4 slices");
    gb_free(g);
}

/* Pools, reductions and concatenation: geometry and axes from hostile
 * attributes and inputs. */
static void test_hostile_windows_and_axes(void)
{
    static const int8_t x[16] = {0};
    const int64_t nhwc[4] = {1, 2, 2, 4}, flat[1] = {16}, two[2] = {4, 4};
    static const struct {
        const char *op;
        int64_t filter, stride, axis, out_zero;
        const char *fragment;
    } cases[] = {
        {"MAX_POOL_2D", 2, 1, 0, 3, "must share one quantization"},
        {"AVERAGE_POOL_2D", 0, 1, 0, 0, "ksize"},
        {"AVERAGE_POOL_2D", 2, -3, 0, 0, "strides"},
        {"MEAN", 0, 0, 7, 0, "axis 7"},
        {"SUM", 0, 0, -9, 0, "axis -9"},
        {"CONCATENATION", 0, 0, 5, 0, "axis 5"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_graph *g = gb_new();
        gb_const(g, "x", TFPI_INT8, nhwc, 4, x);
        Tfpi__NodeDef *n;
        if (!strcmp(cases[i].op, "MEAN") || !strcmp(cases[i].op, "SUM")) {
            const int32_t axis = (int32_t)cases[i].axis;
            const int64_t one[1] = {1};
            gb_const(g, "axis", TFPI_INT32, one, 1, &axis);
            n = gb_node(g, cases[i].op, "out", "x", "axis", NULL);
        } else {
            n = gb_node(g, cases[i].op, "out", "x", NULL);
            gd_attr_set_int(n, "filter_height", cases[i].filter);
            gd_attr_set_int(n, "filter_width", cases[i].filter);
            gd_attr_set_int(n, "stride_h", cases[i].stride);
            gd_attr_set_int(n, "stride_w", cases[i].stride);
            gd_attr_set_string(n, "padding", "SAME");
            gd_attr_set_int(n, "axis", cases[i].axis);
        }
        set_quant(n, "in", 0, 0.5f, 0);
        set_quant(n, "out", 0, 0.5f, cases[i].out_zero);
        CHECK_FAILS(g, NULL, "out", "out", cases[i].fragment);
        gb_free(g);
    }
    /* CONCATENATION of [16] and [4, 4] */
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_INT8, flat, 1, x);
    gb_const(g, "y", TFPI_INT8, two, 2, x);
    Tfpi__NodeDef *n = gb_node(g, "CONCATENATION", "out", "x", "y", NULL);
    set_quant(n, "in", 0, 0.5f, 0);
    set_quant(n, "in", 1, 0.5f, 0);
    set_quant(n, "out", 0, 0.5f, 0);
    CHECK_FAILS(g, NULL, "out", "out", "input 1 int8 [4,4] does not match input 0 int8 [16]");
    gb_free(g);
}

/* TFLite_Detection_PostProcess: options missing or out of range, inputs
 * of the wrong shapes, an anchor of negative height, outputs past the
 * memory budget. */
static void test_hostile_detection(void)
{
    static const float enc[8] = {0}, scores[6] = {0.9f, 0.1f, 0.2f, 0.8f, 0.5f, 0.5f};
    static const float anchors[8] = {0.5f, 0.5f, 0.2f, 0.2f, 0.5f, 0.5f, -0.2f, 0.2f};
    const int64_t enc_dims[3] = {1, 2, 4}, score_dims[3] = {1, 2, 3}, anchor_dims[2] = {2, 4};
    static const struct {
        const char *drop;  /* option left out */
        const char *set;   /* option set to value */
        double value;
        const char *fragment;
    } cases[] = {
        {"num_classes", NULL, 0, "option num_classes is missing"},
        {NULL, "nms_iou_threshold", 0.0, "nms_iou_threshold = 0 must lie in (0, 1]"},
        {NULL, "max_detections", -1, "max_detections = -1 is not a count"},
        {NULL, "num_classes", 5, "scores have 3 classes for num_classes 5"},
        {NULL, "y_scale", INFINITY, "option y_scale is inf"},
        {NULL, "max_detections", 1 << 24, "too large"}, /* with max_classes 2^24: 2^48 rows */
        {NULL, "nms_score_threshold", 0.0, "box 1 decodes to"},
    };
    static const char *const options[] = {"max_detections", "max_classes_per_detection", "num_classes",
                                          "nms_score_threshold", "nms_iou_threshold", "y_scale", "x_scale",
                                          "h_scale", "w_scale"};
    static const double defaults[] = {3, 1, 2, 0.3, 0.5, 10, 10, 5, 5};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_graph *g = gb_new();
        gb_const(g, "e", TFPI_FLOAT, enc_dims, 3, enc);
        gb_const(g, "s", TFPI_FLOAT, score_dims, 3, scores);
        gb_const(g, "a", TFPI_FLOAT, anchor_dims, 2, anchors);
        Tfpi__NodeDef *n = gb_node(g, "TFLite_Detection_PostProcess", "out", "e", "s", "a", NULL);
        for (int k = 0; k < 9; k++) {
            double v = defaults[k];
            if (cases[i].drop && !strcmp(cases[i].drop, options[k]))
                continue;
            if (cases[i].set && !strcmp(cases[i].set, options[k]))
                v = cases[i].value;
            if (!strcmp(cases[i].fragment, "too large") && k == 1)
                v = 1 << 24;
            if (k <= 2)
                gd_attr_set_int(n, options[k], (int64_t)v);
            else
                gd_attr_set_float(n, options[k], (float)v);
        }
        CHECK_FAILS(g, NULL, "out", "out", cases[i].fragment);
        gb_free(g);
    }
    /* wrong shapes: anchors [2, 3] */
    gb_graph *g = gb_new();
    gb_const(g, "e", TFPI_FLOAT, enc_dims, 3, enc);
    gb_const(g, "s", TFPI_FLOAT, score_dims, 3, scores);
    const int64_t bad_anchor_dims[2] = {2, 3};
    gb_const(g, "a", TFPI_FLOAT, bad_anchor_dims, 2, anchors);
    Tfpi__NodeDef *n = gb_node(g, "TFLite_Detection_PostProcess", "out", "e", "s", "a", NULL);
    for (int k = 0; k < 9; k++)
        k <= 2 ? gd_attr_set_int(n, options[k], (int64_t)defaults[k])
               : gd_attr_set_float(n, options[k], (float)defaults[k]);
    CHECK_FAILS(g, NULL, "out", "out", "anchors [boxes, 4], not [1,2,4], [1,2,3] and [2,3]");
    gb_free(g);
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM: too few inputs, a weight of the wrong
 * shape, a half-present optional group. */
static void test_hostile_lstm(void)
{
    static const float zeros[64] = {0};
    const int64_t x_dims[3] = {1, 2, 3}, w_dims[2] = {4, 3}, r_dims[2] = {4, 4}, bad_dims[2] = {4, 5}, b_dims[1] = {4},
                  state_dims[2] = {1, 4}, none_dims[1] = {0};
    for (int variant = 0; variant < 3; variant++) {
        gb_graph *g = gb_new();
        gb_const(g, "x", TFPI_FLOAT, x_dims, 3, zeros);
        gb_const(g, "w", TFPI_FLOAT, w_dims, 2, zeros);
        gb_const(g, "r", TFPI_FLOAT, variant == 1 ? bad_dims : r_dims, 2, zeros);
        gb_const(g, "b", TFPI_FLOAT, b_dims, 1, zeros);
        gb_const(g, "s", TFPI_FLOAT, state_dims, 2, zeros);
        gb_const(g, "TFLiteNoValue", TFPI_FLOAT, none_dims, 1, zeros);
        /* inputs 0..19: a full LSTM without peepholes or projection; variant
         * 2 gives only the forget gate's peephole */
        const char *in[20] = {"x", "w", "w", "w", "w", "r", "r", "r", "r", "TFLiteNoValue", variant == 2 ? "b" : "TFLiteNoValue",
                              "TFLiteNoValue", "b", "b", "b", "b", "TFLiteNoValue", "TFLiteNoValue", "s", "s"};
        Tfpi__NodeDef *n = variant == 0 ? gb_node(g, "UNIDIRECTIONAL_SEQUENCE_LSTM", "out", "x", "w", NULL)
                                        : gb_node(g, "UNIDIRECTIONAL_SEQUENCE_LSTM", "out", in[0], in[1], in[2], in[3],
                                                  in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11], in[12],
                                                  in[13], in[14], in[15], in[16], in[17], in[18], in[19], NULL);
        gd_attr_set_string(n, "fused_activation_function", "TANH");
        static const char *const fragments[] = {"expects 20 to 24 inputs, has 2", "without projection the output size 5 must equal the cells 4",
                                                "the peephole inputs must be all present or all absent"};
        CHECK_FAILS(g, NULL, "out", "out", fragments[variant]);
        gb_free(g);
    }
}

/* The integer LSTM (int8 input): each broken node fails with one error
 * naming what is wrong; the intact one runs (tests/cli/test_tflite_lstm8.sh
 * checks its values). Inputs: x [1,2,3], weights [4,3] and [4,4], biases
 * [4], states [1,4]; variant 0 is intact. */
static void test_hostile_integer_lstm(void)
{
    static const int8_t codes[64] = {1, -2, 3, 4, -5, 6, 7, 8, 9, 10, 11, 12, -13, 14, 15, 16};
    static const int32_t bias[4] = {100, -200, 300, 400};
    static const int16_t cell[4] = {0};
    const int64_t x_dims[3] = {1, 2, 3}, w_dims[2] = {4, 3}, r_dims[2] = {4, 4}, b_dims[1] = {4},
                  state_dims[2] = {1, 4}, bad_state_dims[2] = {2, 2}, none_dims[1] = {0};
    static const struct {
        const char *fragment;
    } variants[] = {
        {NULL},
        {"has 4 intermediates; TFLite's integer LSTM (8x8_16) takes 5"},
        {"intermediate 4 needs one positive scale"},
        {"input 1 has zero point 3: the integer LSTM's weights are symmetric"},
        {"the cell state's scale 0.001 must be a power of two"},
        {"input 12 (a bias) is int8; the integer LSTM takes int32"},
        {"input 18 is [2,2]; expected [1, 4]"},
        {"the integer LSTM's activation must be TANH"},
        {"input 19 is int8; the integer LSTM takes int16 there"},
        {"input 1 has no quantization"},
    };
    for (int v = 0; v < (int)(sizeof variants / sizeof variants[0]); v++) {
        gb_graph *g = gb_new();
        gb_const(g, "x", TFPI_INT8, x_dims, 3, codes);
        gb_const(g, "w", TFPI_INT8, w_dims, 2, codes);
        gb_const(g, "r", TFPI_INT8, r_dims, 2, codes);
        gb_const(g, "b", v == 5 ? TFPI_INT8 : TFPI_INT32, b_dims, 1, v == 5 ? (const void *)codes : bias);
        gb_const(g, "h", TFPI_INT8, v == 6 ? bad_state_dims : state_dims, 2, codes);
        gb_const(g, "c", v == 8 ? TFPI_INT8 : TFPI_INT16, state_dims, 2, cell);
        gb_const(g, "TFLiteNoValue", TFPI_FLOAT, none_dims, 1, codes);
        const char *no = "TFLiteNoValue";
        Tfpi__NodeDef *n = gb_node(g, "UNIDIRECTIONAL_SEQUENCE_LSTM", "out", "x", "w", "w", "w", "w", "r", "r", "r", "r",
                                   no, no, no, "b", "b", "b", "b", no, no, "h", "c", NULL);
        gd_attr_set_string(n, "fused_activation_function", v == 7 ? "RELU" : "TANH");
        gd_attr_set_int(n, "num_intermediates", v == 1 ? 4 : 5);
        gd_attr_set_type(n, "T", TFPI_INT8);
        set_quant(n, "in", 0, 0.02f, -3);
        for (int i = 1; i <= 8; i++)
            if (!(v == 9 && i == 1))
                set_quant(n, "in", i, 0.01f, v == 3 && i == 1 ? 3 : 0);
        set_quant(n, "in", 18, 1.0f / 128, -5);
        set_quant(n, "in", 19, v == 4 ? 0.001f : 1.0f / 2048, 0);
        set_quant(n, "out", 0, 1.0f / 128, -5);
        if (v != 2)
            set_quant(n, "im", 4, 1.0f / 128, -5);
        if (!variants[v].fragment) {
            tfpi_tensor *out = eval(g);
            CHECK(out && tfpi_tensor_dtype(out) == TFPI_INT8 && tfpi_tensor_ndims(out) == 3);
            tfpi_tensor_free(out);
        } else {
            CHECK_FAILS(g, NULL, "out", "out", variants[v].fragment);
        }
        gb_free(g);
    }
}

/* TRANSPOSE_CONV (output_shape, filter [3, 2, 2, 2], input [1, 2, 2, 2],
 * bias [3]), each variant spoiling one thing. */
static void test_hostile_transpose_conv(void)
{
    static const int8_t x[8] = {0}, w[24] = {0};
    static const float w_scales[3] = {0.5f, 0.25f, 0.0f};
    static const int32_t bias[3] = {0}, shape_ok[4] = {1, 4, 4, 3}, shape_batch[4] = {2, 4, 4, 3},
                         shape_huge[4] = {1, 1 << 24, 1 << 24, 3}, shape_wide[4] = {1, 4, (1 << 24) + 1, 3};
    static const float fx[8] = {0};
    const int64_t x_dims[4] = {1, 2, 2, 2}, w_dims[4] = {3, 2, 2, 2}, four[1] = {4}, three[1] = {3}, two[1] = {2};
    static const int64_t zeros[3] = {0, 0, 0}, nonzero[3] = {0, 3, 0};
    static const char *const fragments[] = {
        "the input (input 2) is float", /* 0 */
        "the filter's scale 2 is 0", /* 1 */
        "int8 filters must have zero point 0", /* 2 */
        "the filter has 2 scales along dimension 0", /* 3 */
        "output_shape must be [1, height, width, 3]", /* 4 */
        "too large", /* 5 */
        "heights and widths must be in 1..2^24", /* 6 */
        "the bias (input 3) must be int32 with 3 values", /* 7 */
        "stride_h 0", /* 8 */
        "output 0 has no quantization", /* 9 */
        "input 2 has scale 0", /* 10 */
    };
    for (int v = 0; v < (int)(sizeof fragments / sizeof fragments[0]); v++) {
        gb_graph *g = gb_new();
        gb_const(g, "shape", TFPI_INT32, four, 1,
                 v == 4 ? shape_batch : v == 5 ? shape_huge : v == 6 ? shape_wide : shape_ok);
        gb_const(g, "w", TFPI_INT8, w_dims, 4, w);
        gb_const(g, "x", v == 0 ? TFPI_FLOAT : TFPI_INT8, x_dims, 4, v == 0 ? (const void *)fx : (const void *)x);
        gb_const(g, "bias", TFPI_INT32, v == 7 ? two : three, 1, bias);
        Tfpi__NodeDef *n = gb_node(g, "TRANSPOSE_CONV", "out", "shape", "w", "x", "bias", NULL);
        gd_attr_set_type(n, "T", TFPI_INT8);
        gd_attr_set_int(n, "stride_h", v == 8 ? 0 : 2);
        gd_attr_set_int(n, "stride_w", 2);
        set_quants(n, "in", 1, v == 1 ? w_scales : (const float[]){0.5f, 0.5f, 0.5f}, v == 2 ? nonzero : zeros,
                   v == 3 ? 2 : 3);
        set_quant(n, "in", 2, v == 10 ? 0.0f : 0.1f, 0);
        if (v != 9)
            set_quant(n, "out", 0, 0.2f, 0);
        CHECK_FAILS(g, NULL, "out", "out", fragments[v]);
        gb_free(g);
    }
}

/* BATCH_MATMUL: uint8 (TFLite has only int8), depths that differ, batch
 * dimensions that do not broadcast, a vector, a zero scale, a
 * per-channel rhs. */
static void test_hostile_batch_matmul(void)
{
    static const int8_t v[64] = {0};
    static const struct {
        int64_t a[3], b[3];
        int a_rank, b_rank;
        const char *fragment;
    } cases[] = {
        {{2, 3}, {3, 4}, 2, 2, "TFLite has no uint8 form"},
        {{2, 3}, {4, 5}, 2, 2, "lhs has depth 3 and rhs 4"},
        {{2, 1, 3}, {3, 3, 4}, 3, 3, "batch dimensions 2 and 3 do not broadcast"},
        {{6}, {6, 1}, 1, 2, "rank 2 to 5, not 1 and 2"},
        {{2, 3}, {3, 4}, 2, 2, "input 1 has scale 0"},
        {{2, 3}, {3, 2}, 2, 2, "input 1 must be quantized per tensor (it has 2 scales)"},
    };
    static const float two_scales[2] = {0.5f, 0.5f};
    static const int64_t two_zeros[2] = {0, 0};
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
        gb_graph *g = gb_new();
        const tfpi_dtype t = k == 0 ? TFPI_UINT8 : TFPI_INT8;
        Tfpi__NodeDef *n = tflite_node(g, "BATCH_MATMUL", t, cases[k].a, cases[k].a_rank, v, cases[k].b,
                                       cases[k].b_rank, v);
        set_quant(n, "in", 0, 0.5f, 0);
        if (k == 5)
            set_quants(n, "in", 1, two_scales, two_zeros, 2);
        else
            set_quant(n, "in", 1, k == 4 ? 0.0f : 0.5f, 0);
        set_quant(n, "out", 0, 0.5f, 0);
        CHECK_FAILS(g, NULL, "out", "out", cases[k].fragment);
        gb_free(g);
    }
}

/* A one-input op on x (of type t: in scale 0.5, the output's out_scale)
 * that must fail with fragment. */
static void unary_fails(const char *op, tfpi_dtype t, float out_scale, const char *fragment)
{
    static const int8_t x[4] = {-5, 0, 5, 100};
    const int64_t dims[1] = {4};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = tflite_node(g, op, t, dims, 1, x, NULL, 0, NULL);
    set_quant(n, "in", 0, 0.5f, 0);
    set_quant(n, "out", 0, out_scale, 0);
    CHECK_FAILS(g, NULL, "out", "out", fragment);
    gb_free(g);
}

/* DIV: a multiplier past its range, types that differ; the table ops:
 * uint8 where TFLite takes int8 only, a negative value under SQRT and
 * RSQRT (an error when run, as TFLite's), a zero output scale. */
static void test_hostile_div_and_tables(void)
{
    static const int8_t x[4] = {-5, 0, 5, 100};
    const int64_t dims[1] = {4};
    gb_graph *g = gb_new();
    Tfpi__NodeDef *n = tflite_node(g, "DIV", TFPI_INT8, dims, 1, x, dims, 1, x);
    set_quant(n, "in", 0, 1e6f, 0);
    set_quant(n, "in", 1, 1e-3f, 0);
    set_quant(n, "out", 0, 1e-3f, 0);
    CHECK_FAILS(g, NULL, "out", "out", "out of DIV's range");
    gb_free(g);
    g = gb_new();
    n = tflite_node(g, "DIV", TFPI_INT8, dims, 1, x, dims, 1, x);
    gd_attr_set_type(n, "T", TFPI_UINT8);
    CHECK_FAILS(g, NULL, "out", "out", "inputs and output must have one type");
    gb_free(g);
    static const char *const int8_only[] = {"SQRT", "RSQRT"};
    for (int k = 0; k < 2; k++) {
        unary_fails(int8_only[k], TFPI_UINT8, 0.5f, "TFLite's quantized form of this operator is int8");
        unary_fails(int8_only[k], TFPI_INT8, 0.5f, "element 0 is negative (code -5)");
    }
    unary_fails("EXP", TFPI_INT8, 0.0f, "output 0 has scale 0");
}

/* REDUCE_PROD: uint8 (TFLite's is int8), a step multiplier past its range. */
static void test_hostile_reduce_prod(void)
{
    static const int8_t x[4] = {-5, 0, 5, 100};
    const int64_t dims[1] = {4}, one[1] = {1};
    const int32_t axis = 0;
    for (int k = 0; k < 2; k++) {
        gb_graph *g = gb_new();
        gb_const(g, "x", k ? TFPI_INT8 : TFPI_UINT8, dims, 1, x);
        gb_const(g, "axis", TFPI_INT32, one, 1, &axis);
        Tfpi__NodeDef *n = gb_node(g, "REDUCE_PROD", "out", "x", "axis", NULL);
        set_quant(n, "in", 0, k ? 1e6f : 0.5f, 0);
        set_quant(n, "out", 0, k ? 1e-6f : 0.5f, 0);
        CHECK_FAILS(g, NULL, "out", "out", k ? "out of REDUCE_PROD's range" : "TFLite's quantized REDUCE_PROD is int8");
        gb_free(g);
    }
}

/* Comparisons of differently quantized inputs: a scale of 1 or more
 * (TFLite's rule is undefined there), an output that is not bool. */
static void test_hostile_comparison(void)
{
    static const int8_t x[4] = {-5, 0, 5, 100};
    const int64_t dims[1] = {4};
    for (int k = 0; k < 2; k++) {
        gb_graph *g = gb_new();
        Tfpi__NodeDef *n = tflite_node(g, "LESS", TFPI_INT8, dims, 1, x, dims, 1, x);
        gd_attr_set_type(n, "T", k ? TFPI_INT8 : TFPI_BOOL);
        set_quant(n, "in", 0, 0.5f, 0);
        set_quant(n, "in", 1, 2.0f, 0);
        CHECK_FAILS(g, NULL, "out", "out", k ? "the output be bool" : "input 1 has scale 2: TFLite's quantized comparison");
        gb_free(g);
    }
}

int main(void)
{
    RUN(test_add_by_hand);
    RUN(test_additive_matches_c_rule);
    RUN(test_requantize_by_hand);
    RUN(test_hostile_binary);
    RUN(test_output_past_budget);
    RUN(test_hostile_unary);
    RUN(test_hostile_windows_and_axes);
    RUN(test_hostile_detection);
    RUN(test_hostile_lstm);
    RUN(test_hostile_integer_lstm);
    RUN(test_hostile_transpose_conv);
    RUN(test_hostile_batch_matmul);
    RUN(test_hostile_div_and_tables);
    RUN(test_hostile_comparison);
    RUN(test_hostile_reduce_prod);
    return check_summary();
}
