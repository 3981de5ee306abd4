/* resource_store.c - a session's resource variables (resource_store.h). */
#include "kernel/resource_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tp_resource_var_name(const tp_resource_var *v, char *buf, size_t size)
{
    if (v->container[0])
        snprintf(buf, size, "%s/%s", v->container, v->shared_name);
    else
        snprintf(buf, size, "%s", v->shared_name);
    return buf;
}

int tp_resource_store_add(tp_resource_store *vars, const char *container, const char *shared_name, tfpi_dtype dtype,
                             tfpi_status *status)
{
    char name[300];
    for (int i = 0; i < vars->count; i++) {
        tp_resource_var *v = vars->items[i];
        if (strcmp(v->container, container) != 0 || strcmp(v->shared_name, shared_name) != 0)
            continue;
        if (v->dtype != dtype) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "variable '%s' is %s, but a handle to it says %s",
                            tp_resource_var_name(v, name, sizeof name), tfpi_dtype_name(v->dtype), tfpi_dtype_name(dtype));
            return -1;
        }
        return i;
    }
    if (vars->count == vars->cap) {
        int cap = vars->cap ? 2 * vars->cap : 16;
        tp_resource_var **grown = realloc(vars->items, sizeof *grown * (size_t)cap);
        if (!grown) {
            tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for variable '%s'", shared_name);
            return -1;
        }
        vars->items = grown;
        vars->cap = cap;
    }
    tp_resource_var *v = calloc(1, sizeof *v);
    if (v) {
        v->container = strdup(container);
        v->shared_name = strdup(shared_name);
    }
    if (!v || !v->container || !v->shared_name) {
        if (v) {
            free(v->container);
            free(v->shared_name);
        }
        free(v);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for variable '%s'", shared_name);
        return -1;
    }
    v->dtype = dtype;
    vars->items[vars->count] = v;
    return vars->count++;
}

tp_resource_var *tp_resource_store_get(tp_resource_store *vars, intptr_t handle)
{
    return vars && handle >= 1 && handle <= vars->count ? vars->items[handle - 1] : NULL;
}

/* Bytes a value holds, strings' bytes included. */
static uint64_t held_bytes(const tfpi_tensor *t)
{
    uint64_t bytes = tp_byte_size(t);
    for (int64_t i = 0; t->dtype == TFPI_STRING && t->data && i < tp_num_elements(t); i++)
        bytes += ((const tfpi_bytes *)t->data)[i].size;
    return bytes;
}

/* Replaces v's value by `value` (owned or borrowed as it says), within
 * the budget. */
static tfpi_code replace(tp_resource_store *vars, tp_resource_var *v, const tfpi_tensor *value, bool copy,
                         tfpi_status *status)
{
    char name[300];
    uint64_t old = v->value.dtype ? held_bytes(&v->value) : 0, bytes = held_bytes(value);
    uint64_t others = vars->bytes - old;
    if (vars->max_bytes && (bytes > vars->max_bytes || others > vars->max_bytes - bytes))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                               "variable '%s' needs %llu bytes; with the %llu bytes the session's other variables "
                               "hold that is over the memory budget of %llu bytes (max_memory)",
                               tp_resource_var_name(v, name, sizeof name), (unsigned long long)bytes,
                               (unsigned long long)others, (unsigned long long)vars->max_bytes);
    tfpi_tensor next = {0};
    if (copy) {
        tfpi_code code = tp_tensor_copy_from(&next, value, status);
        if (code != TFPI_OK)
            return code;
    } else {
        next = *value;
        next.owns_data = false;
    }
    tp_tensor_release(&v->value);
    v->value = next;
    vars->bytes = others + bytes;
    vars->generation++;
    return TFPI_OK;
}

tfpi_code tp_resource_var_assign(tp_resource_store *vars, tp_resource_var *v, const tfpi_tensor *value,
                                 tfpi_status *status)
{
    return replace(vars, v, value, true, status);
}

tfpi_code tp_resource_var_bind(tp_resource_store *vars, tp_resource_var *v, const tfpi_tensor *value,
                               tfpi_status *status)
{
    return replace(vars, v, value, false, status);
}

tfpi_code tp_resource_var_own(tp_resource_store *vars, tp_resource_var *v, tfpi_status *status)
{
    if (v->value.owns_data || !v->value.dtype)
        return TFPI_OK;
    tfpi_tensor borrowed = v->value;
    return replace(vars, v, &borrowed, true, status);
}

void tp_resource_store_changed(tp_resource_store *vars)
{
    vars->generation++;
}

void tp_resource_store_free(tp_resource_store *vars)
{
    for (int i = 0; i < vars->count; i++) {
        tp_tensor_release(&vars->items[i]->value);
        free(vars->items[i]->container);
        free(vars->items[i]->shared_name);
        free(vars->items[i]);
    }
    free(vars->items);
    *vars = (tp_resource_store){0};
}
