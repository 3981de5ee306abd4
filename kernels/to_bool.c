/* to_bool.c - ToBool: the truth of a tensor as TF2's If and While take
 * their conditions (the lowered functional ops put it before their
 * Switches). A scalar is true when it is non-zero (a number), true (a
 * bool) or non-empty (a string); a tensor of any other rank is true when
 * it has elements, whatever they are. */
#include <string.h>

#include "kernel/kernel.h"

static tfpi_code to_bool_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->ndims == 0 && (in->dtype == TFPI_RESOURCE || in->dtype == TFPI_VARIANT || !tfpi_dtype_size(in->dtype)))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "a %s scalar has no truth value", tfpi_dtype_name(in->dtype));
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_BOOL, 0, NULL);
    return TFPI_OK;
}

/* A scalar's bytes are non-zero (-0.0 counts as zero). */
static bool scalar_truth(const tfpi_tensor *t)
{
    switch (t->dtype) {
    case TFPI_STRING: return ((const tfpi_bytes *)t->data)->size > 0;
    case TFPI_FLOAT: return *(const float *)t->data != 0.0f;
    case TFPI_DOUBLE: return *(const double *)t->data != 0.0;
    case TFPI_HALF: return (*(const uint16_t *)t->data & 0x7fff) != 0;
    default: {
        const unsigned char *p = t->data;
        for (size_t i = 0; i < tfpi_dtype_size(t->dtype); i++)
            if (p[i])
                return true;
        return false;
    }
    }
}

static tfpi_code to_bool_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    *(uint8_t *)ctx->outputs[0].data = in->ndims == 0 ? scalar_truth(in) : tp_num_elements(in) > 0;
    return TFPI_OK;
}

const tp_kernel tp_kernels_to_bool[] = {
    TP_KERNEL("ToBool", to_bool_prepare, to_bool_run, NULL, 0),
    TP_KERNELS_END,
};
