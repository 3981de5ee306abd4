/* src/model/ - model file formats, one reader each, all building a
 * tfpi_graph (src/graph/): the binary GraphDef (graph_parse.c) and text
 * GraphDef (pbtxt_parse.c), memmapped models (memmapped.c,
 * graph_memmapped.c), checkpoints (checkpoint*.c, sstable.c, crc32c.c),
 * SavedModels and MetaGraphDefs (meta_graph.c, meta_graph_info.c, the
 * variables bound to a checkpoint: variable_binding.c), .tflite (a
 * FlatBuffer verifier, a FlexBuffer reader, TFLite's schema, the
 * translation into tfpi's graph), naming formats tfpi does not load
 * (model_format.c), and the public loaders that choose a format
 * (model_open.c, model_load.c, graph_load.c) and inspect what they loaded
 * (graph_inspect.c). Uses src/core/ and src/graph/; the model tools may
 * use it.
 *
 * tflite.h - a .tflite model as a tfpi_graph: the file is checked whole
 * (tflite_schema.h), one subgraph is translated (tflite_graph.h), and the
 * graph keeps the file's bytes as its backing, its ImmutableConst nodes
 * reading each constant tensor's buffer in place. The parsed model stays
 * with the graph for the TFLite API of tfpi.h (tensors, quantization,
 * signatures) and the model tools. */
#ifndef TFPI_TFLITE_H
#define TFPI_TFLITE_H

#include "graph/graph.h"
#include "model/graph_memmapped.h"
#include "model/tflite_schema.h"

/* Loads a .tflite from bytes (taken, whatever the outcome: the graph keeps
 * them until it is freed). signature: the SignatureDef key whose subgraph
 * to serve (NULL or "": "serving_default", the only one there is, or else
 * subgraph 0 without a signature). `source` names the model in errors. */
tfpi_graph *tp_tfl_load(tp_model_bytes bytes, const char *signature, const char *source, tfpi_status *status);

/* The model a graph was loaded from, or NULL if it is not a .tflite; and
 * the index of the subgraph it serves. */
const tp_tfl_model *tp_tfl_graph_model(const tfpi_graph *graph, int *subgraph);
/* The graph tensor name ("node" or "node:k") of tensor t of that subgraph. */
const char *tp_tfl_graph_tensor_name(const tfpi_graph *graph, int t);

#endif
