/* reverse.c - ReverseV2: reverses a tensor along the axes given by a
 * constant int32/int64 vector, for any element type. */
#include <stdlib.h>
#include <string.h>

#include "kernel/array_kernel_util.h"

typedef struct reverse_state {
    bool flip[TFPI_MAX_DIMS];
} reverse_state;

static void release(void *state) { free(state); }

static tfpi_code reverse_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    int64_t axes[TFPI_MAX_DIMS];
    int count = 0;
    const tfpi_tensor *in = ctx->inputs[0];
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "axis", axes, TFPI_MAX_DIMS, &count);
    reverse_state *st = code == TFPI_OK ? calloc(1, sizeof *st) : NULL;
    if (code == TFPI_OK && !st)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; code == TFPI_OK && i < count; i++) {
        int axis;
        if ((code = tp_resolve_axis(ctx, axes[i], in->ndims, "axis", &axis)) == TFPI_OK && st->flip[axis])
            code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "axis %d is given more than once", axis);
        else if (code == TFPI_OK)
            st->flip[axis] = true;
    }
    if (code != TFPI_OK) {
        free(st);
        return code;
    }
    ctx->state = st;
    return tp_set_output(ctx, 0, in->dtype, in->ndims, in->dims);
}

static tfpi_code reverse_run(tp_op_ctx *ctx)
{
    const reverse_state *st = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    size_t elem = tfpi_dtype_size(in->dtype);
    int64_t n = tp_num_elements(in), stride[TFPI_MAX_DIMS];
    for (int d = in->ndims - 1, s = 1; d >= 0; d--) {
        stride[d] = s;
        s *= (int)in->dims[d];
    }
    const char *src = in->data;
    char *dst = ctx->outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t rest = i, from = 0;
        for (int d = 0; d < in->ndims; d++) {
            int64_t c = rest / stride[d];
            rest %= stride[d];
            from += (st->flip[d] ? in->dims[d] - 1 - c : c) * stride[d];
        }
        memcpy(dst + (size_t)i * elem, src + (size_t)from * elem, elem);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_reverse[] = {
    TP_KERNEL("ReverseV2", reverse_prepare, reverse_run, release, 0),
    TP_KERNELS_END,
};
