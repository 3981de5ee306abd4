/* flow_kernel.c - runs one ordinary kernel for the dynamic executor: every
 * input has its value, so prepare sees the real data and sets the real
 * output shapes; outputs take pool buffers unless prepare already produced
 * them; an output that lies inside an input's bytes (Identity, Reshape)
 * shares that value, one that lies in the kernel's state is copied before
 * the state is released. */
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

/* Wraps an output prepare computed (or aliased) into a value. */
static tp_value *wrap_prepared(tp_flow_plan *plan, tp_value *const *inputs, int num_inputs,
                               const tfpi_tensor *out, tfpi_status *status)
{
    int owner = containing_input(inputs, num_inputs, out->data, tp_byte_size(out));
    if (owner >= 0)
        return tp_value_share(inputs[owner], out, status);
    tp_value *v = tp_value_new(&plan->pool, out, status);
    if (v && tp_byte_size(out))
        memcpy(v->t.data, out->data, tp_byte_size(out));
    if (v && out->dtype == TFPI_STRING && tp_value_own_strings(v, status) != TFPI_OK) {
        tp_value_unref(&plan->pool, v);
        return NULL;
    }
    return v;
}

tfpi_code tp_flow_run_kernel(tp_flow_plan *plan, int node, tp_value *const *inputs, tp_value **outputs,
                             tp_resource **resources, tfpi_status *status)
{
    tp_flow_node *fn = &plan->nodes[node];
    const tp_node *gn = &plan->graph->nodes[node];
    const tp_kernel *k = fn->kernel;
    memset(fn->ctx_outputs, 0, sizeof *fn->ctx_outputs * (size_t)fn->num_outputs);
    for (int i = 0; i < gn->num_inputs; i++)
        fn->ctx_inputs[i] = &inputs[i]->t;
    tp_op_ctx ctx = {.def = gn->def, .graph = plan->graph, .num_inputs = gn->num_inputs,
                     .inputs = fn->ctx_inputs, .num_outputs = fn->num_outputs, .outputs = fn->ctx_outputs,
                     .pool = plan->threads, .status = status, .resources = resources};
    tfpi_tensor *out = fn->ctx_outputs;
    for (int o = 0; o < fn->num_outputs; o++)
        outputs[o] = NULL;
    tfpi_code code = k->prepare(&ctx);
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
        if (!(outputs[o] = tp_value_new(&plan->pool, &out[o], status)))
            code = status->code;
        else
            out[o].data = outputs[o]->t.data;
    }
    if (code == TFPI_OK && !all_prepared)
        code = k->run(&ctx);
    for (int o = 0; code == TFPI_OK && o < fn->num_outputs; o++) {
        if (!outputs[o]) {
            if (!(outputs[o] = wrap_prepared(plan, inputs, gn->num_inputs, &out[o], status)))
                code = status->code;
        } else if (out[o].dtype == TFPI_STRING) { /* elements may point into the inputs */
            code = tp_value_own_strings(outputs[o], status);
        }
    }
    if (k->release)
        k->release(ctx.state);
    if (code != TFPI_OK)
        for (int o = 0; o < fn->num_outputs; o++) {
            tp_value_unref(&plan->pool, outputs[o]);
            outputs[o] = NULL;
        }
    return code;
}
