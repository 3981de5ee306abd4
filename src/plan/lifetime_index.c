/* lifetime_index.c - the segment tree of lifetime_index.h. Node k covers a
 * range of steps; children 2k+1 and 2k+2 split it in half. */
#include "plan/lifetime_index.h"

#include <stdlib.h>

typedef struct id_list {
    int *ids;
    int count, capacity;
} id_list;

struct tp_lifetime_index {
    int lo, hi;
    id_list *nodes;
    unsigned *seen; /* per item: the query that last reported it */
    unsigned query;
};

tp_lifetime_index *tp_lifetime_index_new(int lo, int hi, int max_items)
{
    tp_lifetime_index *index = calloc(1, sizeof *index);
    size_t span = (size_t)(hi - lo) + 1, nodes = 4 * span;
    if (!index || !(index->nodes = calloc(nodes, sizeof *index->nodes)) ||
        !(index->seen = calloc((size_t)max_items + 1, sizeof *index->seen))) {
        tp_lifetime_index_free(index);
        return NULL;
    }
    index->lo = lo;
    index->hi = hi;
    return index;
}

void tp_lifetime_index_free(tp_lifetime_index *index)
{
    if (!index)
        return;
    if (index->nodes) {
        size_t nodes = 4 * ((size_t)(index->hi - index->lo) + 1);
        for (size_t k = 0; k < nodes; k++)
            free(index->nodes[k].ids);
    }
    free(index->nodes);
    free(index->seen);
    free(index);
}

static bool push(id_list *list, int id)
{
    if (list->count == list->capacity) {
        int capacity = list->capacity ? 2 * list->capacity : 4;
        int *grown = realloc(list->ids, (size_t)capacity * sizeof *grown);
        if (!grown)
            return false;
        list->ids = grown;
        list->capacity = capacity;
    }
    list->ids[list->count++] = id;
    return true;
}

static bool add(tp_lifetime_index *index, size_t k, int lo, int hi, int first, int last, int id)
{
    if (last < lo || hi < first)
        return true;
    if (first <= lo && hi <= last)
        return push(&index->nodes[k], id);
    int mid = lo + (hi - lo) / 2;
    return add(index, 2 * k + 1, lo, mid, first, last, id) && add(index, 2 * k + 2, mid + 1, hi, first, last, id);
}

bool tp_lifetime_index_add(tp_lifetime_index *index, int first, int last, int id)
{
    return add(index, 0, index->lo, index->hi, first, last, id);
}

static int collect(tp_lifetime_index *index, size_t k, int lo, int hi, int first, int last, int *out, int n)
{
    if (last < lo || hi < first)
        return n;
    const id_list *list = &index->nodes[k];
    for (int i = 0; i < list->count; i++)
        if (index->seen[list->ids[i]] != index->query) {
            index->seen[list->ids[i]] = index->query;
            out[n++] = list->ids[i];
        }
    if (lo == hi)
        return n;
    int mid = lo + (hi - lo) / 2;
    n = collect(index, 2 * k + 1, lo, mid, first, last, out, n);
    return collect(index, 2 * k + 2, mid + 1, hi, first, last, out, n);
}

int tp_lifetime_index_overlapping(tp_lifetime_index *index, int first, int last, int *out)
{
    index->query++;
    return collect(index, 0, index->lo, index->hi, first, last, out, 0);
}
