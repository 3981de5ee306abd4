/* rewrite.h - the graph surgery transforms share: a name index and
 * use counts over a GraphDef, following values through Identity nodes,
 * re-pointing inputs, deleting nodes (and whatever only they used), fresh
 * names, and reading and writing constant values. */
#ifndef TFPI_REWRITE_H
#define TFPI_REWRITE_H

#include <stdbool.h>

#include "graphdef_inspect.h"
#include "core/tensor.h"
#include "transform.h"

typedef struct rw_graph {
    Tfpi__GraphDef *def;
    gd_index index;
    int *uses; /* per node: inputs (data or control) anywhere that name it */
} rw_graph;

void rw_open(rw_graph *g, Tfpi__GraphDef *def);
/* Rebuilds the index and use counts after nodes were added, renamed or
 * re-wired. */
void rw_refresh(rw_graph *g);
void rw_close(rw_graph *g);

/* Index of the node an input string or name refers to, or -1. */
int rw_node_index(const rw_graph *g, const char *input);
/* Number of data (not control) inputs. */
int rw_num_data_inputs(const Tfpi__NodeDef *node);
/* The node whose output 0 reaches `input` through Identity nodes that
 * nothing else uses (so it may be changed for this one use); NULL if the
 * chain is shared, or `input` names another output. *private_chain tells
 * whether every node on the way (the source included) has one use. */
Tfpi__NodeDef *rw_source(const rw_graph *g, const char *input, bool *private_chain);

/* The node that data input k of node reads, if its op is `op`, the input
 * is its output 0, nothing else uses it and it is not in --outputs: a node
 * a fusion may swallow. NULL otherwise. */
Tfpi__NodeDef *rw_private_input(const rw_graph *g, const Tfpi__NodeDef *node, int k, const char *op,
                                const transform_ctx *ctx);
/* Every "dilations" value is 1 (or the node has none). */
bool rw_unit_dilations(const Tfpi__NodeDef *node);
/* data_format is NHWC (or absent). */
bool rw_is_nhwc(const Tfpi__NodeDef *node);

/* Replaces node's data inputs with inputs[0..n) (which may be strings of
 * this or other nodes' inputs), keeping its control inputs after them. */
void rw_set_data_inputs(Tfpi__NodeDef *node, const char *const *inputs, int n);

/* Makes every input that refers to tensor `from` ("node" = "node:0",
 * "node:k", "^node") refer to `to` instead; control inputs "^from_node"
 * become "^to_node". */
void rw_replace_input(Tfpi__GraphDef *def, const char *from, const char *to);

/* Makes every input that refers to node `from` (any output, or control)
 * refer to node `to`, keeping the output index. */
void rw_redirect_node(Tfpi__GraphDef *def, const char *from, const char *to);

/* Deletes the marked nodes (frees them) and refreshes. */
void rw_delete_nodes(rw_graph *g, const bool *doomed);
/* Deletes the marked nodes once nothing uses them and they are not
 * --outputs, then whatever only they used, and so on. */
void rw_delete_unused(rw_graph *g, bool *candidates, const transform_ctx *ctx);

/* base, or base_1, base_2, ... whichever no node has; malloc'd. */
char *rw_unique_name(const rw_graph *g, const char *base);

/* A Const node's value (tensor_content used in place, typed values
 * expanded into *owned, which the caller frees); false if the node is not
 * a Const with a value tfpi can read. */
bool rw_const_value(const Tfpi__NodeDef *node, tfpi_tensor *out, void **owned);
/* Makes node a Const holding the given value (attrs dtype and value). */
void rw_make_const(Tfpi__NodeDef *node, tfpi_dtype dtype, const int64_t *dims, int ndims, const void *data);
/* Makes node a MIN_FIRST Dequantize of quint8 codes with their range
 * (inputs: codes, min, max), as quantize_weights and quantize_nodes write
 * them; its control inputs are kept. */
void rw_make_dequantize(Tfpi__NodeDef *node, const char *const inputs[3]);

#endif
