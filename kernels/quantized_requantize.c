/* quantized_requantize.c - narrowing the qint32 results of the 8-bit ops
 * back to 8 bits (../shared/docs/quantized.md 3.8):
 * RequantizationRange (the float range the codes actually use, its min
 * forced <= 0), Requantize (qint32 codes of one range to quint8 codes of a
 * requested range, in TF's 16.16 fixed point; qint8 output through the
 * float path) and QuantizeDownAndShrinkRange (the two in one). */
#include <math.h>

#include "kernel/kernel.h"
#include "compute/quantized_steps.h"

/* The float range the codes of input 0 use: (min(0, lowest), highest). */
static void used_range(const tfpi_tensor *in, float in_min, float in_max, float *min, float *max)
{
    const int32_t *v = in->data;
    const int64_t n = tp_num_elements(in);
    enum { BLOCK = 32 }; /* per-lane extremes over fixed blocks: the compiler vectorizes them */
    int32_t low[BLOCK], high[BLOCK];
    for (int j = 0; j < BLOCK; j++) {
        low[j] = INT32_MAX;
        high[j] = INT32_MIN;
    }
    int64_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK)
        for (int j = 0; j < BLOCK; j++) {
            low[j] = v[i + j] < low[j] ? v[i + j] : low[j];
            high[j] = v[i + j] > high[j] ? v[i + j] : high[j];
        }
    for (; i < n; i++) {
        low[0] = v[i] < low[0] ? v[i] : low[0];
        high[0] = v[i] > high[0] ? v[i] : high[0];
    }
    int32_t lowest = INT32_MAX, highest = INT32_MIN;
    for (int j = 0; j < BLOCK; j++) {
        lowest = low[j] < lowest ? low[j] : lowest;
        highest = high[j] > highest ? high[j] : highest;
    }
    const tp_qtype *i32 = tp_qtype_of(TFPI_QINT32);
    *min = fminf(0.0f, tp_q_q2f(lowest, in_min, in_max, i32));
    *max = tp_q_q2f(highest, in_min, in_max, i32);
}

static tfpi_code expect_qint32_and_scalars(tp_op_ctx *ctx, int inputs)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, inputs, inputs)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 0, TFPI_QINT32)) != TFPI_OK)
        return code;
    return tp_q_expect_scalars(ctx, 1, inputs - 1);
}

static tfpi_code range_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = expect_qint32_and_scalars(ctx, 3)) != TFPI_OK)
        return code;
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_FLOAT, 0, NULL);
    if (ctx->num_outputs > 1)
        tp_tensor_set_shape(&ctx->outputs[1], TFPI_FLOAT, 0, NULL);
    return ctx->num_outputs > 2 ? tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the graph uses output %d of 2",
                                          ctx->num_outputs - 1)
                                : TFPI_OK;
}

static tfpi_code range_run(tp_op_ctx *ctx)
{
    float in_min, in_max, min, max;
    tfpi_code code = tp_q_read_range(ctx, 1, 2, "the input", &in_min, &in_max);
    if (code != TFPI_OK)
        return code;
    used_range(ctx->inputs[0], in_min, in_max, &min, &max);
    tp_q_write_range(ctx, 0, min, max);
    return TFPI_OK;
}

static tfpi_code narrow_prepare(tp_op_ctx *ctx, int inputs)
{
    tfpi_code code;
    if ((code = expect_qint32_and_scalars(ctx, inputs)) != TFPI_OK)
        return code;
    tfpi_dtype out_type = tp_attr_type(ctx->def, "out_type", TFPI_QUINT8);
    if (out_type != TFPI_QUINT8 && out_type != TFPI_QINT8)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "out_type %s is not supported (quint8, qint8)",
                       tfpi_dtype_name(out_type));
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_q_prepare_outputs(ctx, out_type, in->ndims, in->dims);
}

static tfpi_code requantize_prepare(tp_op_ctx *ctx) { return narrow_prepare(ctx, 5); }

static tfpi_code shrink_prepare(tp_op_ctx *ctx) { return narrow_prepare(ctx, 3); }

/* Writes input 0 (qint32 codes of [in_min, in_max]) as output 0's codes of
 * [out_min, out_max], and that range as outputs 1 and 2. */
static void narrow(tp_op_ctx *ctx, float in_min, float in_max, float out_min, float out_max)
{
    const int32_t *v = ctx->inputs[0]->data;
    const int64_t n = tp_num_elements(ctx->inputs[0]);
    if (ctx->outputs[0].dtype == TFPI_QUINT8) {
        tp_q_requantizer r = tp_q_requantizer_make(in_min, in_max, out_min, out_max);
        tp_q_requantize_many(&r, v, ctx->outputs[0].data, n);
    } else {
        const tp_qtype *t = tp_qtype_of(ctx->outputs[0].dtype);
        tp_q_dequantizer dq = tp_q_dequantizer_make(in_min, in_max, tp_qtype_of(TFPI_QINT32));
        tp_q_quantizer qz = tp_q_quantizer_make(out_min, out_max, t);
        for (int64_t i = 0; i < n; i++)
            tp_qcode_set(t, ctx->outputs[0].data, i, tp_q_quantize_e(&qz, tp_q_dequantize_e(&dq, v[i])));
    }
    tp_q_write_range(ctx, 1, out_min, out_max);
}

/* Requantize (to the requested range, inputs 3 and 4) or, with shrink,
 * QuantizeDownAndShrinkRange (to the range the codes use). */
static tfpi_code narrow_run(tp_op_ctx *ctx, bool shrink)
{
    float in_min, in_max, out_min, out_max;
    tfpi_code code = shrink ? tp_q_read_range(ctx, 1, 2, "the input", &in_min, &in_max)
                            : tp_q_requantize_ranges(ctx, &in_min, &in_max, &out_min, &out_max);
    if (code != TFPI_OK)
        return code;
    if (shrink)
        used_range(ctx->inputs[0], in_min, in_max, &out_min, &out_max);
    narrow(ctx, in_min, in_max, out_min, out_max);
    return TFPI_OK;
}

static tfpi_code requantize_run(tp_op_ctx *ctx) { return narrow_run(ctx, false); }
static tfpi_code shrink_run(tp_op_ctx *ctx) { return narrow_run(ctx, true); }

const tp_kernel tp_kernels_quantized_requantize[] = {
    TP_KERNEL("RequantizationRange", range_prepare, range_run, NULL, TP_OUTPUTS(2)),
    TP_KERNEL("Requantize", requantize_prepare, requantize_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizeDownAndShrinkRange", shrink_prepare, shrink_run, NULL, TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
