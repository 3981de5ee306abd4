/* quantized_steps.c - the run-time work of Requantize, QuantizedBiasAdd,
 * the quantized Relus and Dequantize (see quantized_steps.h). */
#include "compute/quantized_steps.h"

#include <math.h>
#include <string.h>

enum { BLOCK = 64 }; /* a fixed trip count lets -O2 vectorize the loops */

tfpi_code tp_q_requantize_ranges(tp_op_ctx *ctx, float *in_min, float *in_max, float *out_min, float *out_max)
{
    tfpi_code code = tp_q_read_range(ctx, 1, 2, "the input", in_min, in_max);
    if (code == TFPI_OK)
        code = tp_q_read_range(ctx, 3, 4, "the requested output", out_min, out_max);
    if (code == TFPI_OK && *out_min > 0.0f)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "requested_output_min %g must be <= 0", (double)*out_min);
    return code;
}

/* tp_q_quantize_e(to_out, tp_q_dequantize_e(from_in, q)) step by step,
 * for an s = dequantized * out_scale known to lie within +-1e9 (so that
 * the conversion is defined and no clamp is needed). */
static inline int32_t widened_code(uint8_t q, float in_scale, float in_base, float out_scale, int32_t out_offset)
{
    float s = (float)((float)(in_base + (float)((float)q * in_scale)) * out_scale);
    int32_t whole = (int32_t)s;
    float fraction = (float)(s - (float)whole);
    return whole + (fraction >= 0.5f) - (fraction <= -0.5f) - out_offset;
}

/* Whether widened_code gives codes[q] for every quint8 q, its scaled
 * values inside +-1e9 (else the table stays in use). */
static bool arithmetic_matches(const tp_q_bias_add *b, const tp_q_dequantizer *from_in, const tp_q_quantizer *to_out)
{
    if (!(fabsf(to_out->offset) < 1048576.0f))
        return false;
    for (int q = 0; q < 256; q++) {
        float s = (float)(tp_q_dequantize_e(from_in, q) * to_out->scale);
        if (!(fabsf(s) < 1e9f) ||
            (uint32_t)widened_code((uint8_t)q, from_in->scale, from_in->base, to_out->scale, (int32_t)to_out->offset) !=
                b->codes[q])
            return false;
    }
    return true;
}

tfpi_code tp_q_bias_add_begin(tp_op_ctx *ctx, tp_q_bias_add *b)
{
    float in_min, in_max, b_min, b_max;
    tfpi_code code;
    if ((code = tp_q_read_range(ctx, 2, 3, "the input", &in_min, &in_max)) != TFPI_OK ||
        (code = tp_q_read_range(ctx, 4, 5, "the bias", &b_min, &b_max)) != TFPI_OK)
        return code;
    const float ranges[4] = {in_min, in_max, b_min, b_max};
    if (b->filled && memcmp(ranges, b->ranges, sizeof ranges) == 0) { /* frozen ranges: as last run */
        tp_q_write_range(ctx, 1, b->min, b->max);
        return TFPI_OK;
    }
    const tfpi_tensor *bias = ctx->inputs[1];
    const tp_qtype *t_in = tp_qtype_of(ctx->inputs[0]->dtype), *t_bias = tp_qtype_of(bias->dtype);
    const tp_qtype *i32 = tp_qtype_of(TFPI_QINT32);
    float m = (float)(fmaxf(fmaxf(in_max, -in_min), fmaxf(b_max, -b_min)) * 131072.0f);
    tp_q_quantizer to_out = tp_q_quantizer_make(-m, m, i32);
    tp_q_dequantizer from_in = tp_q_dequantizer_make(in_min, in_max, t_in);
    tp_q_dequantizer from_bias = tp_q_dequantizer_make(b_min, b_max, t_bias);
    const uint32_t zero = (uint32_t)tp_q_f2q(0.0, -m, m, i32);
    for (int byte = 0; byte < 256; byte++) { /* an 8-bit input has 256 codes */
        int64_t q = t_in->lo < 0 ? (int8_t)(uint8_t)byte : byte;
        b->codes[byte] = (uint32_t)tp_q_quantize_e(&to_out, tp_q_dequantize_e(&from_in, q));
    }
    for (int64_t c = 0; c < b->channels; c++)
        b->biases[c] =
            (uint32_t)tp_q_quantize_e(&to_out, tp_q_dequantize_e(&from_bias, tp_qcode_get(t_bias, bias->data, c))) +
            zero;
    b->min = -m;
    b->max = m;
    b->arithmetic = t_in->lo == 0 && arithmetic_matches(b, &from_in, &to_out);
    b->in_scale = from_in.scale;
    b->in_base = from_in.base;
    b->out_scale = to_out.scale;
    b->out_offset = b->arithmetic ? (int32_t)to_out.offset : 0;
    memcpy(b->ranges, ranges, sizeof ranges);
    b->filled = true;
    tp_q_write_range(ctx, 1, -m, m);
    return TFPI_OK;
}

void tp_q_bias_add_rows(const tp_q_bias_add *b, const uint8_t *restrict x, int32_t *restrict out, int64_t n)
{
    const float in_scale = b->in_scale, in_base = b->in_base, out_scale = b->out_scale;
    const int32_t out_offset = b->out_offset;
    const bool wide = b->channels >= BLOCK; /* rows hold whole blocks: one pass; else codes first, biases after */
    int64_t i = 0;
    for (; b->arithmetic && !wide && i + BLOCK <= n; i += BLOCK)
        for (int j = 0; j < BLOCK; j++)
            out[i + j] = widened_code(x[i + j], in_scale, in_base, out_scale, out_offset);
    for (; !wide && i < n; i++)
        out[i] = (int32_t)b->codes[x[i]];
    for (i = 0; b->channels && i < n; i += b->channels) {
        int64_t c = 0;
        for (; b->arithmetic && wide && c + BLOCK <= b->channels; c += BLOCK)
            for (int j = 0; j < BLOCK; j++)
                out[i + c + j] = (int32_t)((uint32_t)widened_code(x[i + c + j], in_scale, in_base, out_scale,
                                                                  out_offset) +
                                           b->biases[c + j]);
        for (; wide && c < b->channels; c++)
            out[i + c] = (int32_t)(b->codes[x[i + c]] + b->biases[c]);
        for (; c < b->channels; c++)
            out[i + c] = (int32_t)((uint32_t)out[i + c] + b->biases[c]);
    }
}

tfpi_code tp_q_relu_begin(tp_op_ctx *ctx, int range_input, float top, int64_t *low, int64_t *high)
{
    float min, max;
    tfpi_code code = tp_q_read_range(ctx, range_input, range_input + 1, "the features", &min, &max);
    if (code != TFPI_OK)
        return code;
    const tp_qtype *t = tp_qtype_of(ctx->inputs[0]->dtype);
    *low = tp_q_f2q(0.0, min, max, t);
    *high = isnan(top) ? t->hi : tp_q_f2q(top, min, max, t);
    tp_q_write_range(ctx, 1, min, max);
    return TFPI_OK;
}

void tp_q_clamp_u8(const uint8_t *restrict x, uint8_t low, uint8_t high, uint8_t *restrict out, int64_t n)
{
    int64_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK)
        for (int j = 0; j < BLOCK; j++) {
            uint8_t v = x[i + j] < low ? low : x[i + j];
            out[i + j] = v > high ? high : v;
        }
    for (; i < n; i++)
        out[i] = x[i] < low ? low : x[i] > high ? high : x[i];
}

void tp_q_dequantize_many_u8(const tp_q_dequantizer *dq, const uint8_t *restrict q, float *restrict out, int64_t n)
{
    const float scale = dq->scale, base = dq->base; /* tp_q_dequantize_e, step by step */
    int64_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK)
        for (int j = 0; j < BLOCK; j++)
            out[i + j] = (float)(base + (float)((float)q[i + j] * scale));
    for (; i < n; i++)
        out[i] = tp_q_dequantize_e(dq, q[i]);
}
