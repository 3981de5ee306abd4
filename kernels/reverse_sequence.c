/* reverse_sequence.c - ReverseSequence (the backward pass of bidirectional
 * RNNs): for each batch entry b, the first seq_lengths[b] slices along
 * seq_dim come in reverse order and the rest stay; any element type. */
#include <string.h>

#include "kernel/array_kernel_util.h"

static tfpi_code check_lengths(tp_op_ctx *ctx, int64_t steps)
{
    const tfpi_tensor *len = ctx->inputs[1];
    for (int64_t b = 0; b < len->dims[0]; b++)
        if (tp_get_int(len, b) < 0 || tp_get_int(len, b) > steps)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "seq_lengths[%lld] = %lld is not in [0, %lld]", (long long)b,
                           (long long)tp_get_int(len, b), (long long)steps);
    return TFPI_OK;
}

static tfpi_code reverse_sequence_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *len = ctx->inputs[1];
    int seq, batch;
    if (tp_attr_int(ctx->def, "seq_dim", 0) < 0) /* TensorFlow takes no negative seq_dim */
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "seq_dim must be >= 0 and < the input rank %d, is %lld", in->ndims,
                       (long long)tp_attr_int(ctx->def, "seq_dim", 0));
    if ((code = tp_resolve_axis(ctx, tp_attr_int(ctx->def, "seq_dim", 0), in->ndims, "seq_dim", &seq)) != TFPI_OK ||
        (code = tp_resolve_axis(ctx, tp_attr_int(ctx->def, "batch_dim", 0), in->ndims, "batch_dim", &batch)) !=
            TFPI_OK)
        return code;
    if (seq == batch || len->ndims != 1 || len->dims[0] != in->dims[batch])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "seq_lengths must hold one length per batch entry and seq_dim differ from batch_dim");
    tp_tensor_set_shape(&ctx->outputs[0], in->dtype, in->ndims, in->dims);
    return len->data ? check_lengths(ctx, in->dims[seq]) : TFPI_OK;
}

static tfpi_code reverse_sequence_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0], *len = ctx->inputs[1];
    int seq = (int)tp_attr_int(ctx->def, "seq_dim", 0), batch = (int)tp_attr_int(ctx->def, "batch_dim", 0);
    seq += seq < 0 ? in->ndims : 0;
    batch += batch < 0 ? in->ndims : 0;
    tfpi_code code = check_lengths(ctx, in->dims[seq]);
    if (code != TFPI_OK)
        return code;
    int64_t stride[TFPI_MAX_DIMS], n = tp_num_elements(in), s = 1;
    for (int d = in->ndims - 1; d >= 0; d--) {
        stride[d] = s;
        s *= in->dims[d];
    }
    size_t size = tfpi_dtype_size(in->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t b = i / stride[batch] % in->dims[batch], t = i / stride[seq] % in->dims[seq];
        int64_t l = tp_get_int(len, b), from = t < l ? i + (l - 1 - 2 * t) * stride[seq] : i;
        memcpy((char *)ctx->outputs[0].data + (size_t)i * size, (const char *)in->data + (size_t)from * size, size);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_reverse_sequence[] = {
    TP_KERNEL("ReverseSequence", reverse_sequence_prepare, reverse_sequence_run, NULL, 0),
    TP_KERNELS_END,
};
