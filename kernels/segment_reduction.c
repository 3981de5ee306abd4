/* segment_reduction.c - TensorFlow's sparse segment reductions, the core
 * of embedding lookups over sparse ids (embedding_lookup_sparse, Estimator
 * embedding columns): SparseSegmentSum / Mean / SqrtN(data [D, ...],
 * indices [K], segment_ids [K]) give output[s] = the sum (mean, sum over
 * sqrt(count)) of data[indices[k]] over the k with segment_ids[k] == s.
 * There are segment_ids[K-1] + 1 segments (none if K is 0); a segment no
 * id names is zeros. Segment ids must be sorted and non-negative, indices
 * within [0, D); the output size goes through the memory budget. Sum takes
 * any real or integer data, Mean and SqrtN reals. The output size comes
 * from the last segment id: the op runs on the dynamic executor. */
#include <math.h>
#include <string.h>

#include "core/checked_math.h"
#include "kernel/kernel.h"

typedef enum reduction { SUM, MEAN, SQRT_N } reduction;

static reduction reduction_of(const tp_op_ctx *ctx)
{
    return strcmp(ctx->def->op, "SparseSegmentMean") == 0   ? MEAN
           : strcmp(ctx->def->op, "SparseSegmentSqrtN") == 0 ? SQRT_N
                                                             : SUM;
}

static tfpi_code segment_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *data = ctx->inputs[0], *indices = ctx->inputs[1], *segments = ctx->inputs[2];
    bool real = data->dtype == TFPI_FLOAT || data->dtype == TFPI_DOUBLE;
    bool integer = data->dtype == TFPI_INT32 || data->dtype == TFPI_INT64;
    if (!real && !(integer && reduction_of(ctx) == SUM))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "does not handle %s data", tfpi_dtype_name(data->dtype));
    if (data->ndims < 1 || indices->ndims != 1 || segments->ndims != 1 || indices->dims[0] != segments->dims[0] ||
        (indices->dtype != TFPI_INT32 && indices->dtype != TFPI_INT64) ||
        (segments->dtype != TFPI_INT32 && segments->dtype != TFPI_INT64))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices and segment_ids must be integer vectors of one length, "
                       "data at least a vector");
    if (!indices->data || !segments->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its inputs' values");
    int64_t k = indices->dims[0], rows = data->dims[0];
    for (int64_t i = 0; i < k; i++) {
        int64_t id = tp_get_int(segments, i), index = tp_get_int(indices, i);
        if (id < 0 || (i > 0 && id < tp_get_int(segments, i - 1)))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "segment ids are not increasing (or are negative): "
                           "segment_ids[%lld] = %lld", (long long)i, (long long)id);
        if (index < 0 || index >= rows)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Bad: indices[%lld] == %lld out of range [0, %lld)",
                           (long long)i, (long long)index, (long long)rows);
    }
    int64_t dims[TFPI_MAX_DIMS], elements = 1;
    memcpy(dims, data->dims, sizeof dims);
    dims[0] = k ? tp_sat_add(tp_get_int(segments, k - 1), 1) : 0;
    for (int d = 0; d < data->ndims; d++)
        elements = tp_sat_mul(elements, dims[d]);
    /* the budget first: the same message on 32- and 64-bit targets */
    if ((code = tp_expect_within_budget(ctx, elements, tfpi_dtype_size(data->dtype), "output elements")) != TFPI_OK)
        return code;
    return tp_set_output(ctx, 0, data->dtype, data->ndims, dims);
}

static double value_at(const tfpi_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case TFPI_FLOAT: return ((const float *)t->data)[i];
    case TFPI_DOUBLE: return ((const double *)t->data)[i];
    default: return (double)tp_get_int(t, i);
    }
}

/* out[i] = v (in the output's type; integers wrap as TensorFlow's do). */
static void store(tfpi_tensor *out, int64_t i, double v, int64_t iv)
{
    switch (out->dtype) {
    case TFPI_FLOAT: ((float *)out->data)[i] = (float)v; break;
    case TFPI_DOUBLE: ((double *)out->data)[i] = v; break;
    case TFPI_INT32: ((int32_t *)out->data)[i] = (int32_t)(uint32_t)iv; break;
    default: ((int64_t *)out->data)[i] = iv; break;
    }
}

static tfpi_code segment_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *data = ctx->inputs[0], *indices = ctx->inputs[1], *segments = ctx->inputs[2];
    tfpi_tensor *out = &ctx->outputs[0];
    reduction how = reduction_of(ctx);
    bool integer = out->dtype == TFPI_INT32 || out->dtype == TFPI_INT64;
    int64_t k = indices->dims[0], row = tp_num_elements(data) / (data->dims[0] ? data->dims[0] : 1);
    memset(out->data, 0, tp_byte_size(out));
    for (int64_t i = 0; i < k;) { /* one segment: entries i .. j-1 */
        int64_t id = tp_get_int(segments, i), j = i;
        while (j < k && tp_get_int(segments, j) == id)
            j++;
        double divisor = how == MEAN ? (double)(j - i) : how == SQRT_N ? sqrt((double)(j - i)) : 1.0;
        for (int64_t c = 0; c < row; c++) {
            double sum = 0;
            uint64_t isum = 0;
            for (int64_t e = i; e < j; e++) {
                int64_t at = tp_get_int(indices, e) * row + c;
                if (integer)
                    isum += (uint64_t)tp_get_int(data, at);
                else
                    sum += value_at(data, at);
            }
            store(out, id * row + c, sum / divisor, (int64_t)isum);
        }
        i = j;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_segment_reduction[] = {
    TP_KERNEL("SparseSegmentSum", segment_prepare, segment_run, NULL, TP_DYNAMIC),
    TP_KERNEL("SparseSegmentMean", segment_prepare, segment_run, NULL, TP_DYNAMIC),
    TP_KERNEL("SparseSegmentSqrtN", segment_prepare, segment_run, NULL, TP_DYNAMIC),
    TP_KERNELS_END,
};
