/* broadcast_to.c - BroadcastTo: repeats a tensor to a constant target
 * shape by numpy broadcasting, for any element type. */
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

const tp_kernel tp_kernels_broadcast_to[] = {
    TP_KERNEL("BroadcastTo", broadcast_to_prepare, broadcast_to_run, release, 0),
    TP_KERNELS_END,
};
