/* switch_fold.c - plan-time resolution of Switches on known predicates
 * (switch_fold.h). A predicate is known when it is a bool Const, an unfed
 * PlaceholderWithDefault of a known value, or Identity/LogicalNot of one.
 * Deadness then spreads as at run time (any dead input, control inputs
 * included, kills a node; a Merge dies only when all its inputs do) and the
 * copy leaves out every dead node: a resolved Switch becomes Identity(data)
 * and its live port's readers read it, a Merge left with one live input
 * becomes Identity(that input). */
#include <stdlib.h>
#include <string.h>

#include "graph/tensor_proto.h"
#include "plan/plan.h"
#include "plan/switch_fold.h"

typedef struct fold {
    const tfpi_graph *graph;
    bool *fed, *dead;
    signed char *live_port; /* Switch resolved: the live port; else -1 */
} fold;

static bool op_is(const Tfpi__NodeDef *def, const char *op)
{
    return strcmp(def->op, op) == 0 || (strncmp(def->op, "Ref", 3) == 0 && strcmp(def->op + 3, op) == 0);
}

/* 1/0 for a predicate known now, -1 otherwise. */
static int known_bool(const fold *f, int node, int depth)
{
    const tp_node *gn = &f->graph->nodes[node];
    if (depth > 32 || f->fed[node])
        return -1;
    if (strcmp(gn->def->op, "Const") == 0) {
        const Tfpi__AttrValue *v = tp_attr(gn->def, "value");
        tfpi_tensor t = {0};
        void *owned = NULL;
        int result = -1;
        if (v && v->value_case == TFPI__ATTR_VALUE__VALUE_TENSOR &&
            tp_tensor_from_proto(v->tensor, &t, &owned, "predicate", NULL) == TFPI_OK && t.dtype == TFPI_BOOL &&
            t.ndims == 0)
            result = *(const uint8_t *)t.data != 0;
        free(owned);
        return result;
    }
    if (gn->num_inputs != 1 || gn->inputs[0].index != 0)
        return -1;
    int in = known_bool(f, gn->inputs[0].node, depth + 1);
    if (strcmp(gn->def->op, "PlaceholderWithDefault") == 0 || strcmp(gn->def->op, "Identity") == 0)
        return in;
    if (strcmp(gn->def->op, "LogicalNot") == 0 && in >= 0)
        return !in;
    return -1;
}

static bool tensor_dead(const fold *f, tp_edge e)
{
    return f->dead[e.node] || (f->live_port[e.node] >= 0 && e.index != f->live_port[e.node]);
}

/* Spreads deadness until nothing changes; returns false if no Switch is
 * resolved. */
static bool spread(fold *f)
{
    const tfpi_graph *g = f->graph;
    bool any = false;
    for (int n = 0; n < g->num_nodes; n++) {
        f->live_port[n] = -1;
        if (op_is(g->nodes[n].def, "Switch") && g->nodes[n].num_inputs == 2 && !f->fed[n]) {
            int c = known_bool(f, g->nodes[n].inputs[1].node, 0);
            f->live_port[n] = (signed char)c;
            any = any || c >= 0;
        }
    }
    for (bool changed = any; changed;) {
        changed = false;
        for (int n = 0; n < g->num_nodes; n++) {
            const tp_node *gn = &g->nodes[n];
            if (f->dead[n] || f->fed[n])
                continue;
            bool merge = op_is(gn->def, "Merge"), dead = merge && gn->num_inputs > 0;
            for (int i = 0; i < gn->num_inputs; i++)
                dead = merge ? dead && tensor_dead(f, gn->inputs[i]) : dead || tensor_dead(f, gn->inputs[i]);
            for (int i = 0; !merge && i < gn->num_controls; i++)
                dead = dead || f->dead[gn->controls[i]];
            if (dead)
                f->dead[n] = changed = true;
        }
    }
    return any;
}

/* The one live data input of a Merge that lost some, or -1. */
static int merge_survivor(const fold *f, int n)
{
    const tp_node *gn = &f->graph->nodes[n];
    int live = -1, count = 0;
    if (!op_is(gn->def, "Merge") || f->dead[n])
        return -1;
    for (int i = 0; i < gn->num_inputs; i++)
        if (!tensor_dead(f, gn->inputs[i])) {
            live = i;
            count++;
        }
    return count == 1 && gn->num_inputs > 1 ? live : -1;
}

/* False if a fetch (or target) is dead or reads a value_index that would disappear. */
static bool fetches_survive(const fold *f, const tp_edge *fetches, int n)
{
    for (int i = 0; i < n; i++) {
        if (fetches[i].index == TP_TARGET) {
            if (f->dead[fetches[i].node])
                return false;
            continue;
        }
        if (tensor_dead(f, fetches[i]) || (fetches[i].index > 0 && (merge_survivor(f, fetches[i].node) >= 0 ||
                                                                    f->live_port[fetches[i].node] >= 0)))
            return false;
    }
    return true;
}

static Tfpi__NodeDef *copy_def(const Tfpi__NodeDef *def)
{
    size_t size = tfpi__node_def__get_packed_size(def);
    uint8_t *buf = malloc(size ? size : 1);
    Tfpi__NodeDef *copy = NULL;
    if (buf) {
        tfpi__node_def__pack(def, buf);
        copy = tfpi__node_def__unpack(NULL, size, buf);
    }
    free(buf);
    return copy;
}

/* Rewrites the copy's inputs: keeps `keep_data` data inputs (-1: all; else
 * only that one), drops dead control inputs, and points readers of a
 * resolved Switch's live port at the Identity it becomes. */
static bool rewrite_inputs(const fold *f, int n, Tfpi__NodeDef *def, int keep_data)
{
    const tp_node *gn = &f->graph->nodes[n];
    size_t out = 0;
    for (size_t i = 0, data = 0; i < def->n_input; i++) {
        char *in = def->input[i];
        bool control = in[0] == '^';
        bool keep = control ? !f->dead[gn->controls[i - data]]
                            : (keep_data < 0 || (int)data == keep_data) && !tensor_dead(f, gn->inputs[data]);
        if (!control) {
            tp_edge e = gn->inputs[data++];
            if (keep && f->live_port[e.node] >= 0) {
                char *colon = strrchr(in, ':');
                if (colon)
                    *colon = '\0'; /* "switch:1" -> "switch" */
            }
        }
        if (keep)
            def->input[out++] = in;
        else
            free(in);
    }
    def->n_input = out;
    return true;
}

static bool become_identity(Tfpi__NodeDef *def)
{
    char *op = strdup("Identity");
    if (!op)
        return false;
    free(def->op);
    def->op = op;
    return true;
}

tfpi_graph *tp_fold_static_switches(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                                    const char *const *fetch_names, int num_fetches, tfpi_status *status)
{
    size_t n = (size_t)graph->num_nodes + 1;
    fold f = {.graph = graph, .fed = calloc(n, 1), .dead = calloc(n, 1), .live_port = malloc(n)};
    tp_edge *feeds = NULL, *fetches = NULL;
    Tfpi__NodeDef **defs = NULL;
    tfpi_graph *result = NULL;
    int count = 0;
    if (!f.fed || !f.dead || !f.live_port ||
        tp_plan_resolve_names(graph, feed_names, num_feeds, "feed", &feeds, NULL) != TFPI_OK ||
        tp_plan_resolve_names(graph, fetch_names, num_fetches, "fetch", &fetches, NULL) != TFPI_OK)
        goto done;
    for (int i = 0; i < num_feeds; i++)
        f.fed[feeds[i].node] = true;
    if (!spread(&f) || !fetches_survive(&f, fetches, num_fetches) || !(defs = calloc(n, sizeof *defs)))
        goto done;
    for (int i = 0; i < graph->num_nodes; i++) {
        if (f.dead[i])
            continue;
        Tfpi__NodeDef *def = copy_def(graph->nodes[i].def);
        int survivor = merge_survivor(&f, i);
        bool ok = def != NULL;
        if (ok)
            defs[count++] = def;
        ok = ok && rewrite_inputs(&f, i, def, survivor >= 0 ? survivor : f.live_port[i] >= 0 ? 0 : -1);
        if (ok && (survivor >= 0 || f.live_port[i] >= 0))
            ok = become_identity(def);
        if (!ok) {
            tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory resolving the graph's Switches");
            for (int j = 0; j < count; j++)
                tfpi__node_def__free_unpacked(defs[j], NULL);
            count = 0;
            goto done;
        }
    }
    result = tp_graph_build(defs, count, graph->producer, "graph", status);
    if (result) /* a memmapped model's regions, a SavedModel's signature and variables */
        tp_graph_borrow_backing(result, graph);
done:
    free(defs);
    free(feeds);
    free(fetches);
    free(f.fed);
    free(f.dead);
    free(f.live_port);
    return result;
}
