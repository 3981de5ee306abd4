/* tflite_functions.h - the subgraphs a .tflite's WHILE, IF, CALL_ONCE and
 * CALL operators run, as a TensorFlow function library the graph builder
 * inlines and lowers (graph/function_expand.h). */
#ifndef TFPI_TFLITE_FUNCTIONS_H
#define TFPI_TFLITE_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "model/tflite_graph.h"

/* Function i is subgraph i. */
#define TP_TFL_FUNCTION_PREFIX "tflite_subgraph_"

/* The calling operator o as a While, If or PartitionedCall node of the
 * subgraphs it runs, its outputs the operator's. */
tfpi_code tp_tfl_call_node(tp_tfl_op *o);

/* The serialized FunctionDefLibrary of every subgraph the served one
 * reaches through calls (*bytes NULL and *size 0 when there is none); the
 * caller frees *bytes. */
tfpi_code tp_tfl_function_library(const tp_tfl_model *m, int served, uint8_t **bytes, size_t *size,
                                  const char *source, tfpi_status *status);

#endif
