/* quantized_steps.h - the run-time work of the 8-bit elementwise ops that
 * follow a product (../shared/docs/quantized.md 2, 3.3, 3.4, 3.8): reading
 * and checking their ranges, the range they output, and their per-element
 * loops. Written once for their kernels (kernels/quantized_*.c,
 * kernels/quantization.c) and for the chains a QuantizedConv2D or
 * QuantizedMatMul takes over (qepilogue.h), so both give the same bytes and
 * the same errors. The loops are written so -O2 vectorizes them. */
#ifndef TFPI_QUANTIZED_STEPS_H
#define TFPI_QUANTIZED_STEPS_H

#include "compute/quantized_args.h"

/* Requantize's four range bounds (inputs 1-4): the input's and the
 * requested output's, which must have min <= 0. */
tfpi_code tp_q_requantize_ranges(tp_op_ctx *ctx, float *in_min, float *in_max, float *out_min, float *out_max);

/* QuantizedBiasAdd with its bias (input 1) and ranges read: both operands
 * as qint32 codes of the output range (-M, M). */
typedef struct tp_q_bias_add {
    uint32_t codes[256]; /* each input byte's qint32 code (qint8: the byte as two's complement) */
    uint32_t *biases;    /* [channels]: each bias's qint32 code plus the output's zero code */
    int64_t channels;
    float min, max; /* the output range */
    /* codes[q] as float arithmetic the compiler vectorizes, where that was
     * checked to give every one of the 256 codes (quint8 inputs) */
    bool arithmetic;
    float in_scale, in_base, out_scale;
    int32_t out_offset;
    bool filled;      /* b holds the tables of these ranges (input's, bias's) */
    float ranges[4];
} tp_q_bias_add;
/* Fills b (b->biases holding b->channels slots, b->filled false or for the
 * same bias values) from the node's inputs and writes its range outputs;
 * a b filled for the same ranges is kept as it is. */
tfpi_code tp_q_bias_add_begin(tp_op_ctx *ctx, tp_q_bias_add *b);
/* out[i] = codes[x[i]] + biases[i % channels] over rows of channels (n a
 * multiple of channels). */
void tp_q_bias_add_rows(const tp_q_bias_add *b, const uint8_t *restrict x, int32_t *restrict out, int64_t n);

/* QuantizedRelu/Relu6/ReluX: the range at inputs range_input and +1 passes
 * through to outputs 1, 2; codes are kept within [*low, *high], the codes
 * of 0 and of top (NAN: no top). */
tfpi_code tp_q_relu_begin(tp_op_ctx *ctx, int range_input, float top, int64_t *low, int64_t *high);
/* out[i] = x[i] clamped to [low, high]. */
void tp_q_clamp_u8(const uint8_t *restrict x, uint8_t low, uint8_t high, uint8_t *restrict out, int64_t n);

/* Dequantize MIN_FIRST (Dequantize-E) of quint8 codes. */
void tp_q_dequantize_many_u8(const tp_q_dequantizer *dq, const uint8_t *restrict q, float *restrict out, int64_t n);

#endif
