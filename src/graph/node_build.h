/* node_build.h - making NodeDefs in memory (function inlining and the
 * lowering of functional control flow write new nodes): a node with a name
 * and op, its inputs and attributes, deep copies of NodeDefs and
 * AttrValues. Everything is allocated with malloc, as protobuf-c's own
 * unpacker does, so tfpi__node_def__free_unpacked frees these nodes too.
 * Functions returning a pointer give NULL when memory runs out. */
#ifndef TFPI_NODE_BUILD_H
#define TFPI_NODE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "graph.pb-c.h"
#include "tfpi.h"

/* A growable array of owned NodeDefs. */
typedef struct tp_node_list {
    Tfpi__NodeDef **defs;
    size_t n, cap;
} tp_node_list;

/* Appends def (the list owns it from then on); false if memory runs out,
 * and def is freed. */
bool tp_node_list_push(tp_node_list *list, Tfpi__NodeDef *def);
/* Frees every node and the array. */
void tp_node_list_free(tp_node_list *list);

Tfpi__NodeDef *tp_node_new(const char *name, const char *op);
/* A deep copy (through protobuf-c's packer and unpacker). */
Tfpi__NodeDef *tp_node_copy(const Tfpi__NodeDef *def);
Tfpi__AttrValue *tp_attr_value_copy(const Tfpi__AttrValue *value);
bool tp_node_add_input(Tfpi__NodeDef *def, const char *input);
/* "^name". */
bool tp_node_add_control(Tfpi__NodeDef *def, const char *node_name);
/* Replaces the node's inputs by inputs[0..n) (copied). */
bool tp_node_set_inputs(Tfpi__NodeDef *def, char *const *inputs, size_t n);
bool tp_node_rename(Tfpi__NodeDef *def, const char *name);
/* Sets attribute key to value, which the node owns from then on (freed
 * here on failure); replaces a value already there. */
bool tp_node_set_attr(Tfpi__NodeDef *def, const char *key, Tfpi__AttrValue *value);

Tfpi__AttrValue *tp_attr_new_type(tfpi_dtype type);
Tfpi__AttrValue *tp_attr_new_int(int64_t i);
Tfpi__AttrValue *tp_attr_new_bool(bool b);
Tfpi__AttrValue *tp_attr_new_string(const char *s);
Tfpi__AttrValue *tp_attr_new_type_list(const tfpi_dtype *types, size_t n);
Tfpi__AttrValue *tp_attr_new_float(float f);
/* An empty list, and lists of ints or floats (copied). */
Tfpi__AttrValue *tp_attr_new_list(void);
Tfpi__AttrValue *tp_attr_new_int_list(const int64_t *values, size_t n);
Tfpi__AttrValue *tp_attr_new_float_list(const float *values, size_t n);
/* A shape attribute: dims[0..n) (-1: unknown size), n < 0: unknown rank. */
Tfpi__AttrValue *tp_attr_new_shape(const int64_t *dims, int n);
/* A tensor attribute (a Const's value): dtype, shape dims[0..n), `bytes`
 * bytes of data copied as its tensor_content. */
Tfpi__AttrValue *tp_attr_new_tensor(tfpi_dtype dtype, const int64_t *dims, int n, const void *data, size_t bytes);
/* A scalar int32 tensor (a Const's value). */
Tfpi__AttrValue *tp_attr_new_int32_scalar(int32_t v);

#endif
