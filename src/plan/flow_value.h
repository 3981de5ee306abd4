/* flow_value.h - tensors as the dynamic executor passes them around: each
 * value is reference counted (one reference per consumer waiting for it),
 * may share the bytes of another value (Identity, Reshape, a slice of its
 * input), and takes its bytes from a pool that keeps freed buffers for the
 * next iteration or run. TP_DEAD stands for a dead tensor (an untaken
 * branch): it carries no value and is never freed. */
#ifndef TFPI_FLOW_VALUE_H
#define TFPI_FLOW_VALUE_H

#include <stdbool.h>

#include "core/tensor.h"

typedef struct tp_value {
    int refs;
    tfpi_tensor t;
    struct tp_value *owner; /* t.data lies in owner's bytes; NULL: its own or borrowed */
    size_t capacity;        /* bytes of its own buffer; 0 if borrowed or shared */
    bool owns_strings;      /* string elements were copied and are freed with it */
    uint64_t string_bytes;  /* their bytes, counted in the pool's budget */
    bool constant;          /* computed once while planning: the same value every run */
} tp_value;

typedef struct tp_value_pool {
    void **buffers;
    size_t *sizes;
    int count, cap;
    uint64_t max_bytes; /* the session's memory budget (0: none set yet, no limit) */
    uint64_t held;      /* bytes allocated: values alive, buffers kept, reservations */
} tp_value_pool;

extern tp_value tp_dead_value;
#define TP_DEAD (&tp_dead_value)

/* A value with t's dtype and shape and uninitialised bytes (one reference).
 * Fails (TFPI_OUT_OF_MEMORY, saying the bytes and the budget) if the pool
 * would hold more than max_bytes. */
tp_value *tp_value_new(tp_value_pool *pool, const tfpi_tensor *t, tfpi_status *status);
/* A value whose bytes are view->data, inside owner's (one reference; owner
 * gains one until this value is freed). */
tp_value *tp_value_share(tp_value *owner, const tfpi_tensor *view, tfpi_status *status);
/* A value over bytes the caller keeps alive (a feed during a run). */
tp_value *tp_value_borrow(const tfpi_tensor *t, tfpi_status *status);
/* Gives a string value its own copy of every element (kernels copy string
 * elements by reference), counting their bytes against the pool's budget;
 * over the budget, the borrowed elements are cleared and it fails. */
tfpi_code tp_value_own_strings(tp_value_pool *pool, tp_value *v, tfpi_status *status);

void tp_value_ref(tp_value *v);
/* Drops a reference (NULL and TP_DEAD are ignored); the last one frees it. */
void tp_value_unref(tp_value_pool *pool, tp_value *v);

/* Counts bytes held elsewhere (a region's static plan) against the pool's
 * budget, dropping kept buffers first if needed; false if over budget. */
bool tp_value_pool_reserve(tp_value_pool *pool, uint64_t bytes);
void tp_value_pool_unreserve(tp_value_pool *pool, uint64_t bytes);

void tp_value_pool_free(tp_value_pool *pool);

#endif
