/* tflite_lstm_integer.h - TensorFlow Lite's fully integer LSTM (the
 * "8x8_16" UNIDIRECTIONAL_SEQUENCE_LSTM its converter writes: int8 input,
 * output and weights, int32 biases, int16 cell state, peephole and
 * layer-norm weights, int8 output state, five intermediates), computed as
 * TFLite's reference does (lstm.cc PopulateQuantizedLstmParams8x8_16 and
 * PopulatePrecomputedZPTimesWeightsWithBias, lstm_eval.cc
 * EvalInteger8x8_16, portable_tensor_utils), bit for bit.
 * kernels/tflite_lstm.c checks the shapes and calls these when input 0 is
 * int8; its header comment lists the inputs. */
#ifndef TFPI_TFLITE_LSTM_INTEGER_H
#define TFPI_TFLITE_LSTM_INTEGER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* The sizes and the variant of an LSTM node, its shapes already checked. */
typedef struct tp_tfl_lstm_shape {
    int64_t time, batch, n_in, n_cell, n_out;
    bool time_major, cifg, peephole, projection, layer_norm;
} tp_tfl_lstm_shape;

/* Checks the types and quantizations of the integer LSTM, works out its
 * multipliers, clips and zero-point-folded biases into *state (freed by
 * tp_tfl_lstm_integer_release, also after an error) and sets output 0
 * (int8). An error naming the input, intermediate or option otherwise. */
tfpi_code tp_tfl_lstm_integer_prepare(tp_op_ctx *ctx, const tp_tfl_lstm_shape *shape, void **state);
/* Runs the sequence from the states of inputs 18 and 19 into output 0. */
tfpi_code tp_tfl_lstm_integer_run(tp_op_ctx *ctx, const void *state);
void tp_tfl_lstm_integer_release(void *state);

#endif
