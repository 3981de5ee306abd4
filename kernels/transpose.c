/* transpose.c - Transpose with a permutation input known while planning,
 * on any element type. The output is a strided view of the input (output
 * dim i walks input dim perm[i]); strided_copy.c merges dims that stay
 * neighbours, so e.g. NHWC->NCHW runs as a 3-D copy. */
#include <stdlib.h>

#include "kernel/array_kernel_util.h"
#include "compute/strided_copy.h"

static tfpi_code transpose_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t perm[TFPI_MAX_DIMS], strides[TFPI_MAX_DIMS];
    int count = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "perm", perm, TFPI_MAX_DIMS, &count);
    if (code != TFPI_OK)
        return code;
    if (count != in->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "perm has %d values for a rank-%d input", count,
                       in->ndims);
    bool used[TFPI_MAX_DIMS] = {false};
    for (int i = 0; i < count; i++) {
        if (perm[i] < 0 || perm[i] >= count || used[perm[i]])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "perm is not a permutation of 0..%d (perm[%d] = %lld)",
                           count - 1, i, (long long)perm[i]);
        used[perm[i]] = true;
    }
    tp_strided_view *view = tp_new_strided_view(ctx);
    if (!view)
        return TFPI_OUT_OF_MEMORY;
    tp_byte_strides(in, strides);
    view->rank = count;
    for (int i = 0; i < count; i++) {
        view->count[i] = in->dims[perm[i]];
        view->step[i] = strides[perm[i]];
    }
    return tp_set_output(ctx, 0, in->dtype, count, view->count);
}

const tp_kernel tp_kernels_transpose[] = {
    TP_KERNEL("Transpose", transpose_prepare, tp_run_strided_view, free, 0),
    TP_KERNELS_END,
};
