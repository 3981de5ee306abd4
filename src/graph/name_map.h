/* name_map.h - an open-addressing hash index from node names to indices. */
#ifndef TFPI_NAME_MAP_H
#define TFPI_NAME_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tp_name_map {
    size_t capacity; /* power of two */
    const char **keys; /* borrowed, NUL-terminated */
    int *values;
    size_t count; /* keys inserted */
} tp_name_map;

bool tp_name_map_init(tp_name_map *map, size_t expected);
void tp_name_map_free(tp_name_map *map);
/* Returns false if the key is already present (value not replaced). */
bool tp_name_map_insert(tp_name_map *map, const char *key, int value);
/* The same, doubling the table when it is half full; false if the key is
 * present or memory runs out (*out_of_memory set then). */
bool tp_name_map_insert_growing(tp_name_map *map, const char *key, int value, bool *out_of_memory);
/* Looks up key[0..len); -1 if absent. */
int tp_name_map_find(const tp_name_map *map, const char *key, size_t len);

#endif
