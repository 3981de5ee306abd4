/* clip_by_value.c - ClipByValue: min(max(t, clip_value_min), clip_value_max)
 * elementwise, the bounds scalars or of t's shape, on float32, float64,
 * int32 and int64 (what tf.clip_by_value exports; detection heads clip
 * boxes with it). */
#include "kernel/kernel.h"

static tfpi_code clip_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *t = ctx->inputs[0];
    if (t->dtype != TFPI_FLOAT && t->dtype != TFPI_DOUBLE && t->dtype != TFPI_INT32 && t->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; ClipByValue handles float, double, int32, int64",
                       tfpi_dtype_name(t->dtype));
    for (int i = 1; i < 3; i++) {
        const tfpi_tensor *b = ctx->inputs[i];
        if (b->dtype != t->dtype || (tp_num_elements(b) != 1 && !tp_same_shape(b, t)))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d must be a %s scalar or have the input's shape", i,
                           tfpi_dtype_name(t->dtype));
    }
    tp_tensor_set_shape(&ctx->outputs[0], t->dtype, t->ndims, t->dims);
    return TFPI_OK;
}

#define CLIP_LOOP(T)                                                                      \
    {                                                                                     \
        const T *x = t->data, *lo = ctx->inputs[1]->data, *hi = ctx->inputs[2]->data;   \
        T *out = ctx->outputs[0].data;                                                    \
        for (int64_t i = 0; i < n; i++) {                                                 \
            T l = lo[lo_step * i], h = hi[hi_step * i], v = x[i] < l ? l : x[i];           \
            out[i] = v > h ? h : v;                                                       \
        }                                                                                 \
    }

static tfpi_code clip_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *t = ctx->inputs[0];
    int64_t n = tp_num_elements(t);
    int64_t lo_step = tp_num_elements(ctx->inputs[1]) == 1 ? 0 : 1;
    int64_t hi_step = tp_num_elements(ctx->inputs[2]) == 1 ? 0 : 1;
    switch (t->dtype) {
    case TFPI_DOUBLE: CLIP_LOOP(double) break;
    case TFPI_INT32: CLIP_LOOP(int32_t) break;
    case TFPI_INT64: CLIP_LOOP(int64_t) break;
    default: CLIP_LOOP(float) break;
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_clip_by_value[] = {
    TP_KERNEL("ClipByValue", clip_prepare, clip_run, NULL, 0),
    TP_KERNELS_END,
};
