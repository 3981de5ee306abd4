/* lifetime_index.h - finds the placed arena buffers whose lifetimes (step
 * intervals) overlap a given one without scanning them all: a segment tree
 * over the steps, each interval stored in the O(log steps) nodes that cover
 * it. A query visits the nodes that meet its interval, so placing n buffers
 * costs about n log steps plus the overlaps reported, instead of n^2. */
#ifndef TFPI_LIFETIME_INDEX_H
#define TFPI_LIFETIME_INDEX_H

#include <stdbool.h>

typedef struct tp_lifetime_index tp_lifetime_index;

/* An index for steps lo..hi and up to max_items items (ids 0..max_items-1). */
tp_lifetime_index *tp_lifetime_index_new(int lo, int hi, int max_items);
void tp_lifetime_index_free(tp_lifetime_index *index);
/* Adds item `id` living over steps first..last; false when out of memory. */
bool tp_lifetime_index_add(tp_lifetime_index *index, int first, int last, int id);
/* Writes the ids of the items whose lifetimes meet first..last to out (room
 * for max_items), each once; returns how many. */
int tp_lifetime_index_overlapping(tp_lifetime_index *index, int first, int last, int *out);

#endif
