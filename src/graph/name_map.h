/* name_map.h - an open-addressing hash index from node names to indices. */
#ifndef TFPI_NAME_MAP_H
#define TFPI_NAME_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tp_name_map {
    size_t capacity; /* power of two */
    const char **keys; /* borrowed, NUL-terminated */
    int *values;
} tp_name_map;

bool tp_name_map_init(tp_name_map *map, size_t expected);
void tp_name_map_free(tp_name_map *map);
/* Returns false if the key is already present (value not replaced). */
bool tp_name_map_insert(tp_name_map *map, const char *key, int value);
/* Looks up key[0..len); -1 if absent. */
int tp_name_map_find(const tp_name_map *map, const char *key, size_t len);

#endif
