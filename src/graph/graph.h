/* src/graph/ - the graph every model becomes: NodeDefs and their
 * attributes, TensorProto decoding, the protobuf wire reader, function
 * libraries (inlining and lowering functional control flow), the name map,
 * the model's signatures and variables (model_info.h), and the built graph
 * (this file). The readers of model files are src/model/. Uses src/core/
 * only; the model tools may use it.
 *
 * graph.h - the loaded graph: the parsed NodeDefs with their inputs resolved
 * to (node, output index) edges and a name index. Immutable once built
 * (but for the cache of derived values); sessions plan and run over it. */
#ifndef TFPI_GRAPH_H
#define TFPI_GRAPH_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "graph/derived.h"
#include "op_def.pb-c.h"
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

struct tp_model_info;    /* graph/model_info.h */
struct tp_memmapped_dir; /* model/memmapped.h */

struct tfpi_graph {
    int num_nodes;
    tp_node *nodes;
    tp_name_map names;
    int producer; /* versions.producer, 0 if absent */
    void *backing; /* memory the NodeDefs point into (memmapped models), or NULL */
    void (*free_backing)(void *backing);
    bool backing_borrowed; /* a copy's backing and model: the original graph frees them */
    /* The named regions of the backing that ImmutableConst nodes read
     * (memmapped models, .tflite buffers), or NULL. */
    const struct tp_memmapped_dir *regions;
    /* The model file's private read-only mapping that constants are read
     * from in place (.tflite buffers, memmapped regions, a binary
     * GraphDef's 8-bit Consts: mapped_constants.h), or NULL. */
    const uint8_t *file_map;
    size_t file_map_size;
    tp_derived_cache *derived; /* values kernels derive once for all sessions (derived.h) */
    /* SavedModels, .meta files, graphs with a checkpoint: signature and variables; else NULL. */
    struct tp_model_info *model;
};

/* Takes ownership of defs[0..n) (each freed with tfpi__node_def__free_unpacked)
 * whatever the outcome. `source` names the model in error messages. */
tfpi_graph *tp_graph_build(Tfpi__NodeDef **defs, int n, int producer, const char *source,
                           tfpi_status *status);

/* The same for a GraphDef with a function library (function.proto's
 * FunctionDefLibrary, serialized; library may be NULL): every call of a
 * library function is inlined and every functional While/If/Case lowered
 * to Switch/Merge/Enter/Exit/NextIteration first (function_expand.c).
 * ops (may be NULL): a MetaGraphDef's stripped_op_list, which gives the
 * output argument names of the ops in function bodies and the default
 * values of attributes stripped at save time, filled in on every node.
 * A library nothing calls is not read. */
tfpi_graph *tp_graph_build_functions(Tfpi__NodeDef **defs, int n, int producer, const uint8_t *library,
                                     size_t library_size, const Tfpi__OpList *ops, const char *source,
                                     tfpi_status *status);

/* Gives every lookup of a hash table a control input from the nodes that
 * initialize it (table_init.c): the first run fills the table. */
tfpi_code tp_tie_table_initializers(Tfpi__NodeDef **defs, int n, const char *source, tfpi_status *status);

/* Lets `copy` (built from copies of original's NodeDefs) read original's
 * memmapped regions, signature and variables; original must outlive copy. */
void tp_graph_borrow_backing(tfpi_graph *copy, const tfpi_graph *original);

/* Gives back the resident pages of data[0..size) if they are constants read
 * from the graph's file mapping (mapped_constants.c): for a kernel that has
 * derived all it reads of them (packed weights). Anything that reads them
 * later reads them from the file again. */
void tp_graph_drop_constant_pages(const tfpi_graph *graph, const void *data, size_t size);

/* Parses a binary GraphDef (graph_memmapped.h's tp_graph_parse_mapped
 * parses a mapped file's). */
tfpi_graph *tp_graph_parse_binary(const uint8_t *data, size_t size, const char *source, tfpi_status *status);

/* Loads a binary or memmapped GraphDef file (graph_load.c). */
tfpi_graph *tp_graph_load_path(const char *path, tfpi_status *status);
/* The same from a buffer (copied as needed). */
tfpi_graph *tp_graph_load_buffer(const void *data, size_t size, tfpi_status *status);
/* Loads a model of any TensorFlow form from a path, as tfpi_graph_load
 * describes (model_load.c); src/model/model_open.c chooses it for
 * everything that is not a .tflite. */
tfpi_graph *tp_graph_load_model(const char *path, const tfpi_load_options *options, tfpi_status *status);

/* The same for a MetaGraphDef's GraphDef, with its stripped_op_list
 * (serialized OpList; size 0: none): the ops' output argument names and
 * the defaults of attributes stripped at save time. */
tfpi_graph *tp_graph_parse_with_ops(const uint8_t *data, size_t size, const uint8_t *op_list, size_t op_list_size,
                                    const char *source, tfpi_status *status);

/* True if data is a GraphDef at the wire level: only its fields, with their
 * wire types (a file that is not may be another format, a MetaGraphDef). */
bool tp_graph_def_wire_ok(const uint8_t *data, size_t size);

/* Index of the node called name[0..len), or -1. */
int tp_graph_find(const tfpi_graph *graph, const char *name, size_t len);

/* Resolves "node" or "node:k" to an edge; `what` ("feed", "fetch") names
 * the argument in errors. A graph served through a signature also takes
 * the signature's keys: input keys for a "feed", output keys for a
 * "fetch", either for anything else. */
tfpi_code tp_graph_resolve(const tfpi_graph *graph, const char *tensor_name, const char *what,
                           tp_edge *out, tfpi_status *status);

#endif
