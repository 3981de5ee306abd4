/* resource_store.c - a session's resource variables (resource_store.h). */
#include "kernel/resource_store.h"

#include "kernel/kernel.h"

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

int tp_resource_store_add(tp_resource_store *vars, tp_resource_kind kind, const char *container,
                          const char *shared_name, tfpi_dtype dtype, tfpi_status *status)
{
    char name[300];
    for (int i = 0; i < vars->count; i++) {
        tp_resource_var *v = vars->items[i];
        if (v->kind != kind || strcmp(v->container, container) != 0 || strcmp(v->shared_name, shared_name) != 0)
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
    v->kind = kind;
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

/* Orders element a and b of t (strings by bytes, numbers by value). */
static int compare_elements(const tfpi_tensor *t, int64_t a, const tfpi_tensor *u, int64_t b)
{
    if (t->dtype == TFPI_STRING) {
        const tfpi_bytes *x = &((const tfpi_bytes *)t->data)[a], *y = &((const tfpi_bytes *)u->data)[b];
        size_t n = x->size < y->size ? x->size : y->size;
        int c = n ? memcmp(x->data, y->data, n) : 0;
        return c ? c : (x->size > y->size) - (x->size < y->size);
    }
    int64_t x = tp_get_int(t, a), y = tp_get_int(u, b);
    return (x > y) - (x < y);
}

static int by_key(const void *a, const void *b, void *keys)
{
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    int c = compare_elements(keys, i, keys, j);
    return c ? c : (i > j) - (i < j); /* stable: the first of equal keys first */
}

/* Whether values a and b are equal as TensorFlow compares them (floats by
 * value: 0 and -0 are equal, NaN equals nothing). */
static bool same_value(const tfpi_tensor *values, int64_t a, int64_t b)
{
    switch (values->dtype) {
    case TFPI_FLOAT: return ((const float *)values->data)[a] == ((const float *)values->data)[b];
    case TFPI_DOUBLE: return ((const double *)values->data)[a] == ((const double *)values->data)[b];
    case TFPI_STRING: return compare_elements(values, a, values, b) == 0;
    default: {
        size_t size = tfpi_dtype_size(values->dtype);
        return memcmp((const char *)values->data + (size_t)a * size, (const char *)values->data + (size_t)b * size,
                      size) == 0;
    }
    }
}

/* "'text'" or the number of key i, for a message. */
static const char *key_text(const tfpi_tensor *keys, int64_t i, char *buf, size_t size)
{
    if (keys->dtype != TFPI_STRING)
        snprintf(buf, size, "%lld", (long long)tp_get_int(keys, i));
    else {
        const tfpi_bytes *s = &((const tfpi_bytes *)keys->data)[i];
        snprintf(buf, size, "'%.*s'", s->size > 100 ? 100 : (int)s->size, (const char *)s->data);
    }
    return buf;
}

tfpi_code tp_resource_table_fill(tp_resource_store *vars, tp_resource_var *t, const tfpi_tensor *keys,
                                 const tfpi_tensor *values, bool first_wins, tfpi_status *status)
{
    int64_t n = tp_num_elements(keys);
    int64_t *order = malloc(sizeof *order * (size_t)(n + 1));
    if (!order)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for a table of %lld keys", (long long)n);
    for (int64_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, (size_t)n, sizeof *order, by_key, (void *)keys);
    int64_t kept = 0;
    char name[300], key[120];
    for (int64_t i = 0; i < n; i++) {
        if (kept == 0 || compare_elements(keys, order[kept - 1], keys, order[i]) != 0)
            order[kept++] = order[i];
        else if (!first_wins && !same_value(values, order[kept - 1], order[i])) { /* TensorFlow's HashTable refuses this */
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "table '%s' is given two different values for key %s",
                            tp_resource_var_name(t, name, sizeof name), key_text(keys, order[i], key, sizeof key));
            free(order);
            return TFPI_INVALID_ARGUMENT;
        }
    }
    tfpi_tensor k = {0}, v = {0};
    tp_tensor_set_shape(&k, keys->dtype, 1, &kept);
    tp_tensor_set_shape(&v, values->dtype, 1, &kept);
    tfpi_code code = tp_tensor_alloc(&k, status);
    if (code == TFPI_OK)
        code = tp_tensor_alloc(&v, status);
    size_t ks = tfpi_dtype_size(keys->dtype), vs = tfpi_dtype_size(values->dtype);
    for (int64_t i = 0; code == TFPI_OK && i < kept; i++) {
        memcpy((char *)k.data + (size_t)i * ks, (const char *)keys->data + (size_t)order[i] * ks, ks);
        memcpy((char *)v.data + (size_t)i * vs, (const char *)values->data + (size_t)order[i] * vs, vs);
    }
    free(order);
    if (code == TFPI_OK && keys->dtype == TFPI_STRING)
        code = tp_tensor_own_strings(&k, status);
    if (code == TFPI_OK && values->dtype == TFPI_STRING)
        code = tp_tensor_own_strings(&v, status);
    uint64_t bytes = code == TFPI_OK ? held_bytes(&k) + held_bytes(&v) : 0;
    uint64_t others = vars->bytes - (t->value.dtype ? held_bytes(&t->value) + held_bytes(&t->keys) : 0);
    if (code == TFPI_OK && vars->max_bytes && (bytes > vars->max_bytes || others > vars->max_bytes - bytes))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                               "table '%s' needs %llu bytes; with the %llu bytes the session's variables hold that "
                               "is over the memory budget of %llu bytes (max_memory)",
                               tp_resource_var_name(t, name, sizeof name), (unsigned long long)bytes,
                               (unsigned long long)others, (unsigned long long)vars->max_bytes);
    if (code != TFPI_OK) {
        tp_tensor_release(&k);
        tp_tensor_release(&v);
        return code;
    }
    tp_tensor_release(&t->keys);
    tp_tensor_release(&t->value);
    t->keys = k;
    t->value = v;
    vars->bytes = others + bytes;
    return TFPI_OK;
}

int64_t tp_resource_table_find(const tp_resource_var *t, const tfpi_tensor *query, int64_t i)
{
    int64_t lo = 0, hi = tp_num_elements(&t->keys);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = compare_elements(&t->keys, mid, query, i);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

tp_resource_var *tp_resource_handle_output(struct tp_op_ctx *ctx, tp_resource_kind kind, tfpi_dtype dtype)
{
    if (tp_expect_inputs(ctx, 0, 0) != TFPI_OK)
        return NULL;
    if (!ctx->variables) {
        tp_fail(ctx, TFPI_UNIMPLEMENTED, "resources (variables, tables) need a session");
        return NULL;
    }
    char container[256], shared_name[256];
    tp_attr_string(ctx->def, "container", container, sizeof container, "");
    tp_attr_string(ctx->def, "shared_name", shared_name, sizeof shared_name, "");
    if (!shared_name[0])
        snprintf(shared_name, sizeof shared_name, "%s", ctx->def->name);
    int index = tp_resource_store_add(ctx->variables, kind, container, shared_name, dtype, ctx->status);
    intptr_t *handle = index >= 0 ? malloc(sizeof *handle) : NULL;
    if (!handle) {
        tp_fail(ctx, index < 0 ? ctx->status->code : TFPI_OUT_OF_MEMORY, "%s",
                index < 0 ? ctx->status->message : "out of memory");
        return NULL;
    }
    *handle = index + 1;
    ctx->state = handle;
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_RESOURCE, 0, NULL);
    ctx->outputs[0].data = handle;
    return ctx->variables->items[index];
}

void tp_resource_store_free(tp_resource_store *vars)
{
    for (int i = 0; i < vars->count; i++) {
        tp_tensor_release(&vars->items[i]->value);
        tp_tensor_release(&vars->items[i]->keys);
        free(vars->items[i]->container);
        free(vars->items[i]->shared_name);
        free(vars->items[i]);
    }
    free(vars->items);
    *vars = (tp_resource_store){0};
}
