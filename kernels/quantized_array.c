/* quantized_array.c - QuantizedReshape (Reshape of quint8 or qint32 codes;
 * the range passes through) and QuantizedConcat (../shared/docs/quantized.md
 * 3.7): concat_dim, N values, then N mins and N maxes; the output range
 * spans all inputs (symmetric for signed types) and an input whose range
 * differs from it is requantized through TF's float path. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel/array_kernel_util.h"
#include "compute/quantized_args.h"

static tfpi_code reshape_prepare(tp_op_ctx *ctx)
{
    int64_t dims[TFPI_MAX_DIMS];
    int ndims;
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 4, 4)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 2, 2)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->dtype != TFPI_QUINT8 && in->dtype != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; this kernel handles quint8 and qint32",
                       tfpi_dtype_name(in->dtype));
    if ((code = tp_reshape_dims(ctx, 1, dims, &ndims)) != TFPI_OK)
        return code;
    return tp_q_prepare_outputs(ctx, in->dtype, ndims, dims);
}

static tfpi_code reshape_run(tp_op_ctx *ctx)
{
    float min, max;
    tfpi_code code = tp_q_read_range(ctx, 2, 3, "the input", &min, &max);
    if (code != TFPI_OK)
        return code;
    memcpy(ctx->outputs[0].data, ctx->inputs[0]->data, tp_byte_size(ctx->inputs[0]));
    tp_q_write_range(ctx, 1, min, max);
    return TFPI_OK;
}

/* ---- QuantizedConcat ---- */

static int value_count(const tp_op_ctx *ctx) { return (ctx->num_inputs - 1) / 3; }

static tfpi_code concat_axis(tp_op_ctx *ctx, int rank, int *axis)
{
    int64_t value;
    tfpi_code code = tp_read_index_scalar(ctx, 0, "concat_dim", &value);
    return code != TFPI_OK ? code : tp_resolve_axis(ctx, value, rank, "concat_dim", axis);
}

static tfpi_code concat_prepare(tp_op_ctx *ctx)
{
    int n = value_count(ctx), axis;
    if (ctx->num_inputs < 7 || (ctx->num_inputs - 1) % 3 != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "expects concat_dim, N >= 2 values, N mins and N maxes; has %d inputs", ctx->num_inputs);
    tfpi_code code = tp_q_expect_scalars(ctx, 1 + n, 2 * n);
    if (code == TFPI_OK && tp_attr_int(ctx->def, "N", n) != n)
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute N = %lld, but the node has %d values",
                       (long long)tp_attr_int(ctx->def, "N", n), n);
    const tfpi_tensor *first = ctx->inputs[1];
    if (code == TFPI_OK && first->dtype != TFPI_QUINT8 && first->dtype != TFPI_QINT32)
        code = tp_fail(ctx, TFPI_UNIMPLEMENTED, "values are %s; this kernel handles quint8 and qint32",
                       tfpi_dtype_name(first->dtype));
    if (code == TFPI_OK && first->ndims == 0)
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot concatenate scalars");
    if (code == TFPI_OK)
        code = concat_axis(ctx, first->ndims, &axis);
    if (code != TFPI_OK)
        return code;
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, first->dims, sizeof dims);
    for (int i = 2; i <= n; i++) {
        const tfpi_tensor *t = ctx->inputs[i];
        bool same = t->dtype == first->dtype && t->ndims == first->ndims;
        for (int d = 0; same && d < t->ndims; d++)
            same = d == axis || t->dims[d] == first->dims[d];
        char ts[96], fs[96];
        if (!same)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "value %d (%s %s) does not match value 1 (%s %s)", i,
                           tfpi_dtype_name(t->dtype), tp_shape_string(t, ts, sizeof ts),
                           tfpi_dtype_name(first->dtype), tp_shape_string(first, fs, sizeof fs));
        dims[axis] += t->dims[axis];
    }
    return tp_q_prepare_outputs(ctx, first->dtype, first->ndims, dims);
}

static tfpi_code concat_run(tp_op_ctx *ctx)
{
    int n = value_count(ctx), axis;
    float out_min = INFINITY, out_max = -INFINITY;
    for (int i = 0; i < n; i++) {
        float min, max;
        char what[32];
        snprintf(what, sizeof what, "value %d", i + 1);
        tfpi_code code = tp_q_read_range(ctx, 1 + n + i, 1 + 2 * n + i, what, &min, &max);
        if (code != TFPI_OK)
            return code;
        out_min = fminf(out_min, min);
        out_max = fmaxf(out_max, max);
    }
    const tfpi_tensor *out = &ctx->outputs[0];
    const tp_qtype *t = tp_qtype_of(out->dtype);
    if (t->lo < 0) { /* signed: symmetric */
        out_max = fmaxf(fabsf(out_min), fabsf(out_max));
        out_min = -out_max;
    }
    concat_axis(ctx, out->ndims, &axis);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= out->dims[d];
    for (int d = axis + 1; d < out->ndims; d++)
        inner *= out->dims[d];
    tp_q_quantizer to_out = tp_q_quantizer_make(out_min, out_max, t);
    const int64_t out_piece = out->dims[axis] * inner;
    const size_t size = tfpi_dtype_size(out->dtype);
    int64_t offset = 0; /* of input i's piece within each output piece */
    for (int i = 0; i < n; i++) {
        const tfpi_tensor *in = ctx->inputs[1 + i];
        const float min = tp_q_scalar(ctx, 1 + n + i), max = tp_q_scalar(ctx, 1 + 2 * n + i);
        const int64_t piece = in->dims[axis] * inner;
        const bool same = min == out_min && max == out_max;
        tp_q_dequantizer dq = tp_q_dequantizer_make(min, max, t);
        uint8_t codes[256]; /* quint8: each code's requantized code */
        for (int c = 0; !same && t->dtype == TFPI_QUINT8 && c < 256; c++)
            codes[c] = (uint8_t)tp_q_quantize_e(&to_out, tp_q_dequantize_e(&dq, c));
        for (int64_t o = 0; o < outer; o++) {
            const int64_t from = o * piece, at = o * out_piece + offset;
            if (same) {
                memcpy((char *)out->data + (size_t)at * size, (const char *)in->data + (size_t)from * size,
                       (size_t)piece * size);
            } else if (t->dtype == TFPI_QUINT8) {
                const uint8_t *q = (const uint8_t *)in->data + from;
                uint8_t *dst = (uint8_t *)out->data + at;
                for (int64_t e = 0; e < piece; e++)
                    dst[e] = codes[q[e]];
            } else {
                for (int64_t e = 0; e < piece; e++)
                    tp_qcode_set(t, out->data, at + e,
                                 tp_q_quantize_e(&to_out, tp_q_dequantize_e(&dq, tp_qcode_get(t, in->data, from + e))));
            }
        }
        offset += piece;
    }
    tp_q_write_range(ctx, 1, out_min, out_max);
    return TFPI_OK;
}

const tp_kernel tp_kernels_quantized_array[] = {
    TP_KERNEL("QuantizedReshape", reshape_prepare, reshape_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConcat", concat_prepare, concat_run, NULL, TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
