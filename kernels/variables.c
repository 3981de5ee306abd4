/* variables.c - VariableV2 and Variable, TF1's variables: a graph loaded
 * with its checkpoint (a SavedModel, a .meta, a GraphDef with
 * --checkpoint) gives each one its checkpoint tensor (graph/model_info.h),
 * used in place like a constant; any other graph has no value for them.
 * IsVariableInitialized (the global_step cond of Estimator graphs) is
 * therefore true: a variable without a value fails before it is asked. */
#include <string.h>

#include "graph/model_info.h"
#include "kernel/kernel.h"
#include "model/variable_binding.h"

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

static tfpi_code initialized_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code == TFPI_OK)
        tp_tensor_set_shape(&ctx->outputs[0], TFPI_BOOL, 0, NULL);
    return code;
}

static tfpi_code initialized_run(tp_op_ctx *ctx)
{
    *(uint8_t *)ctx->outputs[0].data = 1;
    return TFPI_OK;
}

const tp_kernel tp_kernels_variables[] = {
    TP_KERNEL("VariableV2", variable_prepare, nothing_to_run, NULL, 0),
    TP_KERNEL("Variable", variable_prepare, nothing_to_run, NULL, 0),
    TP_KERNEL("IsVariableInitialized", initialized_prepare, initialized_run, NULL, 0),
    TP_KERNELS_END,
};
