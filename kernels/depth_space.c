/* depth_space.c - SpaceToDepth and DepthToSpace (NHWC, block_size): move
 * block x block spatial tiles into channels and back, any element type. */
#include <string.h>

#include "core/checked_math.h"
#include "kernel/kernel.h"

static bool is_depth_to_space(const tp_op_ctx *ctx) { return ctx->def->op[0] == 'D'; }

static tfpi_code depth_space_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t b = tp_attr_int(ctx->def, "block_size", 0);
    char format[16];
    if (strcmp(tp_attr_string(ctx->def, "data_format", format, sizeof format, "NHWC"), "NHWC") != 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "only data_format NHWC is supported");
    int64_t b2;
    if (in->ndims != 4 || b < 2 || !tp_checked_mul(b, b, &b2))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "needs a rank-4 input and block_size >= 2 (has %lld)",
                       (long long)b);
    int64_t dims[4] = {in->dims[0], 0, 0, 0};
    if (is_depth_to_space(ctx)) {
        if (in->dims[3] % b2)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "depth %lld is not divisible by block_size^2",
                           (long long)in->dims[3]);
        dims[1] = tp_sat_mul(in->dims[1], b), dims[2] = tp_sat_mul(in->dims[2], b), dims[3] = in->dims[3] / b2;
    } else {
        if (in->dims[1] % b || in->dims[2] % b)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "height and width must be divisible by block_size");
        dims[1] = in->dims[1] / b, dims[2] = in->dims[2] / b, dims[3] = tp_sat_mul(in->dims[3], b2);
    }
    return tp_set_output(ctx, 0, in->dtype, 4, dims);
}

/* Walks the spatial (large) tensor: each pixel's channel run maps to a
 * slice of the depth (small) tensor's channels. */
static tfpi_code depth_space_run(tp_op_ctx *ctx)
{
    bool to_space = is_depth_to_space(ctx);
    const tfpi_tensor *space = to_space ? &ctx->outputs[0] : ctx->inputs[0];
    const tfpi_tensor *depth = to_space ? ctx->inputs[0] : &ctx->outputs[0];
    int64_t b = tp_attr_int(ctx->def, "block_size", 0), c = space->dims[3];
    size_t elem = tfpi_dtype_size(space->dtype), run = (size_t)c * elem;
    char *space_data = to_space ? ctx->outputs[0].data : ctx->inputs[0]->data;
    char *depth_data = to_space ? ctx->inputs[0]->data : ctx->outputs[0].data;
    for (int64_t n = 0; n < space->dims[0]; n++)
        for (int64_t y = 0; y < space->dims[1]; y++)
            for (int64_t x = 0; x < space->dims[2]; x++) {
                int64_t s = ((n * space->dims[1] + y) * space->dims[2] + x) * c;
                int64_t d = ((n * depth->dims[1] + y / b) * depth->dims[2] + x / b) * depth->dims[3] +
                            ((y % b) * b + x % b) * c;
                if (to_space)
                    memcpy(space_data + (size_t)s * elem, depth_data + (size_t)d * elem, run);
                else
                    memcpy(depth_data + (size_t)d * elem, space_data + (size_t)s * elem, run);
            }
    return TFPI_OK;
}

const tp_kernel tp_kernels_depth_space[] = {
    TP_KERNEL("SpaceToDepth", depth_space_prepare, depth_space_run, NULL, 0),
    TP_KERNEL("DepthToSpace", depth_space_prepare, depth_space_run, NULL, 0),
    TP_KERNELS_END,
};
