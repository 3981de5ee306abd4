/* identity_n.c - IdentityN: output i is input i, for any number of inputs
 * of any types. Output 0 shares input 0's bytes (TP_ALIAS_INPUT0); the
 * others are copies. */
#include <string.h>

#include "kernel/array_kernel_util.h"

static tfpi_code identity_n_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_outputs_at_most(ctx, ctx->num_inputs);
    if (code != TFPI_OK)
        return code;
    for (int i = 0; i < ctx->num_outputs; i++) {
        const tfpi_tensor *in = ctx->inputs[i];
        tp_tensor_set_shape(&ctx->outputs[i], in->dtype, in->ndims, in->dims);
    }
    return TFPI_OK;
}

static tfpi_code identity_n_run(tp_op_ctx *ctx)
{
    for (int i = 0; i < ctx->num_outputs; i++)
        if (ctx->outputs[i].data != ctx->inputs[i]->data)
            memcpy(ctx->outputs[i].data, ctx->inputs[i]->data, tp_byte_size(ctx->inputs[i]));
    return TFPI_OK;
}

const tp_kernel tp_kernels_identity_n[] = {
    TP_KERNEL("IdentityN", identity_n_prepare, identity_n_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNELS_END,
};
