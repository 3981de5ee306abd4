/* concat.c - joining tensors along an axis, on any element type:
 * ConcatV2 (axis is the last input), Concat (the legacy form: concat_dim
 * is the first input) and Pack (stacks same-shape inputs along a new axis).
 * All three see the output as [outer][axis][inner] and copy, for each
 * outer index, one contiguous piece of every input in turn. */
#include <string.h>

#include "kernel/array_kernel_util.h"

/* The inputs that are joined (the values, without the axis input). */
typedef struct joined_inputs {
    int first, count;
} joined_inputs;

static joined_inputs values_of(const tp_op_ctx *ctx)
{
    if (strcmp(ctx->def->op, "Concat") == 0)
        return (joined_inputs){1, ctx->num_inputs - 1};
    if (strcmp(ctx->def->op, "ConcatV2") == 0)
        return (joined_inputs){0, ctx->num_inputs - 1};
    return (joined_inputs){0, ctx->num_inputs};
}

/* The output axis: from the axis input (Concat, ConcatV2) or attr (Pack). */
static tfpi_code output_axis(tp_op_ctx *ctx, int out_rank, int *axis)
{
    int64_t value;
    tfpi_code code;
    if (strcmp(ctx->def->op, "Pack") == 0) {
        value = tp_attr_int(ctx->def, "axis", 0);
    } else {
        int input = strcmp(ctx->def->op, "Concat") == 0 ? 0 : ctx->num_inputs - 1;
        if ((code = tp_read_index_scalar(ctx, input, "axis", &value)) != TFPI_OK)
            return code;
    }
    return tp_resolve_axis(ctx, value, out_rank, "axis", axis);
}

/* Every joined input must have input `first`'s dtype and rank and agree
 * with it in every dim except `skip` (-1: in all dims). */
static tfpi_code check_alike(tp_op_ctx *ctx, joined_inputs v, int skip)
{
    const tfpi_tensor *a = ctx->inputs[v.first];
    for (int i = v.first + 1; i < v.first + v.count; i++) {
        const tfpi_tensor *b = ctx->inputs[i];
        bool same = b->dtype == a->dtype && b->ndims == a->ndims;
        for (int d = 0; same && d < a->ndims; d++)
            same = d == skip || a->dims[d] == b->dims[d];
        if (!same) {
            char as[128], bs[128];
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "input %d (%s %s) does not match input %d (%s %s)%s", i,
                           tfpi_dtype_name(b->dtype), tp_shape_string(b, bs, sizeof bs), v.first,
                           tfpi_dtype_name(a->dtype), tp_shape_string(a, as, sizeof as),
                           skip >= 0 ? " outside the concat axis" : "");
        }
    }
    return TFPI_OK;
}

static tfpi_code concat_prepare(tp_op_ctx *ctx)
{
    joined_inputs v = values_of(ctx);
    if (v.count < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "needs at least one value and an axis");
    const tfpi_tensor *first = ctx->inputs[v.first];
    if (first->ndims == 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot concatenate scalars (use Pack)");
    int axis;
    tfpi_code code = output_axis(ctx, first->ndims, &axis);
    if (code == TFPI_OK)
        code = check_alike(ctx, v, axis);
    if (code != TFPI_OK)
        return code;
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, first->dims, sizeof dims);
    for (int i = v.first + 1; i < v.first + v.count; i++)
        dims[axis] += ctx->inputs[i]->dims[axis];
    return tp_set_output(ctx, 0, first->dtype, first->ndims, dims);
}

static tfpi_code pack_prepare(tp_op_ctx *ctx)
{
    joined_inputs v = values_of(ctx);
    if (v.count < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "needs at least one input");
    const tfpi_tensor *first = ctx->inputs[0];
    if (first->ndims >= TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot stack rank-%d inputs (the limit is %d)",
                       first->ndims, TFPI_MAX_DIMS);
    int axis;
    tfpi_code code = output_axis(ctx, first->ndims + 1, &axis);
    if (code == TFPI_OK)
        code = check_alike(ctx, v, -1);
    if (code != TFPI_OK)
        return code;
    int64_t dims[TFPI_MAX_DIMS];
    for (int d = 0, k = 0; d <= first->ndims; d++)
        dims[d] = d == axis ? v.count : first->dims[k++];
    return tp_set_output(ctx, 0, first->dtype, first->ndims + 1, dims);
}

/* The output axis again (prepare checked it): the dim of output 0 where
 * the inputs' pieces sit side by side. */
static int joined_axis(tp_op_ctx *ctx)
{
    int axis = 0;
    output_axis(ctx, ctx->outputs[0].ndims, &axis);
    return axis;
}

static tfpi_code join_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *out = &ctx->outputs[0];
    joined_inputs v = values_of(ctx);
    int axis = joined_axis(ctx);
    int64_t outer = 1, inner = (int64_t)tfpi_dtype_size(out->dtype);
    for (int d = 0; d < axis; d++)
        outer *= out->dims[d];
    for (int d = axis + 1; d < out->ndims; d++)
        inner *= out->dims[d];
    bool stacked = strcmp(ctx->def->op, "Pack") == 0;
    char *dst = out->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int i = v.first; i < v.first + v.count; i++) {
            const tfpi_tensor *in = ctx->inputs[i];
            size_t piece = (size_t)((stacked ? 1 : in->dims[axis]) * inner);
            memcpy(dst, (const char *)in->data + (size_t)o * piece, piece);
            dst += piece;
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_concat[] = {
    TP_KERNEL("ConcatV2", concat_prepare, join_run, NULL, 0),
    TP_KERNEL("Concat", concat_prepare, join_run, NULL, 0),
    TP_KERNEL("Pack", pack_prepare, join_run, NULL, 0),
    TP_KERNELS_END,
};
