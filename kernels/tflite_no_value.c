/* tflite_no_value.c - TFLiteNoValue, the node every optional input a
 * .tflite operator leaves out (-1) reads (compute/tflite_node.h): an empty
 * float tensor of shape [0], known while planning. */
#include "compute/tflite_node.h"

static tfpi_code no_value_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 0, 0);
    if (code != TFPI_OK)
        return code;
    static float nothing;
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_FLOAT, 1, (const int64_t[]){0});
    ctx->outputs[0].data = &nothing; /* known and empty: never read */
    ctx->outputs[0].owns_data = false;
    return TFPI_OK;
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_no_value[] = {
    TP_KERNEL("TFLiteNoValue" /* TP_TFL_NO_VALUE */, no_value_prepare, nothing_to_run, NULL, TP_TFLITE_OP),
    TP_KERNELS_END,
};
