/* gather.c - picking slices by index, on any element type: GatherV2
 * (params, indices, axis; batch_dims 0 only), Gather (the legacy form,
 * axis 0) and OneHot (indices, depth, on_value, off_value; axis attr).
 * Indices are int32 or int64. Gather rejects an index outside [0, n), as
 * TF's CPU kernel does; OneHot writes off_value for one. */
#include <string.h>

#include "kernel/array_kernel_util.h"

/* params as [outer][axis][inner]: output [outer][indices][inner]. */
static tfpi_code gather_axis(tp_op_ctx *ctx, int *axis)
{
    int rank = ctx->inputs[0]->ndims;
    if (strcmp(ctx->def->op, "Gather") == 0)
        return tp_resolve_axis(ctx, 0, rank, "axis", axis);
    int64_t value;
    tfpi_code code = tp_read_index_scalar(ctx, 2, "axis", &value);
    return code == TFPI_OK ? tp_resolve_axis(ctx, value, rank, "axis", axis) : code;
}

static bool is_index_type(tfpi_dtype t) { return t == TFPI_INT32 || t == TFPI_INT64; }

static tfpi_code gather_prepare(tp_op_ctx *ctx)
{
    bool v2 = strcmp(ctx->def->op, "GatherV2") == 0;
    tfpi_code code = tp_expect_inputs(ctx, v2 ? 3 : 2, v2 ? 3 : 2);
    if (code != TFPI_OK)
        return code;
    if (tp_attr_int(ctx->def, "batch_dims", 0) != 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "batch_dims other than 0 is not supported");
    const tfpi_tensor *params = ctx->inputs[0], *indices = ctx->inputs[1];
    if (!is_index_type(indices->dtype))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be int32 or int64, not %s",
                       tfpi_dtype_name(indices->dtype));
    int axis;
    if ((code = gather_axis(ctx, &axis)) != TFPI_OK)
        return code;
    int ndims = params->ndims - 1 + indices->ndims;
    if (ndims > TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the result would have rank %d, above %d", ndims,
                       TFPI_MAX_DIMS);
    int64_t dims[TFPI_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < axis; d++)
        dims[n++] = params->dims[d];
    for (int d = 0; d < indices->ndims; d++)
        dims[n++] = indices->dims[d];
    for (int d = axis + 1; d < params->ndims; d++)
        dims[n++] = params->dims[d];
    return tp_set_output(ctx, 0, params->dtype, ndims, dims);
}

static tfpi_code gather_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *params = ctx->inputs[0], *indices = ctx->inputs[1];
    int axis;
    gather_axis(ctx, &axis);
    int64_t outer = 1, inner = (int64_t)tfpi_dtype_size(params->dtype), limit = params->dims[axis];
    for (int d = 0; d < axis; d++)
        outer *= params->dims[d];
    for (int d = axis + 1; d < params->ndims; d++)
        inner *= params->dims[d];
    int64_t count = tp_num_elements(indices);
    for (int64_t i = 0; i < count; i++) {
        int64_t k = tp_get_int(indices, i);
        if (k < 0 || k >= limit)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices[%lld] = %lld is not in [0, %lld)",
                           (long long)i, (long long)k, (long long)limit);
    }
    const char *src = params->data;
    char *dst = ctx->outputs[0].data;
    for (int64_t o = 0; o < outer; o++, src += limit * inner)
        for (int64_t i = 0; i < count; i++, dst += inner)
            memcpy(dst, src + tp_get_int(indices, i) * inner, (size_t)inner);
    return TFPI_OK;
}

/* ---- OneHot ------------------------------------------------------------------ */

/* Where the depth dimension goes in the output: axis -1 means last. */
static int one_hot_axis(const tp_op_ctx *ctx)
{
    int64_t axis = tp_attr_int(ctx->def, "axis", -1);
    return (int)(axis == -1 ? ctx->inputs[0]->ndims : axis);
}

static tfpi_code one_hot_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 4, 4);
    int64_t depth = 0;
    if (code == TFPI_OK)
        code = tp_read_index_scalar(ctx, 1, "depth", &depth);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *indices = ctx->inputs[0], *on = ctx->inputs[2], *off = ctx->inputs[3];
    int64_t axis = tp_attr_int(ctx->def, "axis", -1);
    if (!is_index_type(indices->dtype) && indices->dtype != TFPI_UINT8)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be uint8, int32 or int64, not %s",
                       tfpi_dtype_name(indices->dtype));
    if (depth < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "depth %lld is negative", (long long)depth);
    if (axis < -1 || axis > indices->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "axis %lld is outside [-1, %d]", (long long)axis,
                       indices->ndims);
    if (indices->ndims >= TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices of rank %d leave no room for depth",
                       indices->ndims);
    if (on->dtype != off->dtype || tp_num_elements(on) != 1 || tp_num_elements(off) != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "on_value and off_value must be scalars of one type");
    int64_t dims[TFPI_MAX_DIMS];
    int at = one_hot_axis(ctx);
    for (int d = 0, k = 0; d <= indices->ndims; d++)
        dims[d] = d == at ? depth : indices->dims[k++];
    return tp_set_output(ctx, 0, on->dtype, indices->ndims + 1, dims);
}

/* Output [outer][depth][suffix] with indices [outer][suffix]. */
static tfpi_code one_hot_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *indices = ctx->inputs[0], *out = &ctx->outputs[0];
    int at = one_hot_axis(ctx);
    int64_t depth = out->dims[at], outer = 1, suffix = 1;
    for (int d = 0; d < at; d++)
        outer *= indices->dims[d];
    for (int d = at; d < indices->ndims; d++)
        suffix *= indices->dims[d];
    size_t size = tfpi_dtype_size(out->dtype);
    const void *on = ctx->inputs[2]->data, *off = ctx->inputs[3]->data;
    char *dst = out->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < depth; k++)
            for (int64_t s = 0; s < suffix; s++, dst += size)
                memcpy(dst, tp_get_int(indices, o * suffix + s) == k ? on : off, size);
    return TFPI_OK;
}

const tp_kernel tp_kernels_gather[] = {
    TP_KERNEL("GatherV2", gather_prepare, gather_run, NULL, 0),
    TP_KERNEL("Gather", gather_prepare, gather_run, NULL, 0),
    TP_KERNEL("OneHot", one_hot_prepare, one_hot_run, NULL, 0),
    TP_KERNELS_END,
};
