/* tflite_concatenation.c - TensorFlow Lite's CONCATENATION of uint8 or
 * int8 tensors along "axis" (negative: from the end), any number of
 * inputs. An input quantized as the output is copied; another is
 * requantized by TFLite's rule for uint8 (reference/concatenation.h
 * ConcatenationWithScaling): round(q x s + b) + output zero point, with
 * s = in_scale x (1 / out_scale) and b = -in_zero_point x s in float,
 * rounded half away from zero and clamped to the type's codes. (TFLite
 * refuses int8 inputs quantized unlike the output; this kernel applies
 * the same rule to them.) The float path concatenates values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"
#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"

typedef struct concat_input {
    bool copy;         /* quantized as the output (or float) */
    float scale, bias; /* requantize */
} concat_input;

typedef struct concat_state {
    int axis;
    int64_t outer, inner; /* elements before the axis; after it, per step */
    size_t elem;
    bool is_signed;
    int32_t out_zero, qmin, qmax;
    concat_input inputs[];
} concat_state;

static void concat_release(void *state) { free(state); }

static tfpi_code concat_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if (ctx->num_inputs < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects at least one input");
    if ((code = tp_tfl_expect_8bit(ctx, 0, true)) != TFPI_OK)
        return code;
    const tfpi_tensor *first = ctx->inputs[0];
    const int rank = first->ndims;
    int axis;
    if (rank < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs must have at least one dimension");
    if ((code = tp_resolve_axis(ctx, tp_attr_int(ctx->def, "axis", 0), rank, "axis", &axis)) != TFPI_OK)
        return code;
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, first->dims, sizeof dims[0] * (size_t)rank);
    dims[axis] = 0;
    for (int i = 0; i < ctx->num_inputs; i++) {
        const tfpi_tensor *t = ctx->inputs[i];
        char a[96], b[96];
        bool same = t->dtype == first->dtype && t->ndims == rank;
        for (int d = 0; same && d < rank; d++)
            same = d == axis || t->dims[d] == first->dims[d];
        if (!same)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d %s %s does not match input 0 %s %s along axis %d", i,
                           tfpi_dtype_name(t->dtype), tp_shape_string(t, a, sizeof a), tfpi_dtype_name(first->dtype),
                           tp_shape_string(first, b, sizeof b), axis);
        if (!tp_checked_add(dims[axis], t->dims[axis], &dims[axis]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the concatenated dimension overflows");
    }
    if (tp_tfl_output_dtype(ctx) != first->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output type %s differs from the inputs' %s",
                       tfpi_dtype_name(tp_tfl_output_dtype(ctx)), tfpi_dtype_name(first->dtype));
    if ((code = tp_set_output(ctx, 0, first->dtype, rank, dims)) != TFPI_OK)
        return code;
    concat_state *s = calloc(1, sizeof *s + sizeof s->inputs[0] * (size_t)ctx->num_inputs);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->axis = axis;
    s->elem = tfpi_dtype_size(first->dtype);
    s->is_signed = first->dtype == TFPI_INT8;
    s->outer = 1, s->inner = 1;
    for (int d = 0; d < axis; d++)
        s->outer *= dims[d];
    for (int d = axis + 1; d < rank; d++)
        s->inner *= dims[d];
    tp_tfl_activation act;
    if ((code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK)
        return code;
    if (act != TP_TFL_ACT_NONE)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "a fused activation on CONCATENATION is not supported");
    if (first->dtype == TFPI_FLOAT) {
        for (int i = 0; i < ctx->num_inputs; i++)
            s->inputs[i].copy = true;
        return TFPI_OK;
    }
    tp_tfl_qparams out;
    if ((code = tp_tfl_qparams_of(ctx, "out", 0, &out)) != TFPI_OK)
        return code;
    s->out_zero = out.zero_point, s->qmin = out.qmin, s->qmax = out.qmax;
    const float inverse = 1.0f / out.scale;
    for (int i = 0; i < ctx->num_inputs; i++) {
        tp_tfl_qparams q;
        if ((code = tp_tfl_qparams_of(ctx, "in", i, &q)) != TFPI_OK)
            return code;
        concat_input *c = &s->inputs[i];
        c->copy = q.zero_point == out.zero_point && q.scale == out.scale;
        c->scale = q.scale * inverse;
        c->bias = (float)-q.zero_point * c->scale;
    }
    return TFPI_OK;
}

/* round(v) half away from zero, to int32, defined for every float. */
static int32_t round_to_int(float v)
{
    const float r = roundf(v);
    return r != r ? 0 : r <= -2e9f ? -2000000000 : r >= 2e9f ? 2000000000 : (int32_t)r;
}

static tfpi_code concat_run(tp_op_ctx *ctx)
{
    const concat_state *s = ctx->state;
    uint8_t *out = ctx->outputs[0].data;
    for (int64_t k = 0; k < s->outer; k++)
        for (int i = 0; i < ctx->num_inputs; i++) {
            const tfpi_tensor *t = ctx->inputs[i];
            const int64_t n = t->dims[s->axis] * s->inner;
            const uint8_t *src = (const uint8_t *)t->data + (size_t)(k * n) * s->elem;
            const concat_input *c = &s->inputs[i];
            if (c->copy) {
                memcpy(out, src, (size_t)n * s->elem);
            } else {
                for (int64_t j = 0; j < n; j++) {
                    const float q = (float)(s->is_signed ? (int8_t)src[j] : src[j]);
                    int32_t v = round_to_int(q * c->scale + c->bias) + s->out_zero;
                    out[j] = (uint8_t)(v < s->qmin ? s->qmin : v > s->qmax ? s->qmax : v);
                }
            }
            out += (size_t)n * s->elem;
        }
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_concatenation[] = {
    TP_KERNEL("CONCATENATION", concat_prepare, concat_run, concat_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
