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
           !(fn->kernel->flags & (TP_DYNAMIC | TP_CONTROL_FLOW));
}

/* Per node: read as data by a needed node, or fetched. */
static bool *data_readers(const tp_flow_plan *plan)
{
    bool *read = calloc((size_t)plan->graph->num_nodes + 1, sizeof *read);
    for (int n = 0; read && n < plan->graph->num_nodes; n++)
        for (int c = 0; plan->needed[n] && c < plan->nodes[n].num_consumers; c++)
            read[n] = read[n] || plan->nodes[n].consumers[c].output >= 0;
    for (int f = 0; read && f < plan->num_fetches; f++)
        read[plan->fetches[f].node] = true;
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

static int find_edge(const tp_edge *edges, int n, tp_edge e)
{
    for (int i = 0; i < n; i++)
        if (edges[i].node == e.node && edges[i].index == e.index)
            return i;
    return -1;
}

/* Adds e to edges[*n] (room for it is there) unless present; its index. */
static int add_edge(tp_edge *edges, int *n, tp_edge e)
{
    int i = find_edge(edges, *n, e);
    if (i < 0) {
        edges[*n] = e;
        i = (*n)++;
    }
    return i;
}

/* Members, inputs and outputs of region r (nodes with key[n] == its key). */
static tfpi_code fill_region(tp_flow_plan *plan, tp_flow_region *r, const int *key, int rkey, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    int edges = 0;
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        if (key[n] == rkey) {
            r->num_members++;
            edges += g->nodes[n].num_inputs + plan->nodes[n].num_consumers + plan->num_fetches;
        }
    }
    if (r->num_members == 0)
        return TFPI_OK;
    r->members = malloc(sizeof(int) * (size_t)r->num_members);
    r->inside = calloc((size_t)g->num_nodes + 1, sizeof *r->inside);
    r->inputs = malloc(sizeof(tp_edge) * ((size_t)edges + 1));
    r->outputs = malloc(sizeof(tp_edge) * ((size_t)edges + 1));
    if (!r->members || !r->inside || !r->inputs || !r->outputs)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    r->num_members = 0;
    for (int k = 0; k < plan->num_needed; k++)
        if (key[plan->order[k]] == rkey) {
            r->inside[plan->order[k]] = true;
            plan->nodes[plan->order[k]].region_index = r->num_members;
            r->members[r->num_members++] = plan->order[k];
        }
    for (int m = 0; m < r->num_members; m++) {
        int n = r->members[m];
        const tp_node *gn = &g->nodes[n];
        for (int i = 0; i < gn->num_inputs; i++)
            if (!r->inside[gn->inputs[i].node] && !plan->nodes[gn->inputs[i].node].folded)
                add_edge(r->inputs, &r->num_inputs, gn->inputs[i]);
        for (int c = 0; c < plan->nodes[n].num_consumers; c++) {
            const tp_flow_consumer *k = &plan->nodes[n].consumers[c];
            if (k->output >= 0 && !r->inside[k->node])
                add_edge(r->outputs, &r->num_outputs, (tp_edge){n, k->output});
        }
        for (int f = 0; f < plan->num_fetches; f++)
            if (plan->fetches[f].node == n)
                add_edge(r->outputs, &r->num_outputs, plan->fetches[f]);
    }
    return TFPI_OK;
}

/* A region of Identities and Reshapes costs copies and saves nothing: the
 * executor shares their bytes already. */
static bool worth_planning(const tp_flow_plan *plan, const tp_flow_region *r)
{
    for (int m = 0; m < r->num_members; m++)
        if (!(plan->nodes[r->members[m]].kernel->flags & TP_ALIAS_INPUT0))
            return true;
    return false;
}

static void free_region(tp_flow_region *r)
{
    tp_plan_free(r->plan);
    free(r->members);
    free(r->inside);
    free(r->inputs);
    free(r->outputs);
    free(r->planned_inputs);
    free(r->timings);
    memset(r, 0, sizeof *r);
}

/* Where the unit (a plain node or a region) a node belongs to sends what
 * the consumer c of node n receives: appended to list[*count] unless a
 * region already gets it. */
static void route(const tp_flow_plan *plan, int n, const tp_flow_consumer *c, tp_flow_consumer *list, int *count)
{
    const tp_flow_node *src = &plan->nodes[n], *dst = &plan->nodes[c->node];
    int output = c->output;
    if (src->region >= 0 && c->output >= 0)
        output = find_edge(plan->regions[src->region].outputs, plan->regions[src->region].num_outputs,
                           (tp_edge){n, c->output});
    if (src->region >= 0 && dst->region == src->region)
        return;
    if (dst->region < 0) {
        list[(*count)++] = (tp_flow_consumer){output, c->node, c->slot};
        return;
    }
    if (src->folded) /* the region's plan computes constants itself */
        return;
    const tp_flow_region *r = &plan->regions[dst->region];
    int slot = c->output < 0 ? -1 : find_edge(r->inputs, r->num_inputs, (tp_edge){n, c->output});
    for (int i = 0; i < *count; i++)
        if (list[i].node == r->anchor && list[i].slot == slot)
            return;
    list[(*count)++] = (tp_flow_consumer){output, r->anchor, slot};
}

/* New consumer lists: every plain node's and one per region, at its anchor. */
static tfpi_code rewire(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    tp_flow_consumer **lists = calloc((size_t)g->num_nodes + 1, sizeof *lists);
    int *counts = calloc((size_t)g->num_nodes + 1, sizeof *counts);
    tfpi_code code = lists && counts ? TFPI_OK : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int n = 0; code == TFPI_OK && n < g->num_nodes; n++) {
        const tp_flow_node *fn = &plan->nodes[n];
        int unit = fn->region >= 0 ? plan->regions[fn->region].anchor : n;
        if (fn->num_consumers && !lists[unit]) {
            size_t room = 0;
            for (int m = 0; fn->region >= 0 && m < plan->regions[fn->region].num_members; m++)
                room += (size_t)plan->nodes[plan->regions[fn->region].members[m]].num_consumers;
            if (!(lists[unit] = malloc(sizeof **lists * (room ? room : (size_t)fn->num_consumers))))
                code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        }
        for (int c = 0; code == TFPI_OK && c < fn->num_consumers; c++)
            route(plan, n, &fn->consumers[c], lists[unit], &counts[unit]);
    }
    for (int n = 0; n < g->num_nodes; n++) {
        tp_flow_node *fn = &plan->nodes[n];
        free(fn->consumers);
        fn->consumers = NULL;
        fn->num_consumers = 0;
        if (code != TFPI_OK || fn->absorbed)
            continue;
        fn->consumers = lists[n];
        fn->num_consumers = counts[n];
        lists[n] = NULL;
        for (int c = 0; c < counts[n]; c++)
            if (fn->consumers[c].node >= 0 && plan->nodes[fn->consumers[c].node].kind == TP_FLOW_REGION &&
                fn->consumers[c].slot < 0)
                plan->nodes[fn->consumers[c].node].num_pending++;
    }
    for (int n = 0; lists && n < g->num_nodes; n++)
        free(lists[n]);
    free(lists);
    free(counts);
    return code;
}

tfpi_code tp_flow_form_regions(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    int *key = malloc(sizeof(int) * ((size_t)g->num_nodes + 1));
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
        !(plan->regions = calloc((size_t)max_key + 1, sizeof *plan->regions)))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int rkey = 0; code == TFPI_OK && rkey <= max_key; rkey++) {
        tp_flow_region *r = &plan->regions[plan->num_regions];
        code = fill_region(plan, r, key, rkey, status);
        if (code == TFPI_OK && !worth_planning(plan, r)) {
            free_region(r);
            continue;
        }
        plan->num_regions++; /* from here on freed with the plan */
        if (code != TFPI_OK)
            break;
        r->anchor = r->members[0];
        for (int m = 0; m < r->num_members; m++) {
            plan->nodes[r->members[m]].region = plan->num_regions - 1;
            plan->nodes[r->members[m]].absorbed = m > 0;
        }
        tp_flow_node *anchor = &plan->nodes[r->anchor];
        anchor->kind = TP_FLOW_REGION;
        anchor->num_slots = r->num_inputs;
        anchor->num_pending = r->num_inputs;
        for (int f = 0; f < plan->num_fetches; f++)
            if (r->inside[plan->fetches[f].node])
                plan->fetch_from[f] = (tp_edge){r->anchor, find_edge(r->outputs, r->num_outputs, plan->fetches[f])};
    }
    free(key);
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
