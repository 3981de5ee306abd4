/* function_inline.c - inlines one call of a library function, as
 * TensorFlow's function inliner does. The body's nodes are copied with the
 * call's name as prefix ("call/add"), their references rewritten to flat
 * tensor names ("add:z:0" -> "call/add:0", an argument -> the caller's
 * tensor), placeholder attributes bound to the call's values; calls and
 * control flow in the body are expanded in turn. When the call waits for
 * control inputs, or the body has nodes without inputs (Consts), each
 * argument goes through an Identity "call/input/_i" and a NoOp
 * "call/input_control_node" holds back the input-less nodes: they then run
 * in the caller's frame and are dead when the call is. "call/
 * output_control_node" waits for the body's control outputs and results;
 * control edges from the call move to it. A function that reaches itself
 * again, or calls nested deeper than TP_MAX_CALL_DEPTH, is refused. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/function_expand.h"

typedef struct instance {
    tp_expander *x;
    const tp_call *call;
    const Tfpi__FunctionDef *f;
    tfpi_dtype *in_types, *out_types;
    int n_in, n_out;
    tp_strings args;  /* per flat input: the tensor the body reads */
    int *arg_first;   /* per signature input argument: its first flat input */
    const char *anchor; /* what input-less body nodes wait for, or NULL */
    bool *waited_on;    /* in a loop: per body node, whether a control edge or control output names it */
    tp_strings names;   /* names this call made (anchor) */
} instance;

static const char *function_name(const instance *in) { return in->f->signature->name; }

static tfpi_code call_error(instance *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tfpi_code call_error(instance *in, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return tp_expand_error(in->x, in->call->name, in->call->op, "function '%s': %s", function_name(in), detail);
}

/* "f -> g -> f" for the recursion error. */
static tfpi_code recursion_error(tp_expander *x, const tp_call *call, int from)
{
    char path[300] = "";
    for (int i = from; i < x->depth; i++) {
        size_t len = strlen(path);
        snprintf(path + len, sizeof path - len, "%s -> ", x->stack[i]);
    }
    size_t len = strlen(path);
    snprintf(path + len, sizeof path - len, "%s", call->function);
    return tp_expand_error(x, call->name, call->op, "function recursion %s is not supported", path);
}

/* The signature's types; the call's count and its Tin / Tout checked. */
static tfpi_code check_signature(instance *in)
{
    const tp_call *c = in->call;
    const Tfpi__OpDef *sig = in->f->signature;
    if ((in->n_in = tp_signature_types(sig, false, c->attrs, &in->in_types)) < 0 ||
        (in->n_out = tp_signature_types(sig, true, c->attrs, &in->out_types)) < 0)
        return call_error(in, "the call does not set the attributes that give its number of arguments");
    if ((size_t)in->n_in != c->n_inputs)
        return call_error(in, "it takes %d inputs, the node gives %zu", in->n_in, c->n_inputs);
    const Tfpi__AttrValue *lists[2] = {c->in_types, c->out_types};
    for (int side = 0; side < 2; side++) {
        const Tfpi__AttrValue *given = lists[side];
        int n = side ? in->n_out : in->n_in;
        const tfpi_dtype *want = side ? in->out_types : in->in_types;
        const char *attr = side ? c->out_attr : c->in_attr, *what = side ? "output" : "input";
        if (!given)
            continue;
        if (given->value_case != TFPI__ATTR_VALUE__VALUE_LIST || given->list->n_type != (size_t)n)
            return call_error(in, "%s lists %zu types for its %d %ss", attr,
                              given->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? given->list->n_type : 0, n, what);
        for (int i = 0; i < n; i++)
            if (want[i] && (tfpi_dtype)given->list->type[i] != want[i])
                return call_error(in, "%s %d is %s (%s), but the function's is %s", what, i,
                                  tfpi_dtype_name((tfpi_dtype)given->list->type[i]), attr, tfpi_dtype_name(want[i]));
    }
    return TFPI_OK;
}

static bool names_an_argument(const Tfpi__OpDef *sig, const char *ref, int *arg)
{
    bool control = ref[0] == '^';
    size_t len = strcspn(ref + control, ":");
    for (size_t a = 0; a < sig->n_input_arg; a++)
        if (strncmp(sig->input_arg[a]->name, ref + control, len) == 0 && sig->input_arg[a]->name[len] == '\0') {
            *arg = (int)a;
            return true;
        }
    return false;
}

/* Whether the body needs its arguments behind Identities and an anchor. */
static bool needs_anchor(const instance *in)
{
    if (in->call->n_controls > 0)
        return true;
    int arg;
    for (size_t i = 0; i < in->f->n_node_def; i++) {
        const Tfpi__NodeDef *nd = in->f->node_def[i];
        if (nd->n_input == 0)
            return true;
        for (size_t k = 0; k < nd->n_input; k++)
            if (nd->input[k][0] == '^' && names_an_argument(in->f->signature, nd->input[k], &arg))
                return true;
    }
    return false;
}

static void add_controls(Tfpi__NodeDef *def, char *const *names, size_t n, bool *ok)
{
    for (size_t i = 0; i < n && *ok; i++)
        *ok = tp_node_add_control(def, names[i]);
}

/* The arguments as the body sees them, and the anchor if one is needed. */
static tfpi_code bind_arguments(instance *in)
{
    const tp_call *c = in->call;
    tp_expander *x = in->x;
    const Tfpi__OpDef *sig = in->f->signature;
    if (!(in->arg_first = calloc(sig->n_input_arg + 1, sizeof *in->arg_first)))
        return tp_expand_out_of_memory(x);
    for (size_t a = 0, at = 0; a < sig->n_input_arg; a++) {
        in->arg_first[a] = (int)at;
        at += (size_t)tp_arg_expand(sig->input_arg[a], c->attrs, NULL, 0);
    }
    if (c->control_guards_inputs && c->n_controls == 1) {
        in->anchor = c->controls[0];
        for (size_t i = 0; i < c->n_inputs; i++)
            if (!tp_strings_addf(&in->args, "%s", c->inputs[i]))
                return tp_expand_out_of_memory(x);
        return TFPI_OK;
    }
    bool anchored = needs_anchor(in) && (c->n_inputs > 0 || c->n_controls > 0);
    tp_strings identities = {0};
    tfpi_code code = TFPI_OK;
    for (size_t i = 0; i < c->n_inputs && code == TFPI_OK; i++) {
        if (!anchored) {
            code = tp_strings_addf(&in->args, "%s", c->inputs[i]) ? TFPI_OK : tp_expand_out_of_memory(x);
            continue;
        }
        Tfpi__NodeDef *id = tp_strings_addf(&identities, "%s/input/_%zu", c->name, i)
                                ? tp_node_new(identities.items[identities.n - 1], "Identity") : NULL;
        bool ok = id && tp_node_add_input(id, c->inputs[i]);
        add_controls(id, c->controls, c->n_controls, &ok);
        if (ok && in->in_types[i])
            ok = tp_node_set_attr(id, "T", tp_attr_new_type(in->in_types[i]));
        if (ok)
            ok = tp_strings_addf(&in->args, "%s:0", identities.items[identities.n - 1]);
        if (!ok && id)
            tfpi__node_def__free_unpacked(id, NULL);
        code = ok ? tp_expand_emit(x, id) : tp_expand_out_of_memory(x);
    }
    if (anchored && code == TFPI_OK) {
        Tfpi__NodeDef *noop = tp_strings_addf(&in->names, "%s/input_control_node", c->name)
                                  ? tp_node_new(in->names.items[in->names.n - 1], "NoOp") : NULL;
        bool ok = noop != NULL;
        add_controls(noop, c->controls, c->n_controls, &ok);
        add_controls(noop, identities.items, identities.n, &ok);
        if (!ok && noop)
            tfpi__node_def__free_unpacked(noop, NULL);
        code = ok ? tp_expand_emit(x, noop) : tp_expand_out_of_memory(x);
        in->anchor = in->names.items[in->names.n - 1];
    }
    tp_strings_free(&identities);
    return code;
}

static tfpi_code body_error(instance *in, const Tfpi__NodeDef *nd, const char *ref, const char *problem)
{
    char name[300];
    snprintf(name, sizeof name, "%s/%s", in->call->name, nd->name);
    return tp_expand_error(in->x, name, nd->op, "function '%s': input '%s': %s", function_name(in), ref, problem);
}

/* A non-negative decimal index, or -1. */
static int parse_index(const char *s)
{
    long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 1000000)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return (int)v;
}

/* The range of output argument arg[0..len) of body node `node`. */
static bool producer_range(instance *in, int node, const char *arg, size_t len, int *offset, int *count,
                           bool *known)
{
    const Tfpi__NodeDef *nd = in->f->node_def[node];
    tp_bindings b = tp_bindings_of_node(nd);
    for (size_t i = 0; i < b.n; i++) {
        const Tfpi__AttrValue *v = tp_function_attr(in->f, b.items[i].value, in->call->attrs);
        if (v)
            b.items[i].value = v;
    }
    bool found = tp_output_arg_range(&in->x->lib, nd->op, &b, arg, len, offset, count, known);
    tp_bindings_free(&b);
    return found;
}

/* Appends the flat form of body reference `ref` (read by body node nd) to
 * out: one name, or several for a whole list argument or output. */
static tfpi_code translate(instance *in, const Tfpi__NodeDef *nd, const char *ref, tp_strings *out)
{
    tp_expander *x = in->x;
    const char *prefix = in->call->name;
    bool control = ref[0] == '^';
    const char *s = ref + control;
    const char *c1 = strchr(s, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    size_t len = c1 ? (size_t)(c1 - s) : strlen(s);
    int arg;
    bool ok = true;
    if ((control && c1) || !len)
        return body_error(in, nd, ref, "not a valid reference");
    if (names_an_argument(in->f->signature, ref, &arg) && !c2) {
        int first = in->arg_first[arg];
        int count = tp_arg_expand(in->f->signature->input_arg[arg], in->call->attrs, NULL, 0);
        int k = c1 ? parse_index(c1 + 1) : -1;
        if (c1 && (k < 0 || k >= count))
            return body_error(in, nd, ref, "no such element of the argument");
        for (int i = c1 ? k : 0; ok && i < (c1 ? k + 1 : count); i++) {
            const char *t = in->args.items[first + i];
            if (control && in->call->control_guards_inputs) /* the argument's producer may be a Switch */
                ok = tp_strings_addf(out, "^%s", in->anchor);
            else
                ok = control ? tp_strings_addf(out, "^%.*s", (int)strcspn(t, ":"), t) : tp_strings_addf(out, "%s", t);
        }
        return ok ? TFPI_OK : tp_expand_out_of_memory(x);
    }
    int node = tp_function_body_node(&x->lib, in->f, s, len);
    if (node < 0)
        return body_error(in, nd, ref, "the function has no such node or argument");
    if (control || !c1)
        ok = tp_strings_addf(out, control ? "^%s/%.*s" : "%s/%.*s:0", prefix, (int)len, s);
    else {
        size_t arg_len = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
        int k = c2 ? parse_index(c2 + 1) : -1, offset, count;
        bool known;
        if (c2 && k < 0)
            return body_error(in, nd, ref, "not a valid reference");
        if (!producer_range(in, node, c1 + 1, arg_len, &offset, &count, &known)) {
            char problem[200];
            snprintf(problem, sizeof problem, "op '%s' has no output argument '%.*s'", in->f->node_def[node]->op,
                     (int)arg_len, c1 + 1);
            return body_error(in, nd, ref, problem);
        }
        if (known && k >= count)
            return body_error(in, nd, ref, "no such element of the output argument");
        int from = k >= 0 ? k : 0, to = k >= 0 ? k + 1 : known ? count : 1;
        for (int i = from; ok && i < to; i++)
            ok = tp_strings_addf(out, "%s/%.*s:%d", prefix, (int)len, s, offset + i);
    }
    return ok ? TFPI_OK : tp_expand_out_of_memory(x);
}

/* Replaces placeholder attribute values (also inside func attributes) by
 * the call's values or the signature's defaults. */
static tfpi_code bind_value(instance *in, const Tfpi__NodeDef *copy, const char *key, Tfpi__AttrValue **slot)
{
    Tfpi__AttrValue *v = *slot;
    if (v->value_case == TFPI__ATTR_VALUE__VALUE_PLACEHOLDER) {
        const Tfpi__AttrValue *bound = tp_function_attr(in->f, v, in->call->attrs);
        if (!bound || bound->value_case == TFPI__ATTR_VALUE__VALUE_PLACEHOLDER) {
            char detail[200];
            snprintf(detail, sizeof detail, "attribute '%s' is the placeholder '%s', which the call does not set", key,
                     v->placeholder);
            return tp_expand_error(in->x, copy->name, copy->op, "function '%s': %s", function_name(in), detail);
        }
        Tfpi__AttrValue *value = tp_attr_value_copy(bound);
        if (!value)
            return tp_expand_out_of_memory(in->x);
        tfpi__attr_value__free_unpacked(v, NULL);
        *slot = value;
        return TFPI_OK;
    }
    Tfpi__NameAttrList *const *funcs = v->value_case == TFPI__ATTR_VALUE__VALUE_FUNC ? &v->func
                                       : v->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? v->list->func
                                                                                        : NULL;
    size_t n = v->value_case == TFPI__ATTR_VALUE__VALUE_FUNC ? 1
               : v->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? v->list->n_func
                                                                : 0;
    tfpi_code code = TFPI_OK;
    for (size_t i = 0; i < n && code == TFPI_OK; i++)
        for (size_t e = 0; e < funcs[i]->n_attr && code == TFPI_OK; e++)
            if (funcs[i]->attr[e]->value)
                code = bind_value(in, copy, funcs[i]->attr[e]->key, &funcs[i]->attr[e]->value);
    return code;
}

/* In a loop's cond or body: marks the body nodes a control edge or a
 * control output names (an Identity of those must stay a node). */
static tfpi_code find_waited_on(instance *in)
{
    const Tfpi__FunctionDef *f = in->f;
    if (!in->call->in_loop)
        return TFPI_OK;
    if (!(in->waited_on = calloc(f->n_node_def + 1, sizeof *in->waited_on)))
        return tp_expand_out_of_memory(in->x);
    for (size_t i = 0; i < f->n_node_def; i++)
        for (size_t k = 0; k < f->node_def[i]->n_input; k++) {
            const char *ref = f->node_def[i]->input[k];
            int node = ref[0] == '^' ? tp_function_body_node(&in->x->lib, f, ref + 1, strlen(ref + 1)) : -1;
            if (node >= 0)
                in->waited_on[node] = true;
        }
    for (size_t i = 0; i < f->n_control_ret; i++) {
        const char *name = f->control_ret[i]->value;
        int node = name ? tp_function_body_node(&in->x->lib, f, name, strlen(name)) : -1;
        if (node >= 0)
            in->waited_on[node] = true;
    }
    return TFPI_OK;
}

/* Copies body node i into the flat graph (expanding it in turn), or, for an
 * Identity of a loop's body that nothing waits for, has its consumers read
 * its input instead. */
static tfpi_code instantiate_node(instance *in, size_t i)
{
    const Tfpi__NodeDef *nd = in->f->node_def[i];
    tp_expander *x = in->x;
    tp_strings inputs = {0};
    tfpi_code code = TFPI_OK;
    for (size_t k = 0; k < nd->n_input && code == TFPI_OK; k++)
        code = translate(in, nd, nd->input[k], &inputs);
    if (code == TFPI_OK && in->waited_on && !in->waited_on[i] && strcmp(nd->op, "Identity") == 0 &&
        inputs.n == 1 && inputs.items[0][0] != '^') {
        tp_strings names = {0};
        const char *source = inputs.items[0];
        bool ok = tp_strings_addf(&names, "%s/%s:0", in->call->name, nd->name) &&
                  tp_strings_addf(&names, "^%s/%s", in->call->name, nd->name) &&
                  tp_strings_addf(&names, "^%.*s", (int)strcspn(source, ":"), source);
        code = ok ? tp_expand_rename(x, names.items[0], source) : tp_expand_out_of_memory(x);
        if (code == TFPI_OK) /* what waited for the Identity (the call's output control) waits for its source */
            code = tp_expand_rename(x, names.items[1], names.items[2]);
        tp_strings_free(&names);
        tp_strings_free(&inputs);
        return code;
    }
    if (code == TFPI_OK && nd->n_input == 0 && in->anchor && !tp_strings_addf(&inputs, "^%s", in->anchor))
        code = tp_expand_out_of_memory(x);
    Tfpi__NodeDef *copy = NULL;
    if (code == TFPI_OK) {
        char *name = NULL;
        tp_strings names = {0};
        copy = tp_node_copy(nd);
        if (tp_strings_addf(&names, "%s/%s", in->call->name, nd->name))
            name = names.items[0];
        if (!copy || !name || !tp_node_rename(copy, name) || !tp_node_set_inputs(copy, inputs.items, inputs.n))
            code = tp_expand_out_of_memory(x);
        tp_strings_free(&names);
    }
    for (size_t a = 0; code == TFPI_OK && a < copy->n_attr; a++)
        if (copy->attr[a]->value)
            code = bind_value(in, copy, copy->attr[a]->key, &copy->attr[a]->value);
    if (code == TFPI_OK)
        code = tp_fill_default_attrs(copy, tp_op_def_find(&x->lib, copy->op), x->status);
    tp_strings_free(&inputs);
    if (code != TFPI_OK) {
        if (copy)
            tfpi__node_def__free_unpacked(copy, NULL);
        return code;
    }
    return tp_expand_node(x, copy);
}

/* The value of ret[name], or NULL. */
static const char *ret_of(const Tfpi__FunctionDef *f, const char *name)
{
    for (size_t i = 0; i < f->n_ret; i++)
        if (f->ret[i]->key && strcmp(f->ret[i]->key, name) == 0)
            return f->ret[i]->value;
    return NULL;
}

/* The call's results in order: the ret map's tensors, flat. */
static tfpi_code collect_results(instance *in, tp_strings *results)
{
    const Tfpi__OpDef *sig = in->f->signature;
    Tfpi__NodeDef ret = TFPI__NODE_DEF__INIT; /* names the ret map in messages */
    ret.name = "ret";
    ret.op = "_Retval";
    tfpi_code code = TFPI_OK;
    for (size_t a = 0; a < sig->n_output_arg && code == TFPI_OK; a++) {
        const char *ref = ret_of(in->f, sig->output_arg[a]->name);
        size_t before = results->n;
        if (!ref)
            return call_error(in, "it returns no value for its output '%s'", sig->output_arg[a]->name);
        code = translate(in, &ret, ref, results);
        if (code == TFPI_OK &&
            results->n - before != (size_t)tp_arg_expand(sig->output_arg[a], in->call->attrs, NULL, 0))
            return call_error(in, "output '%s' returns %zu tensors, its signature says %d", sig->output_arg[a]->name,
                              results->n - before, tp_arg_expand(sig->output_arg[a], in->call->attrs, NULL, 0));
    }
    return code;
}

/* "call/output_control_node": after the body's control outputs and the
 * nodes that give the results. */
static tfpi_code emit_output_control(instance *in, const tp_strings *results, const char *name)
{
    tp_expander *x = in->x;
    tp_strings sources = {0};
    bool ok = true;
    for (size_t i = 0; i < in->f->n_control_ret && ok; i++) {
        const char *node = in->f->control_ret[i]->value;
        if (tp_function_body_node(&x->lib, in->f, node, strlen(node)) < 0) {
            tp_strings_free(&sources);
            return call_error(in, "its control output '%s' is not a node of its body", node);
        }
        ok = tp_strings_addf(&sources, "%s/%s", in->call->name, node);
    }
    for (size_t i = 0; i < results->n && ok; i++)
        ok = tp_strings_addf(&sources, "%.*s", (int)strcspn(results->items[i], ":"), results->items[i]);
    Tfpi__NodeDef *done = ok ? tp_node_new(name, "NoOp") : NULL;
    ok = done != NULL;
    for (size_t i = 0; i < sources.n && ok; i++)
        ok = tp_node_add_control(done, sources.items[i]);
    tp_strings_free(&sources);
    if (!ok && done)
        tfpi__node_def__free_unpacked(done, NULL);
    return ok ? tp_expand_emit(x, done) : tp_expand_out_of_memory(x);
}

/* A node with the call's name, for fetches: its results (IdentityN) after
 * the output control node, or only that (NoOp). */
static tfpi_code emit_kept_node(instance *in, const tp_strings *results, const char *done)
{
    Tfpi__NodeDef *keep = tp_node_new(in->call->name, results->n ? "IdentityN" : "NoOp");
    bool ok = keep && tp_node_set_inputs(keep, results->items, results->n) && tp_node_add_control(keep, done) &&
              (!results->n || tp_node_set_attr(keep, "T", tp_attr_new_type_list(in->out_types, results->n)));
    if (!ok && keep)
        tfpi__node_def__free_unpacked(keep, NULL);
    return ok ? tp_expand_emit(in->x, keep) : tp_expand_out_of_memory(in->x);
}

/* The results, the output control node, renames of the call's outputs and
 * control edge, and the node that keeps the call's name. */
static tfpi_code bind_results(instance *in)
{
    tp_expander *x = in->x;
    const char *call = in->call->name;
    tp_strings results = {0}, names = {0};
    tfpi_code code = collect_results(in, &results);
    if (code == TFPI_OK && (!tp_strings_addf(&names, "%s/output_control_node", call) ||
                            !tp_strings_addf(&names, "^%s", call) || !tp_strings_addf(&names, "^%s", names.items[0])))
        code = tp_expand_out_of_memory(x);
    if (code == TFPI_OK)
        code = emit_output_control(in, &results, names.items[0]);
    if (code == TFPI_OK)
        code = tp_expand_rename(x, names.items[1], names.items[2]);
    for (size_t j = 0; j < results.n && code == TFPI_OK; j++) {
        code = tp_strings_addf(&names, "%s:%zu", call, j) ? TFPI_OK : tp_expand_out_of_memory(x);
        if (code == TFPI_OK)
            code = tp_expand_rename(x, names.items[names.n - 1], results.items[j]);
    }
    if (code == TFPI_OK && in->call->keep_node)
        code = emit_kept_node(in, &results, names.items[0]);
    tp_strings_free(&results);
    tp_strings_free(&names);
    return code;
}

/* Translates every reference of the body and of its ret map once, when a
 * function is first instantiated and before any of its nodes is copied: a
 * bad reference deep in a tree of calls is then reported on the way down,
 * not after the calls before it are expanded (up to the node limit). */
static tfpi_code check_references(instance *in)
{
    int index = tp_name_map_find(&in->x->lib.functions, in->call->function, strlen(in->call->function));
    if (index < 0 || in->x->references_checked[index])
        return TFPI_OK;
    tp_strings scratch = {0};
    tfpi_code code = TFPI_OK;
    for (size_t i = 0; i < in->f->n_node_def && code == TFPI_OK; i++) {
        const Tfpi__NodeDef *nd = in->f->node_def[i];
        for (size_t k = 0; k < nd->n_input && code == TFPI_OK; k++)
            code = translate(in, nd, nd->input[k], &scratch);
        tp_strings_free(&scratch);
    }
    if (code == TFPI_OK)
        code = collect_results(in, &scratch);
    tp_strings_free(&scratch);
    in->x->references_checked[index] = code == TFPI_OK;
    return code;
}

tfpi_code tp_inline_call(tp_expander *x, const tp_call *call)
{
    instance in = {.x = x, .call = call, .f = tp_function_find(&x->lib, call->function)};
    if (!in.f)
        return tp_expand_error(x, call->name, call->op, "function '%s' is not in the graph's function library",
                               call->function);
    for (int i = 0; i < x->depth; i++)
        if (strcmp(x->stack[i], call->function) == 0)
            return recursion_error(x, call, i);
    if (x->depth >= TP_MAX_CALL_DEPTH)
        return tp_expand_error(x, call->name, call->op, "function calls nest more than %d deep (calling '%s')",
                               TP_MAX_CALL_DEPTH, call->function);
    tfpi_code code = check_signature(&in);
    if (code == TFPI_OK)
        code = bind_arguments(&in);
    if (code == TFPI_OK)
        code = check_references(&in);
    if (code == TFPI_OK)
        code = find_waited_on(&in);
    x->stack[x->depth++] = call->function;
    for (size_t i = 0; i < in.f->n_node_def && code == TFPI_OK; i++)
        code = instantiate_node(&in, i);
    if (code == TFPI_OK)
        code = bind_results(&in);
    x->depth--;
    free(in.in_types);
    free(in.out_types);
    free(in.arg_first);
    free(in.waited_on);
    tp_strings_free(&in.args);
    tp_strings_free(&in.names);
    return code;
}
