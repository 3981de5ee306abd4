/* function_library.h - a GraphDef's function library (FunctionDefLibrary,
 * GraphDef field 2) unpacked and indexed by function name, with what
 * instantiating a function needs: its signature's arguments expanded
 * against the attributes of a call (number_attr, type_attr,
 * type_list_attr), and where a named output argument of any op starts among
 * the op's flat outputs ("split:output:2", "bn:batch_mean:0"). Output
 * argument names come from the OpList a MetaGraphDef carries
 * (stripped_op_list), else from tfpi's table of the ops with more than one
 * output argument (op_outputs.c); an op in neither has one. */
#ifndef TFPI_FUNCTION_LIBRARY_H
#define TFPI_FUNCTION_LIBRARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "function.pb-c.h"
#include "graph/name_map.h"
#include "op_def.pb-c.h"
#include "tfpi.h"

/* The attributes a call binds for the callee: a NodeDef's own (a direct
 * call) or a func attribute's (PartitionedCall's f, While's body...). */
typedef struct tp_attr_binding {
    const char *key;
    const Tfpi__AttrValue *value;
} tp_attr_binding;

typedef struct tp_bindings {
    size_t n;
    tp_attr_binding *items; /* owned array; keys and values borrowed */
} tp_bindings;

typedef struct tp_function_library {
    Tfpi__FunctionDefLibrary *lib; /* NULL: the graph has none */
    tp_name_map functions;         /* name -> index in lib->function */
    tp_name_map *bodies;           /* per function: body node name -> index (built on first use) */
    const Tfpi__OpList *ops;       /* borrowed; may be NULL */
    tp_name_map op_index;          /* op name -> index in ops */
} tp_function_library;

/* Unpacks and indexes a serialized library (size 0: an empty one). Checks
 * every function: a name, no two alike, every body node named, with an op,
 * and no name twice in one body. ops (may be NULL) must outlive lib. */
tfpi_code tp_function_library_open(tp_function_library *lib, const uint8_t *data, size_t size,
                                   const Tfpi__OpList *ops, const char *source, tfpi_status *status);
void tp_function_library_close(tp_function_library *lib);

const Tfpi__FunctionDef *tp_function_find(const tp_function_library *lib, const char *name);
/* Index of body node `name` (name[0..len)) in function f, or -1. */
int tp_function_body_node(tp_function_library *lib, const Tfpi__FunctionDef *f, const char *name, size_t len);
/* The OpDef of op in the MetaGraphDef's op list, or NULL. */
const Tfpi__OpDef *tp_op_def_find(const tp_function_library *lib, const char *op);

tp_bindings tp_bindings_of_node(const Tfpi__NodeDef *def);
tp_bindings tp_bindings_of_func(const Tfpi__NameAttrList *func);
const Tfpi__AttrValue *tp_binding_find(const tp_bindings *b, const char *key);
void tp_bindings_free(tp_bindings *b);

/* An attribute of a body node as instantiated: its own value, or, for a
 * placeholder, the call's binding or the signature's default; NULL if none. */
const Tfpi__AttrValue *tp_function_attr(const Tfpi__FunctionDef *f, const Tfpi__AttrValue *value,
                                        const tp_bindings *call);

/* How many tensors an argument holds, and their types (types may be NULL;
 * up to max_types written, 0 where unknown), given the attributes of the
 * node it belongs to; -1 if a count attribute is missing or negative. */
int tp_arg_expand(const Tfpi__OpDef__ArgDef *arg, const tp_bindings *attrs, tfpi_dtype *types, int max_types);
/* All of a signature's inputs (or outputs) expanded: the count, and types
 * into a new array (*types, freed by the caller); -1 on a bad count. */
int tp_signature_types(const Tfpi__OpDef *sig, bool outputs, const tp_bindings *attrs, tfpi_dtype **types);

/* Where output argument `arg` of a node with this op and attributes starts
 * among its flat outputs, and how many tensors it holds: true if found.
 * *known_op says whether the op's output arguments are known at all (an
 * unknown op is taken to have one output argument, whatever its name). */
bool tp_output_arg_range(const tp_function_library *lib, const char *op, const tp_bindings *attrs, const char *arg,
                         size_t arg_len, int *offset, int *count, bool *known_op);

/* The built-in table (op_outputs.c): for an op with more than one output
 * argument, its arguments as "name,name*attr,..." (*attr: as many tensors
 * as the int attribute, or the length of the list attribute); NULL for the
 * others. */
const char *tp_builtin_output_args(const char *op);

/* Adds to def every attribute its OpDef gives a default that def lacks
 * (graphs saved with stripped_default_attrs). */
tfpi_code tp_fill_default_attrs(Tfpi__NodeDef *def, const Tfpi__OpDef *op, tfpi_status *status);

#endif
