/* flow_region.c - groups the ordinary root-frame nodes of a flow plan into
 * regions that run as static plans (region_run.c), and rewires the flow
 * plan so that each region is one node for the dynamic executor.
 *
 * Eligible: a needed root-frame node with an ordinary kernel (not control
 * flow, not TP_DYNAMIC: no data-dependent shapes, TensorArrays or lists),
 * not fed, not computed once from constants, certainly live
 * (flow_liveness.c), and read as data by some node or fetched (a node only
 * used for its control edge, Assert, stays dynamic). Regions: the eligible
 * nodes grouped by how many non-eligible nodes lie before them on the
 * longest path, so a path that leaves a region never comes back to it. */
#include <stdlib.h>
#include <string.h>

#include "plan/flow_plan.h"
#include "plan/plan.h"

static bool eligible(const tp_flow_plan *plan, const bool *live, const bool *read, int n)
{
    const tp_flow_node *fn = &plan->nodes[n];
    return live[n] && read[n] && fn->kind == TP_FLOW_OP && !fn->fed && !fn->folded &&
           !(fn->kernel->flags & (TP_DYNAMIC | TP_CONTROL_FLOW)) &&
           !((fn->kernel->flags & TP_READS_VARIABLES) && !plan->env.variables_frozen); /* a read of a changing value */
}

/* Per node: read as data by a needed node, or fetched. */
static bool *data_readers(const tp_flow_plan *plan)
{
    bool *read = calloc((size_t)plan->graph->num_nodes + 1, sizeof *read);
    for (int n = 0; read && n < plan->graph->num_nodes; n++)
        for (int c = 0; plan->needed[n] && c < plan->nodes[n].num_consumers; c++)
            read[n] = read[n] || plan->nodes[n].consumers[c].output >= 0;
    for (int f = 0; read && f < plan->num_fetches; f++)
        read[plan->fetches[f].node] = read[plan->fetches[f].node] || plan->fetches[f].index != TP_TARGET;
    return read;
}

/* Region key per eligible node (-1 for the others): the most non-eligible,
 * non-constant nodes on a path to it. */
static tfpi_code region_keys(const tp_flow_plan *plan, int *key, tfpi_status *status)
{
    bool *live = tp_flow_certainly_live(plan), *read = data_readers(plan);
    int *depth = calloc((size_t)plan->graph->num_nodes + 1, sizeof *depth);
    tfpi_code code = live && read && depth ? TFPI_OK : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int k = 0; code == TFPI_OK && k < plan->num_needed; k++) {
        int n = plan->order[k];
        const tp_node *gn = &plan->graph->nodes[n];
        bool ok = eligible(plan, live, read, n);
        key[n] = -1;
        for (int i = 0; !plan->nodes[n].fed && i < gn->num_inputs + gn->num_controls; i++) {
            int src = tp_flow_source(gn, i);
            if (plan->nodes[src].kind == TP_FLOW_NEXT)
                continue;
            int d = depth[src] + (key[src] < 0 && !plan->nodes[src].folded);
            depth[n] = d > depth[n] ? d : depth[n];
        }
        if (ok)
            key[n] = depth[n];
    }
    free(live);
    free(read);
    free(depth);
    return code;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int compare_edges(const void *a, const void *b)
{
    const tp_edge *x = a, *y = b;
    return x->node != y->node ? (x->node > y->node) - (x->node < y->node) : (x->index > y->index) - (x->index < y->index);
}

/* Sorts edges[0..*n) and drops repeats. */
static void sort_unique(tp_edge *edges, int *n)
{
    qsort(edges, (size_t)*n, sizeof *edges, compare_edges);
    int kept = 0;
    for (int i = 0; i < *n; i++)
        if (kept == 0 || compare_edges(&edges[kept - 1], &edges[i]) != 0)
            edges[kept++] = edges[i];
    *n = kept;
}

int tp_flow_find_edge(const tp_edge *edges, int n, tp_edge e)
{
    const tp_edge *found = bsearch(&e, edges, (size_t)n, sizeof *edges, compare_edges);
    return found ? (int)(found - edges) : -1;
}

/* A region of Identities and Reshapes costs copies and saves nothing: the
 * executor shares their bytes already. */
static bool worth_planning(const tp_flow_plan *plan, const int *members, int count)
{
    for (int m = 0; m < count; m++)
        if (!(plan->nodes[members[m]].kernel->flags & TP_ALIAS_INPUT0))
            return true;
    return false;
}

/* Region `index` of these members (in order): they join it, and its inputs
 * (edges from outside, not constants) and outputs (read outside or
 * fetched) are listed sorted. */
static tfpi_code fill_region(tp_flow_plan *plan, int index, const int *members, int count, tfpi_status *status)
{
    tp_flow_region *r = &plan->regions[index];
    const tfpi_graph *g = plan->graph;
    size_t inputs = 0, outputs = (size_t)plan->num_fetches;
    for (int m = 0; m < count; m++) {
        inputs += (size_t)g->nodes[members[m]].num_inputs;
        outputs += (size_t)plan->nodes[members[m]].num_consumers;
    }
    r->members = malloc(sizeof(int) * (size_t)count);
    r->inputs = malloc(sizeof(tp_edge) * (inputs + 1));
    r->outputs = malloc(sizeof(tp_edge) * (outputs + 1));
    if (!r->members || !r->inputs || !r->outputs)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    memcpy(r->members, members, sizeof(int) * (size_t)count);
    r->num_members = count;
    r->anchor = members[0];
    for (int m = 0; m < count; m++) {
        plan->nodes[members[m]].region = index;
        plan->nodes[members[m]].region_index = m;
        plan->nodes[members[m]].absorbed = m > 0;
    }
    for (int m = 0; m < count; m++) {
        const tp_node *gn = &g->nodes[members[m]];
        for (int i = 0; i < gn->num_inputs; i++) {
            const tp_flow_node *src = &plan->nodes[gn->inputs[i].node];
            if (src->region != index && !src->folded)
                r->inputs[r->num_inputs++] = gn->inputs[i];
        }
        for (int c = 0; c < plan->nodes[members[m]].num_consumers; c++) {
            const tp_flow_consumer *k = &plan->nodes[members[m]].consumers[c];
            if (k->output >= 0 && plan->nodes[k->node].region != index)
                r->outputs[r->num_outputs++] = (tp_edge){members[m], k->output};
        }
    }
    for (int f = 0; f < plan->num_fetches; f++)
        if (plan->nodes[plan->fetches[f].node].region == index && plan->fetches[f].index != TP_TARGET)
            r->outputs[r->num_outputs++] = plan->fetches[f];
    sort_unique(r->inputs, &r->num_inputs);
    sort_unique(r->outputs, &r->num_outputs);
    tp_flow_node *anchor = &plan->nodes[r->anchor];
    anchor->kind = TP_FLOW_REGION;
    anchor->num_slots = r->num_inputs;
    anchor->num_pending = r->num_inputs;
    for (int f = 0; f < plan->num_fetches; f++)
        if (plan->nodes[plan->fetches[f].node].region == index && plan->fetches[f].index != TP_TARGET)
            plan->fetch_from[f] = (tp_edge){r->anchor, tp_flow_find_edge(r->outputs, r->num_outputs, plan->fetches[f])};
    return TFPI_OK;
}

static void free_region(tp_flow_region *r)
{
    tp_plan_free(r->plan);
    free(r->members);
    free(r->inputs);
    free(r->outputs);
    free(r->planned_inputs);
    free(r->timings);
    memset(r, 0, sizeof *r);
}

/* What rewire needs to deliver once: per region, its input slots already
 * fed, and the last unit that sent it a control signal. */
typedef struct routing {
    bool **slot_fed;
    int *control_from;
} routing;

/* Where unit `unit` (a plain node, or the anchor of the region node n is
 * in) sends what consumer c of n receives: appended to list[*count],
 * unless a region gets it already or computes it itself (constants). */
static void route(const tp_flow_plan *plan, routing *rt, int unit, int n, const tp_flow_consumer *c,
                  tp_flow_consumer *list, int *count)
{
    const tp_flow_node *src = &plan->nodes[n], *dst = &plan->nodes[c->node];
    int output = c->output;
    if (src->region >= 0 && dst->region == src->region)
        return;
    if (src->region >= 0 && c->output >= 0) {
        const tp_flow_region *from = &plan->regions[src->region];
        output = tp_flow_find_edge(from->outputs, from->num_outputs, (tp_edge){n, c->output});
    }
    if (dst->region < 0) {
        list[(*count)++] = (tp_flow_consumer){output, c->node, c->slot};
        return;
    }
    if (src->folded)
        return;
    const tp_flow_region *r = &plan->regions[dst->region];
    int slot = -1;
    if (c->output < 0 && rt->control_from[dst->region] == unit)
        return;
    if (c->output < 0) {
        rt->control_from[dst->region] = unit;
    } else {
        slot = tp_flow_find_edge(r->inputs, r->num_inputs, (tp_edge){n, c->output});
        if (rt->slot_fed[dst->region][slot])
            return;
        rt->slot_fed[dst->region][slot] = true;
    }
    list[(*count)++] = (tp_flow_consumer){output, r->anchor, slot};
}

/* The consumer list of one unit: a plain node's, or a region's (all its
 * members' consumers outside it). NULL if out of memory. */
static tp_flow_consumer *unit_consumers(const tp_flow_plan *plan, routing *rt, int unit, int *count)
{
    const tp_flow_node *fn = &plan->nodes[unit];
    const int *members = fn->region >= 0 ? plan->regions[fn->region].members : &unit;
    int num_members = fn->region >= 0 ? plan->regions[fn->region].num_members : 1;
    size_t room = 1;
    for (int m = 0; m < num_members; m++)
        room += (size_t)plan->nodes[members[m]].num_consumers;
    tp_flow_consumer *list = malloc(sizeof *list * room);
    *count = 0;
    for (int m = 0; list && m < num_members; m++)
        for (int c = 0; c < plan->nodes[members[m]].num_consumers; c++)
            route(plan, rt, unit, members[m], &plan->nodes[members[m]].consumers[c], list, count);
    return list;
}

/* New consumer lists: every plain node's and one per region, at its
 * anchor; a region's anchor waits for one control signal per unit. */
static tfpi_code rewire(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    tp_flow_consumer **lists = calloc((size_t)g->num_nodes + 1, sizeof *lists);
    int *counts = calloc((size_t)g->num_nodes + 1, sizeof *counts);
    routing rt = {calloc((size_t)plan->num_regions, sizeof *rt.slot_fed),
                  malloc(sizeof *rt.control_from * (size_t)plan->num_regions)};
    bool ok = lists && counts && rt.slot_fed && rt.control_from;
    for (int i = 0; ok && i < plan->num_regions; i++) {
        rt.control_from[i] = -1;
        ok = (rt.slot_fed[i] = calloc((size_t)plan->regions[i].num_inputs + 1, sizeof **rt.slot_fed)) != NULL;
    }
    for (int n = 0; ok && n < g->num_nodes; n++)
        if (plan->needed[n] && !plan->nodes[n].absorbed)
            ok = (lists[n] = unit_consumers(plan, &rt, n, &counts[n])) != NULL;
    for (int n = 0; ok && n < g->num_nodes; n++) {
        tp_flow_node *fn = &plan->nodes[n];
        free(fn->consumers);
        fn->consumers = lists[n];
        fn->num_consumers = counts[n];
        lists[n] = NULL;
        for (int c = 0; c < counts[n]; c++)
            if (plan->nodes[fn->consumers[c].node].kind == TP_FLOW_REGION && fn->consumers[c].slot < 0)
                plan->nodes[fn->consumers[c].node].num_pending++;
    }
    for (int n = 0; lists && n < g->num_nodes; n++)
        free(lists[n]);
    for (int i = 0; rt.slot_fed && i < plan->num_regions; i++)
        free(rt.slot_fed[i]);
    free(rt.slot_fed);
    free(rt.control_from);
    free(lists);
    free(counts);
    return ok ? TFPI_OK : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
}

/* The eligible nodes in order, bucketed by key: (*bucket)[(*start)[k] ..
 * (*start)[k + 1]) holds key k's. */
static bool bucket_by_key(const tp_flow_plan *plan, const int *key, int max_key, int **bucket, int **start)
{
    *bucket = malloc(sizeof(int) * ((size_t)plan->num_needed + 1));
    *start = calloc((size_t)max_key + 2, sizeof(int));
    if (!*bucket || !*start)
        return false;
    for (int k = 0; k < plan->num_needed; k++)
        if (key[plan->order[k]] >= 0)
            (*start)[key[plan->order[k]] + 1]++;
    for (int k = 0; k <= max_key; k++)
        (*start)[k + 1] += (*start)[k];
    int *next = malloc(sizeof(int) * ((size_t)max_key + 1));
    if (!next)
        return false;
    memcpy(next, *start, sizeof(int) * ((size_t)max_key + 1));
    for (int k = 0; k < plan->num_needed; k++)
        if (key[plan->order[k]] >= 0)
            (*bucket)[next[key[plan->order[k]]]++] = plan->order[k];
    free(next);
    return true;
}

/* Each region's static plan is indexed by the whole graph's nodes, so a
 * graph cut into many small regions (a hostile one) would cost regions x
 * nodes: only the largest MAX_REGIONS groups become regions, the others'
 * nodes stay on the dynamic executor. */
#define MAX_REGIONS 32

typedef struct group {
    int size, key;
} group;

/* Larger groups first, then lower keys. */
static int compare_groups(const void *a, const void *b)
{
    const group *x = a, *y = b;
    return x->size != y->size ? (x->size < y->size) - (x->size > y->size) : (x->key > y->key) - (x->key < y->key);
}

/* The keys of the groups worth planning, at most MAX_REGIONS of the
 * largest, into chosen[] in key order; returns how many (-1: out of
 * memory). */
static int largest_groups(const tp_flow_plan *plan, const int *bucket, const int *start, int max_key, int *chosen)
{
    group *groups = malloc(sizeof *groups * ((size_t)max_key + 1));
    if (!groups)
        return -1;
    int count = 0;
    for (int k = 0; k <= max_key; k++)
        if (start[k + 1] > start[k] && worth_planning(plan, bucket + start[k], start[k + 1] - start[k]))
            groups[count++] = (group){start[k + 1] - start[k], k};
    if (count > MAX_REGIONS) {
        qsort(groups, (size_t)count, sizeof *groups, compare_groups);
        count = MAX_REGIONS;
    }
    for (int i = 0; i < count; i++)
        chosen[i] = groups[i].key;
    free(groups);
    qsort(chosen, (size_t)count, sizeof *chosen, compare_ints);
    return count;
}

tfpi_code tp_flow_form_regions(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    int *key = malloc(sizeof(int) * ((size_t)g->num_nodes + 1)), *bucket = NULL, *start = NULL;
    if (!key || !(plan->fetch_from = malloc(sizeof(tp_edge) * ((size_t)plan->num_fetches + 1)))) {
        free(key);
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(plan->fetch_from, plan->fetches, sizeof(tp_edge) * (size_t)plan->num_fetches);
    for (int n = 0; n < g->num_nodes; n++)
        key[n] = -1;
    tfpi_code code = region_keys(plan, key, status);
    int max_key = -1;
    for (int n = 0; n < g->num_nodes; n++)
        max_key = key[n] > max_key ? key[n] : max_key;
    if (code == TFPI_OK && max_key >= 0 &&
        (!bucket_by_key(plan, key, max_key, &bucket, &start) ||
         !(plan->regions = calloc((size_t)max_key + 1, sizeof *plan->regions))))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    int *chosen = code == TFPI_OK && max_key >= 0 ? malloc(sizeof(int) * ((size_t)max_key + 1)) : NULL;
    int num_chosen = chosen ? largest_groups(plan, bucket, start, max_key, chosen) : 0;
    if (code == TFPI_OK && max_key >= 0 && (!chosen || num_chosen < 0))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; code == TFPI_OK && i < num_chosen; i++) {
        int k = chosen[i];
        code = fill_region(plan, plan->num_regions++, bucket + start[k], start[k + 1] - start[k], status);
    }
    free(chosen);
    free(key);
    free(bucket);
    free(start);
    return code == TFPI_OK && plan->num_regions ? rewire(plan, status) : code;
}

void tp_flow_regions_free(tp_flow_plan *plan)
{
    for (int i = 0; i < plan->num_regions; i++) {
        tp_value_pool_unreserve(&plan->pool, plan->regions[i].reserved);
        free_region(&plan->regions[i]);
    }
    free(plan->regions);
}
