/* tflite_functions.c - the subgraphs WHILE, IF, CALL_ONCE and CALL run, as
 * a TensorFlow function library (tflite_functions.h): each subgraph the
 * served one reaches is translated like the main one (tflite_graph.c) into
 * a FunctionDef named TP_TFL_FUNCTION_PREFIX<index>, its inputs the
 * function's arguments and its outputs the function's results; the calling
 * operators become While, If and PartitionedCall nodes, which
 * graph/function_expand.c inlines and lowers to the control flow tfpi runs
 * (Enter/Merge/Switch/NextIteration/Exit). */
#include "model/tflite_functions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "function.pb-c.h"
#include "model/tflite_calls.h"
#include "model/tflite_graph.h"

/* A new NameAttrList attribute naming function `index`. */
static Tfpi__AttrValue *func_attr(int32_t index)
{
    char name[48];
    snprintf(name, sizeof name, TP_TFL_FUNCTION_PREFIX "%d", (int)index);
    Tfpi__AttrValue *v = malloc(sizeof *v);
    Tfpi__NameAttrList *f = v ? malloc(sizeof *f) : NULL;
    char *copy = f ? strdup(name) : NULL;
    if (!copy) {
        free(f);
        free(v);
        return NULL;
    }
    tfpi__attr_value__init(v);
    tfpi__name_attr_list__init(f);
    f->name = copy;
    v->value_case = TFPI__ATTR_VALUE__VALUE_FUNC;
    v->func = f;
    return v;
}

/* The dtypes of tensors list[0..n) as a type list attribute. */
static Tfpi__AttrValue *types_of(const tp_tfl_subgraph *g, const int32_t *list, int n)
{
    tfpi_dtype types[64];
    if (n > 64)
        return NULL;
    for (int i = 0; i < n; i++)
        types[i] = g->tensors[list[i]].dtype;
    return tp_attr_new_type_list(types, (size_t)n);
}

tfpi_code tp_tfl_call_node(tp_tfl_op *o)
{
    tp_tfl_translator *x = o->x;
    const tp_tfl_operator *op = o->op;
    int32_t called[2];
    const char *fields[2];
    int n = tp_tfl_called_subgraphs(x->m, op, called, fields);
    const char **inputs = calloc((size_t)op->num_inputs + 1, sizeof *inputs);
    if (!inputs)
        return tfpi_status_set(x->status, TFPI_OUT_OF_MEMORY, "%s: out of memory", x->source);
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < op->num_inputs && code == TFPI_OK; i++)
        if (op->inputs[i] < 0)
            code = tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "input %d is absent", i);
        else if (!(inputs[i] = tp_tfl_input(x, op->inputs[i])))
            code = x->status->code;
    const char *kind = o->builtin == TP_TFL_OP_WHILE ? "While" : o->builtin == TP_TFL_OP_IF ? "If" : "PartitionedCall";
    if (code == TFPI_OK && op->num_inputs > 64)
        code = tp_tfl_op_fail(o, TFPI_UNIMPLEMENTED, "%d inputs (tfpi takes at most 64)", op->num_inputs);
    if (code == TFPI_OK && o->builtin == TP_TFL_OP_IF && op->num_inputs < 1)
        code = tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "an IF needs its condition as input 0");
    Tfpi__NodeDef *def = code == TFPI_OK ? tp_tfl_emit(x, o->name, kind, inputs, op->num_inputs) : NULL;
    free(inputs);
    if (!def)
        return code == TFPI_OK ? x->status->code : code;
    const tp_tfl_subgraph *g = x->g;
    bool ok;
    if (o->builtin == TP_TFL_OP_WHILE)
        ok = tp_tfl_attr(x, def, "T", types_of(g, op->inputs, op->num_inputs)) &&
             tp_tfl_attr(x, def, "cond", func_attr(called[0])) && tp_tfl_attr(x, def, "body", func_attr(called[1]));
    else if (o->builtin == TP_TFL_OP_IF)
        ok = tp_tfl_attr(x, def, "Tcond", tp_attr_new_type(g->tensors[op->inputs[0]].dtype)) &&
             tp_tfl_attr(x, def, "Tin", types_of(g, op->inputs + 1, op->num_inputs - 1)) &&
             tp_tfl_attr(x, def, "Tout", types_of(g, op->outputs, op->num_outputs)) &&
             tp_tfl_attr(x, def, "then_branch", func_attr(called[0])) &&
             tp_tfl_attr(x, def, "else_branch", func_attr(called[1]));
    else
        ok = tp_tfl_attr(x, def, "Tin", types_of(g, op->inputs, op->num_inputs)) &&
             tp_tfl_attr(x, def, "Tout", types_of(g, op->outputs, op->num_outputs)) &&
             tp_tfl_attr(x, def, "f", func_attr(called[0]));
    (void)n;
    if (!ok)
        return x->status->code ? x->status->code : tp_tfl_op_fail(o, TFPI_UNIMPLEMENTED, "too many tensors");
    for (int j = 0; j < op->num_outputs && code == TFPI_OK; j++)
        code = tp_tfl_set_output(x, op->outputs[j], o->name, j);
    return code;
}

/* ---- the library ---------------------------------------------------------------------- */

/* A body's reference to "node:k" in a function body's form, "node:ARG:k":
 * TopKV2's outputs are named values and indices, every other op's have one
 * output argument (graph/op_outputs.c). Arguments stay as they are. */
static char *body_reference(const char *flat, const tp_node_list *body, int num_args)
{
    if (strncmp(flat, "arg", 3) == 0 && flat[3] && strspn(flat + 3, "0123456789") == strlen(flat + 3) &&
        atoi(flat + 3) < num_args)
        return strdup(flat);
    const char *colon = strrchr(flat, ':');
    size_t len = colon ? (size_t)(colon - flat) : strlen(flat);
    int k = colon ? atoi(colon + 1) : 0;
    const char *op = "";
    for (size_t i = 0; i < body->n; i++)
        if (strlen(body->defs[i]->name) == len && strncmp(body->defs[i]->name, flat, len) == 0)
            op = body->defs[i]->op;
    const char *arg = "output";
    if (strcmp(op, "TopKV2") == 0)
        arg = k == 0 ? "values" : "indices", k = 0;
    size_t n = len + strlen(arg) + 16;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%.*s:%s:%d", (int)len, flat, arg, k);
    return out;
}

static Tfpi__OpDef__ArgDef *arg_def(const char *name, tfpi_dtype type)
{
    Tfpi__OpDef__ArgDef *a = malloc(sizeof *a);
    if (!a || !(name = strdup(name))) {
        free(a);
        return NULL;
    }
    tfpi__op_def__arg_def__init(a);
    a->name = (char *)name;
    a->type = (Tfpi__DataType)type;
    return a;
}

static Tfpi__FunctionDef__RetEntry *ret_entry(const char *key, char *value)
{
    Tfpi__FunctionDef__RetEntry *e = value ? malloc(sizeof *e) : NULL;
    char *k = e ? strdup(key) : NULL;
    if (!k) {
        free(e);
        free(value);
        return NULL;
    }
    tfpi__function_def__ret_entry__init(e);
    e->key = k;
    e->value = value;
    return e;
}

/* Subgraph s translated into f (freed by the library on any outcome). */
static tfpi_code make_function(const tp_tfl_model *m, int s, Tfpi__FunctionDef *f, const char *source,
                               tfpi_status *status)
{
    const tp_tfl_subgraph *g = &m->subgraphs[s];
    char name[48];
    snprintf(name, sizeof name, TP_TFL_FUNCTION_PREFIX "%d", s);
    tp_tfl_translator x;
    tfpi_code code = tp_tfl_translate_body(&x, m, s, source, status);
    Tfpi__OpDef *sig = code == TFPI_OK ? malloc(sizeof *sig) : NULL;
    if (code == TFPI_OK && !sig)
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    if (sig) {
        tfpi__op_def__init(sig);
        f->signature = sig;
        sig->input_arg = calloc((size_t)g->num_inputs + 1, sizeof *sig->input_arg);
        sig->output_arg = calloc((size_t)g->num_outputs + 1, sizeof *sig->output_arg);
        f->ret = calloc((size_t)g->num_outputs + 1, sizeof *f->ret);
        f->node_def = calloc(x.nodes.n + 1, sizeof *f->node_def);
        if (!(sig->name = strdup(name)) || !sig->input_arg || !sig->output_arg || !f->ret || !f->node_def)
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    }
    for (int i = 0; code == TFPI_OK && i < g->num_inputs; i++) {
        char arg[24];
        snprintf(arg, sizeof arg, "arg%d", i);
        if (!(sig->input_arg[sig->n_input_arg] = arg_def(arg, g->tensors[g->inputs[i]].dtype)))
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
        else
            sig->n_input_arg++;
    }
    for (int i = 0; code == TFPI_OK && i < g->num_outputs; i++) {
        char key[24];
        snprintf(key, sizeof key, "out%d", i);
        const char *tensor = tp_tfl_input(&x, g->outputs[i]);
        Tfpi__OpDef__ArgDef *a = tensor ? arg_def(key, g->tensors[g->outputs[i]].dtype) : NULL;
        Tfpi__FunctionDef__RetEntry *e = a ? ret_entry(key, body_reference(tensor, &x.nodes, g->num_inputs)) : NULL;
        if (a)
            sig->output_arg[sig->n_output_arg++] = a;
        if (e)
            f->ret[f->n_ret++] = e;
        else
            code = tensor ? tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source) : status->code;
    }
    /* The body's nodes, their inputs in the body's form. */
    for (size_t i = 0; code == TFPI_OK && i < x.nodes.n; i++) {
        Tfpi__NodeDef *def = x.nodes.defs[i];
        for (size_t k = 0; code == TFPI_OK && k < def->n_input; k++) {
            if (def->input[k][0] == '^')
                continue; /* a control input: "^node" in a body too */
            char *ref = body_reference(def->input[k], &x.nodes, g->num_inputs);
            if (!ref)
                code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
            else {
                free(def->input[k]);
                def->input[k] = ref;
            }
        }
    }
    /* Its effects (tables filled, CALL_ONCEs) are control outputs: what
     * waits for a call of the body waits for them. */
    if (code == TFPI_OK && x.num_effects &&
        !(f->control_ret = calloc(x.num_effects, sizeof *f->control_ret)))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    for (size_t i = 0; code == TFPI_OK && i < x.num_effects; i++) {
        Tfpi__FunctionDef__ControlRetEntry *e = malloc(sizeof *e);
        char *key = e ? strdup(x.effects[i]) : NULL, *value = key ? strdup(x.effects[i]) : NULL;
        if (!value) {
            free(key);
            free(e);
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
            break;
        }
        tfpi__function_def__control_ret_entry__init(e);
        e->key = key;
        e->value = value;
        f->control_ret[f->n_control_ret++] = e;
    }
    for (size_t i = 0; code == TFPI_OK && i < x.nodes.n; i++)
        f->node_def[f->n_node_def++] = x.nodes.defs[i];
    if (code == TFPI_OK)
        x.nodes.n = 0; /* the FunctionDef owns them now */
    tp_tfl_translator_free(&x);
    return code;
}

tfpi_code tp_tfl_function_library(const tp_tfl_model *m, int served, uint8_t **bytes, size_t *size,
                                  const char *source, tfpi_status *status)
{
    *bytes = NULL;
    *size = 0;
    /* The subgraphs the served one reaches, in order found. */
    int *queue = calloc((size_t)m->num_subgraphs + 1, sizeof *queue);
    bool *seen = calloc((size_t)m->num_subgraphs + 1, sizeof *seen);
    Tfpi__FunctionDefLibrary lib = TFPI__FUNCTION_DEF_LIBRARY__INIT;
    lib.function = calloc((size_t)m->num_subgraphs + 1, sizeof *lib.function);
    tfpi_code code = queue && seen && lib.function ? TFPI_OK
                                                   : tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory",
                                                                     source);
    int head = 0, tail = 0;
    if (code == TFPI_OK) {
        queue[tail++] = served;
        seen[served] = true;
    }
    while (code == TFPI_OK && head < tail) {
        const tp_tfl_subgraph *g = &m->subgraphs[queue[head++]];
        for (int i = 0; i < g->num_operators; i++) {
            int32_t called[2];
            const char *fields[2];
            int n = tp_tfl_called_subgraphs(m, &g->operators[i], called, fields);
            for (int k = 0; k < n; k++) /* indices checked at load (tp_tfl_check_calls) */
                if (!seen[called[k]]) {
                    seen[called[k]] = true;
                    queue[tail++] = called[k];
                }
        }
    }
    for (int q = 1; code == TFPI_OK && q < tail; q++) {
        Tfpi__FunctionDef *f = malloc(sizeof *f);
        if (!f) {
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
            break;
        }
        tfpi__function_def__init(f);
        lib.function[lib.n_function++] = f;
        code = make_function(m, queue[q], f, source, status);
    }
    if (code == TFPI_OK && lib.n_function) {
        *size = tfpi__function_def_library__get_packed_size(&lib);
        if (!(*bytes = malloc(*size + 1)))
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
        else
            tfpi__function_def_library__pack(&lib, *bytes);
    }
    for (size_t i = 0; i < lib.n_function; i++)
        tfpi__function_def__free_unpacked(lib.function[i], NULL);
    free(lib.function);
    free(queue);
    free(seen);
    return code;
}
