/* variables.h - the resource variables a session holds, as TensorFlow's
 * resource manager does: one per (container, shared_name), made by the
 * first VarHandleOp that names it, holding the tensor the last
 * AssignVariableOp gave it. A handle (a TFPI_RESOURCE scalar) holds the
 * variable's index + 1 in its session's store. Values persist from run to
 * run, so a restore run followed by serving runs works, and a serving
 * function that updates a variable sees the new value on its next run. The
 * values count against the session's memory budget. */
#ifndef TFPI_VARIABLES_H
#define TFPI_VARIABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tensor.h"
#include "tfpi.h"

typedef struct tp_variable {
    char *container, *shared_name;
    tfpi_dtype dtype;  /* as its VarHandleOp declares */
    tfpi_tensor value; /* owns its data; dtype 0 until assigned */
} tp_variable;

typedef struct tp_variables {
    tp_variable **items;
    int count, cap;
    uint64_t generation; /* changes with every assignment */
    uint64_t bytes;      /* held by the values */
    uint64_t max_bytes;  /* the session's budget */
} tp_variables;

/* The variable (container, shared_name), made (unassigned) if new; its
 * index, or -1 with status set (a dtype that disagrees with the one it was
 * made with, out of memory). */
int tp_variables_find_or_add(tp_variables *vars, const char *container, const char *shared_name, tfpi_dtype dtype,
                             tfpi_status *status);
/* The variable a handle value names, or NULL. */
tp_variable *tp_variables_get(tp_variables *vars, intptr_t handle);
/* Gives v a deep copy of value (shape and dtype may change, as
 * AssignVariableOp with validate_shape=false allows); over the budget,
 * an error naming the variable and the bytes. */
tfpi_code tp_variable_assign(tp_variables *vars, tp_variable *v, const tfpi_tensor *value, tfpi_status *status);
/* Records that a value changed in place (AssignAddVariableOp). */
void tp_variables_changed(tp_variables *vars);
/* "container/shared_name" or "shared_name" into buf. */
const char *tp_variable_name(const tp_variable *v, char *buf, size_t size);
void tp_variables_free(tp_variables *vars);

#endif
