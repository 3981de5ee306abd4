/* tflite_graph.h - a checked .tflite subgraph as tfpi NodeDefs, following
 * compute/tflite_node.h: inputs become Placeholders, constant tensors
 * ImmutableConst nodes that read their buffer in place (region
 * TP_TFL_REGION_PREFIX<buffer>), variable tensors zeros, float operators
 * that a TensorFlow op computes the same way that op (tflite_float_ops.c),
 * every other operator one node named by its builtin (or custom) name with
 * its options and quantization as attributes.
 *
 * Each tensor of the subgraph gets a graph tensor name ("node" or
 * "node:k"): the node is named after the tensor (its name up to the first
 * ';', without a ":k" suffix, made a valid node name and unique), so
 * `serving_default_input:0` feeds the input it names. */
#ifndef TFPI_TFLITE_GRAPH_H
#define TFPI_TFLITE_GRAPH_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "graph/name_map.h"
#include "graph/node_build.h"
#include "model/tflite_schema.h"

#define TP_TFL_REGION_PREFIX "tflite_buffer_"
/* The name and op of the node an absent optional input comes from
 * (compute/tflite_node.h). */
#define TP_TFL_NO_VALUE "TFLiteNoValue"

typedef struct tp_tfl_translator {
    const tp_tfl_model *m;
    const tp_tfl_subgraph *g;
    tp_node_list nodes;
    char **tensor_names; /* per tensor: its graph tensor name, NULL until made */
    const char **reserved; /* per tensor: the node name kept for it (subgraph outputs) */
    tp_name_map taken;   /* node names in use (keys in `names`) */
    char **names;
    size_t num_names, cap_names;
    bool no_value; /* the TFLiteNoValue node exists */
    const char **effects; /* CALL_ONCE and HASHTABLE_IMPORT nodes so far, in order (names in `names`) */
    size_t num_effects, cap_effects;
    const char *source;
    tfpi_status *status;
} tp_tfl_translator;

/* One operator being translated. */
typedef struct tp_tfl_op {
    tp_tfl_translator *x;
    const tp_tfl_operator *op;
    int index;
    int32_t builtin;   /* the builtin code (CUSTOM for custom operators) */
    const char *name;  /* node name reserved for the tensor of output 0 */
} tp_tfl_op;

/* Translates subgraph `subgraph` of m into x->nodes (x is set up here and
 * freed by tp_tfl_translator_free). */
tfpi_code tp_tfl_translate(tp_tfl_translator *x, const tp_tfl_model *m, int subgraph, const char *source,
                           tfpi_status *status);
/* The same for a function body (tflite_functions.c): the subgraph's inputs
 * are the arguments arg0, arg1, ... instead of Placeholders. */
tfpi_code tp_tfl_translate_body(tp_tfl_translator *x, const tp_tfl_model *m, int subgraph, const char *source,
                                tfpi_status *status);
void tp_tfl_translator_free(tp_tfl_translator *x);

/* ---- used by the operator translations ---- */
/* The graph tensor of tensor index t (-1: the absent-input node), making
 * its constant or zeros node on first use; NULL with status set. */
const char *tp_tfl_input(tp_tfl_translator *x, int32_t t);
/* A new unique node name "<base>/<suffix>"; NULL if out of memory. */
const char *tp_tfl_fresh_name(tp_tfl_translator *x, const char *base, const char *suffix);
/* Appends node name = op(inputs[0..n)); the list owns it. NULL (status
 * set) if memory runs out. */
Tfpi__NodeDef *tp_tfl_emit(tp_tfl_translator *x, const char *name, const char *op, const char *const *inputs,
                           int n);
/* Sets attribute key of def (taking value); false (status set) if memory runs out. */
bool tp_tfl_attr(tp_tfl_translator *x, Tfpi__NodeDef *def, const char *key, Tfpi__AttrValue *value);
/* Attributes q_<role><i>_scale / _zero_point / _dim of a quantized tensor
 * (none if q is empty); false (status set) if memory runs out. */
bool tp_tfl_quant_attrs(tp_tfl_translator *x, Tfpi__NodeDef *def, const char *role, int i, const tp_tfl_quant_params *q);
/* A Const node named "<base>/<suffix>" holding int32 values[0..n) (a
 * vector; scalar: one value of shape []); its name, or NULL. */
const char *tp_tfl_const_i32(tp_tfl_translator *x, const char *base, const char *suffix, const int32_t *values,
                             int n, bool scalar);
/* The same for a float scalar. */
const char *tp_tfl_const_f32(tp_tfl_translator *x, const char *base, const char *suffix, float value);
/* Output k of node `node` is tensor t. */
tfpi_code tp_tfl_set_output(tp_tfl_translator *x, int32_t t, const char *node, int k);
/* Records node `name` as an effect (a CALL_ONCE or HASHTABLE_IMPORT: what
 * later table operators wait for); false (status set) if memory runs out. */
bool tp_tfl_add_effect(tp_tfl_translator *x, const char *name);
/* Control inputs on def from every effect recorded so far. */
bool tp_tfl_after_effects(tp_tfl_translator *x, Tfpi__NodeDef *def);
/* An error naming the operator. */
tfpi_code tp_tfl_op_fail(const tp_tfl_op *o, tfpi_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The schema name of the operator ("CONV_2D", or the custom code). */
const char *tp_tfl_op_name(const tp_tfl_op *o);

/* Translates o as TensorFlow ops if it is a float operator one computes
 * the same way: *handled false leaves it to the builtin node. */
tfpi_code tp_tfl_float_op(tp_tfl_op *o, bool *handled);

#endif
