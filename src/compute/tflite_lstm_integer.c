/* tflite_lstm_integer.c - TensorFlow Lite's integer "8x8_16" LSTM step
 * (see the header). Per gate: each matrix product (the weights times the
 * int8 codes, plus an effective bias that folds in minus the operand's zero
 * point times the weights' row sums, and the gate bias on the input's side
 * without layer norm) rescaled by its own multiplier and added, saturating,
 * into an int16 gate in Q3.12 (or the intermediate's scale with layer
 * norm); the peephole's int16 product with the cell; the integer layer
 * norm; then gemmlowp's 16-bit sigmoid (the cell gate: tanh) to Q0.15. The
 * cell (int16, scale 2^cell_scale): f x c >> 15 plus i x g >> (30 +
 * cell_scale) (CIFG: i = 32767 - f), saturated, clipped. The output:
 * o x tanh(c) rescaled to the hidden intermediate's codes, projected
 * through int8 weights onto the output state's codes and clipped, or
 * (no projection) the output's codes themselves. The effective scales are
 * products and quotients of float32 scales, as TFLite's Prepare computes
 * them, then QuantizeMultiplier. */
#include "compute/tflite_lstm_integer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"
#include "core/checked_math.h"

enum { IN = 0, W_X = 1, W_H = 5, PEEPHOLE = 9, BIAS = 12, PROJECTION = 16, PROJECTION_BIAS = 17, OUT_STATE = 18,
       CELL_STATE = 19, LAYER_NORM = 20 };
enum { GATE_I, GATE_F, GATE_C, GATE_O, GATES };
enum { INTERMEDIATES = 5, HIDDEN = 4 };

typedef struct lstm_int {
    tp_tfl_lstm_shape shape;
    int cell_scale; /* the cell state's scale is 2^cell_scale */
    int16_t cell_clip;
    int8_t proj_clip;
    int32_t out_state_zero_point, hidden_zero_point;
    tp_tfl_multiplier input_scale[GATES], recurrent_scale[GATES], peephole_scale[GATES], norm_scale[GATES];
    tp_tfl_multiplier hidden_scale, projection_scale;
    int32_t variance_guard[GATES];
    /* effective biases: [GATES][n_cell] input side, [GATES][n_cell] recurrent side, [n_out] projection */
    int32_t *input_bias, *recurrent_bias, *projection_bias;
} lstm_int;

void tp_tfl_lstm_integer_release(void *state)
{
    lstm_int *s = state;
    if (s) {
        free(s->input_bias);
        free(s->recurrent_bias);
        free(s->projection_bias);
    }
    free(s);
}

static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
static int32_t clamp(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

/* Input i as an int8 (or int16) tensor quantized per tensor; weights
 * (symmetric == true) must have zero point 0, and int8 weights must be
 * constants (their row sums are taken once, here). */
static tfpi_code quantized_input(tp_op_ctx *ctx, int i, tfpi_dtype dtype, bool symmetric, tp_tfl_qparams *q)
{
    if (ctx->inputs[i]->dtype != dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d is %s; the integer LSTM takes %s there", i,
                       tfpi_dtype_name(ctx->inputs[i]->dtype), tfpi_dtype_name(dtype));
    tfpi_code code = symmetric && dtype == TFPI_INT8 ? tp_expect_known(ctx, i) : TFPI_OK;
    if (code == TFPI_OK)
        code = tp_tfl_qparams_of(ctx, "in", i, q);
    if (code == TFPI_OK && symmetric && q->zero_point != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d has zero point %d: the integer LSTM's weights are "
                       "symmetric (zero point 0)", i, (int)q->zero_point);
    return code;
}

static tfpi_code int32_input(tp_op_ctx *ctx, int i)
{
    if (ctx->inputs[i]->dtype != TFPI_INT32)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d (a bias) is %s; the integer LSTM takes int32", i,
                       tfpi_dtype_name(ctx->inputs[i]->dtype));
    return tp_expect_known(ctx, i);
}

/* Intermediate k's scale and zero point (per tensor, scale positive). */
static tfpi_code intermediate(tp_op_ctx *ctx, int k, float *scale, int32_t *zero_point)
{
    tp_tfl_quant q;
    if (!tp_tfl_quant_of(ctx->def, "im", k, &q) || q.count != 1 || !(q.scale[0] > 0.0f) || !isfinite(q.scale[0]) ||
        q.zero_point[0] < INT8_MIN || q.zero_point[0] > INT8_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "intermediate %d needs one positive scale and an int8 zero point "
                       "(the integer LSTM's %s)", k, k == HIDDEN ? "hidden state" : "gate scales with layer norm");
    *scale = q.scale[0];
    *zero_point = (int32_t)q.zero_point[0];
    return TFPI_OK;
}

static tfpi_code multiplier(tp_op_ctx *ctx, float real, const char *what, tp_tfl_multiplier *m)
{
    if (!tp_tfl_quantize_multiplier((double)real, m))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the %s scale %g is out of range", what, (double)real);
    return TFPI_OK;
}

/* CheckedLog2: the scale is 2^k within 1e-3 in the exponent. */
static bool power_of_two(float scale, int *k)
{
    const float log2_scale = logf(scale) * (1.0f / logf(2.0f));
    const float rounded = roundf(log2_scale);
    if (!((double)fabsf(log2_scale - rounded) < 1e-3) || rounded < -64.0f || rounded > 64.0f)
        return false;
    *k = (int)rounded;
    return true;
}

/* bias (or 0) plus zero_point times each row's sum of weights, wrapping
 * as TFLite's int32 arithmetic does. */
static void effective_bias(const tfpi_tensor *weights, const tfpi_tensor *bias, int32_t zero_point, int64_t rows,
                           int64_t cols, int32_t *out)
{
    const int8_t *w = weights->data;
    for (int64_t r = 0; r < rows; r++) {
        int32_t row_sum = 0;
        for (int64_t c = 0; c < cols; c++)
            row_sum = wrap32((int64_t)row_sum + w[r * cols + c]);
        const int32_t start = bias ? ((const int32_t *)bias->data)[r] : 0;
        out[r] = wrap32((int64_t)start + (int64_t)row_sum * zero_point);
    }
}

static tfpi_code check_types(tp_op_ctx *ctx, const tp_tfl_lstm_shape *sh, tp_tfl_qparams *q)
{
    tfpi_code code = TFPI_OK;
    for (int g = GATE_I; g < GATES && code == TFPI_OK; g++) {
        if (g == GATE_I && sh->cifg)
            continue;
        if ((code = quantized_input(ctx, W_X + g, TFPI_INT8, true, &q[W_X + g])) != TFPI_OK ||
            (code = quantized_input(ctx, W_H + g, TFPI_INT8, true, &q[W_H + g])) != TFPI_OK ||
            (code = int32_input(ctx, BIAS + g)) != TFPI_OK ||
            (sh->layer_norm && (code = quantized_input(ctx, LAYER_NORM + g, TFPI_INT16, true, &q[LAYER_NORM + g])) !=
                                   TFPI_OK))
            return code;
        const int peephole = PEEPHOLE + (g == GATE_O ? 2 : g);
        if (sh->peephole && g != GATE_C)
            code = quantized_input(ctx, peephole, TFPI_INT16, true, &q[peephole]);
    }
    if (code == TFPI_OK && sh->projection &&
        ((code = quantized_input(ctx, PROJECTION, TFPI_INT8, true, &q[PROJECTION])) != TFPI_OK ||
         (!tp_tfl_input_absent(ctx, PROJECTION_BIAS) && tp_num_elements(ctx->inputs[PROJECTION_BIAS]) > 0 &&
          (code = int32_input(ctx, PROJECTION_BIAS)) != TFPI_OK)))
        return code;
    if (code == TFPI_OK && (code = quantized_input(ctx, IN, TFPI_INT8, false, &q[IN])) == TFPI_OK &&
        (code = quantized_input(ctx, OUT_STATE, TFPI_INT8, false, &q[OUT_STATE])) == TFPI_OK)
        code = quantized_input(ctx, CELL_STATE, TFPI_INT16, true, &q[CELL_STATE]);
    return code;
}

/* The multipliers of TFLite's Prepare, from float32 scales. */
static tfpi_code scales(tp_op_ctx *ctx, lstm_int *s, const tp_tfl_qparams *q, const float *gate_scale,
                        float hidden_scale)
{
    const tp_tfl_lstm_shape *sh = &s->shape;
    static const char *const names[GATES] = {"input gate's", "forget gate's", "cell gate's", "output gate's"};
    tfpi_code code = TFPI_OK;
    for (int g = GATE_I; g < GATES && code == TFPI_OK; g++) {
        if (g == GATE_I && sh->cifg)
            continue;
        const float x_scale = q[W_X + g].scale * q[IN].scale / gate_scale[g];
        const float h_scale = q[W_H + g].scale * q[OUT_STATE].scale / gate_scale[g];
        if ((code = multiplier(ctx, x_scale, names[g], &s->input_scale[g])) != TFPI_OK ||
            (code = multiplier(ctx, h_scale, names[g], &s->recurrent_scale[g])) != TFPI_OK)
            return code;
        if (sh->peephole && g != GATE_C) {
            /* in double, as TFLite's std::pow(2, cell_scale) makes it */
            const float p_scale =
                (float)(ldexp(1.0, s->cell_scale) * q[PEEPHOLE + (g == GATE_O ? 2 : g)].scale / gate_scale[g]);
            code = multiplier(ctx, p_scale, "peephole's", &s->peephole_scale[g]);
        }
        if (code == TFPI_OK && sh->layer_norm) {
            const float norm = q[LAYER_NORM + g].scale;
            if ((code = multiplier(ctx, norm, "layer-norm coefficients'", &s->norm_scale[g])) != TFPI_OK)
                return code;
            if (s->norm_scale[g].shift + 12 > 30)
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d's scale %g is too large for the layer norm",
                               LAYER_NORM + g, (double)norm);
            const float guard = 10000.0f * norm;
            s->variance_guard[g] = guard >= 2147483647.0f ? INT32_MAX : guard < 1.0f ? 1 : (int32_t)guard;
        }
    }
    if (code != TFPI_OK)
        return code;
    /* 2^-15 / hidden scale x 2^-15: o (Q0.15) x tanh(c) (Q0.15) to the hidden codes */
    if ((code = multiplier(ctx, (float)(ldexp(1.0, -15) / hidden_scale * ldexp(1.0, -15)), "hidden state's",
                           &s->hidden_scale)) != TFPI_OK)
        return code;
    if (sh->projection)
        code = multiplier(ctx, q[PROJECTION].scale * hidden_scale / q[OUT_STATE].scale, "projection's",
                          &s->projection_scale);
    return code;
}

/* The effective biases: the input side gets -input_zp x row sums (plus
 * the gate bias without layer norm), the recurrent side -output_state_zp
 * x row sums, the projection +hidden_zp x row sums plus its bias. */
static tfpi_code biases(tp_op_ctx *ctx, lstm_int *s, const tp_tfl_qparams *q)
{
    const tp_tfl_lstm_shape *sh = &s->shape;
    int64_t count;
    if (!tp_checked_mul(2 * GATES, sh->n_cell, &count) || !tp_checked_add(count, sh->n_out, &count))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the LSTM's sizes overflow");
    tfpi_code code = tp_expect_within_budget(ctx, count, sizeof(int32_t), "LSTM effective biases");
    if (code != TFPI_OK)
        return code;
    s->input_bias = calloc((size_t)(GATES * sh->n_cell) + 1, sizeof(int32_t));
    s->recurrent_bias = calloc((size_t)(GATES * sh->n_cell) + 1, sizeof(int32_t));
    s->projection_bias = calloc((size_t)sh->n_out + 1, sizeof(int32_t));
    if (!s->input_bias || !s->recurrent_bias || !s->projection_bias)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int g = GATE_I; g < GATES; g++) {
        if (g == GATE_I && sh->cifg)
            continue;
        effective_bias(ctx->inputs[W_X + g], sh->layer_norm ? NULL : ctx->inputs[BIAS + g], -q[IN].zero_point,
                       sh->n_cell, sh->n_in, s->input_bias + g * sh->n_cell);
        effective_bias(ctx->inputs[W_H + g], NULL, -q[OUT_STATE].zero_point, sh->n_cell, sh->n_out,
                       s->recurrent_bias + g * sh->n_cell);
    }
    if (sh->projection) {
        const bool has_bias = !tp_tfl_input_absent(ctx, PROJECTION_BIAS) &&
                              tp_num_elements(ctx->inputs[PROJECTION_BIAS]) > 0;
        effective_bias(ctx->inputs[PROJECTION], has_bias ? ctx->inputs[PROJECTION_BIAS] : NULL, s->hidden_zero_point,
                       sh->n_out, sh->n_cell, s->projection_bias);
    }
    return TFPI_OK;
}

tfpi_code tp_tfl_lstm_integer_prepare(tp_op_ctx *ctx, const tp_tfl_lstm_shape *shape, void **state)
{
    lstm_int *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    *state = s;
    s->shape = *shape;
    tp_tfl_qparams q[LAYER_NORM + GATES] = {{0}};
    tfpi_code code = check_types(ctx, shape, q);
    if (code != TFPI_OK)
        return code;
    if (shape->n_cell <= 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the integer LSTM needs at least one cell");
    if (shape->peephole && shape->n_out != shape->n_cell)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "peephole weights with a projection to %lld outputs from %lld cells: "
                       "TFLite's integer kernel applies them over the output size, which tfpi does not reproduce",
                       (long long)shape->n_out, (long long)shape->n_cell);
    tp_tfl_activation act;
    if ((code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK)
        return code;
    if (act != TP_TFL_ACT_TANH)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the integer LSTM's activation must be TANH");
    const int64_t intermediates = tp_attr_int(ctx->def, "num_intermediates", 0);
    if (intermediates != INTERMEDIATES)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "has %lld intermediates; TFLite's integer LSTM (8x8_16) takes 5",
                       (long long)intermediates);
    float gate_scale[GATES], hidden_scale;
    int32_t zero_point;
    for (int g = GATE_I; g < GATES; g++) {
        gate_scale[g] = ldexpf(1.0f, -12); /* Q3.12 without layer norm */
        if (shape->layer_norm && !(g == GATE_I && shape->cifg) &&
            (code = intermediate(ctx, g, &gate_scale[g], &zero_point)) != TFPI_OK)
            return code;
    }
    if ((code = intermediate(ctx, HIDDEN, &hidden_scale, &s->hidden_zero_point)) != TFPI_OK)
        return code;
    if (!power_of_two(q[CELL_STATE].scale, &s->cell_scale) || s->cell_scale > -9 || s->cell_scale < -15)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the cell state's scale %g must be a power of two from 2^-15 to "
                       "2^-9", (double)q[CELL_STATE].scale);
    s->out_state_zero_point = q[OUT_STATE].zero_point;
    if ((code = scales(ctx, s, q, gate_scale, hidden_scale)) != TFPI_OK)
        return code;
    const int64_t dims[3] = {ctx->inputs[IN]->dims[0], ctx->inputs[IN]->dims[1], shape->n_out};
    if ((code = tp_set_output(ctx, 0, TFPI_INT8, 3, dims)) != TFPI_OK)
        return code;
    tp_tfl_qparams out_q;
    if ((code = tp_tfl_qparams_of(ctx, "out", 0, &out_q)) != TFPI_OK)
        return code;
    /* the clips in codes, truncated toward zero as TFLite's static_cast does */
    const float cell_clip = tp_attr_float(ctx->def, "cell_clip", 0.0f);
    const float proj_clip = tp_attr_float(ctx->def, "proj_clip", 0.0f);
    if (cell_clip > 0.0f)
        s->cell_clip = (int16_t)fminf(fmaxf(cell_clip / q[CELL_STATE].scale, -32768.0f), 32767.0f);
    if (proj_clip > 0.0f)
        s->proj_clip = (int8_t)fminf(fmaxf(proj_clip / out_q.scale, -128.0f), 127.0f);
    int64_t work;
    if (!tp_checked_mul(shape->batch + 5, shape->n_cell + shape->n_out, &work))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the LSTM's sizes overflow");
    if ((code = tp_expect_within_budget(ctx, work, sizeof(int16_t), "LSTM state values")) != TFPI_OK)
        return code;
    return biases(ctx, s, q);
}

/* gate[r] += rescaled (bias[r] + W[r] . v), saturated to int16 (TFLite's
 * MatrixBatchVectorMultiplyAccumulate to int16). */
static void product_into_gate(const int8_t *w, const int8_t *v, const int32_t *bias, tp_tfl_multiplier m,
                              int64_t rows, int64_t cols, int16_t *gate)
{
    for (int64_t r = 0; r < rows; r++) {
        int32_t acc = bias[r];
        for (int64_t c = 0; c < cols; c++)
            acc = wrap32((int64_t)acc + w[r * cols + c] * v[c]);
        gate[r] = (int16_t)clamp((int64_t)tp_tfl_multiply(acc, m) + gate[r], INT16_MIN, INT16_MAX);
    }
}

/* TFLite's ApplyLayerNorm: the gate normalized in integers (mean and
 * variance x 2^10 and 2^20, 1 / sqrt by Newton-Raphson), times the int16
 * coefficients plus the bias, rescaled to Q3.12. */
static void layer_norm(const lstm_int *s, int g, const int16_t *weights, const int32_t *bias, int16_t *gate)
{
    const int64_t n = s->shape.n_cell;
    int64_t sum = 0, sum_sq = 0;
    for (int64_t j = 0; j < n; j++) {
        sum += gate[j];
        sum_sq += (int64_t)gate[j] * gate[j];
    }
    const int32_t mean = (int32_t)(sum * 1024 / n);
    const int64_t variance = sum_sq * ((1 << 20) / n) - (int64_t)mean * mean;
    int32_t variance2 = (int32_t)(variance / (1 << 20));
    if (variance2 < 1)
        variance2 = s->variance_guard[g];
    tp_tfl_multiplier inv_stddev;
    tp_tfl_inv_sqrt(variance2, &inv_stddev.mantissa, &inv_stddev.shift);
    tp_tfl_multiplier out_scale = s->norm_scale[g];
    out_scale.shift += 12;
    for (int64_t j = 0; j < n; j++) {
        const int32_t rescaled = tp_tfl_multiply(1024 * gate[j] - mean, inv_stddev);
        const int64_t weighted = wrap32((int64_t)rescaled * weights[j] + bias[j]);
        const int32_t rounded = (int32_t)((weighted > 0 ? weighted + 512 : weighted - 512) / 1024);
        gate[j] = (int16_t)clamp(tp_tfl_multiply(rounded, out_scale), INT16_MIN, INT16_MAX);
    }
}

/* One gate of one batch row, to Q0.15: the products, the peephole, the
 * layer norm, then sigmoid (the cell gate: tanh). */
static void gate(const tp_op_ctx *ctx, const lstm_int *s, int g, const int8_t *x, const int8_t *h, const int16_t *c,
                 int16_t *out)
{
    const tp_tfl_lstm_shape *sh = &s->shape;
    const int64_t n = sh->n_cell;
    memset(out, 0, sizeof *out * (size_t)n);
    product_into_gate(ctx->inputs[W_X + g]->data, x, s->input_bias + g * n, s->input_scale[g], n, sh->n_in, out);
    product_into_gate(ctx->inputs[W_H + g]->data, h, s->recurrent_bias + g * n, s->recurrent_scale[g], n, sh->n_out,
                      out);
    if (sh->peephole && g != GATE_C) {
        const int16_t *p = ctx->inputs[PEEPHOLE + (g == GATE_O ? 2 : g)]->data;
        for (int64_t k = 0; k < n; k++)
            out[k] = (int16_t)clamp((int64_t)tp_tfl_multiply(p[k] * c[k], s->peephole_scale[g]) + out[k],
                                    INT16_MIN, INT16_MAX);
    }
    if (sh->layer_norm)
        layer_norm(s, g, ctx->inputs[LAYER_NORM + g]->data, ctx->inputs[BIAS + g]->data, out);
    for (int64_t k = 0; k < n; k++)
        out[k] = g == GATE_C ? tp_tfl_tanh16(out[k], 3) : tp_tfl_logistic16(out[k], 3);
}

/* One step of one batch row: h [n_out] and c [n_cell] updated in place. */
static void step(const tp_op_ctx *ctx, const lstm_int *s, const int8_t *x, int8_t *h, int16_t *c, int16_t *scratch,
                 int8_t *hidden)
{
    const tp_tfl_lstm_shape *sh = &s->shape;
    const int64_t n = sh->n_cell;
    int16_t *ig = scratch, *fg = ig + n, *cg = fg + n, *og = cg + n;
    if (!sh->cifg)
        gate(ctx, s, GATE_I, x, h, c, ig);
    gate(ctx, s, GATE_F, x, h, c, fg);
    gate(ctx, s, GATE_C, x, h, c, cg);
    for (int64_t k = 0; k < n; k++) {
        const int32_t kept = tp_tfl_rounding_divide_by_pot(fg[k] * c[k], 15);
        const int32_t input = sh->cifg ? INT16_MAX - fg[k] : ig[k];
        const int32_t added = (int16_t)tp_tfl_rounding_divide_by_pot(input * cg[k], 30 + s->cell_scale);
        int32_t cell = clamp((int64_t)(int16_t)kept + added, INT16_MIN, INT16_MAX);
        if (s->cell_clip > 0)
            cell = clamp(cell, -s->cell_clip, s->cell_clip);
        c[k] = (int16_t)cell;
    }
    gate(ctx, s, GATE_O, x, h, c, og);
    /* the hidden codes: with a projection its zero point is subtracted (the
     * projection's bias adds it back), without one they are the output's
     * codes and it is added (TFLite's fix b/246629213) */
    const int32_t hidden_offset = sh->projection ? -s->hidden_zero_point : s->hidden_zero_point;
    int8_t *codes = sh->projection ? hidden : h;
    for (int64_t k = 0; k < n; k++) {
        const int32_t product = og[k] * tp_tfl_tanh16(c[k], 15 + s->cell_scale);
        codes[k] = (int8_t)clamp((int64_t)tp_tfl_multiply(product, s->hidden_scale) + hidden_offset, INT8_MIN,
                                 INT8_MAX);
    }
    if (!sh->projection)
        return;
    const int8_t *w = ctx->inputs[PROJECTION]->data;
    for (int64_t r = 0; r < sh->n_out; r++) {
        int32_t acc = s->projection_bias[r];
        for (int64_t k = 0; k < n; k++)
            acc = wrap32((int64_t)acc + w[r * n + k] * hidden[k]);
        int32_t out = clamp((int64_t)tp_tfl_multiply(acc, s->projection_scale) + s->out_state_zero_point, INT8_MIN,
                            INT8_MAX);
        if (s->proj_clip > 0)
            out = clamp(out, -s->proj_clip, s->proj_clip);
        h[r] = (int8_t)out;
    }
}

tfpi_code tp_tfl_lstm_integer_run(tp_op_ctx *ctx, const void *state)
{
    const lstm_int *s = state;
    const tp_tfl_lstm_shape *sh = &s->shape;
    /* int16: cell states, 4 gates; int8: output states, the hidden row */
    int16_t *c = malloc(sizeof(int16_t) * (size_t)(sh->batch * sh->n_cell + 4 * sh->n_cell) +
                        (size_t)(sh->batch * sh->n_out + sh->n_cell) + 1);
    if (!c)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    int16_t *scratch = c + sh->batch * sh->n_cell;
    int8_t *h = (int8_t *)(scratch + 4 * sh->n_cell), *hidden = h + sh->batch * sh->n_out;
    memcpy(h, ctx->inputs[OUT_STATE]->data, (size_t)(sh->batch * sh->n_out));
    memcpy(c, ctx->inputs[CELL_STATE]->data, sizeof(int16_t) * (size_t)(sh->batch * sh->n_cell));
    const int8_t *in = ctx->inputs[IN]->data;
    int8_t *out = ctx->outputs[0].data;
    for (int64_t b = 0; b < sh->batch; b++)
        for (int64_t t = 0; t < sh->time; t++) {
            const int64_t row = sh->time_major ? t * sh->batch + b : b * sh->time + t;
            step(ctx, s, in + row * sh->n_in, h + b * sh->n_out, c + b * sh->n_cell, scratch, hidden);
            memcpy(out + row * sh->n_out, h + b * sh->n_out, (size_t)sh->n_out);
        }
    free(c);
    return TFPI_OK;
}
