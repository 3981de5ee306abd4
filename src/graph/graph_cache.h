/* graph_cache.h - what kernels derive once from a graph's constants (a
 * filter packed into the GEMM's panels) and share between every session
 * planned over the graph: each value is kept with the graph, found again by
 * a key and a check against the constant it came from, and freed with the
 * graph. Sessions of one graph may plan at the same time: the cache locks. */
#ifndef TFPI_GRAPH_CACHE_H
#define TFPI_GRAPH_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "tfpi.h"

typedef struct tp_graph_cache tp_graph_cache;

/* A new value made from arg (freed with free()), or NULL if out of memory. */
typedef void *(*tp_cache_make_fn)(const void *arg);
/* Whether value, stored under the same key, is what make(arg) would give. */
typedef bool (*tp_cache_match_fn)(const void *value, const void *arg);

tp_graph_cache *tp_graph_cache_new(void);
void tp_graph_cache_free(tp_graph_cache *cache);

/* The value under key that matches arg, else make(arg), stored under key;
 * NULL only if make fails. Values live as long as the graph. */
const void *tp_graph_cache_get(const tfpi_graph *graph, uint64_t key, tp_cache_match_fn matches,
                               tp_cache_make_fn make, const void *arg);

/* 64-bit FNV-1a of size bytes, continuing from hash (start with
 * TP_HASH_START). */
#define TP_HASH_START 0xcbf29ce484222325ull
uint64_t tp_hash_bytes(uint64_t hash, const void *data, size_t size);

#endif
