/* graphdef_inspect.h - reading GraphDef messages for the graph tools: input
 * strings ("node", "node:k", "^node"), a name index, type names and shape
 * strings as TensorFlow prints them. */
#ifndef TFPI_GRAPHDEF_INSPECT_H
#define TFPI_GRAPHDEF_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.pb-c.h"
#include "graph/name_map.h"
#include "core/tensor.h"

/* An input string split up: node name (not NUL-terminated), output index,
 * and whether it is a control input. */
typedef struct gd_input {
    const char *node;
    size_t len;
    int index;
    bool control;
} gd_input;

gd_input gd_parse_input(const char *input);

/* Node name -> index in graph->node. Keys are borrowed from the graph:
 * rebuild the index after renaming or removing nodes. */
typedef struct gd_index {
    tp_name_map map;
} gd_index;

void gd_index_build(gd_index *index, const Tfpi__GraphDef *graph);
void gd_index_free(gd_index *index);
/* Index of the node an input string (or plain name) refers to, or -1. */
int gd_index_find_input(const gd_index *index, const char *input);

/* "float", "int32", "quint8", "float_ref", ... as TensorFlow names types. */
const char *gd_dtype_name(int dtype, char *buf, size_t size);
/* TensorFlow's partial shape string: "[?,224,224,3]", "<unknown>"; and the
 * number of elements of a fully known shape (-1 otherwise, or past 2^40). */
const char *gd_shape_string(const Tfpi__TensorShapeProto *shape, char *buf, size_t size);
int64_t gd_shape_elements(const Tfpi__TensorShapeProto *shape);

/* A TensorProto's value (see tp_tensor_from_proto), refusing shapes of
 * more than 2^40 elements before anything is computed from them. */
tfpi_code gd_tensor_value(const Tfpi__TensorProto *proto, tfpi_tensor *out, void **owned, const char *what,
                          tfpi_status *status);

#endif
