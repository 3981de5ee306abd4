/* pooling.c - MaxPool, MaxPoolV2 and AvgPool on float NHWC tensors. ksize
 * and strides come from attrs, or for MaxPoolV2 from int32 inputs 1 and 2
 * that must be known while planning. Padding is SAME or VALID (MaxPool also
 * EXPLICIT); as in TensorFlow, padding never wins a max and AvgPool divides
 * by the number of taps inside the input. run is the SIMD path of
 * src/compute/window_fast.c; the tests compare it with the plain C reference
 * (src/compute/window_ref.c). */
#include "kernel/kernel.h"
#include "compute/window_kernel.h"
#include "compute/window_fast.h"

static tfpi_code prepare_pool(tp_op_ctx *ctx, const int64_t *ksize, int ksize_count, const int64_t *strides,
                              int strides_count, bool explicit_allowed)
{
    tp_window_params p;
    tfpi_code code =
        tp_pool_window_params(ctx, ksize, ksize_count, strides, strides_count, explicit_allowed, &p);
    return code != TFPI_OK ? code : tp_window_prepare_output(ctx, &p);
}

static tfpi_code prepare_pool_from_attrs(tp_op_ctx *ctx, bool explicit_allowed)
{
    int64_t ksize[4], strides[4];
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    int ksize_count = tp_attr_int_list(ctx->def, "ksize", ksize, 4);
    int strides_count = tp_attr_int_list(ctx->def, "strides", strides, 4);
    return prepare_pool(ctx, ksize, ksize_count, strides, strides_count, explicit_allowed);
}

static tfpi_code max_pool_prepare(tp_op_ctx *ctx) { return prepare_pool_from_attrs(ctx, true); }

static tfpi_code avg_pool_prepare(tp_op_ctx *ctx) { return prepare_pool_from_attrs(ctx, false); }

/* A constant 1-D int32 input holding an NHWC list; copies up to 4 values. */
static tfpi_code read_list_input(tp_op_ctx *ctx, int input, const char *name, int64_t values[4], int *count)
{
    char shape[96];
    tfpi_code code;
    if ((code = tp_expect_dtype(ctx, input, TFPI_INT32)) != TFPI_OK ||
        (code = tp_expect_known(ctx, input)) != TFPI_OK)
        return code;
    const tfpi_tensor *t = ctx->inputs[input];
    if (t->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s (input %d) must be a 1-D list, got shape %s", name,
                       input, tp_shape_string(t, shape, sizeof shape));
    *count = (int)t->dims[0];
    for (int i = 0; i < *count && i < 4; i++)
        values[i] = tp_get_int(t, i);
    return TFPI_OK;
}

static tfpi_code max_pool_v2_prepare(tp_op_ctx *ctx)
{
    int64_t ksize[4], strides[4];
    int ksize_count, strides_count;
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 3, 3)) != TFPI_OK ||
        (code = read_list_input(ctx, 1, "ksize", ksize, &ksize_count)) != TFPI_OK ||
        (code = read_list_input(ctx, 2, "strides", strides, &strides_count)) != TFPI_OK)
        return code;
    return prepare_pool(ctx, ksize, ksize_count, strides, strides_count, false);
}

static tfpi_code max_pool_run(tp_op_ctx *ctx)
{
    const tp_window_state *state = ctx->state;
    tp_max_pool_fast(&state->params, ctx->inputs[0]->data, ctx->outputs[0].data, ctx->pool);
    return TFPI_OK;
}

static tfpi_code avg_pool_run(tp_op_ctx *ctx)
{
    const tp_window_state *state = ctx->state;
    tp_avg_pool_fast(&state->params, ctx->inputs[0]->data, ctx->outputs[0].data, ctx->pool);
    return TFPI_OK;
}

const tp_kernel tp_kernels_pooling[] = {
    TP_KERNEL("MaxPool", max_pool_prepare, max_pool_run, tp_window_release, 0),
    TP_KERNEL("MaxPoolV2", max_pool_v2_prepare, max_pool_run, tp_window_release, 0),
    TP_KERNEL("AvgPool", avg_pool_prepare, avg_pool_run, tp_window_release, 0),
    TP_KERNELS_END
};
