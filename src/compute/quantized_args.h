/* quantized_args.h - what the 8-bit kernels (kernels/quantized_*.c) share
 * about their arguments: every quantized tensor travels with two float
 * scalars, its min and max, as separate inputs and outputs. Checking those
 * inputs while planning, reading them at run time (a NaN, infinite or
 * inverted range is an error naming the node), and setting the outputs. */
#ifndef TFPI_QUANTIZED_ARGS_H
#define TFPI_QUANTIZED_ARGS_H

#include "kernel/kernel.h"
#include "compute/quantize_math.h"

/* Inputs [first, first + count) must be float tensors of one element. */
tfpi_code tp_q_expect_scalars(tp_op_ctx *ctx, int first, int count);
/* Input `input` must be quint8, qint8, quint16, qint16 or qint32; *type
 * receives its tp_qtype. */
tfpi_code tp_q_expect_quantized(tp_op_ctx *ctx, int input, const tp_qtype **type);

/* The inputs of the two-operand ops (conv, matmul, mul, add): quint8 x,
 * quint8 y, then their four range bounds; attr `out_attr` (the output
 * type) must be qint32 if present. */
tfpi_code tp_q_expect_two_quint8(tp_op_ctx *ctx, const char *out_attr);

/* The float value of scalar input i. */
float tp_q_scalar(const tp_op_ctx *ctx, int input);
/* Reads the range held by inputs min_input and max_input; fails naming the
 * node and `what` unless both are finite and min <= max. */
tfpi_code tp_q_read_range(tp_op_ctx *ctx, int min_input, int max_input, const char *what, float *min,
                          float *max);

/* Output 0 gets this type and shape, outputs 1 and 2 (where the graph uses
 * them) are float scalars; fails if the graph uses more than 3 outputs. */
tfpi_code tp_q_prepare_outputs(tp_op_ctx *ctx, tfpi_dtype dtype, int ndims, const int64_t *dims);
/* Writes min and max into outputs first and first + 1 where used. */
void tp_q_write_range(tp_op_ctx *ctx, int first, float min, float max);

#endif
