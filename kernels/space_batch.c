/* space_batch.c - SpaceToBatchND and BatchToSpaceND (what TF emits around
 * a dilated convolution), on any element type, with block_shape and
 * paddings / crops known while planning.
 *
 * SpaceToBatchND pads the M spatial dims, then moves each block offset
 * (o_1..o_M, last fastest) in front of the batch: output batch
 * (o * batch + n) holds the padded positions q_i * block_i + o_i.
 * BatchToSpaceND is the inverse, cropping instead of padding. Both walk the
 * output one row of [rest] elements (the dims after the spatial ones) at a
 * time and copy the row it comes from, or zeros for padding. */
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"

enum { OUTSIDE = -1 };

typedef struct space_batch_state {
    bool to_batch;
    int m; /* spatial dims */
    int64_t block[TFPI_MAX_DIMS];
    int64_t before[TFPI_MAX_DIMS]; /* padding (to batch) or crop (to space) at the start */
    int64_t in_dims[TFPI_MAX_DIMS], out_dims[TFPI_MAX_DIMS]; /* batch and spatial dims */
    size_t row_bytes;
} space_batch_state;

/* Reads block_shape (input 1) and paddings or crops (input 2) into s. */
static tfpi_code read_arguments(tp_op_ctx *ctx, space_batch_state *s, int64_t *edges)
{
    int m = 0, count = 0;
    tfpi_code code = tp_read_index_values(ctx, 1, "block_shape", s->block, TFPI_MAX_DIMS, &m);
    const char *edge_name = s->to_batch ? "paddings" : "crops";
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 2, edge_name, edges, 2 * TFPI_MAX_DIMS, &count);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (ctx->inputs[1]->ndims != 1 || m < 1 || in->ndims < m + 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "block_shape must be a vector of 1 to %d values for a rank-%d input", in->ndims - 1,
                       in->ndims);
    if (count != 2 * m || ctx->inputs[2]->ndims != 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s must have shape [%d, 2]", edge_name, m);
    for (int i = 0; i < m; i++) {
        if (s->block[i] < 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "block_shape[%d] = %lld must be at least 1", i,
                           (long long)s->block[i]);
        if (edges[2 * i] < 0 || edges[2 * i + 1] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s[%d] must not be negative", edge_name, i);
        s->before[i] = edges[2 * i];
    }
    int64_t blocks;
    if (!tp_checked_product(s->block, m, &blocks))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the product of block_shape overflows");
    s->m = m;
    return TFPI_OK;
}

/* Output batch and spatial dims of SpaceToBatchND (into s->out_dims). */
static tfpi_code space_to_batch_dims(tp_op_ctx *ctx, space_batch_state *s, const int64_t *paddings)
{
    s->out_dims[0] = s->in_dims[0];
    for (int i = 0; i < s->m; i++) {
        int64_t padded = tp_sat_add(tp_sat_add(s->in_dims[i + 1], paddings[2 * i]), paddings[2 * i + 1]);
        if (padded % s->block[i] != 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "padded spatial dim %d (size %lld) is not a multiple of block_shape[%d] = %lld",
                           i + 1, (long long)padded, i, (long long)s->block[i]);
        s->out_dims[i + 1] = padded / s->block[i];
        s->out_dims[0] = tp_sat_mul(s->out_dims[0], s->block[i]);
    }
    return TFPI_OK;
}

/* Output batch and spatial dims of BatchToSpaceND. */
static tfpi_code batch_to_space_dims(tp_op_ctx *ctx, space_batch_state *s, const int64_t *crops)
{
    int64_t blocks = 1;
    for (int i = 0; i < s->m; i++) {
        int64_t full = tp_sat_mul(s->in_dims[i + 1], s->block[i]);
        if (tp_sat_add(crops[2 * i], crops[2 * i + 1]) > full)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "crops of spatial dim %d exceed its size %lld", i + 1,
                           (long long)full);
        s->out_dims[i + 1] = full - crops[2 * i] - crops[2 * i + 1];
        blocks *= s->block[i];
    }
    if (s->in_dims[0] % blocks != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "batch %lld is not a multiple of the block size %lld",
                       (long long)s->in_dims[0], (long long)blocks);
    s->out_dims[0] = s->in_dims[0] / blocks;
    return TFPI_OK;
}

static tfpi_code space_batch_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    space_batch_state *s = calloc(1, sizeof *s);
    if (!(ctx->state = s))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->to_batch = strcmp(ctx->def->op, "SpaceToBatchND") == 0;
    int64_t edges[2 * TFPI_MAX_DIMS];
    if ((code = read_arguments(ctx, s, edges)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    memcpy(s->in_dims, in->dims, sizeof s->in_dims);
    code = s->to_batch ? space_to_batch_dims(ctx, s, edges) : batch_to_space_dims(ctx, s, edges);
    if (code != TFPI_OK)
        return code;
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, in->dims, sizeof dims);
    memcpy(dims, s->out_dims, sizeof dims[0] * (size_t)(s->m + 1));
    s->row_bytes = tfpi_dtype_size(in->dtype);
    for (int d = s->m + 1; d < in->ndims; d++)
        s->row_bytes *= (size_t)in->dims[d];
    return tp_set_output(ctx, 0, in->dtype, in->ndims, dims);
}

/* The input row (over batch and spatial dims) output row `at` reads. */
static int64_t source_row(const space_batch_state *s, const int64_t *at)
{
    int64_t spatial[TFPI_MAX_DIMS], batch;
    if (s->to_batch) {
        int64_t block_index = at[0] / s->in_dims[0];
        for (int i = s->m - 1; i >= 0; i--) {
            spatial[i] = at[i + 1] * s->block[i] + block_index % s->block[i] - s->before[i];
            block_index /= s->block[i];
            if (spatial[i] < 0 || spatial[i] >= s->in_dims[i + 1])
                return OUTSIDE;
        }
        batch = at[0] % s->in_dims[0];
    } else {
        int64_t block_index = 0;
        for (int i = 0; i < s->m; i++) {
            int64_t uncropped = at[i + 1] + s->before[i];
            spatial[i] = uncropped / s->block[i];
            block_index = block_index * s->block[i] + uncropped % s->block[i];
        }
        batch = block_index * s->out_dims[0] + at[0];
    }
    int64_t row = batch;
    for (int i = 0; i < s->m; i++)
        row = row * s->in_dims[i + 1] + spatial[i];
    return row;
}

static tfpi_code space_batch_run(tp_op_ctx *ctx)
{
    const space_batch_state *s = ctx->state;
    int64_t rows = 1, at[TFPI_MAX_DIMS] = {0};
    for (int d = 0; d <= s->m; d++)
        rows *= s->out_dims[d];
    const char *src = ctx->inputs[0]->data;
    char *dst = ctx->outputs[0].data;
    for (int64_t r = 0; r < rows; r++, dst += s->row_bytes) {
        int64_t from = source_row(s, at);
        if (from == OUTSIDE)
            memset(dst, 0, s->row_bytes);
        else
            memcpy(dst, src + (size_t)from * s->row_bytes, s->row_bytes);
        for (int d = s->m; d >= 0 && ++at[d] == s->out_dims[d]; d--)
            at[d] = 0;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_space_batch[] = {
    TP_KERNEL("SpaceToBatchND", space_batch_prepare, space_batch_run, free, 0),
    TP_KERNEL("BatchToSpaceND", space_batch_prepare, space_batch_run, free, 0),
    TP_KERNELS_END,
};
