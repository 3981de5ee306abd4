/* derived.h - values a kernel derives once from a graph's constants (such
 * as Winograd's transformed filters), kept by the graph and shared by every
 * session of it: the first session that plans the node builds the value,
 * the others find it. A value lives until the graph is freed, which the
 * sessions never outlive. Safe to call from sessions planning at once. */
#ifndef TFPI_DERIVED_H
#define TFPI_DERIVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

typedef struct tp_derived_cache tp_derived_cache;

/* Fills `bytes` bytes of buffer (64-byte aligned) from arg; false if it cannot. */
typedef bool (*tp_derive_fn)(void *arg, void *buffer);

/* The value of (owner, kind, key) - owner is what it belongs to (a node's
 * NodeDef), kind names what it is, key tells apart values of the same owner
 * and kind (the shapes they were built for) - built with make on the first
 * call. NULL if there is no memory for it or make failed; a later call
 * tries again. */
const void *tp_graph_derived(const tfpi_graph *graph, const void *owner, const char *kind, int64_t key,
                             size_t bytes, tp_derive_fn make, void *arg);

/* For the graph: a new empty cache (NULL if out of memory), and freeing it
 * with all of its values. */
tp_derived_cache *tp_derived_cache_new(void);
void tp_derived_cache_free(tp_derived_cache *cache);

#endif
