/* immutable_const.c - ImmutableConst, the constant of a memory-mapped model
 * (convert_graphdef_memmapped_format): its output points straight at the
 * tensor's region of the mapped file, so the weights are used in place. */
#include "kernel/kernel.h"
#include "model/graph_memmapped.h"

static tfpi_code immutable_const_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 0, 0);
    if (code != TFPI_OK)
        return code;
    return tp_graph_mapped_const(ctx->graph, ctx->def, &ctx->outputs[0], ctx->status);
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

const tp_kernel tp_kernels_immutable_const[] = {
    TP_KERNEL("ImmutableConst", immutable_const_prepare, nothing_to_run, NULL, 0),
    TP_KERNELS_END,
};
