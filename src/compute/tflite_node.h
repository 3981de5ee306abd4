/* tflite_node.h - how a TensorFlow Lite operator appears in tfpi's graph,
 * the convention between the .tflite reader (src/model/) and the kernels
 * of TFLite operators (kernels/tflite_*.c), and the readers kernels use.
 *
 * The reader turns each operator of a .tflite subgraph into NodeDefs:
 *  - A float operator that a TensorFlow op computes the same way becomes
 *    that op (CONV_2D -> Conv2D, its bias and fused activation fused by the
 *    planner), so float models run on the same kernels as frozen graphs;
 *    so does an operator that only moves elements (RESHAPE, SQUEEZE,
 *    EXPAND_DIMS, TRANSPOSE, GATHER, GATHER_ND, STRIDED_SLICE, SLICE, PACK,
 *    UNPACK, SPLIT, SPLIT_V, SPACE_TO_DEPTH, DEPTH_TO_SPACE, TILE,
 *    REVERSE_V2, EMBEDDING_LOOKUP, BROADCAST_TO, MIRROR_PAD,
 *    BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND (padding with the zero point's
 *    code), SELECT, SELECT_V2), or compares them (EQUAL,
 *    NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL) or converts
 *    them as TFLite's CAST does (the codes as values), on quantized
 *    tensors that share one scale and zero point: the TF op on the codes
 *    gives what TFLite gives; and SHAPE and RANK of any tensor.
 *  - The HASHTABLE operators become TF's lookup-table nodes, but for
 *    HASHTABLE_IMPORT (TFLite's rule for a key given twice); a subgraph's
 *    table operators wait, through control inputs, for the CALL_ONCE and
 *    HASHTABLE_IMPORT operators before them (model/tflite_hashtable.c).
 *  - Every other operator (each one on quantized tensors, and those
 *    TensorFlow has no op for) becomes ONE node whose op is the builtin's
 *    name in TFLite's schema ("CONV_2D", "DEPTHWISE_CONV_2D", "ADD",
 *    "QUANTIZE", ...) or the custom operator's own name
 *    ("TFLite_Detection_PostProcess"), with the operator's inputs in the
 *    file's order. An optional input the file leaves out (-1) is an input
 *    from the graph's one node named and typed TP_TFL_NO_VALUE, whose
 *    output is an empty float tensor of shape [0] (tp_tfl_input_absent
 *    tells; trailing absent inputs may also be left off).
 *  - Tensor types map one to one: FLOAT32 -> TFPI_FLOAT, UINT8 ->
 *    TFPI_UINT8, INT8 -> TFPI_INT8, INT16 -> TFPI_INT16, INT32 ->
 *    TFPI_INT32, INT64 -> TFPI_INT64, BOOL -> TFPI_BOOL, STRING ->
 *    TFPI_STRING (quantized tensors keep their plain integer types; the
 *    TF types qint8/quint8 are TensorFlow's own 8-bit graphs).
 *  - The builtin options table becomes attributes named as the schema's
 *    fields ("stride_w", "stride_h", "dilation_w_factor", "depth_multiplier",
 *    "keep_num_dims", "align_corners", "half_pixel_centers", "beta", ...):
 *    integers and bools as int/bool attributes, floats as float, enums as
 *    the schema's name of the value in a string attribute ("padding":
 *    "SAME" / "VALID"; "fused_activation_function": "NONE", "RELU",
 *    "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"), vectors as lists. A
 *    custom operator's FlexBuffer map becomes attributes the same way.
 *  - The quantization of each quantized input i and output j is three
 *    attributes, "q_in<i>_scale" (list of float), "q_in<i>_zero_point"
 *    (list of int) and "q_in<i>_dim" (int, the quantized_dimension), and
 *    the same with "q_out<j>_"; one scale means per tensor, more mean one
 *    per slice along dim. A tensor without quantization has none of them.
 *  - An operator's intermediates (the tensors whose quantization gives the
 *    gates' scales of an integer LSTM) are "num_intermediates" (int,
 *    absent when there are none) and the quantization of intermediate k
 *    as "q_im<k>_scale" / "_zero_point" / "_dim".
 *  - A variable tensor without data (an LSTM's state) is the tensor
 *    filled as TFLite resets it: zeros, or an int8 tensor's zero point.
 *  - "T" gives the dtype of output 0, so the signature checks and
 *    summaries see it like any TF node's, and "builtin_code" (int) the
 *    operator's BuiltinOperator code (32, CUSTOM, for custom operators):
 *    a node with one is a TFLite operator's.
 * Kernels read these only through the functions below, so the reader and
 * the kernels agree in one place. */
#ifndef TFPI_TFLITE_NODE_H
#define TFPI_TFLITE_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "compute/tflite_fixed_point.h"
#include "model/tflite_graph.h" /* TP_TFL_NO_VALUE: the node an absent optional input comes from */

/* A tensor's quantization: count scales and zero points (1: per tensor;
 * more: per slice along dim). The arrays point into the node's attributes. */
typedef struct tp_tfl_quant {
    int64_t count;
    const float *scale;
    const int64_t *zero_point;
    int dim;
} tp_tfl_quant;

/* The quantization of input i ("in") or output i ("out") of the node; false
 * if the tensor has none, or its attributes disagree (different counts, no
 * scale): then *q is zeroed. */
bool tp_tfl_quant_of(const Tfpi__NodeDef *def, const char *role, int i, tp_tfl_quant *q);

/* Input i's quantization, per tensor: one scale > 0 and finite, one zero
 * point within the codes of its dtype. An error naming the input otherwise. */
tfpi_code tp_tfl_expect_per_tensor(tp_op_ctx *ctx, const char *role, int i, tp_tfl_quant *q);

/* True if input i is an optional input the file left out. */
bool tp_tfl_input_absent(const tp_op_ctx *ctx, int i);

/* The node's "fused_activation_function" (absent: NONE); an error for a
 * name that is not one of the schema's. */
tfpi_code tp_tfl_activation_of(tp_op_ctx *ctx, tp_tfl_activation *act);

/* The lowest and highest code of an integer dtype (uint8, int8, int16,
 * int32); false for any other. */
bool tp_tfl_code_range(tfpi_dtype dtype, int32_t *qmin, int32_t *qmax);

/* A tensor quantized per tensor, as a kernel of 8-bit (or 16-bit) codes
 * uses it: its scale, zero point and the codes of its dtype. */
typedef struct tp_tfl_qparams {
    float scale;
    int32_t zero_point;
    int32_t qmin, qmax;
} tp_tfl_qparams;

/* Input i ("in") or output i ("out", whose dtype is set already) as a
 * uint8, int8 or int16 tensor quantized per tensor (int16: zero point 0):
 * an error naming the tensor otherwise. */
tfpi_code tp_tfl_qparams_of(tp_op_ctx *ctx, const char *role, int i, tp_tfl_qparams *q);

/* The dtype of output 0: the node's "T", or input 0's if it has none. */
tfpi_dtype tp_tfl_output_dtype(const tp_op_ctx *ctx);

/* Input i's dtype is one the kernel handles: uint8 or int8 (or float
 * where float_too); an error naming the input otherwise. */
tfpi_code tp_tfl_expect_8bit(tp_op_ctx *ctx, int i, bool float_too);

/* One input (uint8, int8 or float) of rank >= 1, seen as rows along its
 * last dimension (SOFTMAX, L2_NORMALIZATION): *depth their length, *rows
 * how many. */
tfpi_code tp_tfl_expect_rows(tp_op_ctx *ctx, int64_t *depth, int64_t *rows);

/* One input of a type tp_tfl_expect_8bit accepts, and output 0 of its
 * type (which the node's T must agree with) and shape. */
tfpi_code tp_tfl_prepare_elementwise(tp_op_ctx *ctx, bool float_too);

#endif
