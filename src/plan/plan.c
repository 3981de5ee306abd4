/* plan.c - from (feeds, fetches) to a runnable plan: prune the graph to the
 * nodes the fetches need, order them, prepare each kernel (shape inference),
 * fold everything computable from constants, and lay out the arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

tfpi_tensor *tp_plan_tensor(tp_plan *plan, tp_edge e)
{
    return &plan->nodes[e.node].ctx.outputs[e.index];
}

tfpi_code tp_plan_charge(tp_plan *plan, int node, int output, uint64_t bytes, tfpi_status *status)
{
    if (bytes <= plan->max_memory && plan->memory_used <= plan->max_memory - bytes) {
        plan->memory_used += bytes;
        return TFPI_OK;
    }
    char what[600] = "the activation arena";
    if (node >= 0) {
        const Tfpi__NodeDef *def = plan->graph->nodes[node].def;
        const tfpi_tensor *t = &plan->nodes[node].ctx.outputs[output];
        char shape[TFPI_MAX_DIMS * 22 + 3];
        snprintf(what, sizeof what, "node '%s' (%s): output %d %s %s", def->name, def->op, output,
                 tfpi_dtype_name(t->dtype), tp_shape_string(t, shape, sizeof shape));
    }
    return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                           "%s needs %llu bytes; with the %llu bytes already planned that is over the memory "
                           "budget of %llu bytes (max_memory)",
                           what, (unsigned long long)bytes, (unsigned long long)plan->memory_used,
                           (unsigned long long)plan->max_memory);
}

/* Bytes a known output holds: its elements and, for strings, their bytes. */
static uint64_t held_bytes(const tfpi_tensor *t)
{
    uint64_t strings = tp_string_bytes(t);
    return strings > UINT64_MAX - tp_byte_size(t) ? UINT64_MAX : tp_byte_size(t) + strings;
}

/* Kernels copy string elements by reference; a folded output outlives the
 * plan's inputs' lifetimes, so it takes its own bytes - once the budget
 * allows them. Until then its elements are borrowed: if the charge fails
 * they are cleared, not freed with the output. */
static tfpi_code own_folded_strings(tp_plan *plan, int index, int o, tfpi_status *status)
{
    tfpi_tensor *t = &plan->nodes[index].ctx.outputs[o];
    uint64_t bytes = tp_string_bytes(t);
    tfpi_code code = tp_plan_charge(plan, index, o, bytes, status);
    if (code != TFPI_OK) {
        tp_tensor_forget_strings(t);
        return code;
    }
    if (tp_tensor_own_strings(t, status) != TFPI_OK)
        return tp_node_error(plan->graph->nodes[index].def, status, TFPI_OUT_OF_MEMORY,
                             "output %d: out of memory copying its strings (%llu bytes)", o, (unsigned long long)bytes);
    return TFPI_OK;
}

tfpi_code tp_plan_resolve_names(const tfpi_graph *g, const char *const *names, int n, const char *what,
                               tp_edge **out, tfpi_status *status)
{
    *out = calloc((size_t)n + 1, sizeof **out);
    if (!*out)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < n; i++) {
        bool target = names[i] && names[i][0] == '^' && strcmp(what, "fetch") == 0;
        tfpi_code code = tp_graph_resolve(g, names[i] + target, what, &(*out)[i], status);
        if (code != TFPI_OK)
            return code;
        if (target && (*out)[i].index != 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "fetch '%s': a target names a node, not an output",
                                   names[i]);
        if (target)
            (*out)[i].index = TP_TARGET;
    }
    return TFPI_OK;
}

tfpi_code tp_plan_refuse_repeated_feeds(const tfpi_graph *g, const char *const *names, const tp_edge *feeds, int n,
                                        tfpi_status *status)
{
    for (int i = 1; i < n; i++)
        for (int j = 0; j < i; j++)
            if (feeds[i].node == feeds[j].node && feeds[i].index == feeds[j].index)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "feed '%s': tensor %s:%d is fed more than once",
                                       names[i], g->nodes[feeds[i].node].def->name, feeds[i].index);
    return TFPI_OK;
}

/* Depth-first post-order from the fetches, not entering fed nodes: every
 * node lands after its inputs. Fills `order`, returns its length or -1. */
static int order_needed_nodes(tp_plan *plan, int *order, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    enum { UNSEEN, OPEN, DONE };
    unsigned char *mark = calloc((size_t)g->num_nodes, 1);
    int *stack = malloc(sizeof(int) * 2 * ((size_t)g->num_nodes + 1));
    int count = 0;
    if (!mark || !stack) {
        free(mark);
        free(stack);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    for (int f = 0; f < plan->num_fetches && count >= 0; f++) {
        int top = 0;
        if (mark[plan->fetches[f].node] == UNSEEN) {
            stack[top++] = plan->fetches[f].node;
            stack[top++] = 0; /* next input to visit */
        }
        while (top > 0 && count >= 0) {
            int node = stack[top - 2], next = stack[top - 1];
            const tp_node *gn = &g->nodes[node];
            int fanin = plan->nodes[node].fed ? 0 : gn->num_inputs + gn->num_controls;
            mark[node] = OPEN;
            if (next == fanin) {
                mark[node] = DONE;
                order[count++] = node;
                top -= 2;
                continue;
            }
            stack[top - 1]++;
            int src = next < gn->num_inputs ? gn->inputs[next].node : gn->controls[next - gn->num_inputs];
            if (next >= gn->num_inputs && plan->inside && !plan->inside[src])
                continue;
            if (mark[src] == OPEN) {
                tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "the graph has a cycle through node '%s'",
                         g->nodes[src].def->name);
                count = -1;
            } else if (mark[src] == UNSEEN) {
                stack[top++] = src;
                stack[top++] = 0;
            }
        }
    }
    free(mark);
    free(stack);
    return count;
}

tfpi_code tp_plan_check_feed(const Tfpi__NodeDef *def, const char *name, const tfpi_tensor *t,
                             tfpi_status *status)
{
    if (strcmp(def->op, "Placeholder") != 0 && strcmp(def->op, "PlaceholderWithDefault") != 0)
        return TFPI_OK;
    tfpi_dtype want = tp_attr_type(def, "dtype", t->dtype);
    if (want != t->dtype)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "feed '%s' is %s, but the graph expects %s", name,
                        tfpi_dtype_name(t->dtype), tfpi_dtype_name(want));
    const Tfpi__AttrValue *shape = tp_attr(def, "shape");
    if (!shape || shape->value_case != TFPI__ATTR_VALUE__VALUE_SHAPE || shape->shape->unknown_rank)
        return TFPI_OK;
    for (size_t i = 0; i < shape->shape->n_dim; i++)
        if (shape->shape->dim[i]->size < -1)
            return tp_node_error(def, status, TFPI_INVALID_ARGUMENT, "attribute shape has dim %lld (sizes are >= -1)",
                                 (long long)shape->shape->dim[i]->size);
    bool ok = (int)shape->shape->n_dim == t->ndims;
    for (int i = 0; ok && i < t->ndims; i++)
        ok = shape->shape->dim[i]->size < 0 || shape->shape->dim[i]->size == t->dims[i];
    if (!ok) {
        char want_s[160] = "[", got[160];
        for (size_t i = 0; i < shape->shape->n_dim; i++) {
            long long d = (long long)shape->shape->dim[i]->size;
            size_t len = strlen(want_s);
            if (d < 0)
                snprintf(want_s + len, sizeof want_s - len, "%s?", i ? "," : "");
            else
                snprintf(want_s + len, sizeof want_s - len, "%s%lld", i ? "," : "", d);
        }
        strncat(want_s, "]", sizeof want_s - strlen(want_s) - 1);
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "feed '%s' has shape %s, but the graph expects %s",
                        name, tp_shape_string(t, got, sizeof got), want_s);
    }
    return TFPI_OK;
}

/* Fails unless output e.index of node e.node exists (TensorFlow's output
 * count for its op); `reader` names who reads it. Counts the output as used. */
static tfpi_code use_output(tp_plan *plan, tp_edge e, const char *reader, tfpi_status *status)
{
    const Tfpi__NodeDef *def = plan->graph->nodes[e.node].def;
    const tp_kernel *kernel = tp_find_kernel(def->op);
    int count = tp_op_output_count(def, kernel);
    if (kernel && e.index >= count) /* without a kernel, prepare names the missing op */
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s reads output %d of node '%s' (%s), which has %d",
                               reader, e.index, def->name, def->op, count);
    tp_op_ctx *ctx = &plan->nodes[e.node].ctx;
    if (ctx->num_outputs <= e.index)
        ctx->num_outputs = e.index + 1;
    return TFPI_OK;
}

/* Gives every needed node its output and input arrays: as many outputs as
 * the needed readers and the fetches use. */
static tfpi_code allocate_node_slots(tp_plan *plan, const int *order, int count, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    char reader[300];
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < count; i++)
        plan->nodes[order[i]].needed = true;
    for (int f = 0; f < plan->num_fetches && code == TFPI_OK; f++) {
        snprintf(reader, sizeof reader, "fetch %d", f);
        if (plan->fetches[f].index != TP_TARGET)
            code = use_output(plan, plan->fetches[f], reader, status);
    }
    for (int i = 0; i < count && code == TFPI_OK; i++) {
        const tp_node *gn = &g->nodes[order[i]];
        snprintf(reader, sizeof reader, "node '%s' (%s)", gn->def->name, gn->def->op);
        for (int k = 0; !plan->nodes[order[i]].fed && k < gn->num_inputs && code == TFPI_OK; k++)
            code = use_output(plan, gn->inputs[k], reader, status);
    }
    for (int i = 0; i < count && code == TFPI_OK; i++) {
        tp_plan_node *pn = &plan->nodes[order[i]];
        const tp_node *gn = &g->nodes[order[i]];
        if (pn->ctx.num_outputs < 1)
            pn->ctx.num_outputs = 1;
        pn->ctx.def = gn->def;
        pn->ctx.graph = g;
        pn->ctx.num_inputs = gn->num_inputs;
        pn->ctx.outputs = calloc((size_t)pn->ctx.num_outputs, sizeof *pn->ctx.outputs);
        pn->ctx.inputs = calloc((size_t)gn->num_inputs + 1, sizeof *pn->ctx.inputs);
        if (!pn->ctx.outputs || !pn->ctx.inputs)
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    return code;
}

static tfpi_code set_feed_shapes(tp_plan *plan, const char *const *names, tfpi_tensor *const *feeds,
                                 tfpi_status *status)
{
    for (int f = 0; f < plan->num_feeds; f++) {
        tp_plan_node *pn = &plan->nodes[plan->feeds[f].node];
        if (!pn->needed)
            continue;
        if (plan->feeds[f].index >= pn->ctx.num_outputs)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "feed '%s': the node has no output %d",
                            names[f], plan->feeds[f].index);
        tfpi_code code = tp_plan_check_feed(plan->graph->nodes[plan->feeds[f].node].def, names[f], feeds[f], status);
        if (code != TFPI_OK)
            return code;
        /* String feeds (encoded images, audio) are part of the plan: what
         * decodes them folds now, so output shapes may depend on the bytes. */
        /* So are empty feeds: their value is their shape. */
        tfpi_tensor *t = tp_plan_tensor(plan, plan->feeds[f]);
        if (feeds[f]->dtype == TFPI_STRING || tp_num_elements(feeds[f]) == 0)
            code = tp_tensor_copy_from(t, feeds[f], status);
        else
            tp_tensor_set_shape(t, feeds[f]->dtype, feeds[f]->ndims, feeds[f]->dims);
        if (code != TFPI_OK)
            return code;
    }
    return TFPI_OK;
}

tfpi_code tp_plan_missing_kernel(const Tfpi__NodeDef *def, tfpi_status *status)
{
    const char *file = tp_kernel_file_for_op(def->op);
    const int64_t builtin = tp_attr_int(def, "builtin_code", -1); /* a TFLite operator's (tflite_node.h) */
    if (!file && builtin == 32) /* CUSTOM */
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "node '%s' needs TensorFlow Lite custom operator %s, which tfpi does not implement",
                               def->name, def->op);
    if (!file && builtin >= 0)
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "node '%s' needs TensorFlow Lite operator %s (builtin code %lld), which tfpi does not "
                               "implement",
                               def->name, def->op, (long long)builtin);
    if (file)
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                        "node '%s' needs op '%s', which is not compiled in: add the line '%s' to "
                        "tf_op_files.txt and rebuild",
                        def->name, def->op, file);
    return tfpi_status_set(status, TFPI_UNIMPLEMENTED, "node '%s' needs op '%s', which tfpi does not implement",
                    def->name, def->op);
}

static bool all_known(tfpi_tensor **tensors, int n)
{
    for (int i = 0; i < n; i++)
        if (!tensors[i]->data)
            return false;
    return true;
}

/* Prepares one node and computes its outputs now if it can. */
static tfpi_code prepare_node(tp_plan *plan, int index, tfpi_status *status)
{
    const tfpi_graph *g = plan->graph;
    const tp_node *gn = &g->nodes[index];
    tp_plan_node *pn = &plan->nodes[index];
    pn->kernel = tp_find_kernel(gn->def->op);
    if (!pn->kernel)
        return tp_plan_missing_kernel(gn->def, status);
    for (int i = 0; i < gn->num_inputs; i++) {
        tp_edge e = gn->inputs[i];
        tp_plan_node *src = &plan->nodes[e.node];
        if (src->fed && tp_plan_tensor(plan, e)->dtype == 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "node '%s' reads output %d of fed node '%s', which is not fed", gn->def->name,
                            e.index, g->nodes[e.node].def->name);
        pn->ctx.inputs[i] = tp_plan_tensor(plan, e);
    }
    pn->ctx.status = status;
    tfpi_code code = tp_kernel_prepare(pn->kernel, &pn->ctx);
    pn->prepared = true;
    if (code != TFPI_OK)
        return code;
    tfpi_tensor *out = pn->ctx.outputs;
    for (int o = 0; o < pn->ctx.num_outputs; o++) {
        if (!tp_shape_fits(out[o].dtype, out[o].ndims, out[o].dims))
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "node '%s' (%s): output %d would be too large",
                            gn->def->name, gn->def->op, o);
        if (tp_byte_size(&out[o]) > plan->max_memory - plan->memory_used)
            return tp_plan_charge(plan, index, o, tp_byte_size(&out[o]), status);
    }
    pn->alias_input = (pn->kernel->flags & TP_ALIAS_INPUT0) && pn->ctx.num_inputs > 0 ? 0 : -1;
    bool inputs_known = all_known(pn->ctx.inputs, pn->ctx.num_inputs);
    bool outputs_known = true;
    for (int o = 0; o < pn->ctx.num_outputs; o++)
        outputs_known = outputs_known && out[o].data;
    if (outputs_known) { /* prepare computed them (Const, Shape...) */
        for (int o = 0; o < pn->ctx.num_outputs; o++)
            if ((code = tp_plan_charge(plan, index, o, held_bytes(&out[o]), status)) != TFPI_OK)
                return code;
        pn->known = true;
    } else if ((pn->kernel->flags & TP_ALIAS_INPUT0) && inputs_known && pn->ctx.num_outputs == 1) {
        out[0].data = pn->ctx.inputs[0]->data;
        pn->known = true;
    } else if (inputs_known && !(pn->kernel->flags & TP_STATEFUL)) {
        for (int o = 0; o < pn->ctx.num_outputs; o++)
            if (!out[o].data && ((code = tp_plan_charge(plan, index, o, tp_byte_size(&out[o]), status)) != TFPI_OK ||
                                 (code = tp_tensor_alloc(&out[o], status)) != TFPI_OK))
                return code;
        code = tp_kernel_run(pn->kernel, &pn->ctx);
        for (int o = 0; o < pn->ctx.num_outputs; o++) {
            if (!out[o].owns_data || out[o].dtype != TFPI_STRING)
                continue;
            if (code == TFPI_OK)
                code = own_folded_strings(plan, index, o, status);
            else
                tp_tensor_forget_strings(&out[o]);
        }
        if (code != TFPI_OK)
            return code;
        pn->known = true;
    }
    return TFPI_OK;
}

tp_plan *tp_plan_new(const tfpi_graph *graph, const char *const *feed_names,
                     tfpi_tensor *const *feeds, int num_feeds, const char *const *fetch_names,
                     int num_fetches, const tp_plan_env *env, tfpi_status *status)
{
    return tp_plan_new_region(graph, NULL, feed_names, feeds, num_feeds, fetch_names, num_fetches, env, status);
}

tp_plan *tp_plan_new_region(const tfpi_graph *graph, const bool *inside, const char *const *feed_names,
                            tfpi_tensor *const *feeds, int num_feeds, const char *const *fetch_names,
                            int num_fetches, const tp_plan_env *env, tfpi_status *status)
{
    tp_plan *plan = calloc(1, sizeof *plan);
    int *order = malloc(sizeof(int) * ((size_t)graph->num_nodes + 1));
    tfpi_code code = TFPI_OK;
    if (plan)
        plan->graph = graph;
    if (!plan || !order || !(plan->nodes = calloc((size_t)graph->num_nodes, sizeof *plan->nodes)) ||
        !(plan->steps = malloc(sizeof(int) * ((size_t)graph->num_nodes + 1)))) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory planning the graph");
        free(order);
        tp_plan_free(plan);
        return NULL;
    }
    plan->num_feeds = num_feeds;
    plan->inside = inside;
    plan->max_memory = env->max_memory;
    plan->num_fetches = num_fetches;
    code = tp_plan_resolve_names(graph, feed_names, num_feeds, "feed", &plan->feeds, status);
    if (code == TFPI_OK)
        code = tp_plan_refuse_repeated_feeds(graph, feed_names, plan->feeds, num_feeds, status);
    if (code == TFPI_OK)
        code = tp_plan_resolve_names(graph, fetch_names, num_fetches, "fetch", &plan->fetches, status);
    for (int f = 0; code == TFPI_OK && f < num_feeds; f++)
        plan->nodes[plan->feeds[f].node].fed = true;
    int count = code == TFPI_OK ? order_needed_nodes(plan, order, status) : -1;
    if (count >= 0)
        code = allocate_node_slots(plan, order, count, status);
    if (count >= 0 && code == TFPI_OK)
        code = set_feed_shapes(plan, feed_names, feeds, status);
    for (int i = 0; count >= 0 && code == TFPI_OK && i < count; i++) {
        tp_plan_node *pn = &plan->nodes[order[i]];
        if (pn->fed)
            continue;
        pn->ctx.pool = env->pool;
        pn->ctx.max_bytes = env->max_memory;
        pn->ctx.variables = env->variables;
        pn->ctx.variables_frozen = env->variables_frozen;
        code = prepare_node(plan, order[i], status);
        if (code == TFPI_OK && !pn->known)
            plan->steps[plan->num_steps++] = order[i];
    }
    free(order);
    if (count >= 0 && code == TFPI_OK)
        tp_plan_fuse(plan);
    if (count < 0 || code != TFPI_OK || tp_plan_arena(plan, status) != TFPI_OK) {
        tp_plan_free(plan);
        return NULL;
    }
    for (int i = 0; i < graph->num_nodes; i++)
        plan->nodes[i].ctx.status = &plan->status;
    return plan;
}

void tp_plan_free(tp_plan *plan)
{
    if (!plan)
        return;
    for (int i = 0; plan->nodes && i < plan->graph->num_nodes; i++) {
        tp_plan_node *pn = &plan->nodes[i];
        for (int o = 0; pn->ctx.outputs && o < pn->ctx.num_outputs; o++)
            tp_tensor_release(&pn->ctx.outputs[o]);
        if (pn->prepared && pn->kernel->release)
            pn->kernel->release(pn->ctx.state);
        free(pn->ctx.outputs);
        free(pn->ctx.inputs);
    }
    free(plan->nodes);
    free(plan->steps);
    free(plan->feeds);
    free(plan->fetches);
    free(plan->arena);
    free(plan);
}
