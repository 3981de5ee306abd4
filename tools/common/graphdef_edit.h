/* graphdef_edit.h - building and changing GraphDef messages in place for
 * the graph tools. Every string, array and sub-message is malloc'd, so
 * tfpi__graph_def__free_unpacked frees a graph however it was edited. */
#ifndef TFPI_GRAPHDEF_EDIT_H
#define TFPI_GRAPHDEF_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.pb-c.h"
#include "graph/node_def.h"
#include "tfpi.h"

/* ---- strings and nodes ---- */
/* Replaces a string field's value (freeing the old one). */
void gd_set_string(char **field, const char *value);
Tfpi__NodeDef *gd_node_new(const char *name, const char *op);
/* Appends node to the graph, which takes ownership. */
void gd_append_node(Tfpi__GraphDef *graph, Tfpi__NodeDef *node);
void gd_add_input(Tfpi__NodeDef *node, const char *input);
/* Drops every control input ("^node") of every node. */
void gd_remove_control_inputs(Tfpi__GraphDef *graph);

/* ---- attributes (read them with graph/node_def.h's tp_attr*) ---- */
/* A fresh value for attr key, replacing any old one, for the caller to fill. */
Tfpi__AttrValue *gd_attr_set(Tfpi__NodeDef *node, const char *key);
/* Attr key set to a deep copy of value. */
void gd_attr_set_copy(Tfpi__NodeDef *node, const char *key, const Tfpi__AttrValue *value);
/* Removes attr key; false if the node had none. */
bool gd_attr_remove(Tfpi__NodeDef *node, const char *key);
void gd_attr_remove_all(Tfpi__NodeDef *node);
void gd_attr_set_type(Tfpi__NodeDef *node, const char *key, int dtype);
void gd_attr_set_string(Tfpi__NodeDef *node, const char *key, const char *value);
void gd_attr_set_int(Tfpi__NodeDef *node, const char *key, int64_t value);
void gd_attr_set_float(Tfpi__NodeDef *node, const char *key, float value);
void gd_attr_set_bool(Tfpi__NodeDef *node, const char *key, bool value);
/* An int list attr (count may be 0: an empty list). */
void gd_attr_set_ints(Tfpi__NodeDef *node, const char *key, const int64_t *values, size_t count);
/* ndims < 0: unknown rank. */
void gd_attr_set_shape(Tfpi__NodeDef *node, const char *key, const int64_t *dims, int ndims);
/* Takes ownership of tensor. */
void gd_attr_set_tensor(Tfpi__NodeDef *node, const char *key, Tfpi__TensorProto *tensor);

/* ---- tensors ---- */
Tfpi__TensorShapeProto *gd_shape_new(const int64_t *dims, int ndims);
/* A TensorProto holding bytes of raw little-endian content. */
Tfpi__TensorProto *gd_tensor_new(int dtype, const int64_t *dims, int ndims, const void *content,
                                 size_t bytes);

/* A TensorProto holding a copy of t's shape and values (strings too). */
Tfpi__TensorProto *gd_tensor_copy(const tfpi_tensor *t);

#endif
