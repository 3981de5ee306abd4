/* tile.c - Tile with a multiples input known while planning, on any element
 * type. Output dim d of size m*n is read as two dims [m][n]: m repeats
 * (source step 0) of the input's dim d, which makes the whole output one
 * strided view of the input (strided_copy.c). */
#include <stdlib.h>

#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"
#include "compute/strided_copy.h"

static tfpi_code tile_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t multiples[TFPI_MAX_DIMS], strides[TFPI_MAX_DIMS], out_dims[TFPI_MAX_DIMS];
    int count = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "multiples", multiples, TFPI_MAX_DIMS, &count);
    if (code != TFPI_OK)
        return code;
    if (count != in->ndims || ctx->inputs[1]->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "multiples must be a vector of %d values, has %d",
                       in->ndims, count);
    tp_strided_view *view = tp_new_strided_view(ctx);
    if (!view)
        return TFPI_OUT_OF_MEMORY;
    tp_byte_strides(in, strides);
    view->rank = 2 * count;
    for (int d = 0; d < count; d++) {
        if (multiples[d] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "multiples[%d] = %lld is negative", d,
                           (long long)multiples[d]);
        view->count[2 * d] = multiples[d];
        view->step[2 * d] = 0;
        view->count[2 * d + 1] = in->dims[d];
        view->step[2 * d + 1] = strides[d];
        out_dims[d] = tp_sat_mul(multiples[d], in->dims[d]);
    }
    return tp_set_output(ctx, 0, in->dtype, count, out_dims);
}

const tp_kernel tp_kernels_tile[] = {
    TP_KERNEL("Tile", tile_prepare, tp_run_strided_view, free, 0),
    TP_KERNELS_END,
};
