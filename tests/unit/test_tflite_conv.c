/* test_tflite_conv.c - TFLite's quantized CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED (kernels/tflite_conv.c) on nodes built as the .tflite
 * reader writes them (src/compute/tflite_node.h), against numpy: random
 * cases (int8 per-channel and uint8 per-tensor, odd channel counts,
 * strides, dilations, SAME and VALID, biases present, absent and wrapping,
 * scales that make ties, tiny and large shifts, every fused activation)
 * are written to a file that tests/diff/numpy_tflite_conv.py evaluates
 * from TFLite's documented rules; every output code must be equal, for one
 * and three threads and, on ARM, for each core family's kernels. Then the
 * errors a bad node gets. TFPI_PYTHON overrides /usr/bin/python3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compute/tflite_fixed_point.h"
#include "graph_builder.h"
#include "op_test.h"

enum { KIND_CONV, KIND_DEPTHWISE, KIND_FC, NUM_RANDOM = 160, NUM_EDGES = 17, NUM_CASES = NUM_RANDOM + NUM_EDGES,
       MAX_CHANNELS = 64 };

static const char *const op_names[] = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"};
static const char *const activations[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6"};

typedef struct qcase {
    int kind;
    bool int8;
    int act;
    bool same, keep_num_dims;
    int stride_h, stride_w, dil_h, dil_w;
    int in_ndims;
    int64_t in_dims[4], filter_dims[4];
    float in_scale, out_scale, f_scales[MAX_CHANNELS];
    int f_count; /* 1 or out_c */
    int in_zero, out_zero, f_zero;
    int bias_mode; /* 0 absent (2 inputs), 1 absent (TFLiteNoValue), 2 present */
    int32_t bias[MAX_CHANNELS];
    int64_t out_c;
    void *input, *filter;
    int64_t in_size, filter_size;
} qcase;

static uint32_t rng = 12345;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}
static int64_t uniform(int64_t lo, int64_t hi) { return lo + (int64_t)(next() % (uint32_t)(hi - lo + 1)); }
static float log_uniform(double lo_exp2, double hi_exp2)
{
    return (float)exp2(lo_exp2 + (hi_exp2 - lo_exp2) * (next() / 4294967296.0));
}

static int64_t product(const int64_t *d, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= d[i];
    return p;
}

/* Codes of the case's type: int8 filters mostly in [-127, 127]. */
static void *random_codes(const qcase *c, int64_t n, bool filter)
{
    uint8_t *v = malloc((size_t)n + 1);
    const bool full_range = !filter || uniform(0, 3) == 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = c->int8 ? uniform(full_range ? -128 : -127, 127) : uniform(0, 255);
        v[i] = (uint8_t)x;
    }
    return v;
}

static void make_case(qcase *c, int index)
{
    memset(c, 0, sizeof *c);
    c->kind = index % 3;
    c->int8 = (index / 3) % 2 == 0;
    c->act = (int)uniform(0, 3);
    c->same = uniform(0, 1);
    c->stride_h = (int)uniform(1, 3), c->stride_w = (int)uniform(1, 3);
    c->dil_h = uniform(0, 4) == 0 ? 2 : 1, c->dil_w = uniform(0, 4) == 0 ? (int)uniform(2, 3) : 1;
    /* a third of the cases have the shapes of the fast paths: the GEMM's A
     * read in place (1x1 at stride 1; a depth a multiple of 16, or not:
     * then the last rows are gathered), 3 x 3 depthwise */
    const bool usual = uniform(0, 2) == 0;
    const int64_t batch = uniform(1, 2), h = uniform(1, 11), w = uniform(1, 11);
    const int64_t gemm_c = uniform(0, 1) ? 16 * uniform(1, 3) : uniform(17, 40);
    const int64_t in_c = usual ? (c->kind == KIND_DEPTHWISE ? uniform(16, 40) : gemm_c) : uniform(1, 40);
    if (c->kind == KIND_FC) {
        c->keep_num_dims = uniform(0, 1);
        c->in_ndims = c->keep_num_dims ? 3 : 2;
        c->in_dims[0] = batch, c->in_dims[1] = c->keep_num_dims ? h : in_c * h;
        if (c->keep_num_dims)
            c->in_dims[2] = in_c;
        c->out_c = uniform(1, MAX_CHANNELS);
        c->filter_dims[0] = c->out_c, c->filter_dims[1] = c->keep_num_dims ? in_c : in_c * h;
    } else {
        c->in_ndims = 4;
        c->in_dims[0] = batch, c->in_dims[1] = h, c->in_dims[2] = w, c->in_dims[3] = in_c;
        int64_t kh = usual ? 1 + 2 * (c->kind == KIND_DEPTHWISE) : uniform(1, 5), kw = usual ? kh : uniform(1, 5);
        if (usual && c->kind == KIND_CONV)
            c->stride_h = c->stride_w = c->dil_h = c->dil_w = 1;
        while (!c->same && (kh - 1) * c->dil_h >= h) /* VALID needs the window inside the image */
            kh--;
        while (!c->same && (kw - 1) * c->dil_w >= w)
            kw--;
        if (c->kind == KIND_CONV) {
            c->out_c = uniform(1, MAX_CHANNELS);
            c->filter_dims[0] = c->out_c, c->filter_dims[1] = kh, c->filter_dims[2] = kw, c->filter_dims[3] = in_c;
        } else {
            const int64_t m = !usual && uniform(0, 3) == 0 ? uniform(2, 3) : 1;
            c->in_dims[3] = in_c > MAX_CHANNELS / m ? MAX_CHANNELS / m : in_c;
            c->out_c = c->in_dims[3] * m;
            c->filter_dims[0] = 1, c->filter_dims[1] = kh, c->filter_dims[2] = kw, c->filter_dims[3] = c->out_c;
        }
    }
    c->in_size = product(c->in_dims, c->in_ndims);
    c->filter_size = product(c->filter_dims, c->kind == KIND_FC ? 2 : 4);
    /* Scales that put most outputs inside the codes, so that the rescale's
     * rounding shows: the sums spread about 5000 x sqrt(depth) for uniform
     * codes. Powers of two make ties in the rescale; some cases span large
     * and tiny factors instead. */
    const int64_t depth = c->kind == KIND_FC ? c->filter_dims[1]
                          : c->kind == KIND_CONV ? c->filter_dims[1] * c->filter_dims[2] * c->in_dims[3]
                                                 : c->filter_dims[1] * c->filter_dims[2];
    const double factor = 40.0 / (5000.0 * sqrt((double)depth)) * exp2(uniform(-20, 20) / 10.0);
    const bool powers = uniform(0, 2) == 0, wide = uniform(0, 5) == 0;
    c->in_scale = powers ? exp2f((float)uniform(-9, -1)) : log_uniform(-10, 0);
    c->f_count = c->int8 && uniform(0, 3) != 0 ? (int)c->out_c : 1;
    const float f_base = powers ? exp2f((float)uniform(-12, -2)) : log_uniform(-14, -1);
    for (int i = 0; i < c->f_count; i++)
        c->f_scales[i] = wide ? log_uniform(-24, 8) : powers ? f_base * exp2f((float)uniform(-2, 2))
                                                         : f_base * log_uniform(-1.5, 1.5);
    c->out_scale = (float)(c->in_scale * f_base / factor);
    if (powers)
        c->out_scale = exp2f(roundf(log2f(c->out_scale)));
    if (c->int8) {
        c->in_zero = (int)uniform(-128, 127), c->out_zero = (int)uniform(-128, 127);
        c->f_zero = c->kind == KIND_FC && c->f_count == 1 && uniform(0, 2) == 0 ? (int)uniform(-128, 127) : 0;
    } else {
        c->in_zero = (int)uniform(0, 255), c->out_zero = (int)uniform(0, 255), c->f_zero = (int)uniform(0, 255);
    }
    c->bias_mode = (int)uniform(0, 4) == 0 ? (int)uniform(0, 1) : 2;
    for (int64_t i = 0; i < c->out_c; i++)
        c->bias[i] = uniform(0, 9) == 0 ? (int32_t)(next() ^ 0x80000000u) : (int32_t)uniform(-3000000, 3000000);
    c->input = random_codes(c, c->in_size, false);
    c->filter = random_codes(c, c->filter_size, true);
}

/* ---- edge cases: FULLY_CONNECTED of depth 1 over every input code, whose
 * scales and biases make one rounding rule decide outputs ---- */

/* A depth-1 FULLY_CONNECTED over the 256 codes of the type, out_c units,
 * weights w - zero in [-span, span], bias 0 (edited by the caller). */
static void edge_case(qcase *c, bool int8, int64_t out_c, int span)
{
    memset(c, 0, sizeof *c);
    c->kind = KIND_FC;
    c->int8 = int8;
    c->in_ndims = 2;
    c->in_dims[0] = 256, c->in_dims[1] = 1;
    c->out_c = out_c;
    c->filter_dims[0] = out_c, c->filter_dims[1] = 1;
    c->in_size = 256, c->filter_size = out_c;
    c->in_zero = int8 ? (int)uniform(-20, 20) : (int)uniform(108, 148);
    c->f_zero = int8 ? 0 : (int)uniform(100, 150);
    c->out_zero = int8 ? (int)uniform(-10, 10) : (int)uniform(118, 138);
    c->in_scale = c->out_scale = 1.0f;
    c->f_count = 1;
    c->f_scales[0] = 1.0f;
    c->bias_mode = 2;
    uint8_t *x = malloc(256), *w = malloc((size_t)out_c);
    for (int i = 0; i < 256; i++)
        x[i] = (uint8_t)i;
    for (int64_t i = 0; i < out_c; i++)
        w[i] = (uint8_t)(c->f_zero + (int)uniform(-span, span));
    c->input = x;
    c->filter = w;
}

/* An int32 sum whose outputs under multipliers a and b differ, both inside
 * (lo, hi), searched next to each output level's rounding boundary; false
 * if there is none. */
static bool sensitive_sum(tp_tfl_multiplier a, tp_tfl_multiplier b, int32_t zero, int32_t lo, int32_t hi, int32_t *sum)
{
    const double ma = ldexp((double)a.mantissa, a.shift - 31), mb = ldexp((double)b.mantissa, b.shift - 31);
    for (int32_t level = lo + 1 - zero; level < hi - zero; level++) {
        const double ga = (level + 0.5) / ma, gb = (level + 0.5) / mb;
        const double first = fmin(ga, gb) - 4, last = fmax(ga, gb) + 4;
        if (fabs(first) > 2.1e9 || fabs(last) > 2.1e9 || last - first > 1e5)
            continue;
        for (int64_t acc = llround(first); acc <= llround(last); acc++) {
            const int32_t va = tp_tfl_multiply((int32_t)acc, a) + zero, vb = tp_tfl_multiply((int32_t)acc, b) + zero;
            if (va != vb && va > lo && va < hi && vb > lo && vb < hi) {
                *sum = (int32_t)acc;
                return true;
            }
        }
    }
    return false;
}

/* Biases that put row `row`'s sum of each unit on a sum where multipliers
 * a[u] and b[u] disagree (units without one keep a random bias). */
static void sensitive_biases(qcase *c, const tp_tfl_multiplier *a, const tp_tfl_multiplier *b)
{
    const int32_t lo = c->int8 ? -128 : 0, hi = c->int8 ? 127 : 255;
    int found = 0;
    for (int64_t u = 0; u < c->out_c; u++) {
        const int row = (int)uniform(0, 255);
        const int32_t x = (c->int8 ? (int8_t)((uint8_t *)c->input)[row] : ((uint8_t *)c->input)[row]) - c->in_zero;
        const int32_t w = (c->int8 ? (int8_t)((uint8_t *)c->filter)[u] : ((uint8_t *)c->filter)[u]) - c->f_zero;
        int32_t sum;
        if (sensitive_sum(a[u], b[u], c->out_zero, lo, hi, &sum)) {
            c->bias[u] = sum - x * w;
            found++;
        } else {
            c->bias[u] = (int32_t)uniform(-100000, 100000);
        }
    }
    CHECK_MSG(found > 0, "none of %lld units has a sensitive sum", (long long)c->out_c);
}

static tp_tfl_multiplier multiplier_of(double real)
{
    tp_tfl_multiplier m;
    CHECK(tp_tfl_quantize_multiplier(real, &m));
    return m;
}

/* Where the factor is the float product over the output scale (uint8,
 * per-tensor FULLY_CONNECTED) or the double one (per channel): scales
 * whose two factors differ in their last bits, biases on the sums where
 * that decides the output. */
static void edge_product_rule(qcase *c, bool int8, bool per_channel)
{
    edge_case(c, int8, 32, 6);
    c->f_count = per_channel ? 32 : 1;
    tp_tfl_multiplier as_float[MAX_CHANNELS], as_double[MAX_CHANNELS];
    c->in_scale = log_uniform(-6, -2); /* factors near 2^-18, sums up to 2^26: wide enough to tell */
    c->out_scale = log_uniform(4, 6);
    for (int u = 0; u < 32; u++) {
        const float f = c->f_scales[per_channel ? u : 0] = u == 0 || per_channel ? log_uniform(-10, -8) : c->f_scales[0];
        as_float[u] = multiplier_of((double)(c->in_scale * f) / (double)c->out_scale);
        as_double[u] = multiplier_of((double)c->in_scale * (double)f / (double)c->out_scale);
    }
    sensitive_biases(c, as_float, as_double);
}

/* QuantizeMultiplier's mantissa on an exact tie (the double factor has 32
 * significant bits, the last one set): half away from zero, not to even. */
static void edge_mantissa_tie(qcase *c)
{
    edge_case(c, true, 32, 6);
    c->f_count = 32;
    c->in_scale = (float)ldexp(65537.0, -20); /* factors near 2^-24: sums near 2^31 tell them apart */
    c->out_scale = (float)ldexp(1.0, (int)uniform(4, 5));
    tp_tfl_multiplier away[MAX_CHANNELS], even[MAX_CHANNELS];
    for (int u = 0; u < 32; u++) {
        /* an odd 16-bit mantissa times 65537: 32 significant bits */
        c->f_scales[u] = (float)ldexp(32769.0 + 2 * uniform(0, 1000), -30);
        away[u] = even[u] = multiplier_of((double)c->in_scale * (double)c->f_scales[u] / (double)c->out_scale);
        if (even[u].mantissa % 2) /* the tie rounded away to odd: even goes one lower */
            even[u].mantissa--;
    }
    sensitive_biases(c, away, even);
}

/* Factors 2^-u: the doubling high multiply halves the sum exactly (ties
 * toward +infinity), the rounding shift ties away from zero; sums of both
 * signs. */
static void edge_power_ties(qcase *c, bool int8)
{
    edge_case(c, int8, 12, 3);
    c->f_count = int8 ? 12 : 1;
    for (int u = 0; u < 12; u++) {
        c->f_scales[u] = int8 ? (float)ldexp(1.0, -1 - u % 6) : 0.125f;
        c->bias[u] = (int32_t)uniform(-40, 40);
    }
}

/* A 3 x 3 int8 DEPTHWISE_CONV_2D (the aarch64 assembly's shape: 32
 * channels, weights in [-3, 3], every multiplier a right shift) on codes
 * near the input zero point, whose power-of-two multipliers 2^-2...2^-5
 * make ties of negative and positive sums. */
static void edge_depthwise_ties(qcase *c)
{
    memset(c, 0, sizeof *c);
    c->kind = KIND_DEPTHWISE, c->int8 = true, c->same = 1;
    c->stride_h = c->stride_w = c->dil_h = c->dil_w = 1;
    c->in_ndims = 4;
    c->in_dims[0] = 1, c->in_dims[1] = 6, c->in_dims[2] = 6, c->in_dims[3] = 32;
    c->out_c = 32, c->f_count = 32;
    c->filter_dims[0] = 1, c->filter_dims[1] = 3, c->filter_dims[2] = 3, c->filter_dims[3] = 32;
    c->in_size = 6 * 6 * 32, c->filter_size = 9 * 32;
    c->in_zero = (int)uniform(-20, 20), c->out_zero = (int)uniform(-10, 10);
    c->in_scale = c->out_scale = 1.0f;
    c->bias_mode = 2;
    uint8_t *x = malloc((size_t)c->in_size), *w = malloc((size_t)c->filter_size);
    for (int64_t i = 0; i < c->in_size; i++)
        x[i] = (uint8_t)(c->in_zero + (int)uniform(-6, 6));
    for (int64_t i = 0; i < c->filter_size; i++)
        w[i] = (uint8_t)(int)uniform(-3, 3);
    for (int u = 0; u < 32; u++) {
        c->f_scales[u] = (float)ldexp(1.0, -2 - u % 4);
        c->bias[u] = (int32_t)uniform(-8, 8);
    }
    c->input = x, c->filter = w;
}

/* A 3 x 3 int8 DEPTHWISE_CONV_2D over the whole range of codes (weights
 * -128 included), 40 channels (blocks of 16 and a tail), two pictures,
 * every multiplier a right shift: strides 2 with a dilated width and SAME
 * padding, or stride 1, VALID (the A76's column path and its edges). */
static void edge_depthwise_geometry(qcase *c, bool strided)
{
    memset(c, 0, sizeof *c);
    c->kind = KIND_DEPTHWISE, c->int8 = true, c->same = strided;
    c->stride_h = c->stride_w = strided ? 2 : 1;
    c->dil_h = 1, c->dil_w = strided ? 2 : 1;
    c->in_ndims = 4;
    c->in_dims[0] = 2, c->in_dims[1] = 7, c->in_dims[2] = strided ? 9 : 5, c->in_dims[3] = 40;
    c->out_c = 40, c->f_count = 40;
    c->filter_dims[0] = 1, c->filter_dims[1] = 3, c->filter_dims[2] = 3, c->filter_dims[3] = 40;
    c->in_size = product(c->in_dims, 4), c->filter_size = 9 * 40;
    c->in_zero = (int)uniform(-128, 127), c->out_zero = (int)uniform(-20, 20);
    c->in_scale = c->out_scale = 1.0f;
    c->bias_mode = 2;
    for (int u = 0; u < 40; u++) {
        c->f_scales[u] = (float)ldexp(1.0 + u / 64.0, -10 - u % 4);
        c->bias[u] = (int32_t)uniform(-30000, 30000);
    }
    c->input = random_codes(c, c->in_size, false);
    uint8_t *w = random_codes(c, c->filter_size, true);
    w[(int)uniform(0, 359)] = 0x80;
    c->filter = w;
}

/* Activation bounds on a tie: RELU6 at scale 12 and RELU_N1_TO_1 at scale 2
 * quantize 0.5, which rounds away from zero. */
static void edge_activation_tie(qcase *c, bool int8, int act)
{
    edge_case(c, int8, 8, 20);
    c->act = act;
    c->out_scale = act == 3 ? 12.0f : 2.0f;
    c->in_scale = act == 3 ? 0.75f : 0.125f;
    for (int u = 0; u < 8; u++)
        c->bias[u] = (int32_t)uniform(-50, 50);
}

/* Factors above 1 (a left shift before the multiply, wrapping), and at
 * the small end (a right shift of 31, and one flushed to zero) with sums
 * near the int32 limits, some wrapping when the bias is added. */
static void edge_extreme_factors(qcase *c, bool large)
{
    edge_case(c, true, 16, large ? 2 : 127);
    c->f_count = 16;
    for (int u = 0; u < 16; u++) {
        if (large) {
            c->f_scales[u] = (float)(u < 8 ? 1.37 * (u + 1) : ldexp(1.7, u + 2));
            c->bias[u] = (int32_t)uniform(-30, 30);
        } else {
            c->f_scales[u] = (float)ldexp(1.1 + u * 0.05, -30 - u % 4);
            c->bias[u] = u % 2 ? INT32_MAX - (int32_t)uniform(0, 40000) : INT32_MIN + (int32_t)uniform(0, 40000);
        }
    }
}

static void make_edge_case(qcase *c, int edge)
{
    switch (edge) {
    case 0: edge_product_rule(c, false, false); break;
    case 1: edge_product_rule(c, true, false); break;
    case 2: edge_product_rule(c, true, true); break;
    case 3: edge_mantissa_tie(c); break;
    case 4: edge_power_ties(c, true); break;
    case 5: edge_power_ties(c, false); break;
    case 6: edge_activation_tie(c, true, 3); break;
    case 7: edge_activation_tie(c, false, 3); break;
    case 8: edge_activation_tie(c, true, 2); break;
    case 9: edge_activation_tie(c, false, 2); break;
    case 10: edge_extreme_factors(c, true); break;
    case 11: edge_extreme_factors(c, false); break;
    case 12: edge_product_rule(c, false, false); break;
    case 14: edge_depthwise_ties(c); break;
    case 15: edge_depthwise_geometry(c, true); break;
    case 16: edge_depthwise_geometry(c, false); break;
    default: edge_mantissa_tie(c); break;
    }
}

static void free_case(qcase *c)
{
    free(c->input);
    free(c->filter);
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void write_codes(FILE *f, const char *key, const qcase *c, const void *data, int64_t n)
{
    fprintf(f, "%s", key);
    for (int64_t i = 0; i < n; i++)
        fprintf(f, " %d", c->int8 ? ((const int8_t *)data)[i] : ((const uint8_t *)data)[i]);
    fprintf(f, "\n");
}

static void write_case(FILE *f, const qcase *c, int id)
{
    fprintf(f, "case\nid %d\nkind %d\nint8 %d\nact %d\nsame %d\n", id, c->kind, c->int8, c->act, c->same);
    fprintf(f, "stride_h %d\nstride_w %d\ndil_h %d\ndil_w %d\n", c->stride_h, c->stride_w, c->dil_h, c->dil_w);
    fprintf(f, "in_zero %d\nout_zero %d\nf_zero %d\n", c->in_zero, c->out_zero, c->f_zero);
    fprintf(f, "in_scale %08x\nout_scale %08x\nf_scales", float_bits(c->in_scale), float_bits(c->out_scale));
    for (int i = 0; i < c->f_count; i++)
        fprintf(f, " %08x", float_bits(c->f_scales[i]));
    fprintf(f, "\nin_dims");
    for (int i = 0; i < c->in_ndims; i++)
        fprintf(f, " %lld", (long long)c->in_dims[i]);
    fprintf(f, "\nfilter_dims");
    for (int i = 0; i < (c->kind == KIND_FC ? 2 : 4); i++)
        fprintf(f, " %lld", (long long)c->filter_dims[i]);
    fprintf(f, "\nbias");
    for (int64_t i = 0; c->bias_mode == 2 && i < c->out_c; i++)
        fprintf(f, " %d", c->bias[i]);
    fprintf(f, "\n");
    write_codes(f, "input", c, c->input, c->in_size);
    write_codes(f, "filter", c, c->filter, c->filter_size);
    fprintf(f, "end\n");
}

static void attr_floats(Tfpi__NodeDef *n, const char *key, const float *values, size_t count)
{
    Tfpi__AttrValue *v = gd_attr_set(n, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_LIST;
    v->list = malloc(sizeof *v->list);
    tfpi__attr_value__list_value__init(v->list);
    v->list->f = malloc(count * sizeof *v->list->f);
    memcpy(v->list->f, values, count * sizeof *v->list->f);
    v->list->n_f = count;
}

/* q_<role><i>_scale / _zero_point / _dim. */
static void attr_quant(Tfpi__NodeDef *n, const char *role, int i, const float *scales, const int64_t *zeros,
                       int count, int dim)
{
    char key[32];
    snprintf(key, sizeof key, "q_%s%d_scale", role, i);
    attr_floats(n, key, scales, (size_t)count);
    snprintf(key, sizeof key, "q_%s%d_zero_point", role, i);
    gd_attr_set_ints(n, key, zeros, (size_t)count);
    snprintf(key, sizeof key, "q_%s%d_dim", role, i);
    gd_attr_set_int(n, key, dim);
}

/* The case's graph: Placeholder x, Const w (and b), the op node "out"
 * (*node, if node is not NULL). */
static gb_graph *case_graph(const qcase *c, Tfpi__NodeDef **node)
{
    gb_graph *g = gb_new();
    const tfpi_dtype t = c->int8 ? TFPI_INT8 : TFPI_UINT8;
    gb_placeholder(g, "x", t, c->in_dims, c->in_ndims);
    gb_const(g, "w", t, c->filter_dims, c->kind == KIND_FC ? 2 : 4, c->filter);
    const char *bias_input = NULL;
    if (c->bias_mode == 2) {
        gb_const(g, "b", TFPI_INT32, &c->out_c, 1, c->bias);
        bias_input = "b";
    } else if (c->bias_mode == 1) {
        const int64_t empty = 0;
        gb_const(g, "TFLiteNoValue", TFPI_FLOAT, &empty, 1, NULL);
        bias_input = "TFLiteNoValue";
    }
    Tfpi__NodeDef *n = gb_node(g, op_names[c->kind], "out", "x", "w", bias_input, NULL);
    gd_attr_set_type(n, "T", t);
    gd_attr_set_string(n, "fused_activation_function", activations[c->act]);
    if (c->kind == KIND_FC) {
        gd_attr_set_bool(n, "keep_num_dims", c->keep_num_dims);
        gd_attr_set_string(n, "weights_format", "DEFAULT");
    } else {
        gd_attr_set_string(n, "padding", c->same ? "SAME" : "VALID");
        gd_attr_set_int(n, "stride_h", c->stride_h);
        gd_attr_set_int(n, "stride_w", c->stride_w);
        gd_attr_set_int(n, "dilation_h_factor", c->dil_h);
        gd_attr_set_int(n, "dilation_w_factor", c->dil_w);
        if (c->kind == KIND_DEPTHWISE)
            gd_attr_set_int(n, "depth_multiplier", c->out_c / c->in_dims[3]);
    }
    const int64_t in_zero = c->in_zero, out_zero = c->out_zero;
    int64_t f_zeros[MAX_CHANNELS], b_zeros[MAX_CHANNELS] = {0};
    float b_scales[MAX_CHANNELS];
    for (int i = 0; i < c->f_count; i++) {
        f_zeros[i] = c->f_zero;
        b_scales[i] = c->in_scale * c->f_scales[i];
    }
    attr_quant(n, "in", 0, &c->in_scale, &in_zero, 1, 0);
    attr_quant(n, "in", 1, c->f_scales, f_zeros, c->f_count, c->kind == KIND_DEPTHWISE ? 3 : 0);
    if (c->bias_mode == 2)
        attr_quant(n, "in", 2, b_scales, b_zeros, c->f_count, 0);
    attr_quant(n, "out", 0, &c->out_scale, &out_zero, 1, 0);
    if (node)
        *node = n;
    return g;
}

/* Runs the numpy reference over the cases file; false if it failed. */
static bool run_numpy(const char *cases, const char *results)
{
    const char *python = getenv("TFPI_PYTHON");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s tests/diff/numpy_tflite_conv.py %s %s", python && *python ? python : "/usr/bin/python3",
             cases, results);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "'%s' failed (status %d); it needs /usr/bin/python3 with numpy", cmd, rc);
    return rc == 0;
}

/* The codes numpy gave case id (malloc'd), or NULL. */
static int32_t *read_expected(FILE *f, int id, int64_t *count)
{
    int got;
    if (fscanf(f, " out %d", &got) != 1 || got != id)
        return NULL;
    size_t cap = 64, n = 0;
    int32_t *v = malloc(cap * sizeof *v);
    int x;
    while (fscanf(f, "%d", &x) == 1) {
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = x;
    }
    *count = (int64_t)n;
    return v;
}

static const char *const core_families[] = {"generic", "a53", "a72", "a76"};

static void check_case(const qcase *c, int id, const int32_t *want, int64_t count)
{
    gb_graph *g = case_graph(c, NULL);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    CHECK_MSG(graph != NULL, "case %d: %s", id, status.message);
    const tfpi_dtype t = c->int8 ? TFPI_INT8 : TFPI_UINT8;
    tfpi_tensor *x = op_tensor(t, c->in_dims, c->in_ndims, c->input);
#if defined(__arm__) || defined(__aarch64__)
    const int families = 4;
#else
    const int families = 1;
#endif
    for (int fam = 0; graph && fam < families; fam++)
        for (int threads = 1; threads <= 3; threads += 2) {
            tfpi_session_options options = {.num_threads = threads, .cpu = families > 1 ? core_families[fam] : NULL};
            tfpi_session *session = tfpi_session_new(graph, &options, &status);
            const char *feed = "x", *fetch = "out";
            tfpi_tensor *out = NULL;
            tfpi_code code = session ? tfpi_session_run(session, &feed, &x, 1, &fetch, &out, 1, &status) : status.code;
            CHECK_MSG(code == TFPI_OK, "case %d (%s): %s", id, op_names[c->kind], status.message);
            if (code == TFPI_OK) {
                const int64_t n = tfpi_tensor_num_elements(out);
                int64_t bad = -1;
                for (int64_t i = 0; i < n && i < count && bad < 0; i++) {
                    const int32_t v = c->int8 ? ((const int8_t *)tfpi_tensor_data(out))[i]
                                              : ((const uint8_t *)tfpi_tensor_data(out))[i];
                    if (v != want[i])
                        bad = i;
                }
                CHECK_MSG(n == count && bad < 0,
                          "case %d (%s %s, cpu %s, %d threads): %lld outputs (numpy %lld), first difference at %lld",
                          id, op_names[c->kind], c->int8 ? "int8" : "uint8", families > 1 ? core_families[fam] : "-",
                          threads, (long long)n, (long long)count, (long long)bad);
            }
            tfpi_tensor_free(out);
            tfpi_session_free(session);
        }
    tfpi_tensor_free(x);
    tfpi_graph_free(graph);
    gb_free(g);
}

static void test_random_cases_match_numpy(void)
{
    char dir[] = "/tmp/tfpi_tflite_conv_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cases_path[64], results_path[64];
    snprintf(cases_path, sizeof cases_path, "%s/cases.txt", dir);
    snprintf(results_path, sizeof results_path, "%s/results.txt", dir);
    static qcase cases[NUM_CASES];
    FILE *f = fopen(cases_path, "w");
    CHECK(f != NULL);
    for (int i = 0; i < NUM_CASES; i++) {
        if (i < NUM_RANDOM)
            make_case(&cases[i], i);
        else
            make_edge_case(&cases[i], i - NUM_RANDOM);
        write_case(f, &cases[i], i);
    }
    fclose(f);
    if (run_numpy(cases_path, results_path)) {
        FILE *r = fopen(results_path, "r");
        CHECK(r != NULL);
        for (int i = 0; r && i < NUM_CASES; i++) {
            int64_t count = 0;
            int32_t *want = read_expected(r, i, &count);
            CHECK_MSG(want != NULL, "no numpy result for case %d", i);
            if (want)
                check_case(&cases[i], i, want, count);
            free(want);
        }
        if (r)
            fclose(r);
    }
    for (int i = 0; i < NUM_CASES; i++)
        free_case(&cases[i]);
    unlink(cases_path);
    unlink(results_path);
    rmdir(dir);
}

/* A small valid case, changed by `edit` to be wrong in one way. */
static void expect_error(void (*edit)(qcase *c, Tfpi__NodeDef *n), int kind, bool int8, const char *fragment)
{
    qcase c;
    make_case(&c, kind + (int8 ? 0 : 3));
    c.bias_mode = 2;
    Tfpi__NodeDef *n;
    gb_graph *g = case_graph(&c, &n);
    edit(&c, n);
    tfpi_tensor *x = op_tensor(c.int8 ? TFPI_INT8 : TFPI_UINT8, c.in_dims, c.in_ndims, c.input);
    CHECK_FAILS(g, x, "out", "out", fragment);
    tfpi_tensor_free(x);
    gb_free(g);
    free_case(&c);
}

static void set_tanh(qcase *c, Tfpi__NodeDef *n) { (void)c, gd_attr_set_string(n, "fused_activation_function", "TANH"); }
static void set_shuffled(qcase *c, Tfpi__NodeDef *n) { (void)c, gd_attr_set_string(n, "weights_format", "SHUFFLED4x16INT8"); }
static void set_filter_zero(qcase *c, Tfpi__NodeDef *n)
{
    int64_t zeros[MAX_CHANNELS];
    for (int i = 0; i < c->f_count; i++)
        zeros[i] = i == 0 ? 3 : 0;
    gd_attr_set_ints(n, "q_in1_zero_point", zeros, (size_t)c->f_count);
}
static void set_per_channel_uint8(qcase *c, Tfpi__NodeDef *n)
{
    float scales[2] = {0.5f, 0.25f};
    int64_t zeros[2] = {c->f_zero, c->f_zero};
    attr_floats(n, "q_in1_scale", scales, 2);
    gd_attr_set_ints(n, "q_in1_zero_point", zeros, 2);
}
static void set_bias_scale(qcase *c, Tfpi__NodeDef *n)
{
    float scale = c->in_scale * c->f_scales[0] * 1.01f;
    attr_floats(n, "q_in2_scale", &scale, 1);
}
static void drop_output_quant(qcase *c, Tfpi__NodeDef *n) { (void)c, gd_attr_remove(n, "q_out0_scale"); }
static void set_huge_factor(qcase *c, Tfpi__NodeDef *n)
{
    (void)c;
    float tiny = 1e-30f;
    attr_floats(n, "q_out0_scale", &tiny, 1);
}
static void set_depth_multiplier(qcase *c, Tfpi__NodeDef *n) { gd_attr_set_int(n, "depth_multiplier", c->out_c + 1); }
static void set_stride_zero(qcase *c, Tfpi__NodeDef *n) { (void)c, gd_attr_set_int(n, "stride_w", 0); }
static void set_padding(qcase *c, Tfpi__NodeDef *n) { (void)c, gd_attr_set_string(n, "padding", "EXPLICIT"); }

static void test_bad_nodes_fail_clearly(void)
{
    expect_error(set_tanh, KIND_CONV, true, "TANH");
    expect_error(set_shuffled, KIND_FC, false, "weights_format SHUFFLED4x16INT8");
    expect_error(set_filter_zero, KIND_CONV, true, "int8 convolution filters must have zero point 0");
    expect_error(set_per_channel_uint8, KIND_DEPTHWISE, false, "for int8 tensors");
    expect_error(set_bias_scale, KIND_CONV, false, "bias scale");
    expect_error(drop_output_quant, KIND_FC, true, "output 0 has no quantization");
    expect_error(set_huge_factor, KIND_CONV, true, "too large");
    expect_error(set_depth_multiplier, KIND_DEPTHWISE, true, "depth_multiplier");
    expect_error(set_stride_zero, KIND_CONV, false, "stride_w must be a positive");
    expect_error(set_padding, KIND_DEPTHWISE, true, "padding 'EXPLICIT'");
}

int main(void)
{
    RUN(test_random_cases_match_numpy);
    RUN(test_bad_nodes_fail_clearly);
    return check_summary();
}
