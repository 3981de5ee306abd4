/* bincount.c - Bincount(arr int32, size int32 scalar, weights): bins[v] =
 * the number of times v appears in arr (or the sum of the weights where it
 * does), for v in [0, size); values outside are ignored, as TensorFlow
 * does. Weights are int32, int64, float or double, of arr's shape, or empty
 * (each counts 1). RaggedTensor row splits come from it (tf.strings.split
 * with Cumsum). The output size is the value of `size`, checked against the
 * memory budget: the op runs on the dynamic executor. */
#include <string.h>

#include "kernel/kernel.h"

static tfpi_code bincount_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *arr = ctx->inputs[0], *size = ctx->inputs[1], *weights = ctx->inputs[2];
    if (arr->dtype != TFPI_INT32 || size->dtype != TFPI_INT32 || size->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "arr must be int32 and size an int32 scalar");
    if (weights->dtype != TFPI_INT32 && weights->dtype != TFPI_INT64 && weights->dtype != TFPI_FLOAT &&
        weights->dtype != TFPI_DOUBLE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "weights must be int32, int64, float or double, are %s",
                       tfpi_dtype_name(weights->dtype));
    if (tp_num_elements(weights) != 0 && !tp_same_shape(weights, arr))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "weights must have arr's shape, or no elements");
    if (!size->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its size's value");
    int64_t bins = *(const int32_t *)size->data;
    if (bins < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size (%lld) must be non-negative", (long long)bins);
    if ((code = tp_expect_within_budget(ctx, bins, tfpi_dtype_size(weights->dtype), "bins")) != TFPI_OK)
        return code;
    return tp_set_output(ctx, 0, weights->dtype, 1, &bins);
}

static tfpi_code bincount_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *arr = ctx->inputs[0], *weights = ctx->inputs[2];
    tfpi_tensor *out = &ctx->outputs[0];
    int64_t bins = out->dims[0];
    bool weighted = tp_num_elements(weights) != 0;
    memset(out->data, 0, tp_byte_size(out));
    for (int64_t i = 0, n = tp_num_elements(arr); i < n; i++) {
        int64_t v = ((const int32_t *)arr->data)[i];
        if (v < 0 || v >= bins)
            continue;
        switch (out->dtype) {
        case TFPI_FLOAT: ((float *)out->data)[v] += weighted ? ((const float *)weights->data)[i] : 1.0f; break;
        case TFPI_DOUBLE: ((double *)out->data)[v] += weighted ? ((const double *)weights->data)[i] : 1.0; break;
        case TFPI_INT32: /* wrapping, as TensorFlow's integer sums */
            ((int32_t *)out->data)[v] = (int32_t)((uint32_t)((int32_t *)out->data)[v] +
                                                  (uint32_t)(weighted ? ((const int32_t *)weights->data)[i] : 1));
            break;
        default:
            ((int64_t *)out->data)[v] = (int64_t)((uint64_t)((int64_t *)out->data)[v] +
                                                  (uint64_t)(weighted ? ((const int64_t *)weights->data)[i] : 1));
            break;
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_bincount[] = {
    TP_KERNEL("Bincount", bincount_prepare, bincount_run, NULL, TP_DYNAMIC),
    TP_KERNELS_END,
};
