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

/* Adds n elements of from into to, per dtype (integers wrap, as TensorFlow's). */
static void add_float(void *to, const void *from, int64_t n)
{
    for (int64_t j = 0; j < n; j++)
        ((float *)to)[j] += ((const float *)from)[j];
}

static void add_int32(void *to, const void *from, int64_t n)
{
    int32_t *o = to;
    for (int64_t j = 0; j < n; j++)
        o[j] = (int32_t)tp_wrap_add(o[j], ((const int32_t *)from)[j]);
}

static void add_int64(void *to, const void *from, int64_t n)
{
    int64_t *o = to;
    for (int64_t j = 0; j < n; j++)
        o[j] = tp_wrap_add(o[j], ((const int64_t *)from)[j]);
}

static tfpi_code scatter_nd_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *idx = ctx->inputs[0], *updates = ctx->inputs[1];
    tfpi_tensor *out = &ctx->outputs[0];
    const int k = (int)idx->dims[idx->ndims - 1];
    const size_t elem = tfpi_dtype_size(out->dtype);
    void (*add)(void *, const void *, int64_t) =
        out->dtype == TFPI_FLOAT ? add_float : out->dtype == TFPI_INT32 ? add_int32 : add_int64;
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
        add((char *)out->data + (size_t)(offset * slice) * elem, (const char *)updates->data + (size_t)(i * slice) * elem,
            slice);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_scatter_nd[] = {
    TP_KERNEL("ScatterNd", scatter_nd_prepare, scatter_nd_run, NULL, 0),
    TP_KERNELS_END,
};
