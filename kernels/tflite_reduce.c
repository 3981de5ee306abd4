/* tflite_reduce.c - TensorFlow Lite's MEAN, SUM, REDUCE_MAX, REDUCE_MIN (uint8 and
 * int8) and REDUCE_PROD (int8, as TFLite's) on tensors, over the axes of input 1 (int32 or int64, known while
 * planning; negative axes count from the end, repeats are ignored),
 * keep_dims as the schema's option. The rules of tflite-micro's
 * reference (reduce.h QuantizedMeanOrSum, reduce_common.cc):
 *  - the sum of the codes over the reduced axes, less input zero point x
 *    count, in int32;
 *  - SUM: times in_scale / out_scale (TFLite's multiplier and rounding);
 *  - MEAN: the same multiplier with the division by the count folded in:
 *    its mantissa shifted left by s = min(floor(log2 count), 32, 31 +
 *    shift) and divided by the count (truncating), its shift less s;
 *  - plus the output zero point, clamped to the type's codes;
 *  - REDUCE_MAX / REDUCE_MIN: the largest / smallest code (input and output
 *    share a quantization).
 *  - REDUCE_PROD (reduce.h QuantizedReduceProd, reduce.cc
 *    GetQuantProdScaling): the first code less the zero point, then each
 *    product with the next one's, in input order, rescaled at every step by
 *    the multiplier of in_scale / out_scale^(1 / count) in TFLite's 64-bit
 *    form (the mantissa rounded to 16 bits, one rounding shift), and once
 *    more at the end; shifts outside -31..7 (TFLite's range) are refused.
 * An empty reduction gives code 0, as TFLite's does.
 * ARG_MAX / ARG_MIN (uint8, int8 or float32 input; int32 or int64 output
 * as "T" says) give the index of the first largest / smallest value along
 * the axis of input 1 (reference/arg_min_max.h: a strict comparison). */
#include <math.h>
#include <stdlib.h>

#include "compute/tflite_node.h"
#include "kernel/array_kernel_util.h"

typedef enum reduce_kind { REDUCE_MEAN, REDUCE_SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD } reduce_kind;

typedef struct reduce_state {
    reduce_kind kind;
    bool is_signed;
    int rank;
    int64_t in_dims[TFPI_MAX_DIMS];
    int64_t out_stride[TFPI_MAX_DIMS]; /* per input dim: output elements per step, 0 if reduced */
    int64_t count;                     /* input elements per output element */
    int64_t outputs;
    int32_t in_zero, out_zero, qmin, qmax;
    tp_tfl_multiplier mult;
} reduce_state;

static void reduce_release(void *state) { free(state); }

/* The multiplier of MEAN: the division by count folded into m. */
static tp_tfl_multiplier fold_count(tp_tfl_multiplier m, int64_t count)
{
    int s = 63 - __builtin_clzll((unsigned long long)count);
    s = s < 32 ? s : 32;
    s = s < 31 + m.shift ? s : 31 + m.shift;
    return (tp_tfl_multiplier){(int32_t)((((int64_t)m.mantissa) << s) / count), m.shift - s};
}

/* TFLite's MultiplyByQuantizedMultiplier of an int64 value: the mantissa
 * rounded to 16 bits, one rounding right shift by 15 - shift. */
static int32_t multiply64(int64_t x, tp_tfl_multiplier m)
{
    const int64_t reduced = m.mantissa < 0x7FFF0000 ? (m.mantissa + (1 << 15)) >> 16 : 0x7FFF;
    const int total_shift = 15 - m.shift;
    const int64_t r = x * reduced + ((int64_t)1 << (total_shift - 1));
    const int64_t q = r >= 0 ? r >> total_shift : -((-(r + 1)) >> total_shift) - 1; /* floor */
    return (int32_t)(uint32_t)(uint64_t)q;
}

static tfpi_code reduce_prepare(tp_op_ctx *ctx, reduce_kind kind)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, false)) != TFPI_OK ||
        (code = tp_expect_known(ctx, 1)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t axes[TFPI_MAX_DIMS * 4];
    int count;
    if ((code = tp_read_index_values(ctx, 1, "axis", axes, TFPI_MAX_DIMS * 4, &count)) != TFPI_OK)
        return code;
    bool reduced[TFPI_MAX_DIMS] = {false};
    for (int k = 0; k < count; k++) {
        int axis;
        if ((code = tp_resolve_axis(ctx, axes[k], in->ndims, "axis", &axis)) != TFPI_OK)
            return code;
        reduced[axis] = true;
    }
    reduce_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->kind = kind;
    s->is_signed = in->dtype == TFPI_INT8;
    s->rank = in->ndims;
    const bool keep = tp_attr_bool(ctx->def, "keep_dims", false);
    int64_t out_dims[TFPI_MAX_DIMS];
    int out_rank = 0;
    s->count = 1;
    s->outputs = 1;
    for (int d = in->ndims - 1; d >= 0; d--) {
        s->in_dims[d] = in->dims[d];
        s->out_stride[d] = reduced[d] ? 0 : s->outputs;
        if (reduced[d])
            s->count *= in->dims[d];
        else
            s->outputs *= in->dims[d];
    }
    for (int d = 0; d < in->ndims; d++)
        if (!reduced[d] || keep)
            out_dims[out_rank++] = reduced[d] ? 1 : in->dims[d];
    if ((code = tp_set_output(ctx, 0, in->dtype, out_rank, out_dims)) != TFPI_OK)
        return code;
    tp_tfl_qparams qin, qout;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &qin)) != TFPI_OK ||
        (code = tp_tfl_qparams_of(ctx, "out", 0, &qout)) != TFPI_OK)
        return code;
    if ((code = tp_expect_within_budget(ctx, s->outputs, sizeof(int32_t), "sums")) != TFPI_OK)
        return code;
    s->in_zero = qin.zero_point, s->out_zero = qout.zero_point, s->qmin = qout.qmin, s->qmax = qout.qmax;
    if (kind == REDUCE_MAX || kind == REDUCE_MIN) {
        if (qin.scale != qout.scale || qin.zero_point != qout.zero_point)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input and output must share one quantization");
        return TFPI_OK;
    }
    if (kind == REDUCE_PROD) {
        const double m = s->count > 0 ? (double)qin.scale / pow((double)qout.scale, 1.0 / (double)s->count) : 1.0;
        if (!s->is_signed)
            return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input 0 is uint8: TFLite's quantized REDUCE_PROD is int8");
        if (!tp_tfl_quantize_multiplier(m, &s->mult) || s->mult.shift < -31 || s->mult.shift > 7)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the step multiplier %g is out of REDUCE_PROD's range", m);
        return TFPI_OK;
    }
    const double m = (double)qin.scale / (double)qout.scale;
    if (!tp_tfl_quantize_multiplier(m, &s->mult))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the multiplier %g (input / output scale) is out of range", m);
    if (kind == REDUCE_MEAN && s->count > 0)
        s->mult = fold_count(s->mult, s->count);
    return TFPI_OK;
}

static tfpi_code mean_prepare(tp_op_ctx *ctx) { return reduce_prepare(ctx, REDUCE_MEAN); }
static tfpi_code sum_prepare(tp_op_ctx *ctx) { return reduce_prepare(ctx, REDUCE_SUM); }
static tfpi_code max_prepare(tp_op_ctx *ctx) { return reduce_prepare(ctx, REDUCE_MAX); }
static tfpi_code min_prepare(tp_op_ctx *ctx) { return reduce_prepare(ctx, REDUCE_MIN); }
static tfpi_code prod_prepare(tp_op_ctx *ctx) { return reduce_prepare(ctx, REDUCE_PROD); }

static tfpi_code reduce_run(tp_op_ctx *ctx)
{
    const reduce_state *s = ctx->state;
    const uint8_t *in = ctx->inputs[0]->data;
    uint8_t *out = ctx->outputs[0].data;
    int32_t *acc = malloc(sizeof *acc * (size_t)s->outputs);
    bool *started = s->kind == REDUCE_PROD ? calloc((size_t)s->outputs + 1, 1) : NULL;
    if (!acc || (s->kind == REDUCE_PROD && !started)) {
        free(acc);
        free(started);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    for (int64_t o = 0; o < s->outputs; o++)
        acc[o] = s->kind == REDUCE_MAX ? INT32_MIN : s->kind == REDUCE_MIN ? INT32_MAX : 0;
    /* walk the input in order, carrying the output index */
    int64_t index[TFPI_MAX_DIMS] = {0}, o = 0;
    const int64_t n = tp_num_elements(ctx->inputs[0]);
    for (int64_t i = 0; i < n; i++) {
        const int32_t v = s->is_signed ? (int8_t)in[i] : in[i];
        if (s->kind == REDUCE_MAX || s->kind == REDUCE_MIN)
            acc[o] = (s->kind == REDUCE_MAX) == (v > acc[o]) ? v : acc[o];
        else if (s->kind == REDUCE_PROD)
            acc[o] = started[o] ? multiply64((int64_t)acc[o] * (v - s->in_zero), s->mult) : v - s->in_zero;
        else
            acc[o] = (int32_t)((uint32_t)acc[o] + (uint32_t)v);
        if (started)
            started[o] = true;
        for (int d = s->rank - 1; d >= 0; d--) {
            o += s->out_stride[d];
            if (++index[d] < s->in_dims[d])
                break;
            o -= s->out_stride[d] * s->in_dims[d];
            index[d] = 0;
        }
    }
    for (int64_t k = 0; k < s->outputs; k++) {
        int32_t v = 0;
        if (s->count > 0 && (s->kind == REDUCE_MAX || s->kind == REDUCE_MIN)) {
            v = acc[k];
        } else if (s->count > 0 && s->kind == REDUCE_PROD) {
            v = (int32_t)((uint32_t)multiply64(acc[k], s->mult) + (uint32_t)s->out_zero);
        } else if (s->count > 0) {
            const int32_t shifted = (int32_t)((uint32_t)acc[k] - (uint32_t)s->in_zero * (uint32_t)s->count);
            v = tp_tfl_multiply(shifted, s->mult) + s->out_zero;
        }
        out[k] = (uint8_t)(v < s->qmin ? s->qmin : v > s->qmax ? s->qmax : v);
    }
    free(acc);
    free(started);
    return TFPI_OK;
}

/* ---- ARG_MAX, ARG_MIN ---- */

typedef struct arg_state {
    bool max;
    int64_t outer, length, inner;
} arg_state;

static tfpi_code arg_prepare(tp_op_ctx *ctx, bool max)
{
    tfpi_code code;
    int64_t axis_value;
    int axis;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, true)) != TFPI_OK ||
        (code = tp_expect_known(ctx, 1)) != TFPI_OK ||
        (code = tp_read_index_scalar(ctx, 1, "axis", &axis_value)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if ((code = tp_resolve_axis(ctx, axis_value, in->ndims, "axis", &axis)) != TFPI_OK)
        return code;
    const tfpi_dtype out_dtype = tp_attr_type(ctx->def, "T", TFPI_INT64);
    if (out_dtype != TFPI_INT32 && out_dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output type %s; ARG_MAX / ARG_MIN give int32 or int64",
                       tfpi_dtype_name(out_dtype));
    int64_t dims[TFPI_MAX_DIMS];
    int rank = 0;
    arg_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->max = max, s->outer = 1, s->inner = 1, s->length = in->dims[axis];
    for (int d = 0; d < in->ndims; d++) {
        if (d != axis)
            dims[rank++] = in->dims[d];
        if (d < axis)
            s->outer *= in->dims[d];
        if (d > axis)
            s->inner *= in->dims[d];
    }
    if ((code = tp_set_output(ctx, 0, out_dtype, rank, dims)) != TFPI_OK)
        return code;
    if (s->length == 0 && tp_num_elements(&ctx->outputs[0]) > 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "axis %d has no values to compare", axis);
    return TFPI_OK;
}

static tfpi_code arg_max_prepare(tp_op_ctx *ctx) { return arg_prepare(ctx, true); }
static tfpi_code arg_min_prepare(tp_op_ctx *ctx) { return arg_prepare(ctx, false); }

static float value_at(const tfpi_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case TFPI_FLOAT: return ((const float *)t->data)[i];
    case TFPI_INT8: return ((const int8_t *)t->data)[i];
    default: return ((const uint8_t *)t->data)[i];
    }
}

static tfpi_code arg_run(tp_op_ctx *ctx)
{
    const arg_state *s = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t k = 0; k < s->inner; k++) {
            const int64_t base = o * s->length * s->inner + k;
            float best = value_at(in, base);
            int64_t best_index = 0;
            for (int64_t j = 1; j < s->length; j++) {
                const float v = value_at(in, base + j * s->inner);
                if (s->max ? v > best : v < best)
                    best = v, best_index = j;
            }
            if (out->dtype == TFPI_INT32)
                ((int32_t *)out->data)[o * s->inner + k] = (int32_t)best_index;
            else
                ((int64_t *)out->data)[o * s->inner + k] = best_index;
        }
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_reduce[] = {
    TP_KERNEL("MEAN", mean_prepare, reduce_run, reduce_release, TP_TFLITE_OP),
    TP_KERNEL("SUM", sum_prepare, reduce_run, reduce_release, TP_TFLITE_OP),
    TP_KERNEL("REDUCE_MAX", max_prepare, reduce_run, reduce_release, TP_TFLITE_OP),
    TP_KERNEL("REDUCE_MIN", min_prepare, reduce_run, reduce_release, TP_TFLITE_OP),
    TP_KERNEL("REDUCE_PROD", prod_prepare, reduce_run, reduce_release, TP_TFLITE_OP),
    TP_KERNEL("ARG_MAX", arg_max_prepare, arg_run, reduce_release, TP_TFLITE_OP),
    TP_KERNEL("ARG_MIN", arg_min_prepare, arg_run, reduce_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
