/* sparse_to_dense.c - SparseToDense: a dense tensor of output_shape filled
 * with default_value, sparse_values (one per index, or a scalar for all)
 * at sparse_indices (a scalar, [n] or [n, ndims]; int32 or int64). With
 * validate_indices (the default) the indices must be strictly increasing
 * in row-major order, hence unique, as TF checks; out-of-bounds indices are
 * always an error. The output shape is a value, so a graph whose shape is
 * not a constant runs on the dynamic executor. */
#include <string.h>

#include "kernel/kernel.h"

static int index_rank(const tfpi_tensor *idx)
{
    return idx->ndims < 2 ? 1 : (int)idx->dims[1];
}

static int64_t index_count(const tfpi_tensor *idx)
{
    return idx->ndims == 0 ? 1 : idx->dims[0];
}

static tfpi_code check_indices(tp_op_ctx *ctx, const int64_t *shape, int ndims)
{
    const tfpi_tensor *idx = ctx->inputs[0];
    bool validate = tp_attr_bool(ctx->def, "validate_indices", true);
    int64_t previous = -1;
    for (int64_t i = 0; i < index_count(idx); i++) {
        int64_t flat = 0;
        for (int d = 0; d < ndims; d++) {
            int64_t v = tp_get_int(idx, i * ndims + d);
            if (v < 0 || v >= shape[d])
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                               "indices[%lld] is out of bounds: need 0 <= index < %lld in dimension %d", (long long)i,
                               (long long)shape[d], d);
            flat = flat * shape[d] + v;
        }
        if (validate && flat == previous)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices[%lld] is repeated", (long long)i);
        if (validate && flat < previous)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices[%lld] is out of order", (long long)i);
        previous = flat;
    }
    return TFPI_OK;
}

static tfpi_code sparse_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 4, 4);
    if (code == TFPI_OK)
        code = tp_expect_known(ctx, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *idx = ctx->inputs[0], *shape = ctx->inputs[1], *values = ctx->inputs[2];
    int ndims = (int)tp_num_elements(shape);
    if (shape->ndims != 1 || ndims > TFPI_MAX_DIMS || idx->ndims > 2 || index_rank(idx) != ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output_shape must be a vector as long as each index");
    if (tp_num_elements(values) != 1 && (values->ndims != 1 || values->dims[0] != index_count(idx)))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "sparse_values must be a scalar or hold one value per index");
    if (ctx->inputs[3]->dtype != values->dtype || tp_num_elements(ctx->inputs[3]) != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "default_value must be a scalar of the values' type");
    if (values->dtype == TFPI_STRING)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "string values are not supported");
    int64_t dims[TFPI_MAX_DIMS];
    for (int d = 0; d < ndims; d++)
        dims[d] = tp_get_int(shape, d);
    tp_tensor_set_shape(&ctx->outputs[0], values->dtype, ndims, dims);
    if (!tp_shape_fits(values->dtype, ndims, dims))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output_shape is negative or too large");
    return idx->data ? check_indices(ctx, dims, ndims) : TFPI_OK;
}

static tfpi_code sparse_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *idx = ctx->inputs[0], *values = ctx->inputs[2];
    tfpi_tensor *out = &ctx->outputs[0];
    tfpi_code code = check_indices(ctx, out->dims, out->ndims);
    if (code != TFPI_OK)
        return code;
    size_t size = tfpi_dtype_size(out->dtype);
    char *o = out->data;
    for (int64_t i = 0, n = tp_num_elements(out); i < n; i++)
        memcpy(o + (size_t)i * size, ctx->inputs[3]->data, size);
    for (int64_t i = 0; i < index_count(idx); i++) {
        int64_t flat = 0;
        for (int d = 0; d < out->ndims; d++)
            flat = flat * out->dims[d] + tp_get_int(idx, i * out->ndims + d);
        memcpy(o + (size_t)flat * size, (const char *)values->data + (tp_num_elements(values) == 1 ? 0 : (size_t)i * size),
               size);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_sparse_to_dense[] = {
    TP_KERNEL("SparseToDense", sparse_prepare, sparse_run, NULL, 0),
    TP_KERNELS_END,
};
