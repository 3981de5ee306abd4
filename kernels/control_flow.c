/* control_flow.c - TF1 dataflow control flow: Switch, Merge, Enter, Exit,
 * NextIteration, LoopCond and their Ref twins. Where each value goes (which
 * Switch port is live, which frame and iteration an Enter, Exit or
 * NextIteration feeds) is decided by the dynamic executor (src/run/flow_run.c);
 * these kernels check the node's inputs and give its outputs their shapes.
 * A graph that uses them runs on that executor, so listing this file in
 * tf_op_files.txt is what turns control flow on. */
#include "kernel/kernel.h"

/* Every output has the shape of input 0 (Switch: both ports; Enter, Exit,
 * NextIteration, LoopCond: the one output). */
static void forward_shape(tp_op_ctx *ctx, int num_forwarded)
{
    const tfpi_tensor *in = ctx->inputs[0];
    for (int o = 0; o < num_forwarded && o < ctx->num_outputs; o++)
        tp_tensor_set_shape(&ctx->outputs[o], in->dtype, in->ndims, in->dims);
}

static tfpi_code switch_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *pred = ctx->inputs[1];
    if (pred->dtype != TFPI_BOOL || pred->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the predicate (input 1) must be a bool scalar, not a %s of rank %d",
                       tfpi_dtype_name(pred->dtype), pred->ndims);
    forward_shape(ctx, 2);
    return TFPI_OK;
}

/* Merge: output 0 is the live input (the executor passes it as input 0),
 * output 1 its position, an int32 scalar. */
static tfpi_code merge_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    forward_shape(ctx, 1);
    if (ctx->num_outputs > 1)
        tp_tensor_set_shape(&ctx->outputs[1], TFPI_INT32, 0, NULL);
    return TFPI_OK;
}

static tfpi_code forward_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code == TFPI_OK)
        forward_shape(ctx, 1);
    return code;
}

static tfpi_code loop_cond_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_BOOL);
    if (code == TFPI_OK && ctx->inputs[0]->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the loop condition must be a bool scalar, has rank %d",
                       ctx->inputs[0]->ndims);
    if (code == TFPI_OK)
        forward_shape(ctx, 1);
    return code;
}

/* The executor moves the values; nothing is computed. */
static tfpi_code route_only(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

const tp_kernel tp_kernels_control_flow[] = {
    TP_KERNEL("Switch", switch_prepare, route_only, NULL, TP_CONTROL_FLOW | TP_OUTPUTS(2)),
    TP_KERNEL("RefSwitch", switch_prepare, route_only, NULL, TP_CONTROL_FLOW | TP_OUTPUTS(2)),
    TP_KERNEL("Merge", merge_prepare, route_only, NULL, TP_CONTROL_FLOW | TP_OUTPUTS(2)),
    TP_KERNEL("RefMerge", merge_prepare, route_only, NULL, TP_CONTROL_FLOW | TP_OUTPUTS(2)),
    TP_KERNEL("Enter", forward_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNEL("RefEnter", forward_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNEL("Exit", forward_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNEL("RefExit", forward_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNEL("NextIteration", forward_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNEL("RefNextIteration", forward_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNEL("LoopCond", loop_cond_prepare, route_only, NULL, TP_CONTROL_FLOW),
    TP_KERNELS_END,
};
