/* shape_ops.c - Size and Rank: scalars known from the input's shape alone,
 * so (like Shape in array_ops.c) they are computed while planning. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

/* Points output 0 at a new scalar of `type` (int32 or int64) holding value. */
static tfpi_code set_known_scalar(tp_op_ctx *ctx, tfpi_dtype type, int64_t value)
{
    if (type != TFPI_INT32 && type != TFPI_INT64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "out_type must be int32 or int64");
    if (type == TFPI_INT32 && value > INT32_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%lld does not fit out_type int32", (long long)value);
    void *data = malloc(sizeof(int64_t));
    if (!(ctx->state = data))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    if (type == TFPI_INT32)
        *(int32_t *)data = (int32_t)value;
    else
        *(int64_t *)data = value;
    tp_tensor_set_shape(&ctx->outputs[0], type, 0, NULL);
    ctx->outputs[0].data = data;
    return TFPI_OK;
}

static tfpi_code size_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    return set_known_scalar(ctx, tp_attr_type(ctx->def, "out_type", TFPI_INT32), tp_num_elements(ctx->inputs[0]));
}

static tfpi_code rank_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    return set_known_scalar(ctx, TFPI_INT32, ctx->inputs[0]->ndims);
}

/* Runs only if the planner gave the output a buffer of its own after all. */
static tfpi_code copy_known_scalar(tp_op_ctx *ctx)
{
    if (ctx->outputs[0].data != ctx->state)
        memcpy(ctx->outputs[0].data, ctx->state, tfpi_dtype_size(ctx->outputs[0].dtype));
    return TFPI_OK;
}

const tp_kernel tp_kernels_shape_ops[] = {
    TP_KERNEL("Size", size_prepare, copy_known_scalar, free, 0),
    TP_KERNEL("Rank", rank_prepare, copy_known_scalar, free, 0),
    TP_KERNELS_END,
};
