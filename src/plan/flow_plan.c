/* flow_plan.c - builds the dynamic executor's plan (flow_plan.h): prunes to
 * the fetches, classifies the control-flow nodes, orders the nodes with the
 * NextIteration -> Merge back edges left out (any other cycle is refused),
 * assigns every node the frame it runs in (TensorFlow's frame rules: an
 * Enter's output is in the child frame named by frame_name, an Exit's in
 * the parent, everything else in the frame of its inputs), lists each
 * output's consumers, computes once the root-frame nodes that depend only
 * on constants, and groups the ordinary root-frame nodes into regions that
 * run as static plans (flow_region.c). */
#include <stdlib.h>
#include <string.h>

#include "graph/name_map.h"
#include "plan/flow_plan.h"
#include "plan/plan.h"

static tp_flow_kind kind_of(const char *op)
{
    if (strncmp(op, "Ref", 3) == 0 && (strcmp(op + 3, "Switch") == 0 || strcmp(op + 3, "Merge") == 0 ||
                                       strcmp(op + 3, "Enter") == 0 || strcmp(op + 3, "Exit") == 0 ||
                                       strcmp(op + 3, "NextIteration") == 0))
        op += 3;
    static const struct { const char *op; tp_flow_kind kind; } kinds[] = {
        {"Switch", TP_FLOW_SWITCH}, {"Merge", TP_FLOW_MERGE}, {"Enter", TP_FLOW_ENTER},
        {"Exit", TP_FLOW_EXIT}, {"NextIteration", TP_FLOW_NEXT}, {"LoopCond", TP_FLOW_FORWARD},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(op, kinds[i].op) == 0)
            return kinds[i].kind;
    return TP_FLOW_OP;
}

/* Marks what the fetches need, not looking past fed nodes. */
static bool mark_needed(const tfpi_graph *g, const tp_edge *feeds, int num_feeds, const tp_edge *fetches,
                        int num_fetches, bool *needed)
{
    bool *fed = calloc((size_t)g->num_nodes + 1, sizeof *fed);
    int *stack = malloc(sizeof(int) * ((size_t)g->num_nodes + 1));
    if (!fed || !stack) {
        free(fed);
        free(stack);
        return false;
    }
    for (int f = 0; f < num_feeds; f++)
        fed[feeds[f].node] = true;
    int top = 0;
    for (int f = 0; f < num_fetches; f++)
        if (!needed[fetches[f].node]) {
            needed[fetches[f].node] = true;
            stack[top++] = fetches[f].node;
        }
    while (top > 0) {
        int n = stack[--top];
        const tp_node *gn = &g->nodes[n];
        for (int i = 0; !fed[n] && i < gn->num_inputs + gn->num_controls; i++) {
            int src = i < gn->num_inputs ? gn->inputs[i].node : gn->controls[i - gn->num_inputs];
            if (!needed[src]) {
                needed[src] = true;
                stack[top++] = src;
            }
        }
    }
    free(fed);
    free(stack);
    return true;
}

bool tp_flow_needed(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                    const char *const *fetch_names, int num_fetches)
{
    tp_edge *feeds = NULL, *fetches = NULL;
    bool *needed = calloc((size_t)graph->num_nodes + 1, sizeof *needed);
    bool result = false;
    if (needed && tp_plan_resolve_names(graph, feed_names, num_feeds, "feed", &feeds, NULL) == TFPI_OK &&
        tp_plan_resolve_names(graph, fetch_names, num_fetches, "fetch", &fetches, NULL) == TFPI_OK &&
        mark_needed(graph, feeds, num_feeds, fetches, num_fetches, needed)) {
        for (int n = 0; n < graph->num_nodes && !result; n++) {
            const tp_kernel *k = needed[n] ? tp_find_kernel(graph->nodes[n].def->op) : NULL;
            result = needed[n] && (kind_of(graph->nodes[n].def->op) != TP_FLOW_OP ||
                                   (k && (k->flags & (TP_DYNAMIC | TP_WRITES_VARIABLES))));
        }
    }
    free(feeds);
    free(fetches);
    free(needed);
    return result;
}

static bool is_fed(const tp_flow_plan *plan, int node)
{
    for (int f = 0; f < plan->num_feeds; f++)
        if (plan->feeds[f].node == node)
            return true;
    return false;
}

int tp_flow_source(const tp_node *gn, int i)
{
    return i < gn->num_inputs ? gn->inputs[i].node : gn->controls[i - gn->num_inputs];
}

/* Kahn's order over the needed nodes without the back edges. */
static tfpi_code order_nodes(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    int *missing = calloc((size_t)g->num_nodes + 1, sizeof *missing);
    if (!missing)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    int count = 0, total = 0;
    for (int n = 0; n < g->num_nodes; n++) {
        if (!plan->needed[n])
            continue;
        total++;
        const tp_node *gn = &g->nodes[n];
        for (int i = 0; !is_fed(plan, n) && i < gn->num_inputs + gn->num_controls; i++)
            if (plan->nodes[tp_flow_source(gn, i)].kind != TP_FLOW_NEXT)
                missing[n]++;
        if (missing[n] == 0)
            plan->order[count++] = n;
    }
    for (int k = 0; k < count; k++) {
        int n = plan->order[k];
        if (plan->nodes[n].kind == TP_FLOW_NEXT)
            continue;
        for (int c = 0; c < plan->nodes[n].num_consumers; c++) {
            int dst = plan->nodes[n].consumers[c].node;
            if (--missing[dst] == 0)
                plan->order[count++] = dst;
        }
    }
    int stuck = -1;
    for (int n = 0; n < g->num_nodes && stuck < 0 && count < total; n++)
        if (plan->needed[n] && missing[n] > 0)
            stuck = n;
    free(missing);
    plan->num_needed = count;
    if (stuck >= 0)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "the graph has a cycle through node '%s' that is not a while loop (a loop's "
                               "only cycle is NextIteration -> Merge)",
                               g->nodes[stuck].def->name);
    return TFPI_OK;
}

static tfpi_code add_consumers(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    for (int pass = 0; pass < 2; pass++) {
        for (int n = 0; n < g->num_nodes; n++) {
            const tp_node *gn = &g->nodes[n];
            for (int i = 0; plan->needed[n] && !is_fed(plan, n) && i < gn->num_inputs + gn->num_controls; i++) {
                tp_flow_node *src = &plan->nodes[tp_flow_source(gn, i)];
                if (pass == 0) {
                    src->num_consumers++;
                    continue;
                }
                bool data = i < gn->num_inputs;
                src->consumers[src->num_consumers++] =
                    (tp_flow_consumer){data ? gn->inputs[i].index : -1, n, data ? i : -1};
            }
        }
        for (int n = 0; pass == 0 && n < g->num_nodes; n++) {
            tp_flow_node *fn = &plan->nodes[n];
            if (fn->num_consumers && !(fn->consumers = calloc((size_t)fn->num_consumers, sizeof *fn->consumers)))
                return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
            fn->num_consumers = 0;
        }
    }
    return TFPI_OK;
}

/* The frames found so far by name (a name may recur under other parents). */
typedef struct frame_lookup {
    tp_name_map by_name;  /* a frame's name -> the first frame of that name */
    int *next_same_name;  /* per frame: the next of the same name, or -1 */
    size_t capacity;      /* frames and next_same_name have room for this many */
} frame_lookup;

static int find_or_add_frame(tp_flow_plan *plan, frame_lookup *lookup, const char *name, int parent)
{
    int head = tp_name_map_find(&lookup->by_name, name, strlen(name));
    for (int f = head; f >= 0; f = lookup->next_same_name[f])
        if (plan->frames[f].parent == parent)
            return f;
    if ((size_t)plan->num_frames == lookup->capacity) { /* doubling: 20,000 nested loops stay linear */
        size_t count = 2 * lookup->capacity;
        tp_flow_frame *grown = realloc(plan->frames, sizeof *grown * count);
        if (grown)
            plan->frames = grown;
        int *grown_next = grown ? realloc(lookup->next_same_name, sizeof *grown_next * count) : NULL;
        if (!grown_next)
            return -1;
        lookup->next_same_name = grown_next;
        lookup->capacity = count;
    }
    tp_flow_frame *frames = plan->frames;
    int *next = lookup->next_same_name;
    int f = plan->num_frames;
    frames[f] = (tp_flow_frame){.name = name, .parent = parent};
    next[f] = -1;
    if (head < 0) {
        if (!tp_name_map_insert(&lookup->by_name, name, f))
            return -1;
    } else {
        next[f] = next[head];
        next[head] = f;
    }
    return plan->num_frames++;
}

int tp_flow_output_frame(const tp_flow_plan *plan, int n)
{
    const tp_flow_node *fn = &plan->nodes[n];
    if (fn->kind == TP_FLOW_ENTER)
        return fn->child_frame;
    if (fn->kind == TP_FLOW_EXIT)
        return plan->frames[fn->frame].parent;
    return fn->frame;
}

static tfpi_code mixed_frames(const tp_flow_plan *plan, int n, int a, int b, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                           "The node '%s' has inputs from different frames. The input '%s' is in frame '%s'. The "
                           "input '%s' is in frame '%s'.",
                           g->nodes[n].def->name, g->nodes[a].def->name,
                           plan->frames[tp_flow_output_frame(plan, a)].name, g->nodes[b].def->name,
                           plan->frames[tp_flow_output_frame(plan, b)].name);
}

/* The frame of every node, in order (frame_name of the Enters, with the
 * frame rules of the file comment). */
static tfpi_code frame_of_every_node(tp_flow_plan *plan, frame_lookup *lookup, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    if (!(plan->frames = calloc(1, sizeof *plan->frames)) || !(lookup->next_same_name = malloc(sizeof(int))))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    plan->frames[0] = (tp_flow_frame){.name = "", .parent = -1};
    lookup->next_same_name[0] = -1;
    lookup->capacity = 1;
    plan->num_frames = 1;
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        tp_flow_node *fn = &plan->nodes[n];
        const tp_node *gn = &g->nodes[n];
        int first = -1;
        for (int i = 0; !is_fed(plan, n) && i < gn->num_inputs + gn->num_controls; i++) {
            int src = tp_flow_source(gn, i);
            if (plan->nodes[src].kind == TP_FLOW_NEXT)
                continue;
            if (first < 0)
                first = src;
            else if (tp_flow_output_frame(plan, src) != tp_flow_output_frame(plan, first))
                return mixed_frames(plan, n, first, src, status);
        }
        fn->frame = first < 0 ? 0 : tp_flow_output_frame(plan, first);
        if ((fn->kind == TP_FLOW_EXIT || fn->kind == TP_FLOW_NEXT) && fn->frame == 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "node '%s' (%s) is not inside a while loop",
                                   gn->def->name, gn->def->op);
        if (fn->kind == TP_FLOW_ENTER) {
            const Tfpi__AttrValue *name = tp_attr(gn->def, "frame_name");
            if (!name || name->value_case != TFPI__ATTR_VALUE__VALUE_S)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "node '%s' (Enter) has no frame_name",
                                       gn->def->name);
            if (name->s.len && memchr(name->s.data, 0, name->s.len))
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "node '%s' (%s): frame_name holds a NUL byte",
                                       gn->def->name, gn->def->op);
            /* NodeDef strings are not NUL-terminated: the frame owns a copy. */
            char *copy = malloc(name->s.len + 1);
            if (copy) {
                if (name->s.len)
                    memcpy(copy, name->s.data, name->s.len);
                copy[name->s.len] = 0;
            }
            if (!copy || (fn->child_frame = find_or_add_frame(plan, lookup, copy, fn->frame)) < 0) {
                free(copy);
                return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
            }
            if (plan->frames[fn->child_frame].name != copy)
                free(copy);
            fn->is_constant = tp_attr_bool(gn->def, "is_constant", false);
            plan->frames[fn->child_frame].num_enters++;
        }
    }
    return TFPI_OK;
}

/* Every edge, back edges included, must stay within one frame. */
static tfpi_code check_edges(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        const tp_node *gn = &g->nodes[n];
        for (int i = 0; !is_fed(plan, n) && i < gn->num_inputs + gn->num_controls; i++) {
            int src = tp_flow_source(gn, i);
            if (tp_flow_output_frame(plan, src) != plan->nodes[n].frame)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                       "node '%s' in frame '%s' reads '%s' from frame '%s': the graph's loops are "
                                       "not well formed (was it edited by a tool that ignores frames?)",
                                       gn->def->name, plan->frames[plan->nodes[n].frame].name,
                                       g->nodes[src].def->name, plan->frames[tp_flow_output_frame(plan, src)].name);
            if (plan->nodes[src].kind == TP_FLOW_NEXT && plan->nodes[n].kind == TP_FLOW_MERGE && i < gn->num_inputs)
                plan->nodes[n].num_back_inputs++;
        }
        if (plan->nodes[n].frame != 0 && is_fed(plan, n))
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                   "feed '%s' is inside while loop frame '%s': only tensors outside loops can be fed",
                                   gn->def->name, plan->frames[plan->nodes[n].frame].name);
    }
    for (int i = 0; i < plan->num_fetches; i++) {
        int frame = tp_flow_output_frame(plan, plan->fetches[i].node);
        if (frame != 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                   "fetch '%s' is inside while loop frame '%s': fetch a tensor outside the loop",
                                   g->nodes[plan->fetches[i].node].def->name, plan->frames[frame].name);
    }
    return TFPI_OK;
}

/* Frame of every node, in order; then every edge, back edges included, must
 * stay within one frame. */
static tfpi_code assign_frames(tp_flow_plan *plan, tfpi_status *status)
{
    frame_lookup lookup = {.next_same_name = NULL};
    int enters = 0;
    for (int k = 0; k < plan->num_needed; k++)
        enters += plan->nodes[plan->order[k]].kind == TP_FLOW_ENTER;
    if (!tp_name_map_init(&lookup.by_name, (size_t)enters + 1))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    tfpi_code code = frame_of_every_node(plan, &lookup, status);
    tp_name_map_free(&lookup.by_name);
    free(lookup.next_same_name);
    return code == TFPI_OK ? check_edges(plan, status) : code;
}

/* Local indices, input slots and Exit lists per frame. */
static tfpi_code index_frames(tp_flow_plan *plan, tfpi_status *status)
{
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        tp_flow_node *fn = &plan->nodes[n];
        tp_flow_frame *f = &plan->frames[fn->frame];
        if (fn->absorbed)
            continue;
        fn->local = f->num_nodes++;
        fn->slot_base = f->num_slots;
        f->num_slots += fn->num_slots;
        if (fn->kind == TP_FLOW_EXIT)
            f->num_exits++;
    }
    for (int f = 0; f < plan->num_frames; f++) {
        tp_flow_frame *fr = &plan->frames[f];
        if (!(fr->nodes = malloc(sizeof(int) * ((size_t)fr->num_nodes + 1))) ||
            !(fr->exits = malloc(sizeof(int) * ((size_t)fr->num_exits + 1))))
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        fr->num_exits = 0;
    }
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        if (plan->nodes[n].absorbed)
            continue;
        tp_flow_frame *f = &plan->frames[plan->nodes[n].frame];
        f->nodes[plan->nodes[n].local] = n;
        if (plan->nodes[n].kind == TP_FLOW_EXIT) {
            plan->nodes[n].exit_index = f->num_exits;
            f->exits[f->num_exits++] = n;
        }
    }
    return TFPI_OK;
}

/* Kernels, output counts and the kernels' input/output views. */
static tfpi_code prepare_nodes(tp_flow_plan *plan, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    for (int n = 0; n < g->num_nodes; n++) {
        tp_flow_node *fn = &plan->nodes[n];
        const tp_node *gn = &g->nodes[n];
        fn->num_outputs = gn->num_outputs;
        fn->region = -1;
        if (!plan->needed[n])
            continue;
        fn->kind = kind_of(gn->def->op);
        fn->fed = is_fed(plan, n);
        fn->num_slots = gn->num_inputs;
        fn->num_pending = fn->fed ? 0 : fn->kind == TP_FLOW_MERGE ? gn->num_controls : gn->num_inputs + gn->num_controls;
        if (fn->kind == TP_FLOW_SWITCH || fn->kind == TP_FLOW_MERGE)
            fn->num_outputs = 2;
        int routed = fn->kind == TP_FLOW_SWITCH || fn->kind == TP_FLOW_MERGE ? 2 : 1;
        if (fn->kind != TP_FLOW_OP && gn->num_outputs > routed)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "node '%s' (%s) has only %d output%s",
                                   gn->def->name, gn->def->op, routed, routed > 1 ? "s" : "");
        for (int f = 0; f < plan->num_fetches; f++) /* a fetched output nothing else reads */
            if (plan->fetches[f].node == n && plan->fetches[f].index >= fn->num_outputs) {
                if (fn->kind != TP_FLOW_OP)
                    return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "fetch '%s:%d': the node has no output %d",
                                           gn->def->name, plan->fetches[f].index, plan->fetches[f].index);
                fn->num_outputs = plan->fetches[f].index + 1;
            }
        if (!is_fed(plan, n) && !(fn->kernel = tp_find_kernel(gn->def->op)))
            return tp_plan_missing_kernel(gn->def, status);
        if (fn->kind == TP_FLOW_MERGE) {
            const Tfpi__AttrValue *count = tp_attr(gn->def, "N"), *type = tp_attr(gn->def, "T");
            if (gn->num_inputs < 1)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                       "node '%s' (%s) has no data input: TensorFlow's Merge takes N >= 1",
                                       gn->def->name, gn->def->op);
            if (count && count->value_case == TFPI__ATTR_VALUE__VALUE_I && count->i != gn->num_inputs)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                       "node '%s' (%s): attribute N = %lld, but the node has %d such inputs",
                                       gn->def->name, gn->def->op, (long long)count->i, gn->num_inputs);
            fn->merge_type = type && type->value_case == TFPI__ATTR_VALUE__VALUE_TYPE ? (tfpi_dtype)type->type : 0;
        }
        fn->ctx_inputs = calloc((size_t)gn->num_inputs + 1, sizeof *fn->ctx_inputs);
        fn->views = calloc((size_t)gn->num_inputs + 1, sizeof *fn->views);
        fn->ctx_outputs = calloc((size_t)fn->num_outputs, sizeof *fn->ctx_outputs);
        if (!fn->ctx_inputs || !fn->views || !fn->ctx_outputs)
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    return TFPI_OK;
}

/* A variable read is a constant while no node of the plan assigns one. */
static bool foldable(const tp_flow_plan *plan, int n)
{
    const tp_flow_node *fn = &plan->nodes[n];
    const tp_node *gn = &plan->graph->nodes[n];
    if (fn->frame != 0 || fn->kind != TP_FLOW_OP || is_fed(plan, n))
        return false;
    bool constant_read = (fn->kernel->flags & TP_READS_VARIABLES) && plan->env.variables_frozen;
    if ((fn->kernel->flags & TP_STATEFUL) && !constant_read)
        return false;
    for (int i = 0; i < gn->num_inputs + gn->num_controls; i++)
        if (!plan->nodes[tp_flow_source(gn, i)].folded)
            return false;
    return true;
}

/* Root-frame nodes computable from constants alone, once. */
static tfpi_code fold_constants(tp_flow_plan *plan, tfpi_status *status)
{
    tp_value *inputs_buf[64];
    for (int k = 0; k < plan->num_needed; k++) {
        int n = plan->order[k];
        const tp_node *gn = &plan->graph->nodes[n];
        tp_flow_node *fn = &plan->nodes[n];
        if (!foldable(plan, n))
            continue;
        tp_value **inputs = gn->num_inputs <= 64 ? inputs_buf : malloc(sizeof *inputs * (size_t)gn->num_inputs);
        tp_value **outputs = calloc((size_t)fn->num_outputs, sizeof *outputs);
        if (!inputs || !outputs) {
            if (inputs != inputs_buf)
                free(inputs);
            free(outputs);
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        }
        for (int i = 0; i < gn->num_inputs; i++)
            inputs[i] = plan->nodes[gn->inputs[i].node].folded[gn->inputs[i].index];
        tfpi_code code = tp_flow_run_kernel(plan, n, inputs, outputs, NULL, status);
        if (inputs != inputs_buf)
            free(inputs);
        tp_flow_forget_kernel(fn); /* it never runs again */
        if (code != TFPI_OK) {
            free(outputs);
            return code;
        }
        for (int o = 0; o < fn->num_outputs; o++)
            outputs[o]->constant = true;
        fn->folded = outputs;
    }
    return TFPI_OK;
}

tp_flow_plan *tp_flow_plan_new(const tfpi_graph *graph, const char *const *feed_names, int num_feeds,
                               const char *const *fetch_names, int num_fetches, const tp_plan_env *env,
                               int64_t max_iterations, tfpi_status *status)
{
    tp_flow_plan *plan = calloc(1, sizeof *plan);
    if (!plan) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory planning the graph");
        return NULL;
    }
    plan->graph = graph;
    plan->env = *env;
    plan->max_iterations = max_iterations;
    plan->pool.max_bytes = env->max_memory;
    plan->num_feeds = num_feeds;
    plan->num_fetches = num_fetches;
    size_t n = (size_t)graph->num_nodes + 1;
    tfpi_code code = TFPI_OK;
    if (!(plan->nodes = calloc(n, sizeof *plan->nodes)) || !(plan->needed = calloc(n, sizeof *plan->needed)) ||
        !(plan->order = malloc(n * sizeof *plan->order)))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory planning the graph");
    if (code == TFPI_OK)
        code = tp_plan_resolve_names(graph, feed_names, num_feeds, "feed", &plan->feeds, status);
    if (code == TFPI_OK)
        code = tp_plan_refuse_repeated_feeds(graph, feed_names, plan->feeds, num_feeds, status);
    if (code == TFPI_OK)
        code = tp_plan_resolve_names(graph, fetch_names, num_fetches, "fetch", &plan->fetches, status);
    if (code == TFPI_OK &&
        !mark_needed(graph, plan->feeds, num_feeds, plan->fetches, num_fetches, plan->needed))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory planning the graph");
    if (code == TFPI_OK)
        code = prepare_nodes(plan, status);
    for (int i = 0; code == TFPI_OK && i < graph->num_nodes; i++)
        if (plan->needed[i] && plan->nodes[i].kernel && (plan->nodes[i].kernel->flags & TP_WRITES_VARIABLES))
            plan->env.variables_frozen = false;
    if (code == TFPI_OK)
        code = add_consumers(plan, status);
    if (code == TFPI_OK)
        code = order_nodes(plan, status);
    if (code == TFPI_OK)
        code = assign_frames(plan, status);
    if (code == TFPI_OK)
        code = fold_constants(plan, status);
    if (code == TFPI_OK)
        code = tp_flow_form_regions(plan, status);
    if (code == TFPI_OK)
        code = index_frames(plan, status);
    if (code != TFPI_OK) {
        tp_flow_plan_free(plan);
        return NULL;
    }
    return plan;
}

void tp_flow_plan_free(tp_flow_plan *plan)
{
    if (!plan)
        return;
    for (int n = 0; plan->nodes && n < plan->graph->num_nodes; n++) {
        tp_flow_node *fn = &plan->nodes[n];
        for (int o = 0; fn->folded && o < fn->num_outputs; o++)
            tp_value_unref(&plan->pool, fn->folded[o]);
        free(fn->folded);
        free(fn->consumers);
        if (fn->kernel)
            tp_flow_forget_kernel(fn);
        free(fn->ctx_inputs);
        free(fn->views);
        free(fn->ctx_outputs);
        free(fn->prepared_outputs);
        free(fn->prepared_inputs);
        free(fn->prepared_constants);
    }
    for (int f = 1; f < plan->num_frames; f++)
        free((char *)plan->frames[f].name);
    for (int f = 0; f < plan->num_frames; f++) {
        free(plan->frames[f].exits);
        free(plan->frames[f].nodes);
    }
    tp_flow_regions_free(plan);
    tp_value_pool_free(&plan->pool);
    free(plan->frames);
    free(plan->nodes);
    free(plan->needed);
    free(plan->order);
    free(plan->feeds);
    free(plan->fetches);
    free(plan->fetch_from);
    free(plan);
}
