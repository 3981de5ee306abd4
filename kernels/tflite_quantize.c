/* tflite_quantize.c - TensorFlow Lite's QUANTIZE and DEQUANTIZE
 * (tflite-micro: reference/quantize.h, requantize.h, dequantize.h and
 * quantize_common.cc):
 *  - QUANTIZE of float: round(x / scale) (float division, half away from
 *    zero) + zero point, clamped to the output type's codes; NaN gives the
 *    zero point (what TFLite's float-to-int conversion does on ARM).
 *  - QUANTIZE of uint8 / int8 codes (requantize, uint8 <-> int8 too): the
 *    code less the input zero point times in_scale / out_scale (TFLite's
 *    multiplier and rounding), plus the output zero point, clamped: made
 *    for each of the 256 input codes while planning, a table lookup when
 *    run.
 *  - DEQUANTIZE of uint8, int8 or int16: scale x (q - zero point), in
 *    double and rounded once to float for a per-tensor scale, in float for
 *    per-channel scales (slices along the quantized dimension; the int8
 *    weights of hybrid models); of float16 (weights in float16 models):
 *    the exact float. */
#include <math.h>
#include <stdlib.h>

#include "compute/binary16.h"
#include "compute/tflite_node.h"

typedef struct quantize_state {
    tp_tfl_qparams out;
    tp_tfl_qparams in;       /* requantize */
    tp_tfl_multiplier mult;  /* requantize */
    uint8_t codes[256];      /* requantize: the output code of each input byte */
} quantize_state;

static void state_release(void *state) { free(state); }

static int32_t clamp_code(int32_t v, const tp_tfl_qparams *q) { return v < q->qmin ? q->qmin : v > q->qmax ? q->qmax : v; }

static tfpi_code quantize_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 1, 1)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, true)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    const tfpi_dtype out_dtype = tp_tfl_output_dtype(ctx);
    if (out_dtype != TFPI_UINT8 && out_dtype != TFPI_INT8)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "output type %s; this kernel quantizes to uint8 and int8",
                       tfpi_dtype_name(out_dtype));
    if ((code = tp_set_output(ctx, 0, out_dtype, in->ndims, in->dims)) != TFPI_OK)
        return code;
    quantize_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if ((code = tp_tfl_qparams_of(ctx, "out", 0, &s->out)) != TFPI_OK)
        return code;
    if (in->dtype == TFPI_FLOAT)
        return TFPI_OK;
    if ((code = tp_tfl_qparams_of(ctx, "in", 0, &s->in)) != TFPI_OK)
        return code;
    const double m = (double)s->in.scale / (double)s->out.scale;
    if (!tp_tfl_quantize_multiplier(m, &s->mult))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the requantizing multiplier %g is out of range", m);
    for (int byte = 0; byte < 256; byte++) {
        const int32_t x = in->dtype == TFPI_INT8 ? (int8_t)byte : byte;
        s->codes[byte] = (uint8_t)clamp_code(tp_tfl_multiply(x - s->in.zero_point, s->mult) + s->out.zero_point,
                                             &s->out); /* an int8 code's byte is its low byte */
    }
    return TFPI_OK;
}

/* round(x / scale) + zero point as TFLite computes it, defined for every x. */
static int32_t quantize_float(float x, const tp_tfl_qparams *q)
{
    const float steps = roundf(x / q->scale);
    if (steps != steps)
        return clamp_code(q->zero_point, q);
    if (steps <= -4e9f)
        return q->qmin;
    if (steps >= 4e9f)
        return q->qmax;
    const int64_t v = (int64_t)steps + q->zero_point;
    return v < q->qmin ? q->qmin : v > q->qmax ? q->qmax : (int32_t)v;
}

static int32_t code_at(const tfpi_tensor *t, int64_t i)
{
    return t->dtype == TFPI_INT8 ? ((const int8_t *)t->data)[i] : ((const uint8_t *)t->data)[i];
}

static tfpi_code quantize_run(tp_op_ctx *ctx)
{
    const quantize_state *s = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    uint8_t *out = ctx->outputs[0].data; /* an int8 code's byte is its low byte */
    const int64_t n = tp_num_elements(in);
    if (in->dtype == TFPI_FLOAT) {
        const float *x = in->data;
        for (int64_t i = 0; i < n; i++)
            out[i] = (uint8_t)quantize_float(x[i], &s->out);
        return TFPI_OK;
    }
    const uint8_t *codes = in->data;
    for (int64_t i = 0; i < n; i++)
        out[i] = s->codes[codes[i]];
    return TFPI_OK;
}

/* ---- DEQUANTIZE ---- */

typedef struct dequantize_state {
    tp_tfl_quant q;
    int64_t inner; /* elements per step of the quantized dimension (per channel) */
} dequantize_state;

static tfpi_code dequantize_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 1, 1)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->dtype != TFPI_UINT8 && in->dtype != TFPI_INT8 && in->dtype != TFPI_INT16 && in->dtype != TFPI_HALF)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input 0 is %s; this kernel dequantizes uint8, int8, int16 and half",
                       tfpi_dtype_name(in->dtype));
    if ((code = tp_set_output(ctx, 0, TFPI_FLOAT, in->ndims, in->dims)) != TFPI_OK)
        return code;
    dequantize_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if (in->dtype == TFPI_HALF)
        return TFPI_OK;
    if (!tp_tfl_quant_of(ctx->def, "in", 0, &s->q))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 0 has no quantization");
    if (s->q.count == 1) {
        tp_tfl_qparams q;
        return tp_tfl_qparams_of(ctx, "in", 0, &q);
    }
    if (s->q.dim >= in->ndims || in->dims[s->q.dim] != s->q.count)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%lld scales, but dimension %d of the input has %lld slices",
                       (long long)s->q.count, s->q.dim, (long long)(s->q.dim < in->ndims ? in->dims[s->q.dim] : 0));
    int32_t qmin, qmax;
    tp_tfl_code_range(in->dtype, &qmin, &qmax);
    for (int64_t c = 0; c < s->q.count; c++)
        if (!(s->q.scale[c] > 0.0f) || !isfinite(s->q.scale[c]) || s->q.zero_point[c] < qmin ||
            s->q.zero_point[c] > qmax)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "slice %lld has scale %g and zero point %lld", (long long)c,
                           (double)s->q.scale[c], (long long)s->q.zero_point[c]);
    s->inner = 1;
    for (int d = s->q.dim + 1; d < in->ndims; d++)
        s->inner *= in->dims[d];
    return TFPI_OK;
}

static int32_t int_at(const tfpi_tensor *t, int64_t i)
{
    return t->dtype == TFPI_INT16 ? ((const int16_t *)t->data)[i] : code_at(t, i);
}

static tfpi_code dequantize_run(tp_op_ctx *ctx)
{
    const dequantize_state *s = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    float *out = ctx->outputs[0].data;
    const int64_t n = tp_num_elements(in);
    if (in->dtype == TFPI_HALF) {
        const uint16_t *h = in->data;
        for (int64_t i = 0; i < n; i++)
            out[i] = tp_half_to_float(h[i]);
    } else if (s->q.count == 1) {
        const double scale = s->q.scale[0];
        const int32_t zero = (int32_t)s->q.zero_point[0];
        for (int64_t i = 0; i < n; i++)
            out[i] = (float)(scale * (int_at(in, i) - zero));
    } else {
        for (int64_t i = 0; i < n; i++) {
            const int64_t c = i / s->inner % s->q.count;
            out[i] = s->q.scale[c] * (float)(int_at(in, i) - (int32_t)s->q.zero_point[c]);
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_quantize[] = {
    TP_KERNEL("QUANTIZE", quantize_prepare, quantize_run, state_release, TP_TFLITE_OP),
    TP_KERNEL("DEQUANTIZE", dequantize_prepare, dequantize_run, state_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
