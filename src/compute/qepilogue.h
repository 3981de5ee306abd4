/* qepilogue.h - the nodes after an 8-bit product that QuantizedConv2D and
 * QuantizedMatMul take over (their tp_absorb_fn), and after a QuantizeV2
 * to quint8 that it takes over: Requantize to quint8 of a requested range
 * known while planning, QuantizedBiasAdd of a bias and bias range known
 * while planning, QuantizedRelu and
 * QuantizedRelu6 of quint8, and a final Dequantize MIN_FIRST of quint8, in
 * the order TF's quantize_nodes writes them. Each run works out the chain's
 * ranges from the producer's exactly as the nodes would (same inputs read,
 * same errors, range outputs written), then takes the producer's rows
 * (qint32 sums, or quint8 codes) through the nodes' own loops
 * (quantized_steps.h) a few rows at a time, while they are in cache, into
 * the last node's output. A QuantizedBiasAdd of quint8 codes, the
 * Requantize after it and a QuantizedRelu after that are one function of
 * each channel's 256 input codes: they run as one table per channel, made
 * again only when the run's ranges change (never, once they are frozen).
 * The bytes are those of the nodes run one by one, without their
 * whole-tensor passes. */
#ifndef TFPI_QEPILOGUE_H
#define TFPI_QEPILOGUE_H

#include "compute/quantized_steps.h"

enum { TP_QEPILOGUE_MAX_STEPS = 8 };

typedef enum tp_qstep_kind { TP_QSTEP_REQUANTIZE, TP_QSTEP_BIAS_ADD, TP_QSTEP_RELU, TP_QSTEP_DEQUANTIZE } tp_qstep_kind;

typedef struct tp_qstep {
    tp_qstep_kind kind;
    tp_op_ctx *node; /* the absorbed node: its inputs and outputs */
    float top;       /* relu: 6 or NAN */
    /* this run's parameters */
    tp_q_requantizer requantizer;
    tp_q_bias_add bias; /* bias.biases allocated when absorbed */
    uint8_t low, high;
    tp_q_dequantizer dequantizer;
} tp_qstep;

/* Steps [first, first + count) as one table: codes[channel * 256 + x]. */
typedef struct tp_qtable {
    int first, count;
    uint8_t *codes;      /* channels x 256 */
    uint8_t key[64];     /* the parameters the table was made for */
    bool made;
} tp_qtable;

typedef struct tp_qepilogue {
    int num_steps;
    tp_qstep steps[TP_QEPILOGUE_MAX_STEPS];
    tp_qtable table; /* count 0: none */
    tp_op_ctx *last; /* the producer, then the last absorbed node */
    int64_t channels; /* the producer's last dimension */
    size_t in_size;   /* bytes of one of the producer's values */
} tp_qepilogue;

/* The producer's tp_absorb_fn work (ctx: the producer, with qint32 or
 * quint8 output 0): TFPI_OK if next is one of the nodes above, reading the
 * last node's outputs 0, 1, 2 as its tensor and range. */
tfpi_code tp_qepilogue_absorb(tp_qepilogue *e, tp_op_ctx *ctx, tp_op_ctx *next);

/* This run's parameters, after the producer wrote its range (outputs 1, 2);
 * fails as the absorbed node would. */
tfpi_code tp_qepilogue_begin(tp_qepilogue *e);

/* Row bytes of scratch tp_qepilogue_rows needs. */
int64_t tp_qepilogue_scratch_bytes(const tp_qepilogue *e);

/* Takes `rows` rows of the producer's values (channels per row, in the
 * producer's type, contiguous from `in`) through the steps into the last
 * node's output 0 from row first_row on. */
void tp_qepilogue_rows(const tp_qepilogue *e, const void *in, int64_t first_row, int64_t rows, void *scratch);

void tp_qepilogue_free(tp_qepilogue *e);

#endif
