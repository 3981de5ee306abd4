/* kernel_util.c - what every kernel uses: input checks, and errors that
 * name the node and its op. */
#include "kernel/kernel.h"

#include "core/checked_math.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tfpi_code tp_fail(tp_op_ctx *ctx, tfpi_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tfpi_code result = tp_node_verror(ctx->def, ctx->status, code, fmt, ap);
    va_end(ap);
    return result;
}

tfpi_code tp_expect_inputs(tp_op_ctx *ctx, int min, int max)
{
    if (ctx->num_inputs < min || ctx->num_inputs > max) {
        if (min == max)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects %d inputs, has %d", min, ctx->num_inputs);
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects %d to %d inputs, has %d", min, max,
                       ctx->num_inputs);
    }
    return TFPI_OK;
}

tfpi_code tp_expect_dtype(tp_op_ctx *ctx, int input, tfpi_dtype dtype)
{
    if (ctx->inputs[input]->dtype != dtype)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input %d is %s; this kernel handles %s", input,
                       tfpi_dtype_name(ctx->inputs[input]->dtype), tfpi_dtype_name(dtype));
    return TFPI_OK;
}

tfpi_code tp_expect_one_input(tp_op_ctx *ctx, tfpi_dtype dtype)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    return code == TFPI_OK ? tp_expect_dtype(ctx, 0, dtype) : code;
}

tfpi_code tp_expect_known(tp_op_ctx *ctx, int input)
{
    if (!ctx->inputs[input]->data)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "input %d must be computable from constants and input shapes", input);
    return TFPI_OK;
}

tfpi_code tp_kernel_run(const tp_kernel *kernel, tp_op_ctx *ctx)
{
    bool empty = ctx->num_outputs > 0 && !(kernel->flags & (TP_STATEFUL | TP_ALIAS_INPUT0 | TP_CONTROL_FLOW));
    for (int o = 0; empty && o < ctx->num_outputs; o++)
        empty = tp_num_elements(&ctx->outputs[o]) == 0;
    return empty ? TFPI_OK : kernel->run(ctx);
}

tfpi_code tp_expect_within_budget(tp_op_ctx *ctx, int64_t count, size_t item_bytes, const char *what)
{
    int64_t bytes;
    if (count < 0 || !tp_checked_mul(count, (int64_t)item_bytes, &bytes))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%lld %s are too many", (long long)count, what);
    /* the budget first: the same message on 32- and 64-bit targets */
    if (ctx->max_bytes && (uint64_t)bytes > ctx->max_bytes)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY,
                       "%lld %s need %lld bytes, over the memory budget of %llu bytes (max_memory)",
                       (long long)count, what, (long long)bytes, (unsigned long long)ctx->max_bytes);
    if ((uint64_t)bytes > SIZE_MAX / 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%lld %s are too many", (long long)count, what);
    return TFPI_OK;
}

tfpi_code tp_set_output(tp_op_ctx *ctx, int o, tfpi_dtype dtype, int ndims, const int64_t *dims)
{
    tfpi_tensor *out = &ctx->outputs[o];
    tp_tensor_set_shape(out, dtype, ndims, dims);
    char shape[TFPI_MAX_DIMS * 22 + 3];
    tfpi_code code;
    if (!tp_shape_fits(dtype, ndims, dims))
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output %d shape %s is negative or too large", o,
                       tp_shape_string(out, shape, sizeof shape));
    else if (ctx->max_bytes && tp_byte_size(out) > ctx->max_bytes)
        code = tp_fail(ctx, TFPI_OUT_OF_MEMORY,
                       "output %d %s %s needs %zu bytes, over the memory budget of %llu bytes (max_memory)", o,
                       tfpi_dtype_name(dtype), tp_shape_string(out, shape, sizeof shape), tp_byte_size(out),
                       (unsigned long long)ctx->max_bytes);
    else
        return TFPI_OK;
    out->ndims = 0; /* nothing may size a buffer from it */
    return code;
}
