/* flow_run.c - the dynamic executor (flow_run.h), one node at a time from a
 * ready queue. Each loop execution is a frame instance keyed by (parent
 * instance, parent iteration, frame); each iteration of it keeps the inputs
 * that have arrived for its nodes and how many are still to come. A node
 * with a dead input does not run and its outputs are dead; a Merge fires on
 * its first live input, or dead once every input it can get this iteration
 * is dead; a live NextIteration starts the next iteration; a constant Enter
 * reaches every iteration; an Exit that never fired live gives the parent a
 * dead tensor when its frame finishes. Iterations are freed oldest first as
 * soon as nothing can reach them any more. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "run/flow_run.h"

typedef struct iteration {
    int64_t number;
    tp_value **slots;  /* data inputs of the frame's nodes */
    int *pending;      /* inputs still to come (Merge: control inputs) */
    int *dead;         /* dead inputs that came (Merge: dead data inputs) */
    int *live_input;   /* Merge: the first live input, -1 */
    int *cause;        /* a dead node: the Switch whose untaken branch it lies on, -1 if unknown */
    unsigned char *fired; /* Merge already fired */
    int outstanding;   /* queued nodes and child frames */
} iteration;

typedef struct frame_inst {
    int frame;
    struct frame_inst *parent;
    struct frame_inst *next, *prev;  /* the run's live child instances */
    struct frame_inst *first_child, *next_sibling; /* the parent's, to find one in O(children) */
    int64_t parent_iter;
    iteration **iters; /* live iterations, oldest first, consecutive numbers */
    int num_iters, cap_iters;
    int64_t next_number;
    int pending_enters;
    int outstanding;
    int num_constants;
    int *constant_nodes; /* constant Enters that fired, and their values */
    tp_value **constants;
    bool *exit_live;
} frame_inst;

typedef struct item {
    int node;
    frame_inst *frame;
    int64_t iter;
} item;

typedef struct run_state {
    tp_flow_plan *plan;
    item *queue;
    int head, tail, cap;
    frame_inst *root, *instances;
    tp_value **fed;     /* per feed */
    tp_value **fetched; /* per fetch */
    int *fetch_cause;   /* per dead fetch: the Switch that made it dead, -1 if unknown */
    int dead_cause;     /* what emit is delivering: the Switch behind its dead values */
    tp_value *outs_buf[64];
    tp_resource *resources;
    int64_t iterations; /* made in this run after each loop's first, all frames together */
    tfpi_status *status;
} run_state;

static tfpi_code out_of_memory(run_state *r)
{
    return tfpi_status_set(r->status, TFPI_OUT_OF_MEMORY, "out of memory running the graph");
}

static iteration *find_iteration(frame_inst *f, int64_t number)
{
    if (f->num_iters == 0 || number < f->iters[0]->number || number >= f->iters[0]->number + f->num_iters)
        return NULL;
    return f->iters[number - f->iters[0]->number];
}

static tfpi_code enqueue(run_state *r, int node, frame_inst *f, iteration *it)
{
    if (r->tail == r->cap) {
        if (r->head > 0) {
            memmove(r->queue, r->queue + r->head, sizeof *r->queue * (size_t)(r->tail - r->head));
            r->tail -= r->head;
            r->head = 0;
        }
        if (r->tail == r->cap) {
            int cap = r->cap ? 2 * r->cap : 256;
            item *q = realloc(r->queue, sizeof *q * (size_t)cap);
            if (!q)
                return out_of_memory(r);
            r->queue = q;
            r->cap = cap;
        }
    }
    r->queue[r->tail++] = (item){node, f, it->number};
    it->outstanding++;
    f->outstanding++;
    return TFPI_OK;
}

/* Data inputs a Merge can receive in this iteration: a loop header gets its
 * Enter inputs in iteration 0 and its NextIteration inputs afterwards. */
static int merge_expected(const tp_flow_plan *plan, int node, int64_t iter)
{
    const tp_flow_node *fn = &plan->nodes[node];
    int all = plan->graph->nodes[node].num_inputs;
    if (fn->num_back_inputs == 0)
        return all;
    return iter == 0 ? all - fn->num_back_inputs : fn->num_back_inputs;
}

/* One input (slot >= 0: data, v live or TP_DEAD; slot < 0: control, v NULL
 * when live) arrives at node in iteration it; takes its own reference. */
static tfpi_code deliver(run_state *r, frame_inst *f, iteration *it, int node, int slot, tp_value *v)
{
    const tp_flow_node *fn = &r->plan->nodes[node];
    int l = fn->local;
    if (v == TP_DEAD && it->cause[l] < 0)
        it->cause[l] = r->dead_cause;
    if (fn->kind == TP_FLOW_MERGE) {
        if (slot >= 0 && v != TP_DEAD && fn->merge_type && v->t.dtype != fn->merge_type) {
            const Tfpi__NodeDef *def = r->plan->graph->nodes[node].def;
            return tfpi_status_set(r->status, TFPI_INVALID_ARGUMENT,
                                   "node '%s' (%s): attribute T = %s, but input %d is %s", def->name, def->op,
                                   tfpi_dtype_name(fn->merge_type), slot, tfpi_dtype_name(v->t.dtype));
        }
        if (it->fired[l])
            return TFPI_OK;
        if (slot < 0)
            it->pending[l]--;
        else if (v == TP_DEAD)
            it->dead[l]++;
        else if (it->live_input[l] < 0) {
            it->live_input[l] = slot;
            tp_value_ref(v);
            it->slots[fn->slot_base + slot] = v;
        }
        if (it->pending[l] > 0 ||
            (it->live_input[l] < 0 && it->dead[l] < merge_expected(r->plan, node, it->number)))
            return TFPI_OK;
        it->fired[l] = 1;
        return enqueue(r, node, f, it);
    }
    if (slot >= 0) {
        tp_value_ref(v);
        it->slots[fn->slot_base + slot] = v;
    }
    if (v == TP_DEAD)
        it->dead[l]++;
    return --it->pending[l] == 0 ? enqueue(r, node, f, it) : TFPI_OK;
}

/* Sends node's outputs (and its control signal) to its consumers. */
static tfpi_code emit(run_state *r, frame_inst *f, iteration *it, int node, tp_value *const *outs, bool dead)
{
    const tp_flow_node *fn = &r->plan->nodes[node];
    tfpi_code code = TFPI_OK;
    /* A live Switch kills one port; a dead node passes on what killed it. */
    int cause = fn->kind == TP_FLOW_SWITCH && !dead ? node : fn->frame == f->frame ? it->cause[fn->local] : -1;
    for (int c = 0; code == TFPI_OK && c < fn->num_consumers; c++) {
        const tp_flow_consumer *k = &fn->consumers[c];
        tp_value *v = k->output < 0 ? (dead ? TP_DEAD : NULL) : outs[k->output];
        r->dead_cause = cause;
        code = deliver(r, f, it, k->node, k->slot, v);
    }
    for (int i = 0; f == r->root && i < r->plan->num_fetches; i++)
        if (r->plan->fetch_from[i].node == node && !r->fetched[i]) {
            r->fetched[i] = outs[r->plan->fetch_from[i].index];
            r->fetch_cause[i] = cause;
            tp_value_ref(r->fetched[i]);
        }
    return code;
}

static void free_iteration(run_state *r, const tp_flow_frame *frame, iteration *it)
{
    for (int s = 0; s < frame->num_slots; s++)
        tp_value_unref(&r->plan->pool, it->slots[s]);
    free(it->slots);
    free(it->pending);
    free(it);
}

/* Creates iteration `number` of f (the next one) and gives it the constant
 * Enters' values. */
static tfpi_code new_iteration(run_state *r, frame_inst *f, iteration **out)
{
    const tp_flow_plan *plan = r->plan;
    const tp_flow_frame *frame = &plan->frames[f->frame];
    /* Iteration numbers 0..limit: a loop whose body runs `limit` times
     * evaluates its condition limit + 1 times. */
    if (f->next_number > plan->max_iterations)
        return tfpi_status_set(r->status, TFPI_INVALID_ARGUMENT,
                               "while loop frame '%s' did not finish after %lld iterations (the limit "
                               "tfpi_session_set_max_loop_iterations sets)",
                               frame->name, (long long)plan->max_iterations);
    /* Nested loops: each level under the limit could still multiply to
     * limit^depth iterations, so the run's total of iterations after the
     * first of each loop has the same limit. */
    if (f->next_number > 0 && ++r->iterations > plan->max_iterations)
        return tfpi_status_set(r->status, TFPI_INVALID_ARGUMENT,
                               "while loop frame '%s': the loops of this run took more than %lld iterations "
                               "together (the limit tfpi_session_set_max_loop_iterations sets, for each loop "
                               "and for all of them)",
                               frame->name, (long long)plan->max_iterations);
    if (f->num_iters == f->cap_iters) {
        int cap = f->cap_iters ? 2 * f->cap_iters : 4;
        iteration **iters = realloc(f->iters, sizeof *iters * (size_t)cap);
        if (!iters)
            return out_of_memory(r);
        f->iters = iters;
        f->cap_iters = cap;
    }
    iteration *it = calloc(1, sizeof *it);
    size_t n = (size_t)frame->num_nodes + 1;
    if (it) {
        it->slots = calloc((size_t)frame->num_slots + 1, sizeof *it->slots);
        it->pending = calloc(5 * n, sizeof(int));
    }
    if (!it || !it->slots || !it->pending) {
        if (it) {
            free(it->slots);
            free(it->pending);
        }
        free(it);
        return out_of_memory(r);
    }
    it->dead = it->pending + n;
    it->live_input = it->dead + n;
    it->cause = it->live_input + n;
    it->fired = (unsigned char *)(it->cause + n);
    it->number = f->next_number++;
    f->iters[f->num_iters++] = it;
    tfpi_code code = TFPI_OK;
    for (int l = 0; l < frame->num_nodes; l++) {
        int node = frame->nodes[l];
        it->live_input[l] = -1;
        it->cause[l] = -1;
        it->pending[l] = plan->nodes[node].num_pending;
        if (it->pending[l] == 0 && plan->nodes[node].kind != TP_FLOW_MERGE)
            code = enqueue(r, node, f, it);
    }
    for (int c = 0; code == TFPI_OK && c < f->num_constants; c++) {
        const tp_flow_node *enter = &plan->nodes[f->constant_nodes[c]];
        for (int k = 0; code == TFPI_OK && k < enter->num_consumers; k++) {
            const tp_flow_consumer *e = &enter->consumers[k];
            tp_value *v = e->output < 0 ? (f->constants[c] == TP_DEAD ? TP_DEAD : NULL) : f->constants[c];
            code = deliver(r, f, it, e->node, e->slot, v);
        }
    }
    *out = it;
    return code;
}

static void free_frame(run_state *r, frame_inst *f)
{
    for (int i = 0; i < f->num_iters; i++)
        free_iteration(r, &r->plan->frames[f->frame], f->iters[i]);
    for (int c = 0; c < f->num_constants; c++)
        tp_value_unref(&r->plan->pool, f->constants[c]);
    free(f->iters);
    free(f->constant_nodes);
    free(f->constants);
    free(f->exit_live);
    free(f);
}

static tfpi_code new_frame(run_state *r, int frame, frame_inst *parent, iteration *parent_it, frame_inst **out)
{
    const tp_flow_frame *fr = &r->plan->frames[frame];
    frame_inst *f = calloc(1, sizeof *f);
    if (!f || !(f->exit_live = calloc((size_t)fr->num_exits + 1, sizeof *f->exit_live)) ||
        !(f->constant_nodes = malloc(sizeof(int) * ((size_t)fr->num_enters + 1))) ||
        !(f->constants = malloc(sizeof(tp_value *) * ((size_t)fr->num_enters + 1)))) {
        if (f)
            free_frame(r, f);
        return out_of_memory(r);
    }
    f->frame = frame;
    f->parent = parent;
    f->parent_iter = parent_it ? parent_it->number : 0;
    f->pending_enters = fr->num_enters;
    if (parent) {
        f->next = r->instances;
        if (r->instances)
            r->instances->prev = f;
        r->instances = f;
        f->next_sibling = parent->first_child;
        parent->first_child = f;
        parent_it->outstanding++;
        parent->outstanding++;
    }
    *out = f;
    iteration *it0;
    return new_iteration(r, f, &it0);
}

static tfpi_code child_frame(run_state *r, frame_inst *parent, iteration *it, int frame, frame_inst **out)
{
    for (frame_inst *f = parent->first_child; f; f = f->next_sibling)
        if (f->frame == frame && f->parent_iter == it->number) {
            *out = f;
            return TFPI_OK;
        }
    return new_frame(r, frame, parent, it, out);
}

static void unlink_frame(run_state *r, frame_inst *f)
{
    if (f->prev)
        f->prev->next = f->next;
    else
        r->instances = f->next;
    if (f->next)
        f->next->prev = f->prev;
    for (frame_inst **p = &f->parent->first_child; *p; p = &(*p)->next_sibling)
        if (*p == f) {
            *p = f->next_sibling;
            return;
        }
}

/* Frees iterations nothing can reach any more and finishes the frame when
 * all its work is done. */
static tfpi_code retire(run_state *r, frame_inst *f)
{
    const tp_flow_frame *frame = &r->plan->frames[f->frame];
    while (f->num_iters > 1 && f->iters[0]->outstanding == 0 && f->pending_enters == 0) {
        free_iteration(r, frame, f->iters[0]);
        memmove(f->iters, f->iters + 1, sizeof *f->iters * (size_t)--f->num_iters);
    }
    if (!f->parent || f->outstanding > 0 || f->pending_enters > 0)
        return TFPI_OK;
    frame_inst *parent = f->parent;
    iteration *pit = find_iteration(parent, f->parent_iter);
    tfpi_code code = TFPI_OK;
    for (int e = 0; code == TFPI_OK && e < frame->num_exits; e++)
        if (!f->exit_live[e]) {
            tp_value *dead[1] = {TP_DEAD};
            code = emit(r, parent, pit, frame->exits[e], dead, true);
        }
    unlink_frame(r, f);
    free_frame(r, f);
    pit->outstanding--;
    parent->outstanding--;
    return code == TFPI_OK ? retire(r, parent) : code;
}

/* Checks a routing node's inputs with its kernel's prepare (a Merge sees
 * only its live input: its count and types are checked as they arrive). */
static tfpi_code check_routing(run_state *r, int node, tp_value *const *inputs, int num_inputs)
{
    tp_flow_node *fn = &r->plan->nodes[node];
    if (tp_flow_routing_seen(fn, inputs, num_inputs))
        return TFPI_OK;
    for (int i = 0; i < num_inputs; i++)
        fn->ctx_inputs[i] = &inputs[i]->t;
    memset(fn->ctx_outputs, 0, sizeof *fn->ctx_outputs * (size_t)fn->num_outputs);
    tp_op_ctx ctx = {.def = r->plan->graph->nodes[node].def, .graph = r->plan->graph, .num_inputs = num_inputs,
                     .inputs = fn->ctx_inputs, .num_outputs = fn->num_outputs, .outputs = fn->ctx_outputs,
                     .status = r->status};
    tfpi_code code = fn->kind == TP_FLOW_MERGE ? fn->kernel->prepare(&ctx) : tp_kernel_prepare(fn->kernel, &ctx);
    if (code == TFPI_OK)
        tp_flow_routing_accepted(fn, inputs, num_inputs);
    return code;
}

static tfpi_code run_enter(run_state *r, frame_inst *f, iteration *it, int node, tp_value *v)
{
    const tp_flow_node *fn = &r->plan->nodes[node];
    frame_inst *child;
    tfpi_code code = child_frame(r, f, it, fn->child_frame, &child);
    if (code != TFPI_OK)
        return code;
    child->pending_enters--;
    if (fn->is_constant) {
        tp_value_ref(v);
        child->constant_nodes[child->num_constants] = node;
        child->constants[child->num_constants++] = v;
        for (int i = 0; code == TFPI_OK && i < child->num_iters; i++)
            code = emit(r, child, child->iters[i], node, &v, v == TP_DEAD);
    } else {
        iteration *first = find_iteration(child, 0);
        if (first)
            code = emit(r, child, first, node, &v, v == TP_DEAD);
    }
    return code == TFPI_OK ? retire(r, child) : code;
}

static tfpi_code run_exit(run_state *r, frame_inst *f, int node, tp_value *v)
{
    if (v == TP_DEAD) /* dropped; a frame whose Exit never fires live passes deadness on when it ends */
        return TFPI_OK;
    f->exit_live[r->plan->nodes[node].exit_index] = true;
    return emit(r, f->parent, find_iteration(f->parent, f->parent_iter), node, &v, false);
}

static tfpi_code run_next(run_state *r, frame_inst *f, iteration *it, int node, tp_value *v)
{
    if (v == TP_DEAD) /* the loop ends here */
        return TFPI_OK;
    iteration *next = find_iteration(f, it->number + 1);
    tfpi_code code = next ? TFPI_OK : new_iteration(r, f, &next);
    return code == TFPI_OK ? emit(r, f, next, node, &v, false) : code;
}

/* Runs an ordinary node (or forwards deadness) and emits its outputs. */
static tfpi_code run_op(run_state *r, frame_inst *f, iteration *it, int node, tp_value **inputs, bool dead)
{
    tp_flow_plan *plan = r->plan;
    tp_flow_node *fn = &plan->nodes[node];
    bool region = fn->kind == TP_FLOW_REGION;
    int num_outputs = region ? plan->regions[fn->region].num_outputs : fn->num_outputs;
    tp_value **outs = num_outputs <= 64 ? r->outs_buf : calloc((size_t)num_outputs, sizeof *outs);
    if (!outs)
        return out_of_memory(r);
    bool own = false;
    tfpi_code code = TFPI_OK;
    if (fn->fed) {
        for (int o = 0; o < fn->num_outputs; o++) {
            outs[o] = TP_DEAD;
            for (int i = 0; i < plan->num_feeds; i++)
                if (plan->feeds[i].node == node && plan->feeds[i].index == o)
                    outs[o] = r->fed[i];
        }
    } else if (fn->folded) {
        memcpy(outs, fn->folded, sizeof *outs * (size_t)fn->num_outputs);
    } else if (dead) {
        for (int o = 0; o < num_outputs; o++)
            outs[o] = TP_DEAD;
    } else {
        code = region ? tp_flow_run_region(plan, fn->region, inputs, outs, r->status)
                      : tp_flow_run_kernel(plan, node, inputs, outs, &r->resources, r->status);
        own = code == TFPI_OK;
    }
    if (code == TFPI_OK)
        code = emit(r, f, it, node, outs, dead);
    for (int o = 0; own && o < num_outputs; o++)
        tp_value_unref(&plan->pool, outs[o]);
    if (outs != r->outs_buf)
        free(outs);
    return code;
}

static tfpi_code run_merge(run_state *r, frame_inst *f, iteration *it, int node, tp_value **inputs)
{
    int live = it->live_input[r->plan->nodes[node].local];
    tp_value *outs[2] = {TP_DEAD, TP_DEAD};
    tfpi_code code = TFPI_OK;
    if (live >= 0 && (code = check_routing(r, node, &inputs[live], 1)) == TFPI_OK) {
        tfpi_tensor index = {.dtype = TFPI_INT32};
        if (!(outs[1] = tp_value_new(&r->plan->pool, &index, r->status)))
            return r->status->code;
        *(int32_t *)outs[1]->t.data = live;
        outs[0] = inputs[live];
    }
    if (code == TFPI_OK)
        code = emit(r, f, it, node, outs, live < 0);
    if (live >= 0)
        tp_value_unref(&r->plan->pool, outs[1]);
    return code;
}

static tfpi_code process(run_state *r, item x)
{
    tp_flow_plan *plan = r->plan;
    frame_inst *f = x.frame;
    iteration *it = find_iteration(f, x.iter);
    const tp_flow_node *fn = &plan->nodes[x.node];
    int num_inputs = fn->num_slots;
    tp_value **inputs = &it->slots[fn->slot_base];
    bool dead = it->dead[fn->local] > 0 && !fn->fed;
    tfpi_code code = TFPI_OK;
    if (!dead && fn->kind != TP_FLOW_OP && fn->kind != TP_FLOW_REGION && fn->kind != TP_FLOW_MERGE)
        code = check_routing(r, x.node, inputs, num_inputs);
    if (code == TFPI_OK) {
        switch (fn->kind) {
        case TP_FLOW_OP:
        case TP_FLOW_REGION:
            code = run_op(r, f, it, x.node, inputs, dead);
            break;
        case TP_FLOW_MERGE:
            code = run_merge(r, f, it, x.node, inputs);
            break;
        case TP_FLOW_SWITCH: {
            bool pred = !dead && *(const uint8_t *)inputs[1]->t.data;
            tp_value *outs[2] = {dead || pred ? TP_DEAD : inputs[0], dead || !pred ? TP_DEAD : inputs[0]};
            code = emit(r, f, it, x.node, outs, dead);
            break;
        }
        case TP_FLOW_FORWARD:
            code = emit(r, f, it, x.node, dead ? &(tp_value *){TP_DEAD} : inputs, dead);
            break;
        case TP_FLOW_ENTER:
            code = run_enter(r, f, it, x.node, dead ? TP_DEAD : inputs[0]);
            break;
        case TP_FLOW_EXIT:
            code = run_exit(r, f, x.node, dead ? TP_DEAD : inputs[0]);
            break;
        case TP_FLOW_NEXT:
            code = run_next(r, f, it, x.node, dead ? TP_DEAD : inputs[0]);
            break;
        }
    }
    for (int i = 0; i < num_inputs; i++) {
        tp_value_unref(&plan->pool, inputs[i]);
        inputs[i] = NULL;
    }
    it->outstanding--;
    f->outstanding--;
    return code == TFPI_OK ? retire(r, f) : code;
}

static void free_run(run_state *r)
{
    while (r->instances) {
        frame_inst *f = r->instances;
        r->instances = f->next;
        free_frame(r, f);
    }
    if (r->root)
        free_frame(r, r->root);
    for (int i = 0; i < r->plan->num_fetches; i++)
        tp_value_unref(&r->plan->pool, r->fetched[i]);
    for (int i = 0; i < r->plan->num_feeds; i++)
        tp_value_unref(&r->plan->pool, r->fed[i]);
    while (r->resources) {
        tp_resource *res = r->resources;
        r->resources = res->next;
        res->destroy(res);
    }
    free(r->fetched);
    free(r->fetch_cause);
    free(r->fed);
    free(r->queue);
}

/* Copies the fetched values out; a dead fetch is an error. */
static tfpi_code collect(run_state *r, tfpi_tensor **outputs)
{
    const tp_flow_plan *plan = r->plan;
    for (int i = 0; i < plan->num_fetches; i++) {
        const char *name = plan->graph->nodes[plan->fetches[i].node].def->name;
        tfpi_code code = TFPI_OK;
        if ((!r->fetched[i] || r->fetched[i] == TP_DEAD) && r->fetch_cause[i] >= 0)
            code = tfpi_status_set(r->status, TFPI_INVALID_ARGUMENT,
                                   "fetch '%s:%d' is dead: it lies in the branch of Switch '%s' (tf.cond) that "
                                   "this run did not take",
                                   name, plan->fetches[i].index, plan->graph->nodes[r->fetch_cause[i]].def->name);
        else if (!r->fetched[i] || r->fetched[i] == TP_DEAD)
            code = tfpi_status_set(r->status, TFPI_INVALID_ARGUMENT,
                                   "fetch '%s:%d' is dead: no live value reached it (it lies in a branch not "
                                   "taken or after a loop that passed on none)",
                                   name, plan->fetches[i].index);
        else if (!(outputs[i] = tp_tensor_clone(&r->fetched[i]->t, r->status)))
            code = r->status->code;
        if (code != TFPI_OK) {
            for (int j = 0; j < i; j++) {
                tfpi_tensor_free(outputs[j]);
                outputs[j] = NULL;
            }
            return code;
        }
    }
    return TFPI_OK;
}

tfpi_code tp_flow_run(tp_flow_plan *plan, tfpi_tensor *const *feeds, tfpi_tensor **outputs,
                      tfpi_status *status)
{
    run_state r = {.plan = plan, .status = status};
    plan->run_start_us = plan->profiling ? tp_now_us() : 0;
    r.fetched = calloc((size_t)plan->num_fetches + 1, sizeof *r.fetched);
    r.fetch_cause = calloc((size_t)plan->num_fetches + 1, sizeof *r.fetch_cause);
    r.fed = calloc((size_t)plan->num_feeds + 1, sizeof *r.fed);
    tfpi_code code = r.fetched && r.fetch_cause && r.fed ? TFPI_OK : out_of_memory(&r);
    for (int i = 0; code == TFPI_OK && i < plan->num_fetches; i++)
        r.fetch_cause[i] = -1;
    for (int i = 0; code == TFPI_OK && i < plan->num_feeds; i++)
        if (!(r.fed[i] = tp_value_borrow(feeds[i], status)))
            code = status->code;
    if (code == TFPI_OK)
        code = new_frame(&r, 0, NULL, NULL, &r.root);
    while (code == TFPI_OK && r.head < r.tail)
        code = process(&r, r.queue[r.head++]);
    if (code == TFPI_OK)
        code = collect(&r, outputs);
    free_run(&r);
    return code;
}
