/* resource_store.h - the resource variables a session holds, as TensorFlow's
 * resource manager does: one per (container, shared_name), made by the
 * first VarHandleOp that names it, holding the tensor the last
 * AssignVariableOp gave it. A handle (a TFPI_RESOURCE scalar) holds the
 * variable's index + 1 in its session's store. Values persist from run to
 * run, so a restore run followed by serving runs works, and a serving
 * function that updates a variable sees the new value on its next run. The
 * values count against the session's memory budget. */
#ifndef TFPI_RESOURCE_STORE_H
#define TFPI_RESOURCE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"
#include "tfpi.h"

/* What a resource is: a variable, or a lookup table (HashTableV2). */
typedef enum tp_resource_kind { TP_RESOURCE_VARIABLE, TP_RESOURCE_TABLE } tp_resource_kind;

typedef struct tp_resource_var {
    char *container, *shared_name;
    tp_resource_kind kind;
    tfpi_dtype dtype;  /* as its VarHandleOp declares; a table's key type */
    tfpi_tensor value; /* dtype 0 until assigned; owns its data unless bound to a checkpoint;
                          a table's values, in the order of its keys */
    tfpi_tensor keys;  /* a table's keys, sorted (owned) */
} tp_resource_var;

typedef struct tp_resource_store {
    tp_resource_var **items;
    int count, cap;
    uint64_t bytes;      /* held by the values */
    uint64_t max_bytes;  /* the session's budget */
} tp_resource_store;

/* The resource (kind, container, shared_name), made (unassigned) if new;
 * its index, or -1 with status set (a dtype that disagrees with the one it
 * was made with, out of memory). */
int tp_resource_store_add(tp_resource_store *vars, tp_resource_kind kind, const char *container,
                          const char *shared_name, tfpi_dtype dtype, tfpi_status *status);
/* The variable a handle value names, or NULL. */
tp_resource_var *tp_resource_store_get(tp_resource_store *vars, intptr_t handle);
/* Gives v a deep copy of value (shape and dtype may change, as
 * AssignVariableOp with validate_shape=false allows); over the budget,
 * an error naming the variable and the bytes. */
tfpi_code tp_resource_var_assign(tp_resource_store *vars, tp_resource_var *v, const tfpi_tensor *value, tfpi_status *status);
/* Gives v the value of its checkpoint tensor, borrowed (often a view of
 * the mapped checkpoint file, which lives as long as the graph): the
 * session restores a SavedModel's variables without copying them. */
tfpi_code tp_resource_var_bind(tp_resource_store *vars, tp_resource_var *v, const tfpi_tensor *value,
                               tfpi_status *status);
/* Makes v's value its own copy if it is borrowed, before it changes in
 * place. */
tfpi_code tp_resource_var_own(tp_resource_store *vars, tp_resource_var *v, tfpi_status *status);
/* Fills table t with keys and values (copies; keys sorted, values in their
 * order). A key given twice with two values is refused, as TensorFlow's
 * HashTable refuses it, or with first_wins keeps its first value (TFLite's
 * tables); given twice with one value, it is kept once. Within the budget. */
tfpi_code tp_resource_table_fill(tp_resource_store *vars, tp_resource_var *t, const tfpi_tensor *keys,
                                 const tfpi_tensor *values, bool first_wins, tfpi_status *status);
/* Index in t's keys of element i of `query` (same dtype), or -1. */
int64_t tp_resource_table_find(const tp_resource_var *t, const tfpi_tensor *query, int64_t i);
struct tp_op_ctx;
/* For VarHandleOp and HashTableV2: the node's resource (its container and
 * shared_name attributes; an empty shared_name means the node's name), made
 * if new, and output 0 its handle, known while planning (held in
 * ctx->state: the kernel's release is free). NULL with the node's error. */
tp_resource_var *tp_resource_handle_output(struct tp_op_ctx *ctx, tp_resource_kind kind, tfpi_dtype dtype);
/* "container/shared_name" or "shared_name" into buf. */
const char *tp_resource_var_name(const tp_resource_var *v, char *buf, size_t size);
void tp_resource_store_free(tp_resource_store *vars);

#endif
