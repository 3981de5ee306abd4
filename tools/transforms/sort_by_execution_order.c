/* sort_by_execution_order.c - orders the nodes so that every node comes
 * after all of its inputs (data and control), otherwise keeping the
 * original order as far as possible (a ready node with the lowest original
 * position goes first). As in TensorFlow, a Merge waits for its control
 * inputs and one data input only, so while loops (whose Merge reads the
 * NextIteration that comes after it) are ordered too. Any other cycle is an
 * error naming a node on it. */
#include <stdlib.h>
#include <string.h>

#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

/* A binary min-heap of node positions. */
typedef struct heap {
    int *items;
    int size;
} heap;

static void heap_push(heap *h, int v)
{
    int i = h->size++;
    for (; i > 0 && h->items[(i - 1) / 2] > v; i = (i - 1) / 2)
        h->items[i] = h->items[(i - 1) / 2];
    h->items[i] = v;
}

static int heap_pop(heap *h)
{
    int top = h->items[0], last = h->items[--h->size], i = 0;
    for (;;) {
        int child = 2 * i + 1;
        if (child >= h->size)
            break;
        if (child + 1 < h->size && h->items[child + 1] < h->items[child])
            child++;
        if (h->items[child] >= last)
            break;
        h->items[i] = h->items[child];
        i = child;
    }
    if (h->size > 0)
        h->items[i] = last;
    return top;
}

/* Nodes still pending after the sort wait on a cycle: walking from one
 * through pending inputs n times must end on the cycle itself. */
static int node_on_cycle(const rw_graph *g, const int *pending)
{
    int at = 0;
    while (pending[at] == 0)
        at++;
    for (size_t step = 0; step < g->def->n_node; step++) {
        const Tfpi__NodeDef *node = g->def->node[at];
        for (size_t k = 0; k < node->n_input; k++) {
            int src = rw_node_index(g, node->input[k]);
            if (pending[src] > 0) {
                at = src;
                break;
            }
        }
    }
    return at;
}

tfpi_code transform_sort_by_execution_order(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    rw_graph g;
    rw_open(&g, graph);
    size_t n = graph->n_node;
    int *pending = xcalloc(n + 1, sizeof *pending);
    int *users_start = xcalloc(n + 2, sizeof *users_start), *users = NULL, *fill = NULL;
    tfpi_code code = TFPI_OK;
    /* users of node i: users[users_start[i] .. users_start[i+1]) */
    for (size_t i = 0; i < n && code == TFPI_OK; i++) {
        const Tfpi__NodeDef *node = graph->node[i];
        bool merge = !strcmp(node->op, "Merge") || !strcmp(node->op, "RefMerge");
        for (size_t k = 0; k < node->n_input && code == TFPI_OK; k++) {
            int src = rw_node_index(&g, node->input[k]);
            if (src < 0)
                code = transform_fail(ctx, TFPI_INVALID_ARGUMENT, "node '%s' has input '%s', but no node is named so",
                                      node->name, node->input[k]);
            else {
                users_start[src + 1]++;
                pending[i] += !merge || node->input[k][0] == '^';
            }
        }
        pending[i] += merge; /* one data input will do */
    }
    for (size_t i = 0; i < n; i++)
        users_start[i + 1] += users_start[i];
    users = xmalloc(((size_t)users_start[n] + 1) * sizeof *users);
    fill = xmalloc((n + 1) * sizeof *fill);
    memcpy(fill, users_start, n * sizeof *fill);
    for (size_t i = 0; i < n && code == TFPI_OK; i++)
        for (size_t k = 0; k < graph->node[i]->n_input; k++)
            users[fill[rw_node_index(&g, graph->node[i]->input[k])]++] = (int)i;
    heap ready = {xmalloc((n + 1) * sizeof(int)), 0};
    for (size_t i = 0; i < n; i++)
        if (pending[i] == 0)
            heap_push(&ready, (int)i);
    Tfpi__NodeDef **sorted = xmalloc((n + 1) * sizeof *sorted);
    size_t count = 0;
    while (code == TFPI_OK && ready.size > 0) {
        int i = heap_pop(&ready);
        sorted[count++] = graph->node[i];
        for (int u = users_start[i]; u < users_start[i + 1]; u++)
            if (--pending[users[u]] == 0)
                heap_push(&ready, users[u]);
    }
    if (code == TFPI_OK && count < n)
        code = transform_fail(ctx, TFPI_INVALID_ARGUMENT, "the graph has a cycle through node '%s'",
                              graph->node[node_on_cycle(&g, pending)]->name);
    if (code == TFPI_OK && n > 0)
        memcpy(graph->node, sorted, n * sizeof *sorted);
    free(sorted);
    free(ready.items);
    free(fill);
    free(users);
    free(users_start);
    free(pending);
    rw_close(&g);
    return code;
}
