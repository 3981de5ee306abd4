/* scatter_nd.c - ScatterNd (indices [..., K], updates, shape): a tensor of
 * `shape`, zero but where each index tuple adds its slice of updates
 * (updates.shape = indices.shape[:-1] + shape[K:]); a repeated index sums,
 * as TensorFlow's and TensorFlow Lite's SCATTER_ND (YOLOv8 exports) do. An
 * index outside its dimension is an error naming it. float32, int32 and
 * int64 updates; shape must be known while planning. */
#include <string.h>

#include "kernel/array_kernel_util.h"
#include "core/wrapping_int.h"

static tfpi_code scatter_nd_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    int64_t dims[TFPI_MAX_DIMS];
    int ndims = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 2, "shape", dims, TFPI_MAX_DIMS, &ndims);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *idx = ctx->inputs[0], *updates = ctx->inputs[1];
    if (idx->dtype != TFPI_INT32 && idx->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be int32 or int64, not %s", tfpi_dtype_name(idx->dtype));
    if (updates->dtype != TFPI_FLOAT && updates->dtype != TFPI_INT32 && updates->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "updates are %s; this kernel adds float32, int32 or int64",
                       tfpi_dtype_name(updates->dtype));
    if (idx->ndims < 1 || idx->dims[idx->ndims - 1] > ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must have rank >= 1 and an index depth of at most %d",
                       ndims);
    for (int d = 0; d < ndims; d++)
        if (dims[d] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "shape[%d] = %lld is negative", d, (long long)dims[d]);
    const int k = (int)idx->dims[idx->ndims - 1], want_rank = idx->ndims - 1 + ndims - k;
    bool fits = updates->ndims == want_rank;
    for (int d = 0; fits && d < want_rank; d++)
        fits = updates->dims[d] == (d < idx->ndims - 1 ? idx->dims[d] : dims[k + d - (idx->ndims - 1)]);
    if (!fits)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "updates must be shaped indices.shape[:-1] + shape[%d:]", k);
    return tp_set_output(ctx, 0, updates->dtype, ndims, dims);
}

static tfpi_code scatter_nd_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *idx = ctx->inputs[0], *updates = ctx->inputs[1];
    tfpi_tensor *out = &ctx->outputs[0];
    const int k = (int)idx->dims[idx->ndims - 1];
    int64_t count = 1, slice = 1; /* index tuples; elements each adds */
    for (int d = 0; d < idx->ndims - 1; d++)
        count *= idx->dims[d];
    for (int d = k; d < out->ndims; d++)
        slice *= out->dims[d];
    memset(out->data, 0, tp_byte_size(out));
    for (int64_t i = 0; i < count; i++) {
        int64_t offset;
        tfpi_code code = tp_index_tuple_offset(ctx, idx, i, k, out->dims, &offset);
        if (code != TFPI_OK)
            return code;
        offset *= slice;
        for (int64_t j = 0; j < slice; j++) {
            const int64_t from = i * slice + j;
            switch (out->dtype) {
            case TFPI_FLOAT: ((float *)out->data)[offset + j] += ((const float *)updates->data)[from]; break;
            case TFPI_INT32: {
                int32_t *o = (int32_t *)out->data + offset + j;
                *o = (int32_t)tp_wrap_add(*o, ((const int32_t *)updates->data)[from]);
                break;
            }
            default: {
                int64_t *o = (int64_t *)out->data + offset + j;
                *o = tp_wrap_add(*o, ((const int64_t *)updates->data)[from]);
                break;
            }
            }
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_scatter_nd[] = {
    TP_KERNEL("ScatterNd", scatter_nd_prepare, scatter_nd_run, NULL, 0),
    TP_KERNELS_END,
};
