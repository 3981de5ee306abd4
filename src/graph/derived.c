/* derived.c - the graph's cache of derived values (see derived.h): a list
 * under one lock, which is also held while a value is built, so two
 * sessions never build the same one. Graphs hold a few dozen at most. */
#include "graph/derived.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

typedef struct derived_value {
    struct derived_value *next;
    const void *owner;
    const char *kind;
    int64_t key;
    size_t bytes;
    void *data;
} derived_value;

struct tp_derived_cache {
    pthread_mutex_t lock;
    derived_value *values;
};

tp_derived_cache *tp_derived_cache_new(void)
{
    tp_derived_cache *cache = calloc(1, sizeof *cache);
    if (cache && pthread_mutex_init(&cache->lock, NULL) != 0) {
        free(cache);
        return NULL;
    }
    return cache;
}

void tp_derived_cache_free(tp_derived_cache *cache)
{
    if (!cache)
        return;
    for (derived_value *v = cache->values, *next; v; v = next) {
        next = v->next;
        free(v->data);
        free(v);
    }
    pthread_mutex_destroy(&cache->lock);
    free(cache);
}

/* The value, or NULL; the caller holds the lock. */
static derived_value *find(const tp_derived_cache *cache, const void *owner, const char *kind, int64_t key,
                           size_t bytes)
{
    for (derived_value *v = cache->values; v; v = v->next)
        if (v->owner == owner && v->key == key && v->bytes == bytes && strcmp(v->kind, kind) == 0)
            return v;
    return NULL;
}

const void *tp_graph_derived(const tfpi_graph *graph, const void *owner, const char *kind, int64_t key,
                             size_t bytes, tp_derive_fn make, void *arg)
{
    tp_derived_cache *cache = graph ? graph->derived : NULL;
    if (!cache)
        return NULL;
    pthread_mutex_lock(&cache->lock);
    derived_value *v = find(cache, owner, kind, key, bytes);
    if (!v && (v = calloc(1, sizeof *v)) != NULL) {
        *v = (derived_value){.owner = owner, .kind = kind, .key = key, .bytes = bytes,
                             .data = aligned_alloc(64, (bytes + 63) & ~(size_t)63)};
        if (v->data && make(arg, v->data)) {
            v->next = cache->values;
            cache->values = v;
        } else {
            free(v->data);
            free(v);
            v = NULL;
        }
    }
    pthread_mutex_unlock(&cache->lock);
    return v ? v->data : NULL;
}
