/* src/graph/ - loading: the binary GraphDef reader, the memmapped model
 * format, TensorProto decoding, NodeDef attributes, the name map, and the
 * built graph (this file). Uses src/core/ only; the model tools may use it.
 *
 * graph.h - the loaded graph: the parsed NodeDefs with their inputs resolved
 * to (node, output index) edges and a name index. Immutable once built
 * (but for the cache of derived values); sessions plan and run over it. */
#ifndef TFPI_GRAPH_H
#define TFPI_GRAPH_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "graph/derived.h"
#include "graph/name_map.h"
#include "tfpi.h"

typedef struct tp_edge {
    int node;  /* index into graph->nodes */
    int index; /* output index of that node */
} tp_edge;

typedef struct tp_node {
    Tfpi__NodeDef *def;
    int num_inputs; /* data inputs */
    tp_edge *inputs;
    int num_controls; /* "^name" inputs */
    int *controls;
    int num_outputs; /* max output index any input refers to + 1, at least 1 */
} tp_node;

struct tfpi_graph {
    int num_nodes;
    tp_node *nodes;
    tp_name_map names;
    int producer; /* versions.producer, 0 if absent */
    void *backing; /* memory the NodeDefs point into (memmapped models), or NULL */
    void (*free_backing)(void *backing);
    bool backing_borrowed; /* a copy's backing: the original graph frees it */
    tp_derived_cache *derived; /* values kernels derive once for all sessions (derived.h) */
};

/* Takes ownership of defs[0..n) (each freed with tfpi__node_def__free_unpacked)
 * whatever the outcome. `source` names the model in error messages. */
tfpi_graph *tp_graph_build(Tfpi__NodeDef **defs, int n, int producer, const char *source,
                           tfpi_status *status);

/* Lets `copy` (built from copies of original's NodeDefs) read original's
 * memmapped regions; original must outlive copy. */
void tp_graph_borrow_backing(tfpi_graph *copy, const tfpi_graph *original);

/* Parses a binary GraphDef. `mapped`: data is a private read-only file
 * mapping (page-aligned) whose parsed pages may be dropped as it goes. */
tfpi_graph *tp_graph_parse_binary(const uint8_t *data, size_t size, bool mapped, const char *source,
                                  tfpi_status *status);

/* Index of the node called name[0..len), or -1. */
int tp_graph_find(const tfpi_graph *graph, const char *name, size_t len);

/* Resolves "node" or "node:k" to an edge; `what` ("feed", "fetch") names
 * the argument in errors. */
tfpi_code tp_graph_resolve(const tfpi_graph *graph, const char *tensor_name, const char *what,
                           tp_edge *out, tfpi_status *status);

#endif
