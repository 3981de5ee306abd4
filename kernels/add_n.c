/* add_n.c - AddN: the elementwise sum of N tensors of one shape (float32,
 * int32). */
#include "kernel/kernel.h"

static tfpi_code add_n_prepare(tp_op_ctx *ctx)
{
    if (ctx->num_inputs < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "needs at least one input");
    const tfpi_tensor *first = ctx->inputs[0];
    if (first->dtype != TFPI_FLOAT && first->dtype != TFPI_INT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "handles float and int32, not %s", tfpi_dtype_name(first->dtype));
    for (int i = 1; i < ctx->num_inputs; i++) {
        char a[96], b[96];
        if (ctx->inputs[i]->dtype != first->dtype || !tp_same_shape(ctx->inputs[i], first))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d is %s %s, input 0 is %s %s", i,
                           tfpi_dtype_name(ctx->inputs[i]->dtype), tp_shape_string(ctx->inputs[i], a, sizeof a),
                           tfpi_dtype_name(first->dtype), tp_shape_string(first, b, sizeof b));
    }
    return tp_set_output(ctx, 0, first->dtype, first->ndims, first->dims);
}

static void add_float(tp_op_ctx *ctx, int64_t begin, int64_t end)
{
    float *out = ctx->outputs[0].data;
    for (int64_t j = begin; j < end; j++) {
        float sum = ((const float *)ctx->inputs[0]->data)[j];
        for (int i = 1; i < ctx->num_inputs; i++)
            sum += ((const float *)ctx->inputs[i]->data)[j];
        out[j] = sum;
    }
}

static void add_int32(tp_op_ctx *ctx, int64_t begin, int64_t end)
{
    int32_t *out = ctx->outputs[0].data;
    for (int64_t j = begin; j < end; j++) {
        uint32_t sum = (uint32_t)((const int32_t *)ctx->inputs[0]->data)[j]; /* wraps like TF */
        for (int i = 1; i < ctx->num_inputs; i++)
            sum += (uint32_t)((const int32_t *)ctx->inputs[i]->data)[j];
        out[j] = (int32_t)sum;
    }
}

static void add_range(void *arg, int64_t begin, int64_t end)
{
    tp_op_ctx *ctx = arg;
    if (ctx->outputs[0].dtype == TFPI_FLOAT)
        add_float(ctx, begin, end);
    else
        add_int32(ctx, begin, end);
}

static tfpi_code add_n_run(tp_op_ctx *ctx)
{
    tp_parallel_for(ctx->pool, tp_num_elements(&ctx->outputs[0]), 16384, add_range, ctx);
    return TFPI_OK;
}

const tp_kernel tp_kernels_add_n[] = {
    TP_KERNEL("AddN", add_n_prepare, add_n_run, NULL, 0),
    TP_KERNELS_END,
};
