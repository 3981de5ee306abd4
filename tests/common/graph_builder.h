/* graph_builder.h - builds GraphDefs in tests: add nodes with inputs and
 * attributes, serialize with protobuf-c, load with the public API. This is
 * how unit and differential tests make the small graphs they run, with the
 * tools' own GraphDef editing code. */
#ifndef TFPI_GRAPH_BUILDER_H
#define TFPI_GRAPH_BUILDER_H

#include "graph.pb-c.h"
#include "graphdef_edit.h"
#include "tfpi.h"

typedef struct gb_graph gb_graph;

gb_graph *gb_new(void);
void gb_free(gb_graph *g);

/* Adds a node; the inputs follow as strings, ended by NULL. */
Tfpi__NodeDef *gb_node(gb_graph *g, const char *op, const char *name, ...);

/* Attributes: graphdef_edit.h's gd_attr_set_int/float/bool/type/string/
 * ints/shape (ndims < 0: unknown rank; a dim of -1 is unknown). */
/* A tensor attr with raw tensor_content bytes of the given dtype. */
void gb_attr_tensor(Tfpi__NodeDef *n, const char *key, tfpi_dtype dtype, const int64_t *dims, int ndims,
                    const void *data);

/* Const and Placeholder nodes. */
void gb_const(gb_graph *g, const char *name, tfpi_dtype dtype, const int64_t *dims, int ndims,
              const void *data);
void gb_placeholder(gb_graph *g, const char *name, tfpi_dtype dtype, const int64_t *dims, int ndims);
/* A Const string scalar holding `size` bytes (string_val, as TF writes it). */
void gb_const_string(gb_graph *g, const char *name, const void *data, size_t size);
/* Float scalar Consts NAME_min and NAME_max: a quantized tensor's range. */
void gb_range_consts(gb_graph *g, const char *name, float min, float max);

/* Serialized GraphDef (malloc'd). */
uint8_t *gb_serialize(const gb_graph *g, size_t *size);
tfpi_graph *gb_load(const gb_graph *g, tfpi_status *status);

#endif
