/* flow_kernel.c - runs one ordinary kernel for the dynamic executor.
 *
 * Preparing: a kernel is first prepared as the static planner would, seeing
 * the data of constant inputs only (values computed while planning) and the
 * shapes of the others. If that works (and the kernel is not TP_DYNAMIC or
 * TP_STATEFUL) the prepared kernel is kept and reused while the input
 * shapes and constants stay the same: convolution weights are packed once,
 * not per run or per loop iteration. Otherwise it is prepared with every
 * input's data, for this execution only.
 *
 * Outputs take pool buffers unless prepare already produced them; an output
 * that lies inside an input's bytes (Identity, Reshape) shares that value,
 * one that lies in the kernel's state is copied. */
#include <stdlib.h>
#include <string.h>

#include "plan/flow_plan.h"

/* The input whose bytes hold [data, data + size), or -1. */
static int containing_input(tp_value *const *inputs, int n, const void *data, size_t size)
{
    const char *p = data;
    for (int i = 0; i < n; i++) {
        const char *base = inputs[i]->t.data;
        size_t bytes = tp_byte_size(&inputs[i]->t);
        if (base && p >= base && p + size <= base + bytes && (size > 0 || p < base + bytes || p == base))
            return i;
    }
    return -1;
}

tp_value *tp_flow_new_value(tp_flow_plan *plan, int node, int output, const tfpi_tensor *t, tfpi_status *status)
{
    tp_value *v = tp_value_new(&plan->pool, t, status);
    if (!v && status) {
        char detail[sizeof status->message];
        memcpy(detail, status->message, sizeof detail);
        tp_node_error(plan->graph->nodes[node].def, status, status->code, "output %d: %s", output, detail);
    }
    return v;
}

tfpi_code tp_flow_own_strings(tp_flow_plan *plan, int node, int output, tp_value *v, tfpi_status *status)
{
    tfpi_code code = tp_value_own_strings(&plan->pool, v, status);
    if (code != TFPI_OK) {
        char detail[sizeof status->message];
        memcpy(detail, status->message, sizeof detail);
        tp_node_error(plan->graph->nodes[node].def, status, code, "output %d: %s", output, detail);
    }
    return code;
}

/* Wraps output o that prepare computed (or aliased) into a value. */
static tp_value *wrap_prepared(tp_flow_plan *plan, int node, tp_value *const *inputs, int num_inputs, int o,
                               const tfpi_tensor *out, tfpi_status *status)
{
    int owner = containing_input(inputs, num_inputs, out->data, tp_byte_size(out));
    if (owner >= 0)
        return tp_value_share(inputs[owner], out, status);
    tp_value *v = tp_flow_new_value(plan, node, o, out, status);
    if (v && tp_byte_size(out))
        memcpy(v->t.data, out->data, tp_byte_size(out));
    if (v && out->dtype == TFPI_STRING && tp_flow_own_strings(plan, node, o, v, status) != TFPI_OK) {
        tp_value_unref(&plan->pool, v);
        return NULL;
    }
    return v;
}

void tp_flow_forget_kernel(tp_flow_node *fn)
{
    if (fn->prepared && fn->kernel->release)
        fn->kernel->release(fn->state);
    fn->prepared = false;
    fn->state = NULL;
}

static bool same_inputs(const tp_flow_node *fn, tp_value *const *inputs, int n)
{
    for (int i = 0; i < n; i++)
        if (!tp_same_shape(&fn->prepared_inputs[i], &inputs[i]->t) ||
            fn->prepared_inputs[i].dtype != inputs[i]->t.dtype ||
            fn->prepared_constants[i] != (inputs[i]->constant ? inputs[i] : NULL))
            return false;
    return true;
}

bool tp_flow_routing_seen(const tp_flow_node *fn, tp_value *const *inputs, int n)
{
    if (!fn->prepared)
        return false;
    for (int i = 0; i < n; i++)
        if (!tp_same_shape(&fn->prepared_inputs[i], &inputs[i]->t) ||
            fn->prepared_inputs[i].dtype != inputs[i]->t.dtype)
            return false;
    return true;
}

void tp_flow_routing_accepted(tp_flow_node *fn, tp_value *const *inputs, int n)
{
    if (!fn->prepared_inputs && !(fn->prepared_inputs = calloc((size_t)n + 1, sizeof *fn->prepared_inputs)))
        return; /* out of memory: checked again next time */
    for (int i = 0; i < n; i++)
        tp_tensor_set_shape(&fn->prepared_inputs[i], inputs[i]->t.dtype, inputs[i]->t.ndims, inputs[i]->t.dims);
    fn->prepared = true;
}

/* Points the kernel's input views at the values; data only where `data`. */
static void show_inputs(tp_flow_node *fn, tp_value *const *inputs, int n, bool all_data)
{
    for (int i = 0; i < n; i++) {
        fn->views[i] = inputs[i]->t;
        fn->views[i].owns_data = false;
        if (!all_data && !inputs[i]->constant)
            fn->views[i].data = NULL;
        fn->ctx_inputs[i] = &fn->views[i];
    }
}

static bool remember(tp_flow_node *fn, tp_value *const *inputs, int n, void *state)
{
    if (!fn->prepared_inputs) {
        fn->prepared_inputs = calloc((size_t)n + 1, sizeof *fn->prepared_inputs);
        fn->prepared_constants = calloc((size_t)n + 1, sizeof *fn->prepared_constants);
        fn->prepared_outputs = calloc((size_t)fn->num_outputs, sizeof *fn->prepared_outputs);
        if (!fn->prepared_inputs || !fn->prepared_constants || !fn->prepared_outputs)
            return false;
    }
    for (int i = 0; i < n; i++) {
        tp_tensor_set_shape(&fn->prepared_inputs[i], inputs[i]->t.dtype, inputs[i]->t.ndims, inputs[i]->t.dims);
        fn->prepared_constants[i] = inputs[i]->constant ? inputs[i] : NULL;
    }
    memcpy(fn->prepared_outputs, fn->ctx_outputs, sizeof *fn->ctx_outputs * (size_t)fn->num_outputs);
    fn->state = state;
    fn->prepared = true;
    return true;
}

/* Prepares the kernel (or takes the one kept for these inputs); on success
 * ctx->state holds its state and *kept says whether the node keeps it. */
static tfpi_code prepare(tp_flow_node *fn, tp_op_ctx *ctx, tp_value *const *inputs, bool *kept)
{
    const tp_kernel *k = fn->kernel;
    int n = ctx->num_inputs;
    *kept = false;
    if (fn->prepared && same_inputs(fn, inputs, n)) {
        memcpy(ctx->outputs, fn->prepared_outputs, sizeof *ctx->outputs * (size_t)fn->num_outputs);
        ctx->state = fn->state;
        *kept = true;
        return TFPI_OK;
    }
    tp_flow_forget_kernel(fn);
    if (!fn->uncacheable && !(k->flags & (TP_DYNAMIC | TP_STATEFUL))) {
        show_inputs(fn, inputs, n, false);
        tfpi_status quiet = {0};
        tfpi_status *status = ctx->status;
        ctx->status = &quiet;
        tfpi_code code = tp_kernel_prepare(k, ctx);
        ctx->status = status;
        if (code == TFPI_OK && remember(fn, inputs, n, ctx->state)) {
            *kept = true;
            return TFPI_OK;
        }
        if (k->release)
            k->release(ctx->state);
        ctx->state = NULL;
        memset(ctx->outputs, 0, sizeof *ctx->outputs * (size_t)fn->num_outputs);
        fn->uncacheable = true; /* its prepare needs values: prepare per execution */
    }
    show_inputs(fn, inputs, n, true);
    return tp_kernel_prepare(k, ctx);
}

tfpi_code tp_flow_run_kernel(tp_flow_plan *plan, int node, tp_value *const *inputs, tp_value **outputs,
                             tp_resource **resources, tfpi_status *status)
{
    tp_flow_node *fn = &plan->nodes[node];
    const tp_node *gn = &plan->graph->nodes[node];
    const tp_kernel *k = fn->kernel;
    memset(fn->ctx_outputs, 0, sizeof *fn->ctx_outputs * (size_t)fn->num_outputs);
    tp_op_ctx ctx = {.def = gn->def, .graph = plan->graph, .num_inputs = gn->num_inputs,
                     .inputs = fn->ctx_inputs, .num_outputs = fn->num_outputs, .outputs = fn->ctx_outputs,
                     .pool = plan->env.pool, .status = status, .resources = resources,
                     .max_bytes = plan->pool.max_bytes, /* no output or TensorArray may be larger */
                     .variables = plan->env.variables, .variables_frozen = plan->env.variables_frozen};
    tfpi_tensor *out = fn->ctx_outputs;
    for (int o = 0; o < fn->num_outputs; o++)
        outputs[o] = NULL;
    bool kept;
    tfpi_code code = prepare(fn, &ctx, inputs, &kept);
    show_inputs(fn, inputs, gn->num_inputs, true); /* run sees every input's data */
    for (int o = 0; code == TFPI_OK && o < fn->num_outputs; o++)
        if (!tp_shape_fits(out[o].dtype, out[o].ndims, out[o].dims))
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "node '%s' (%s): output %d would be too large",
                                   gn->def->name, gn->def->op, o);
    if (code == TFPI_OK && (k->flags & TP_ALIAS_INPUT0) && gn->num_inputs > 0 && !out[0].data &&
        tp_byte_size(&out[0]) == tp_byte_size(ctx.inputs[0]))
        out[0].data = ctx.inputs[0]->data;
    bool all_prepared = true;
    for (int o = 0; code == TFPI_OK && o < fn->num_outputs; o++) {
        if (out[o].data)
            continue;
        all_prepared = false;
        if (!(outputs[o] = tp_flow_new_value(plan, node, o, &out[o], status)))
            code = status->code;
        else
            out[o].data = outputs[o]->t.data;
    }
    if (code == TFPI_OK && !all_prepared)
        code = tp_kernel_run(k, &ctx);
    /* A read of a frozen variable shares the stored bytes, which outlive the plan. */
    bool borrow = (k->flags & TP_READS_VARIABLES) && plan->env.variables_frozen;
    for (int o = 0; code == TFPI_OK && o < fn->num_outputs; o++) {
        if (!outputs[o]) {
            outputs[o] = borrow ? tp_value_borrow(&out[o], status)
                                : wrap_prepared(plan, node, inputs, gn->num_inputs, o, &out[o], status);
            if (!outputs[o])
                code = status->code;
        } else if (out[o].dtype == TFPI_STRING) { /* elements may point into the inputs */
            code = tp_flow_own_strings(plan, node, o, outputs[o], status);
        }
    }
    if (!kept && k->release)
        k->release(ctx.state);
    if (code != TFPI_OK)
        for (int o = 0; o < fn->num_outputs; o++) {
            tp_value_unref(&plan->pool, outputs[o]);
            outputs[o] = NULL;
        }
    return code;
}
