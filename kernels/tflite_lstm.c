/* tflite_lstm.c - TensorFlow Lite's UNIDIRECTIONAL_SEQUENCE_LSTM in float32,
 * as its kernel computes each step (lstm_eval.cc: CalculateLstmGateFloat,
 * UpdateLstmCellFloat, CalculateLstmOutputFloat). Inputs as in the schema:
 *   0 input [time, batch, in] (time_major) or [batch, time, in];
 *   1-4 input-to-{input, forget, cell, output} weights [cells, in];
 *   5-8 recurrent-to-{input, forget, cell, output} weights [cells, out];
 *   9-11 peephole weights to {input, forget, output} [cells];
 *   12-15 {input, forget, cell, output} gate biases [cells];
 *   16 projection weights [out, cells], 17 projection bias [out];
 *   18 output state [batch, out], 19 cell state [batch, cells];
 *   20-23 layer-norm coefficients of the four gates [cells].
 * Optional inputs may be absent (compute/tflite_node.h): no input gate
 * weights means CIFG (input gate = 1 - forget gate); peepholes,
 * projection and layer norm are each all present or all absent. Options:
 * fused_activation_function (the cell and output activation, TANH or
 * RELU...), cell_clip, proj_clip (0: none), time_major.
 * Each gate: its bias (layer norm: 0), plus the input weights' and the
 * recurrent weights' dot products (each summed from 0), plus the
 * peephole's product with the cell state (the new one for the output
 * gate); layer norm: normalized over the cells, times its coefficients,
 * plus the bias; then sigmoid (the cell gate: the activation). The cell:
 * f x c + i x g, clipped; the output: o x act(c), projected and clipped.
 * The states start from inputs 18 and 19 at every run (the graph's
 * values, zeros in a converted model) and are not kept between runs.
 * Hybrid models' int8 weights (per tensor) are dequantized once here and
 * the step runs in float; TFLite's hybrid kernel quantizes each step's
 * activations too, so its outputs differ by that rounding. An int8 input
 * is TFLite's fully integer LSTM (compute/tflite_lstm_integer.h), bit for
 * bit; the shapes are checked here for both. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_lstm_integer.h"
#include "compute/tflite_node.h"
#include "core/checked_math.h"

enum { IN = 0, W_X = 1, W_H = 5, PEEPHOLE = 9, BIAS = 12, PROJECTION = 16, PROJECTION_BIAS = 17, OUT_STATE = 18,
       CELL_STATE = 19, LAYER_NORM = 20, INPUTS = 24 };
enum { GATE_I, GATE_F, GATE_C, GATE_O };

typedef struct lstm_state {
    tp_tfl_lstm_shape shape;
    tp_tfl_activation act;
    float cell_clip, proj_clip;
    /* float copies of the int8 weights of a hybrid model (NULL: float input) */
    float *dequantized[INPUTS];
    void *integer; /* the integer LSTM's state (int8 input) */
} lstm_state;

static void lstm_release(void *state)
{
    lstm_state *s = state;
    for (int i = 0; s && i < INPUTS; i++)
        free(s->dequantized[i]);
    if (s)
        tp_tfl_lstm_integer_release(s->integer);
    free(s);
}

static bool absent(const tp_op_ctx *ctx, int i) { return tp_tfl_input_absent(ctx, i) || tp_num_elements(ctx->inputs[i]) == 0; }

/* Input i must have these dims (rank 1 or 2). */
static tfpi_code expect_shape(tp_op_ctx *ctx, int i, int64_t rows, int64_t cols, bool matrix)
{
    const tfpi_tensor *t = ctx->inputs[i];
    char shape[96];
    if (t->ndims != (matrix ? 2 : 1) || t->dims[0] != rows || (matrix && t->dims[1] != cols))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d is %s; expected [%lld%s%lld]", i,
                       tp_shape_string(t, shape, sizeof shape), (long long)rows, matrix ? ", " : "",
                       matrix ? (long long)cols : 0LL);
    return TFPI_OK;
}

/* Input i of a float LSTM must be float, or int8 with a per-tensor
 * quantization (a hybrid weight: dequantized into s). */
static tfpi_code expect_float(tp_op_ctx *ctx, lstm_state *s, int i)
{
    const tfpi_tensor *t = ctx->inputs[i];
    if (t->dtype == TFPI_FLOAT)
        return TFPI_OK;
    if (t->dtype != TFPI_INT8 || i == OUT_STATE || i == CELL_STATE)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input %d is %s; this kernel takes float32 (and int8 weights)", i,
                       tfpi_dtype_name(t->dtype));
    tfpi_code code = tp_expect_known(ctx, i);
    tp_tfl_qparams q;
    if (code != TFPI_OK || (code = tp_tfl_qparams_of(ctx, "in", i, &q)) != TFPI_OK)
        return code;
    const int64_t n = tp_num_elements(t);
    if ((code = tp_expect_within_budget(ctx, n, sizeof(float), "dequantized weights")) != TFPI_OK)
        return code;
    if (!(s->dequantized[i] = malloc(sizeof(float) * (size_t)n + 1)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int64_t k = 0; k < n; k++)
        s->dequantized[i][k] = (float)((double)q.scale * (((const int8_t *)t->data)[k] - q.zero_point));
    return TFPI_OK;
}

/* A group of optional inputs: all present (true), all absent (false), or
 * an error. */
static tfpi_code optional_group(tp_op_ctx *ctx, const int *inputs, int n, const char *what, bool *present)
{
    int count = 0;
    for (int k = 0; k < n; k++)
        count += !absent(ctx, inputs[k]);
    *present = count > 0;
    if (count != 0 && count != n)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s inputs must be all present or all absent", what);
    return TFPI_OK;
}

/* The sizes and the variant, each present input's shape. */
static tfpi_code check_shapes(tp_op_ctx *ctx, tp_tfl_lstm_shape *s)
{
    tfpi_code code;
    if (ctx->num_inputs < 20 || ctx->num_inputs > INPUTS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects 20 to 24 inputs, has %d", ctx->num_inputs);
    const tfpi_tensor *in = ctx->inputs[IN];
    char shape[96];
    if ((in->dtype != TFPI_FLOAT && in->dtype != TFPI_INT8) || in->ndims != 3)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 0 must be float32 or int8 of rank 3, not %s %s",
                       tfpi_dtype_name(in->dtype), tp_shape_string(in, shape, sizeof shape));
    s->time_major = tp_attr_bool(ctx->def, "time_major", false);
    s->time = in->dims[s->time_major ? 0 : 1], s->batch = in->dims[s->time_major ? 1 : 0], s->n_in = in->dims[2];
    if (absent(ctx, W_X + GATE_F) || ctx->inputs[W_X + GATE_F]->ndims != 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 2 (input-to-forget weights) must be a matrix");
    s->n_cell = ctx->inputs[W_X + GATE_F]->dims[0];
    if (absent(ctx, W_H + GATE_F) || ctx->inputs[W_H + GATE_F]->ndims != 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 6 (recurrent-to-forget weights) must be a matrix");
    s->n_out = ctx->inputs[W_H + GATE_F]->dims[1];
    const int input_gate[3] = {W_X + GATE_I, W_H + GATE_I, BIAS + GATE_I};
    const int peephole[3] = {PEEPHOLE, PEEPHOLE + 1, PEEPHOLE + 2}; /* to the input, forget and output gates */
    const int norm[4] = {LAYER_NORM + GATE_I, LAYER_NORM + GATE_F, LAYER_NORM + GATE_C, LAYER_NORM + GATE_O};
    bool input_gate_present;
    if ((code = optional_group(ctx, input_gate, 3, "the input gate's", &input_gate_present)) != TFPI_OK ||
        (code = optional_group(ctx, peephole + (input_gate_present ? 0 : 1), input_gate_present ? 3 : 2,
                               "the peephole", &s->peephole)) != TFPI_OK ||
        (code = optional_group(ctx, norm + (input_gate_present ? 0 : 1), input_gate_present ? 4 : 3, "the layer-norm",
                               &s->layer_norm)) != TFPI_OK)
        return code;
    s->cifg = !input_gate_present;
    s->projection = !absent(ctx, PROJECTION);
    for (int g = GATE_I; g <= GATE_O; g++) {
        if (g == GATE_I && s->cifg)
            continue;
        if ((code = expect_shape(ctx, W_X + g, s->n_cell, s->n_in, true)) != TFPI_OK ||
            (code = expect_shape(ctx, W_H + g, s->n_cell, s->n_out, true)) != TFPI_OK ||
            (code = expect_shape(ctx, BIAS + g, s->n_cell, 0, false)) != TFPI_OK ||
            (s->layer_norm && (code = expect_shape(ctx, LAYER_NORM + g, s->n_cell, 0, false)) != TFPI_OK))
            return code;
        if (s->peephole && g != GATE_C &&
            (code = expect_shape(ctx, PEEPHOLE + (g == GATE_O ? 2 : g), s->n_cell, 0, false)) != TFPI_OK)
            return code;
    }
    if (s->projection && ((code = expect_shape(ctx, PROJECTION, s->n_out, s->n_cell, true)) != TFPI_OK ||
                          (!absent(ctx, PROJECTION_BIAS) &&
                           (code = expect_shape(ctx, PROJECTION_BIAS, s->n_out, 0, false)) != TFPI_OK)))
        return code;
    if (!s->projection && s->n_out != s->n_cell)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "without projection the output size %lld must equal the cells %lld",
                       (long long)s->n_out, (long long)s->n_cell);
    if ((code = expect_shape(ctx, OUT_STATE, s->batch, s->n_out, true)) != TFPI_OK)
        return code;
    return expect_shape(ctx, CELL_STATE, s->batch, s->n_cell, true);
}

static tfpi_code lstm_prepare(tp_op_ctx *ctx)
{
    lstm_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    tfpi_code code = check_shapes(ctx, &s->shape);
    if (code != TFPI_OK)
        return code;
    if (ctx->inputs[IN]->dtype == TFPI_INT8)
        return tp_tfl_lstm_integer_prepare(ctx, &s->shape, &s->integer);
    const tp_tfl_lstm_shape *sh = &s->shape;
    for (int i = IN + 1; i < ctx->num_inputs; i++)
        if (!absent(ctx, i) && (code = expect_float(ctx, s, i)) != TFPI_OK)
            return code;
    if ((code = tp_tfl_activation_of(ctx, &s->act)) != TFPI_OK)
        return code;
    if (s->act == TP_TFL_ACT_SIGN_BIT)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "SIGN_BIT is not an LSTM activation");
    s->cell_clip = tp_attr_float(ctx->def, "cell_clip", 0.0f);
    s->proj_clip = tp_attr_float(ctx->def, "proj_clip", 0.0f);
    int64_t work;
    if (!tp_checked_mul(sh->batch + 5, sh->n_cell + sh->n_out, &work))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the LSTM's sizes overflow");
    if ((code = tp_expect_within_budget(ctx, work, sizeof(float), "LSTM state values")) != TFPI_OK)
        return code;
    const int64_t dims[3] = {ctx->inputs[IN]->dims[0], ctx->inputs[IN]->dims[1], sh->n_out};
    return tp_set_output(ctx, 0, TFPI_FLOAT, 3, dims);
}

static const float *data_of(const tp_op_ctx *ctx, const lstm_state *s, int i)
{
    return s->dequantized[i] ? s->dequantized[i] : (const float *)ctx->inputs[i]->data;
}

static float activate(tp_tfl_activation act, float x)
{
    switch (act) {
    case TP_TFL_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case TP_TFL_ACT_RELU_N1_TO_1: return x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x;
    case TP_TFL_ACT_RELU6: return x < 0.0f ? 0.0f : x > 6.0f ? 6.0f : x;
    case TP_TFL_ACT_TANH: return tanhf(x);
    default: return x;
    }
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* out[r] += W[r] . v for the rows of a [rows, cols] matrix. */
static void matvec_add(const float *w, const float *v, int64_t rows, int64_t cols, float *out)
{
    for (int64_t r = 0; r < rows; r++) {
        float dot = 0.0f;
        for (int64_t c = 0; c < cols; c++)
            dot += w[r * cols + c] * v[c];
        out[r] += dot;
    }
}

/* One gate of one batch row (CalculateLstmGateFloat). */
static void gate(const tp_op_ctx *ctx, const lstm_state *s, int g, const float *x, const float *h, const float *c,
                 float *out)
{
    const int64_t n = s->shape.n_cell;
    const float *bias = data_of(ctx, s, BIAS + g);
    for (int64_t k = 0; k < n; k++)
        out[k] = s->shape.layer_norm ? 0.0f : bias[k];
    matvec_add(data_of(ctx, s, W_X + g), x, n, s->shape.n_in, out);
    matvec_add(data_of(ctx, s, W_H + g), h, n, s->shape.n_out, out);
    if (s->shape.peephole && g != GATE_C) {
        const float *p = data_of(ctx, s, PEEPHOLE + (g == GATE_O ? 2 : g));
        for (int64_t k = 0; k < n; k++)
            out[k] += p[k] * c[k];
    }
    if (s->shape.layer_norm) {
        float sum = 0.0f, sum_sq = 0.0f;
        for (int64_t k = 0; k < n; k++)
            sum += out[k];
        const float mean = sum / (float)n;
        for (int64_t k = 0; k < n; k++)
            sum_sq += (out[k] - mean) * (out[k] - mean);
        const float inv = 1.0f / sqrtf(sum_sq / (float)n + 1e-8f);
        const float *w = data_of(ctx, s, LAYER_NORM + g);
        for (int64_t k = 0; k < n; k++)
            out[k] = (out[k] - mean) * inv * w[k] + bias[k];
    }
    for (int64_t k = 0; k < n; k++)
        out[k] = g == GATE_C ? activate(s->act, out[k]) : sigmoid(out[k]);
}

static float clip(float v, float limit) { return limit > 0.0f ? (v < -limit ? -limit : v > limit ? limit : v) : v; }

/* One step of one batch row: h [n_out] and c [n_cell] updated in place. */
static void step(const tp_op_ctx *ctx, const lstm_state *s, const float *x, float *h, float *c, float *scratch)
{
    const int64_t n = s->shape.n_cell;
    float *ig = scratch, *fg = ig + n, *cg = fg + n, *og = cg + n, *hidden = og + n;
    if (!s->shape.cifg)
        gate(ctx, s, GATE_I, x, h, c, ig);
    gate(ctx, s, GATE_F, x, h, c, fg);
    gate(ctx, s, GATE_C, x, h, c, cg);
    for (int64_t k = 0; k < n; k++) {
        c[k] = fg[k] * c[k];
        c[k] += cg[k] * (s->shape.cifg ? 1.0f - fg[k] : ig[k]);
        c[k] = clip(c[k], s->cell_clip);
    }
    gate(ctx, s, GATE_O, x, h, c, og);
    for (int64_t k = 0; k < n; k++)
        hidden[k] = og[k] * activate(s->act, c[k]);
    if (!s->shape.projection) {
        memcpy(h, hidden, sizeof *h * (size_t)n);
        return;
    }
    const float *bias = absent(ctx, PROJECTION_BIAS) ? NULL : data_of(ctx, s, PROJECTION_BIAS);
    for (int64_t k = 0; k < s->shape.n_out; k++)
        h[k] = bias ? bias[k] : 0.0f;
    matvec_add(data_of(ctx, s, PROJECTION), hidden, s->shape.n_out, n, h);
    for (int64_t k = 0; k < s->shape.n_out; k++)
        h[k] = clip(h[k], s->proj_clip);
}

static tfpi_code lstm_run(tp_op_ctx *ctx)
{
    const lstm_state *s = ctx->state;
    if (s->integer)
        return tp_tfl_lstm_integer_run(ctx, s->integer);
    float *h = malloc(sizeof(float) * (size_t)(s->shape.batch * (s->shape.n_out + s->shape.n_cell) + 5 * s->shape.n_cell) + 1);
    if (!h)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    float *c = h + s->shape.batch * s->shape.n_out, *scratch = c + s->shape.batch * s->shape.n_cell;
    memcpy(h, ctx->inputs[OUT_STATE]->data, sizeof(float) * (size_t)(s->shape.batch * s->shape.n_out));
    memcpy(c, ctx->inputs[CELL_STATE]->data, sizeof(float) * (size_t)(s->shape.batch * s->shape.n_cell));
    const float *in = ctx->inputs[IN]->data;
    float *out = ctx->outputs[0].data;
    for (int64_t b = 0; b < s->shape.batch; b++)
        for (int64_t t = 0; t < s->shape.time; t++) {
            const int64_t row = s->shape.time_major ? t * s->shape.batch + b : b * s->shape.time + t;
            step(ctx, s, in + row * s->shape.n_in, h + b * s->shape.n_out, c + b * s->shape.n_cell, scratch);
            memcpy(out + row * s->shape.n_out, h + b * s->shape.n_out, sizeof(float) * (size_t)s->shape.n_out);
        }
    free(h);
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_lstm[] = {
    TP_KERNEL("UNIDIRECTIONAL_SEQUENCE_LSTM", lstm_prepare, lstm_run, lstm_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
