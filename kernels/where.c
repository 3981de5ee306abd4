/* where.c - Where (one argument): the int64 coordinates [num_true, rank] of
 * every non-zero element, in row-major order. The output's size depends on
 * the values, so a graph using it runs on the dynamic executor. */
#include "kernel/kernel.h"

static bool is_true(const tfpi_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case TFPI_FLOAT: return ((const float *)t->data)[i] != 0;
    case TFPI_DOUBLE: return ((const double *)t->data)[i] != 0;
    default: return tp_get_int(t, i) != 0;
    }
}

static tfpi_code where_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (code == TFPI_OK && (in->dtype == TFPI_STRING || in->dtype == TFPI_RESOURCE || in->dtype == TFPI_VARIANT ||
                            in->dtype == TFPI_HALF))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; Where handles bool and numbers",
                       tfpi_dtype_name(in->dtype));
    if (code == TFPI_OK && !in->data)
        return tp_fail(ctx, TFPI_INTERNAL, "Where runs only on the dynamic executor");
    int64_t count = 0;
    for (int64_t i = 0, n = tp_num_elements(in); code == TFPI_OK && i < n; i++)
        count += is_true(in, i);
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_INT64, 2, (int64_t[]){count, in->ndims});
    return code;
}

static tfpi_code where_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t *out = ctx->outputs[0].data;
    for (int64_t i = 0, n = tp_num_elements(in); i < n; i++) {
        if (!is_true(in, i))
            continue;
        int64_t r = i; /* row-major coordinates of element i */
        for (int d = in->ndims - 1; d >= 0; d--) {
            out[d] = r % in->dims[d];
            r /= in->dims[d];
        }
        out += in->ndims;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_where[] = {
    TP_KERNEL("Where", where_prepare, where_run, NULL, TP_DYNAMIC),
    TP_KERNELS_END,
};
