/* gather_nd.c - GatherNd: indices [..., K] (int32 or int64) pick slices of
 * params [P0, ..., P(K-1), rest...]; the output is indices.shape[:-1] +
 * params.shape[K:], any element type. An index outside its dimension is an
 * error naming its position, as in TF's CPU kernel (keypoint heads and
 * CTC post-processing use it). */
#include <string.h>

#include "kernel/array_kernel_util.h"

static tfpi_code gather_nd_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *params = ctx->inputs[0], *idx = ctx->inputs[1];
    if (idx->dtype != TFPI_INT32 && idx->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be int32 or int64, not %s", tfpi_dtype_name(idx->dtype));
    if (idx->ndims < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must have rank >= 1");
    if (idx->dims[idx->ndims - 1] > params->ndims || idx->ndims - 1 + params->ndims - idx->dims[idx->ndims - 1] >
                                                            TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "index depth %lld does not fit params of rank %d",
                       (long long)idx->dims[idx->ndims - 1], params->ndims);
    int k = (int)idx->dims[idx->ndims - 1];
    int ndims = idx->ndims - 1 + params->ndims - k;
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, idx->dims, sizeof(int64_t) * (size_t)(idx->ndims - 1));
    memcpy(dims + idx->ndims - 1, params->dims + k, sizeof(int64_t) * (size_t)(params->ndims - k));
    return tp_set_output(ctx, 0, params->dtype, ndims, dims);
}

static tfpi_code gather_nd_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *params = ctx->inputs[0], *idx = ctx->inputs[1];
    int k = (int)idx->dims[idx->ndims - 1];
    int64_t count = 1; /* index tuples: every dim of indices but the last (which may be 0) */
    for (int d = 0; d < idx->ndims - 1; d++)
        count *= idx->dims[d];
    size_t slice = tfpi_dtype_size(params->dtype);
    for (int d = k; d < params->ndims; d++)
        slice *= (size_t)params->dims[d];
    for (int64_t i = 0; i < count; i++) {
        int64_t offset;
        tfpi_code code = tp_index_tuple_offset(ctx, idx, i, k, params->dims, &offset);
        if (code != TFPI_OK)
            return code;
        memcpy((char *)ctx->outputs[0].data + (size_t)i * slice, (const char *)params->data + (size_t)offset * slice,
               slice);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_gather_nd[] = {
    TP_KERNEL("GatherNd", gather_nd_prepare, gather_nd_run, NULL, 0),
    TP_KERNELS_END,
};
