/* graph_cache.c - the graph's cache of derived values (graph_cache.h): a
 * list under a mutex; a graph has a few hundred entries at most. */
#include "graph/graph_cache.h"

#include <pthread.h>
#include <stdlib.h>

#include "graph/graph.h"

typedef struct entry {
    struct entry *next;
    uint64_t key;
    void *value;
} entry;

struct tp_graph_cache {
    pthread_mutex_t lock;
    entry *entries;
};

tp_graph_cache *tp_graph_cache_new(void)
{
    tp_graph_cache *cache = calloc(1, sizeof *cache);
    if (cache)
        pthread_mutex_init(&cache->lock, NULL);
    return cache;
}

void tp_graph_cache_free(tp_graph_cache *cache)
{
    if (!cache)
        return;
    for (entry *e = cache->entries, *next; e; e = next) {
        next = e->next;
        free(e->value);
        free(e);
    }
    pthread_mutex_destroy(&cache->lock);
    free(cache);
}

const void *tp_graph_cache_get(const tfpi_graph *graph, uint64_t key, tp_cache_match_fn matches,
                               tp_cache_make_fn make, const void *arg)
{
    tp_graph_cache *cache = graph ? graph->cache : NULL;
    if (!cache)
        return NULL;
    pthread_mutex_lock(&cache->lock);
    const void *found = NULL;
    for (const entry *e = cache->entries; e && !found; e = e->next)
        if (e->key == key && matches(e->value, arg))
            found = e->value;
    entry *e = found ? NULL : malloc(sizeof *e);
    if (e && (e->value = make(arg))) {
        *e = (entry){cache->entries, key, e->value};
        cache->entries = e;
        found = e->value;
    } else {
        free(e);
    }
    pthread_mutex_unlock(&cache->lock);
    return found;
}

uint64_t tp_hash_bytes(uint64_t hash, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        hash = (hash ^ p[i]) * 0x100000001b3ull;
    return hash;
}
