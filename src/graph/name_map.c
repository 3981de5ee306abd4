/* name_map.c - open-addressing (linear probing) name -> index map. */
#include "graph/name_map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

bool tp_name_map_init(tp_name_map *map, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2 + 1)
        cap *= 2;
    map->capacity = cap;
    map->count = 0;
    map->keys = calloc(cap, sizeof *map->keys);
    map->values = calloc(cap, sizeof *map->values);
    if (!map->keys || !map->values) {
        tp_name_map_free(map);
        return false;
    }
    return true;
}

void tp_name_map_free(tp_name_map *map)
{
    free(map->keys);
    free(map->values);
    map->keys = NULL;
    map->values = NULL;
    map->capacity = 0;
}

static size_t slot_of(const tp_name_map *map, const char *key, size_t len)
{
    size_t mask = map->capacity - 1;
    size_t i = (size_t)hash_bytes(key, len) & mask;
    while (map->keys[i] && !(strncmp(map->keys[i], key, len) == 0 && map->keys[i][len] == '\0'))
        i = (i + 1) & mask;
    return i;
}

bool tp_name_map_insert(tp_name_map *map, const char *key, int value)
{
    size_t i = slot_of(map, key, strlen(key));
    if (map->keys[i])
        return false;
    map->keys[i] = key;
    map->values[i] = value;
    map->count++;
    return true;
}

bool tp_name_map_insert_growing(tp_name_map *map, const char *key, int value, bool *out_of_memory)
{
    *out_of_memory = false;
    if (2 * (map->count + 1) > map->capacity) {
        tp_name_map bigger;
        if (!tp_name_map_init(&bigger, map->count + 1)) {
            *out_of_memory = true;
            return false;
        }
        for (size_t i = 0; i < map->capacity; i++)
            if (map->keys[i])
                tp_name_map_insert(&bigger, map->keys[i], map->values[i]);
        tp_name_map_free(map);
        *map = bigger;
    }
    return tp_name_map_insert(map, key, value);
}

int tp_name_map_find(const tp_name_map *map, const char *key, size_t len)
{
    if (!map->capacity)
        return -1;
    size_t i = slot_of(map, key, len);
    return map->keys[i] ? map->values[i] : -1;
}
