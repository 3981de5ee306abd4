/* flow_value.c - reference-counted values and the buffer pool of the
 * dynamic executor (see flow_value.h). The pool keeps up to POOL_MAX freed
 * buffers and hands back the smallest one that fits and is not more than
 * twice too big, so a loop's per-iteration tensors and a graph's per-run
 * tensors reuse the same memory. Every byte it allocates (kept buffers
 * included) counts against the session's memory budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/flow_value.h"

#define POOL_MAX 256
#define ALIGN 64

tp_value tp_dead_value = {.refs = 1};

static void *pool_take(tp_value_pool *pool, size_t *size)
{
    int best = -1;
    for (int i = 0; i < pool->count; i++)
        if (pool->sizes[i] >= *size && pool->sizes[i] <= 2 * *size + ALIGN &&
            (best < 0 || pool->sizes[i] < pool->sizes[best]))
            best = i;
    if (best >= 0) {
        void *p = pool->buffers[best];
        *size = pool->sizes[best];
        pool->count--;
        pool->buffers[best] = pool->buffers[pool->count];
        pool->sizes[best] = pool->sizes[pool->count];
        return p;
    }
    *size = *size ? (*size + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
    if (!tp_value_pool_reserve(pool, *size))
        return NULL;
    void *p = aligned_alloc(ALIGN, *size);
    if (!p)
        tp_value_pool_unreserve(pool, *size);
    return p;
}

/* Frees the kept buffers. */
static void pool_drop(tp_value_pool *pool)
{
    for (int i = 0; i < pool->count; i++) {
        free(pool->buffers[i]);
        pool->held -= pool->sizes[i];
    }
    pool->count = 0;
}

bool tp_value_pool_reserve(tp_value_pool *pool, uint64_t bytes)
{
    uint64_t limit = pool->max_bytes ? pool->max_bytes : UINT64_MAX;
    if (bytes > limit - pool->held)
        pool_drop(pool);
    if (bytes > limit - pool->held)
        return false;
    pool->held += bytes;
    return true;
}

void tp_value_pool_unreserve(tp_value_pool *pool, uint64_t bytes)
{
    pool->held -= bytes;
}

static void pool_give(tp_value_pool *pool, void *p, size_t size)
{
    if (pool->count == pool->cap && pool->cap < POOL_MAX) {
        int cap = pool->cap ? 2 * pool->cap : 16;
        void **b = realloc(pool->buffers, sizeof *b * (size_t)cap);
        if (b)
            pool->buffers = b;
        size_t *s = b ? realloc(pool->sizes, sizeof *s * (size_t)cap) : NULL;
        if (s) {
            pool->sizes = s;
            pool->cap = cap;
        }
    }
    if (pool->count < pool->cap) {
        pool->buffers[pool->count] = p;
        pool->sizes[pool->count++] = size;
    } else {
        free(p);
        pool->held -= size;
    }
}

static tp_value *value_struct(const tfpi_tensor *t, tfpi_status *status)
{
    tp_value *v = calloc(1, sizeof *v);
    if (!v) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    v->refs = 1;
    tp_tensor_set_shape(&v->t, t->dtype, t->ndims, t->dims);
    return v;
}

tp_value *tp_value_new(tp_value_pool *pool, const tfpi_tensor *t, tfpi_status *status)
{
    tp_value *v = value_struct(t, status);
    if (!v)
        return NULL;
    size_t size = tp_byte_size(&v->t);
    if (!(v->t.data = pool_take(pool, &size))) {
        free(v);
        char shape[TFPI_MAX_DIMS * 22 + 3];
        if (pool->max_bytes && size > pool->max_bytes - pool->held)
            tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                            "%s %s needs %zu bytes; with the %llu bytes the run already holds that is over the "
                            "memory budget of %llu bytes (max_memory)",
                            tfpi_dtype_name(t->dtype), tp_shape_string(t, shape, sizeof shape), tp_byte_size(t),
                            (unsigned long long)pool->held, (unsigned long long)pool->max_bytes);
        else
            tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory allocating %zu bytes", tp_byte_size(t));
        return NULL;
    }
    v->capacity = size;
    return v;
}

tp_value *tp_value_share(tp_value *owner, const tfpi_tensor *view, tfpi_status *status)
{
    /* A view of a view lies in the first one's owner: share that, so a loop
     * variable passed on unchanged for a million iterations is not a chain
     * of a million values (each kept alive by the next, and freed by a
     * recursion as deep). A view whose strings were copied keeps them. */
    while (owner->owner && !owner->owns_strings)
        owner = owner->owner;
    tp_value *v = value_struct(view, status);
    if (v) {
        v->t.data = view->data;
        v->owner = owner;
        tp_value_ref(owner);
    }
    return v;
}

tp_value *tp_value_borrow(const tfpi_tensor *t, tfpi_status *status)
{
    tp_value *v = value_struct(t, status);
    if (v)
        v->t.data = t->data;
    return v;
}

tfpi_code tp_value_own_strings(tp_value_pool *pool, tp_value *v, tfpi_status *status)
{
    uint64_t bytes = tp_string_bytes(&v->t);
    if (!tp_value_pool_reserve(pool, bytes)) {
        tp_tensor_forget_strings(&v->t); /* borrowed: never freed with v */
        char shape[TFPI_MAX_DIMS * 22 + 3];
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                               "the elements of string %s hold %llu bytes; with the %llu bytes the run already "
                               "holds that is over the memory budget of %llu bytes (max_memory)",
                               tp_shape_string(&v->t, shape, sizeof shape), (unsigned long long)bytes,
                               (unsigned long long)pool->held, (unsigned long long)pool->max_bytes);
    }
    v->string_bytes = bytes;
    v->owns_strings = true;
    return tp_tensor_own_strings(&v->t, status);
}

void tp_value_ref(tp_value *v)
{
    if (v && v != TP_DEAD)
        v->refs++;
}

void tp_value_unref(tp_value_pool *pool, tp_value *v)
{
    /* A loop, not a recursion, down the chain of owners. */
    while (v && v != TP_DEAD && --v->refs <= 0) {
        if (v->owns_strings) {
            tfpi_bytes *s = v->t.data;
            for (int64_t i = 0, n = tp_num_elements(&v->t); i < n; i++)
                free((void *)s[i].data);
            tp_value_pool_unreserve(pool, v->string_bytes);
        }
        if (v->capacity)
            pool_give(pool, v->t.data, v->capacity);
        tp_value *owner = v->owner;
        free(v);
        v = owner;
    }
}

void tp_value_pool_free(tp_value_pool *pool)
{
    pool_drop(pool);
    free(pool->buffers);
    free(pool->sizes);
    memset(pool, 0, sizeof *pool);
}
