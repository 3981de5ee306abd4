/* graph_inputs.h - a tool's feeds checked against the graph before a run,
 * so that a wrong input name is reported with the inputs the graph has and
 * a wrong size against the flag that gave it (not --graph). */
#ifndef TFPI_GRAPH_INPUTS_H
#define TFPI_GRAPH_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

/* "input (float [1,224,224,3]), keep_prob (float [])": the graph's
 * Placeholders with their types and declared shapes (? = unknown). */
const char *graph_inputs_describe(const tfpi_graph *graph, char *buf, size_t size);

/* true if the graph has the node "node" or "node:k" names */
bool graph_inputs_has_node(const tfpi_graph *graph, const char *tensor_name);

/* 0 if `name` ("node" or "node:k") is a node of the graph and, when dims is
 * not NULL, the shape dims[0..ndims) fits the one it declares. Otherwise
 * prints one line, "error: NAME_FLAG: ..." listing the graph's inputs or
 * "error: SHAPE_FLAG: ..." naming the declared shape, and returns 1. */
int graph_inputs_check(const tfpi_graph *graph, const char *name, const int64_t *dims, int ndims,
                       const char *name_flag, const char *shape_flag);

/* The same for a feed tensor (its shape). */
int graph_inputs_check_feed(const tfpi_graph *graph, const char *name, const tfpi_tensor *feed, const char *name_flag,
                            const char *shape_flag);

#endif
