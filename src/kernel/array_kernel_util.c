/* array_kernel_util.c - shared argument checks of the array kernels (see
 * array_kernel_util.h). */
#include "kernel/array_kernel_util.h"

#include "core/checked_math.h"

tfpi_code tp_resolve_axis(tp_op_ctx *ctx, int64_t axis, int rank, const char *what, int *out)
{
    if (axis < -rank || axis >= rank)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %lld is out of range for a rank-%d input", what,
                       (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return TFPI_OK;
}

tfpi_code tp_read_index_values(tp_op_ctx *ctx, int input, const char *what, int64_t *values, int max,
                               int *count)
{
    const tfpi_tensor *t = ctx->inputs[input];
    if (t->dtype != TFPI_INT32 && t->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s (input %d) must be int32 or int64, not %s", what,
                       input, tfpi_dtype_name(t->dtype));
    tfpi_code code = tp_expect_known(ctx, input);
    if (code != TFPI_OK)
        return code;
    int64_t n = tp_num_elements(t);
    if (n > max)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s (input %d) has %lld values, at most %d allowed",
                       what, input, (long long)n, max);
    for (int i = 0; i < n; i++)
        values[i] = tp_get_int(t, i);
    *count = (int)n;
    return TFPI_OK;
}

tfpi_code tp_read_index_scalar(tp_op_ctx *ctx, int input, const char *what, int64_t *value)
{
    int count;
    tfpi_code code = tp_read_index_values(ctx, input, what, value, 1, &count);
    if (code == TFPI_OK && count != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s (input %d) must be a single value", what, input);
    return code;
}

tfpi_code tp_index_tuple_offset(tp_op_ctx *ctx, const tfpi_tensor *indices, int64_t i, int k, const int64_t *dims,
                                int64_t *offset)
{
    *offset = 0;
    for (int d = 0; d < k; d++) {
        int64_t v = tp_get_int(indices, i * k + d);
        if (v < 0 || v >= dims[d])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices[%lld] = %lld does not index into dimension %d of "
                           "size %lld", (long long)i, (long long)v, d, (long long)dims[d]);
        *offset = *offset * dims[d] + v;
    }
    return TFPI_OK;
}

tfpi_code tp_expect_outputs_at_most(tp_op_ctx *ctx, int produced)
{
    if (ctx->num_outputs > produced)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the graph uses output %d, but the node has only %d outputs", ctx->num_outputs - 1,
                       produced);
    return TFPI_OK;
}

tfpi_code tp_reshape_dims(tp_op_ctx *ctx, int shape_input, int64_t *dims, int *ndims)
{
    tfpi_code code = tp_expect_known(ctx, shape_input);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *shape = ctx->inputs[shape_input];
    int64_t n = tp_num_elements(shape), known = 1;
    int infer = -1;
    if (shape->ndims > 1 || n > TFPI_MAX_DIMS || (shape->dtype != TFPI_INT32 && shape->dtype != TFPI_INT64))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "shape must be an int32 or int64 vector of at most %d values",
                       TFPI_MAX_DIMS);
    for (int i = 0; i < n; i++) {
        dims[i] = tp_get_int(shape, i);
        if (dims[i] == -1 && infer < 0)
            infer = i;
        else if (dims[i] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "shape has invalid size %lld", (long long)dims[i]);
        else if (!tp_checked_mul(known, dims[i], &known))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "shape has too many elements");
    }
    int64_t total = tp_num_elements(in);
    if (infer >= 0) {
        if (known == 0 || total % known != 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot reshape %lld elements with a -1 dimension",
                           (long long)total);
        dims[infer] = total / known;
        known *= dims[infer];
    }
    if (known != total) {
        char s[128];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot reshape %s (%lld elements) to %lld elements",
                       tp_shape_string(in, s, sizeof s), (long long)total, (long long)known);
    }
    *ndims = (int)n;
    return TFPI_OK;
}
