/* tflite_hashtable.h - the HASHTABLE operators of a .tflite subgraph as
 * tfpi's lookup-table nodes (tflite_hashtable.c). */
#ifndef TFPI_TFLITE_HASHTABLE_H
#define TFPI_TFLITE_HASHTABLE_H

#include "model/tflite_graph.h"

/* Whether builtin is HASHTABLE, HASHTABLE_FIND, HASHTABLE_IMPORT or
 * HASHTABLE_SIZE. */
bool tp_tfl_is_table_op(int32_t builtin);

/* Translates one of them; an error naming the operator when its types or
 * shapes are not ones TFLite's kernels take. */
tfpi_code tp_tfl_table_op(tp_tfl_op *o);

#endif
