/* flow_liveness.c - which root-frame nodes are certain to run live on every
 * run, so that a static plan may run them (flow_region.c). Each node gets a
 * guard, computed in execution order: LIVE, or live only when one
 * predicate takes one branch (a Switch's output and what reads only it and
 * live tensors), or UNKNOWN. A Merge is LIVE when one of its inputs is, or
 * when its inputs are the two branches of one predicate (a tf.cond's
 * result); a loop's Exit is LIVE when every Enter of its loop is and it
 * reads the loop's Switch. Anything else is conservatively UNKNOWN. */
#include <stdlib.h>
#include <string.h>

#include "plan/flow_plan.h"

typedef struct guard {
    enum { LIVE, BRANCH, UNKNOWN } kind;
    tp_edge pred; /* BRANCH: the Switch predicate */
    int branch;   /* BRANCH: the Switch output that is live */
} guard;

static bool same_guard(guard a, guard b)
{
    return a.kind == b.kind && (a.kind != BRANCH || (a.pred.node == b.pred.node && a.pred.index == b.pred.index &&
                                                     a.branch == b.branch));
}

/* The predicate behind Identities (not fed ones): tf.cond's pivot Switch
 * reads pred, its data Switches read Identity(pred). */
static tp_edge canonical_pred(const tp_flow_plan *plan, tp_edge e)
{
    for (int hops = 0; hops < plan->graph->num_nodes; hops++) {
        const tp_node *gn = &plan->graph->nodes[e.node];
        if (strcmp(gn->def->op, "Identity") != 0 || gn->num_inputs != 1 || plan->nodes[e.node].fed)
            break;
        e = gn->inputs[0];
    }
    return e;
}

/* What a consumer of input i of node n sees of its source's guard. */
static guard edge_guard(const tp_flow_plan *plan, const guard *g, int n, int i)
{
    const tp_node *gn = &plan->graph->nodes[n];
    int src = tp_flow_source(gn, i);
    if (tp_flow_output_frame(plan, src) != 0)
        return (guard){.kind = UNKNOWN};
    if (plan->nodes[src].kind != TP_FLOW_SWITCH || g[src].kind != LIVE || i >= gn->num_inputs)
        return g[src];
    const tp_node *sw = &plan->graph->nodes[src];
    return (guard){BRANCH, canonical_pred(plan, sw->inputs[1]), gn->inputs[i].index};
}

/* The guard of an ordinary node: its inputs' if they agree. */
static guard combine(const tp_flow_plan *plan, const guard *g, int n)
{
    const tp_node *gn = &plan->graph->nodes[n];
    guard result = {.kind = LIVE};
    for (int i = 0; i < gn->num_inputs + gn->num_controls && result.kind != UNKNOWN; i++) {
        guard e = edge_guard(plan, g, n, i);
        if (e.kind == UNKNOWN || (result.kind == BRANCH && e.kind == BRANCH && !same_guard(result, e)))
            result = (guard){.kind = UNKNOWN};
        else if (e.kind == BRANCH)
            result = e;
    }
    return result;
}

static guard merge_guard(const tp_flow_plan *plan, const guard *g, int n)
{
    const tp_node *gn = &plan->graph->nodes[n];
    if (plan->nodes[n].num_back_inputs || gn->num_inputs == 0)
        return (guard){.kind = UNKNOWN};
    guard first = edge_guard(plan, g, n, 0);
    bool all_same = true, both = false;
    for (int i = 0; i < gn->num_inputs; i++) {
        guard e = edge_guard(plan, g, n, i);
        if (e.kind == LIVE)
            return e;
        all_same = all_same && same_guard(e, first);
        both = both || (e.kind == BRANCH && first.kind == BRANCH && e.pred.node == first.pred.node &&
                        e.pred.index == first.pred.index && e.branch != first.branch);
    }
    bool only_pred = true; /* every input is a branch of first's predicate */
    for (int i = 0; i < gn->num_inputs && only_pred; i++) {
        guard e = edge_guard(plan, g, n, i);
        only_pred = e.kind == BRANCH && e.pred.node == first.pred.node && e.pred.index == first.pred.index;
    }
    if (both && only_pred)
        return (guard){.kind = LIVE};
    return all_same ? first : (guard){.kind = UNKNOWN};
}

/* An Exit into the root frame: live if its loop was entered live and it
 * reads the loop's Switch (the iteration where the condition fails). */
static guard exit_guard(const tp_flow_plan *plan, const guard *g, int n)
{
    const tp_node *gn = &plan->graph->nodes[n];
    int frame = plan->nodes[n].frame;
    if (gn->num_inputs != 1 || plan->nodes[gn->inputs[0].node].kind != TP_FLOW_SWITCH)
        return (guard){.kind = UNKNOWN};
    for (int k = 0; k < plan->num_needed; k++) {
        int e = plan->order[k];
        if (plan->nodes[e].kind == TP_FLOW_ENTER && plan->nodes[e].child_frame == frame && g[e].kind != LIVE)
            return (guard){.kind = UNKNOWN};
    }
    return (guard){.kind = LIVE};
}

bool *tp_flow_certainly_live(const tp_flow_plan *plan)
{
    int count = plan->graph->num_nodes;
    guard *g = malloc(sizeof *g * ((size_t)count + 1));
    bool *live = calloc((size_t)count + 1, sizeof *live);
    if (!g || !live) {
        free(g);
        free(live);
        return NULL;
    }
    for (int n = 0; n < count; n++)
        g[n] = (guard){.kind = UNKNOWN};
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        const tp_flow_node *fn = &plan->nodes[n];
        if (fn->fed || fn->folded)
            g[n] = (guard){.kind = LIVE};
        else if (fn->kind == TP_FLOW_EXIT && plan->frames[fn->frame].parent == 0)
            g[n] = exit_guard(plan, g, n);
        else if (fn->frame != 0)
            continue;
        else if (fn->kind == TP_FLOW_MERGE)
            g[n] = merge_guard(plan, g, n);
        else
            g[n] = combine(plan, g, n);
        live[n] = g[n].kind == LIVE && fn->frame == 0;
    }
    free(g);
    return live;
}
