/* broadcast_to.c - BroadcastTo: repeats a tensor to a constant target
 * shape by numpy broadcasting, for any element type; BroadcastArgs: the
 * shape two shapes broadcast to (int32 or int64 vectors; TF-Agents
 * policies give actions their batch shape with it). */
#include <stdlib.h>
#include <string.h>

#include "kernel/array_kernel_util.h"
#include "compute/broadcast.h"

typedef struct copy_job {
    const tp_broadcast *bc;
    const char *src;
    char *dst;
    size_t elem;
} copy_job;

static void release(void *state) { free(state); }

static tfpi_code broadcast_to_prepare(tp_op_ctx *ctx)
{
    int64_t dims[TFPI_MAX_DIMS], out_dims[TFPI_MAX_DIMS];
    int count = 0, out_ndims = 0;
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "shape", dims, TFPI_MAX_DIMS, &count);
    if (code != TFPI_OK)
        return code;
    if ((code = tp_set_output(ctx, 0, ctx->inputs[0]->dtype, count, dims)) != TFPI_OK)
        return code;
    tfpi_tensor target = {.dtype = ctx->inputs[0]->dtype};
    tp_tensor_set_shape(&target, target.dtype, count, dims);
    tfpi_tensor *operands[2] = {ctx->inputs[0], &target};
    tp_broadcast *bc = calloc(1, sizeof *bc);
    if (!bc)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    bool ok = tp_broadcast_init(bc, 2, operands, &out_ndims, out_dims);
    if (!ok || out_ndims != count || memcmp(out_dims, dims, sizeof(int64_t) * (size_t)count) != 0) {
        char a[96], b[96];
        free(bc);
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot broadcast %s to %s",
                       tp_shape_string(ctx->inputs[0], a, sizeof a), tp_shape_string(&target, b, sizeof b));
    }
    ctx->state = bc;
    return TFPI_OK;
}

static void copy_run(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    const copy_job *job = arg;
    char *dst = job->dst + (size_t)out_offset * job->elem;
    const char *src = job->src + (size_t)in_offsets[0] * job->elem;
    if (!tp_broadcast_inner_is_scalar(job->bc, 0)) {
        memcpy(dst, src, (size_t)length * job->elem);
        return;
    }
    for (int64_t i = 0; i < length; i++)
        memcpy(dst + (size_t)i * job->elem, src, job->elem);
}

static tfpi_code broadcast_to_run(tp_op_ctx *ctx)
{
    const tp_broadcast *bc = ctx->state;
    copy_job job = {bc, ctx->inputs[0]->data, ctx->outputs[0].data, tfpi_dtype_size(ctx->inputs[0]->dtype)};
    tp_broadcast_walk(bc, 0, bc->num_elements, copy_run, &job);
    return TFPI_OK;
}

static tfpi_code broadcast_args_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    if (a->dtype != b->dtype || (a->dtype != TFPI_INT32 && a->dtype != TFPI_INT64) || a->ndims != 1 || b->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "takes two int32 or int64 vectors (shapes), given %s and %s",
                       tfpi_dtype_name(a->dtype), tfpi_dtype_name(b->dtype));
    int64_t rank = a->dims[0] > b->dims[0] ? a->dims[0] : b->dims[0];
    return tp_set_output(ctx, 0, a->dtype, 1, &rank);
}

static tfpi_code broadcast_args_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    int64_t rank = ctx->outputs[0].dims[0];
    for (int64_t i = 0; i < rank; i++) { /* aligned at the right */
        int64_t ka = i - (rank - a->dims[0]), kb = i - (rank - b->dims[0]);
        int64_t x = ka >= 0 ? tp_get_int(a, ka) : 1, y = kb >= 0 ? tp_get_int(b, kb) : 1;
        if (x < 0 || y < 0 || (x != y && x != 1 && y != 1))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Incompatible shapes: dimension %lld is %lld in one and %lld "
                           "in the other", (long long)i, (long long)x, (long long)y);
        int64_t d = x == 1 ? y : x;
        if (a->dtype == TFPI_INT32)
            ((int32_t *)ctx->outputs[0].data)[i] = (int32_t)d;
        else
            ((int64_t *)ctx->outputs[0].data)[i] = d;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_broadcast_to[] = {
    TP_KERNEL("BroadcastTo", broadcast_to_prepare, broadcast_to_run, release, 0),
    TP_KERNEL("BroadcastArgs", broadcast_args_prepare, broadcast_args_run, NULL, 0),
    TP_KERNELS_END,
};
