/* arena.c - one activation arena for a plan. Every tensor computed at run
 * time (and every feed) gets a buffer whose lifetime runs from the step that
 * writes it to the last step that reads it; buffers whose lifetimes overlap
 * never share bytes. Placement is greedy, largest first, lowest offset that
 * fits (lifetime_index.c finds the buffers each one must avoid). Outputs of aliasing ops (Identity, Reshape...) and of steps fused
 * into their producer share their input's buffer, which then lives as long
 * as either; a fused step's other outputs live from its producer's step,
 * which writes them. */
#include <stdlib.h>
#include <string.h>

#include "plan/lifetime_index.h"
#include "plan/plan.h"

#define ARENA_ALIGN 64

typedef struct buffer {
    size_t size, offset;
    int first, last; /* steps; feeds start at -1, fetches end past the last step */
} buffer;

typedef struct layout {
    tp_plan *plan;
    int *tensor_base; /* first tensor id of each node */
    int *buffer_of;   /* tensor id -> buffer index, -1 if not in the arena */
    int *step_of;     /* node -> its step, for the steps seen so far */
    buffer *buffers;
    int num_buffers;
} layout;

static int tensor_id(const layout *l, tp_edge e) { return l->tensor_base[e.node] + e.index; }

static size_t aligned_bytes(const tfpi_tensor *t)
{
    return (tp_byte_size(t) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

static int new_buffer(layout *l, const tfpi_tensor *t, int step)
{
    buffer *b = &l->buffers[l->num_buffers];
    b->size = aligned_bytes(t);
    b->first = b->last = step;
    return l->num_buffers++;
}

/* A buffer shared by aliases holds the largest of them (a step fused into
 * a quint8 producer may output qint32). */
static void grow(buffer *b, const tfpi_tensor *t)
{
    if (aligned_bytes(t) > b->size)
        b->size = aligned_bytes(t);
}

static void extend(layout *l, tp_edge e, int step)
{
    int b = l->buffer_of[tensor_id(l, e)];
    if (b >= 0 && l->buffers[b].last < step)
        l->buffers[b].last = step;
}

/* Creates buffers for feeds and step outputs and records their lifetimes. */
static void collect_buffers(layout *l)
{
    tp_plan *plan = l->plan;
    const tfpi_graph *g = plan->graph;
    for (int f = 0; f < plan->num_feeds; f++) {
        tp_edge e = plan->feeds[f];
        if (plan->nodes[e.node].needed && !tp_plan_tensor(plan, e)->data && l->buffer_of[tensor_id(l, e)] < 0)
            l->buffer_of[tensor_id(l, e)] = new_buffer(l, tp_plan_tensor(plan, e), -1);
    }
    for (int s = 0; s < plan->num_steps; s++) {
        int n = plan->steps[s];
        tp_plan_node *pn = &plan->nodes[n];
        l->step_of[n] = s;
        for (int i = 0; i < g->nodes[n].num_inputs; i++)
            extend(l, g->nodes[n].inputs[i], s);
        const int written = pn->fused ? l->step_of[pn->runner] : s;
        for (int o = 0; o < pn->ctx.num_outputs; o++) {
            tp_edge e = {n, o};
            int shared = o == 0 && pn->alias_input >= 0
                             ? l->buffer_of[tensor_id(l, g->nodes[n].inputs[pn->alias_input])]
                             : -1;
            if (shared >= 0)
                grow(&l->buffers[shared], &pn->ctx.outputs[o]);
            l->buffer_of[tensor_id(l, e)] = shared >= 0 ? shared : new_buffer(l, &pn->ctx.outputs[o], written);
            extend(l, e, s);
        }
    }
    for (int f = 0; f < plan->num_fetches; f++)
        if (plan->fetches[f].index != TP_TARGET)
            extend(l, plan->fetches[f], plan->num_steps);
}

static int by_size_desc(const void *a, const void *b)
{
    const buffer *x = *(buffer *const *)a, *y = *(buffer *const *)b;
    return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

static int by_offset(const void *a, const void *b)
{
    const buffer *x = *(buffer *const *)a, *y = *(buffer *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Greedy placement into *total bytes; false when out of memory. The
 * placed buffers that overlap each new one in time come from a lifetime
 * index, so this stays near-linear in the number of buffers. */
static bool place_buffers(buffer *buffers, int n, buffer **sorted, buffer **live, size_t *total)
{
    int hi = 0;
    for (int i = 0; i < n; i++) {
        sorted[i] = &buffers[i];
        hi = buffers[i].last > hi ? buffers[i].last : hi;
    }
    qsort(sorted, (size_t)n, sizeof *sorted, by_size_desc);
    tp_lifetime_index *placed = tp_lifetime_index_new(-1, hi, n);
    int *ids = malloc(sizeof(int) * ((size_t)n + 1));
    bool ok = placed && ids;
    *total = 0;
    for (int i = 0; ok && i < n; i++) {
        buffer *b = sorted[i];
        int num_live = tp_lifetime_index_overlapping(placed, b->first, b->last, ids);
        for (int j = 0; j < num_live; j++)
            live[j] = sorted[ids[j]];
        qsort(live, (size_t)num_live, sizeof *live, by_offset);
        size_t offset = 0;
        for (int j = 0; j < num_live; j++) {
            if (live[j]->offset >= offset + b->size)
                break;
            if (live[j]->offset + live[j]->size > offset)
                offset = live[j]->offset + live[j]->size;
        }
        b->offset = offset;
        if (offset + b->size > *total)
            *total = offset + b->size;
        ok = tp_lifetime_index_add(placed, b->first, b->last, i);
    }
    tp_lifetime_index_free(placed);
    free(ids);
    return ok;
}

tfpi_code tp_plan_arena(tp_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    layout l = {.plan = plan};
    int num_tensors = 0;
    tfpi_code code = TFPI_OK;
    l.tensor_base = malloc(sizeof(int) * ((size_t)g->num_nodes + 1));
    if (l.tensor_base) {
        for (int n = 0; n < g->num_nodes; n++) {
            l.tensor_base[n] = num_tensors;
            num_tensors += plan->nodes[n].needed ? plan->nodes[n].ctx.num_outputs : 0;
        }
    }
    l.buffer_of = malloc(sizeof(int) * ((size_t)num_tensors + 1));
    l.step_of = malloc(sizeof(int) * ((size_t)g->num_nodes + 1));
    l.buffers = calloc((size_t)num_tensors + 1, sizeof *l.buffers);
    buffer **sorted = malloc(sizeof(buffer *) * ((size_t)num_tensors + 1));
    buffer **live = malloc(sizeof(buffer *) * ((size_t)num_tensors + 1));
    if (!l.tensor_base || !l.buffer_of || !l.step_of || !l.buffers || !sorted || !live) {
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory planning the arena");
    } else {
        for (int i = 0; i < num_tensors; i++)
            l.buffer_of[i] = -1;
        collect_buffers(&l);
        if (!place_buffers(l.buffers, l.num_buffers, sorted, live, &plan->arena_size))
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory planning the arena");
        if (code == TFPI_OK)
            code = tp_plan_charge(plan, -1, 0, plan->arena_size, status);
        plan->arena = code == TFPI_OK ? aligned_alloc(ARENA_ALIGN, plan->arena_size + ARENA_ALIGN) : NULL;
        if (code == TFPI_OK && !plan->arena)
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory allocating a %zu-byte arena",
                            plan->arena_size);
    }
    for (int n = 0; code == TFPI_OK && n < g->num_nodes; n++) {
        for (int o = 0; plan->nodes[n].needed && o < plan->nodes[n].ctx.num_outputs; o++) {
            int b = l.buffer_of[l.tensor_base[n] + o];
            if (b >= 0)
                plan->nodes[n].ctx.outputs[o].data = (char *)plan->arena + l.buffers[b].offset;
        }
    }
    free(l.tensor_base);
    free(l.buffer_of);
    free(l.step_of);
    free(l.buffers);
    free(sorted);
    free(live);
    return code;
}
