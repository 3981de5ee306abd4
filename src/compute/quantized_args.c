/* quantized_args.c - argument checks and range plumbing of the 8-bit
 * kernels (see quantized_args.h). */
#include "compute/quantized_args.h"

#include "kernel/array_kernel_util.h"

tfpi_code tp_q_expect_scalars(tp_op_ctx *ctx, int first, int count)
{
    char shape[96];
    for (int i = first; i < first + count; i++) {
        const tfpi_tensor *t = ctx->inputs[i];
        if (t->dtype != TFPI_FLOAT || tp_num_elements(t) != 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "input %d must be a float scalar (a range bound), got %s %s", i,
                           tfpi_dtype_name(t->dtype), tp_shape_string(t, shape, sizeof shape));
    }
    return TFPI_OK;
}

tfpi_code tp_q_expect_quantized(tp_op_ctx *ctx, int input, const tp_qtype **type)
{
    *type = tp_qtype_of(ctx->inputs[input]->dtype);
    if (!*type)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "input %d is %s; this kernel handles quint8, qint8, quint16, qint16 and qint32", input,
                       tfpi_dtype_name(ctx->inputs[input]->dtype));
    return TFPI_OK;
}

tfpi_code tp_q_expect_two_quint8(tp_op_ctx *ctx, const char *out_attr)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 6, 6)) != TFPI_OK || (code = tp_expect_dtype(ctx, 0, TFPI_QUINT8)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 1, TFPI_QUINT8)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 2, 4)) != TFPI_OK)
        return code;
    if (tp_attr_type(ctx->def, out_attr, TFPI_QINT32) != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "%s must be qint32", out_attr);
    return TFPI_OK;
}

float tp_q_scalar(const tp_op_ctx *ctx, int input) { return *(const float *)ctx->inputs[input]->data; }

tfpi_code tp_q_read_range(tp_op_ctx *ctx, int min_input, int max_input, const char *what, float *min,
                          float *max)
{
    *min = tp_q_scalar(ctx, min_input);
    *max = tp_q_scalar(ctx, max_input);
    const char *problem = tp_q_range_problem(*min, *max);
    if (problem)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the range of %s [%g, %g] (inputs %d and %d) %s", what,
                       (double)*min, (double)*max, min_input, max_input, problem);
    return TFPI_OK;
}

tfpi_code tp_q_prepare_outputs(tp_op_ctx *ctx, tfpi_dtype dtype, int ndims, const int64_t *dims)
{
    tfpi_code code = tp_expect_outputs_at_most(ctx, 3);
    if (code != TFPI_OK)
        return code;
    for (int o = 1; o < ctx->num_outputs; o++)
        tp_tensor_set_shape(&ctx->outputs[o], TFPI_FLOAT, 0, NULL);
    return tp_set_output(ctx, 0, dtype, ndims, dims);
}

void tp_q_write_range(tp_op_ctx *ctx, int first, float min, float max)
{
    if (first < ctx->num_outputs)
        *(float *)ctx->outputs[first].data = min;
    if (first + 1 < ctx->num_outputs)
        *(float *)ctx->outputs[first + 1].data = max;
}
