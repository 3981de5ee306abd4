/* variables.c - VariableV2 and Variable, TF1's variables: a graph loaded
 * with its checkpoint (a SavedModel, a .meta, a GraphDef with
 * --checkpoint) gives each one its checkpoint tensor (graph/model_info.h),
 * used in place like a constant; any other graph has no value for them. */
#include <string.h>

#include "graph/model_info.h"
#include "kernel/kernel.h"

static tfpi_code variable_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 0, 0);
    if (code != TFPI_OK)
        return code;
    code = tp_graph_variable_value(ctx->graph, ctx->def, (int64_t)(ctx->max_bytes > INT64_MAX ? INT64_MAX
                                                                                              : ctx->max_bytes),
                                   &ctx->outputs[0], ctx->status);
    if (code != TFPI_OK && strncmp(ctx->status->message, "node '", 6) != 0) {
        char detail[sizeof ctx->status->message];
        memcpy(detail, ctx->status->message, sizeof detail);
        return tp_fail(ctx, code, "%s", detail);
    }
    return code;
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

const tp_kernel tp_kernels_variables[] = {
    TP_KERNEL("VariableV2", variable_prepare, nothing_to_run, NULL, 0),
    TP_KERNEL("Variable", variable_prepare, nothing_to_run, NULL, 0),
    TP_KERNELS_END,
};
