/* cumsum.c - Cumsum(x, axis; exclusive, reverse): running sums along one
 * axis (a negative axis counts from the end), including each element or,
 * exclusive, only those before it, from the start or, reverse, from the
 * end; Cumprod likewise with products. Reals sum in their own precision
 * in order (as TensorFlow's scan), integers wrap. */
#include "kernel/kernel.h"

static tfpi_code cumsum_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0], *axis = ctx->inputs[1];
    if (x->dtype != TFPI_FLOAT && x->dtype != TFPI_DOUBLE && x->dtype != TFPI_INT32 && x->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "does not handle %s values", tfpi_dtype_name(x->dtype));
    if ((axis->dtype != TFPI_INT32 && axis->dtype != TFPI_INT64) || axis->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "axis must be an int32 or int64 scalar");
    if (axis->data) {
        int64_t a = tp_get_int(axis, 0);
        if (a < -x->ndims || a >= x->ndims || x->ndims == 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "axis %lld is out of range for rank %d", (long long)a, x->ndims);
    }
    return tp_set_output(ctx, 0, x->dtype, x->ndims, x->dims);
}

static tfpi_code cumsum_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *x = ctx->inputs[0];
    int64_t a = tp_get_int(ctx->inputs[1], 0);
    if (a < -x->ndims || a >= x->ndims || x->ndims == 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "axis %lld is out of range for rank %d", (long long)a, x->ndims);
    int axis = (int)(a < 0 ? a + x->ndims : a);
    bool exclusive = tp_attr_bool(ctx->def, "exclusive", false), reverse = tp_attr_bool(ctx->def, "reverse", false);
    bool product = ctx->def->op[3] == 'p'; /* Cumprod */
    int64_t outer = 1, inner = 1, len = x->dims[axis];
    for (int d = 0; d < axis; d++)
        outer *= x->dims[d];
    for (int d = axis + 1; d < x->ndims; d++)
        inner *= x->dims[d];
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t in = 0; in < inner; in++) {
            double acc = product;
            float accf = product;
            uint64_t acci = product;
            for (int64_t k = 0; k < len; k++) {
                int64_t at = (o * len + (reverse ? len - 1 - k : k)) * inner + in;
                switch (x->dtype) {
                case TFPI_FLOAT: {
                    float v = ((const float *)x->data)[at], before = accf;
                    accf = product ? accf * v : accf + v;
                    ((float *)ctx->outputs[0].data)[at] = exclusive ? before : accf;
                    break;
                }
                case TFPI_DOUBLE: {
                    double v = ((const double *)x->data)[at], before = acc;
                    acc = product ? acc * v : acc + v;
                    ((double *)ctx->outputs[0].data)[at] = exclusive ? before : acc;
                    break;
                }
                default: {
                    uint64_t v = (uint64_t)tp_get_int(x, at), before = acci;
                    acci = product ? acci * v : acci + v;
                    uint64_t r = exclusive ? before : acci;
                    if (x->dtype == TFPI_INT32)
                        ((int32_t *)ctx->outputs[0].data)[at] = (int32_t)(uint32_t)r;
                    else
                        ((int64_t *)ctx->outputs[0].data)[at] = (int64_t)r;
                }
                }
            }
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_cumsum[] = {
    TP_KERNEL("Cumsum", cumsum_prepare, cumsum_run, NULL, 0),
    TP_KERNEL("Cumprod", cumsum_prepare, cumsum_run, NULL, 0),
    TP_KERNELS_END,
};
