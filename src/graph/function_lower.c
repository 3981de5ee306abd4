/* function_lower.c - lowers TF2's functional control flow to the TF1
 * dataflow control flow tfpi runs (Switch, Merge, Enter, Exit,
 * NextIteration, LoopCond: src/plan/flow_plan.c, src/run/flow_run.c), as
 * TensorFlow's LowerFunctionalOpsPass does, around calls of the bodies and
 * branches, which are then inlined (function_inline.c). Every functional op
 * is lowered, whatever _lower_using_switch_merge says: tfpi has no other
 * way to run one, and the results are the same. So loops get the
 * executor's frames, iteration limit and memory budget.
 *
 * While N (frame N): per loop variable Enter, Merge(Enter, NextIteration),
 * Switch(Merge, LoopCond), Exit, NextIteration; the cond is called on the
 * Merges (its result counts by its truth, as If's predicate), the body on
 * the Switches' true ports after "N/loop_body_control".
 * A variable the body returns unchanged (resource handles, captured
 * tensors, the Keras LSTM's input list) enters as a constant Enter with no
 * Merge or Switch (the body reads it through an Identity after the pivot,
 * so it is dead on the last iteration like the others), and N:i is the
 * input itself. The cond and body are inlined reading their inputs as they
 * are, waiting for the first Merge and the pivot (tp_call's
 * control_guards_inputs), so a lowered loop runs about the nodes of the
 * TF1 loop it stands for.
 * If N: the predicate's truth (ToBool: a non-empty string, a non-zero
 * number, a non-scalar with elements) drives Switches of every input; each
 * branch is called after its pivot; Merges join the results.
 * Case N: a chain of two-way branches: index == 0 ? branch 0 : (index == 1 ?
 * ... : last branch), so an index out of range takes the last branch. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/function_expand.h"

/* The functional op being lowered. */
typedef struct lowering {
    tp_expander *x;
    Tfpi__NodeDef *def;
    tp_strings data, controls; /* its inputs */
    tp_strings names;          /* names made while lowering */
} lowering;

static const char *name_of(lowering *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new name kept until the lowering ends, or NULL. */
static const char *name_of(lowering *l, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof buf || !tp_strings_addf(&l->names, "%s", buf))
        return NULL;
    return l->names.items[l->names.n - 1];
}

static tfpi_code oom(lowering *l) { return tp_expand_out_of_memory(l->x); }

static tfpi_code lower_error(lowering *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tfpi_code lower_error(lowering *l, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return tp_expand_error(l->x, l->def->name, l->def->op, "%s", detail);
}

/* Emits a node op `name` with data inputs (NULL-terminated) and controls
 * (NULL-terminated); attributes follow as (key, value) pairs, ending with
 * NULL. */
static tfpi_code emit(lowering *l, const char *name, const char *op, const char *const *inputs,
                      const char *const *controls, ...)
{
    Tfpi__NodeDef *def = name ? tp_node_new(name, op) : NULL;
    bool ok = def != NULL;
    for (size_t i = 0; ok && inputs && inputs[i]; i++)
        ok = tp_node_add_input(def, inputs[i]);
    for (size_t i = 0; ok && controls && controls[i]; i++)
        ok = tp_node_add_control(def, controls[i]);
    va_list ap;
    va_start(ap, controls);
    for (const char *key = va_arg(ap, const char *); key; key = va_arg(ap, const char *)) {
        Tfpi__AttrValue *value = va_arg(ap, Tfpi__AttrValue *);
        if (ok)
            ok = tp_node_set_attr(def, key, value);
        else if (value)
            tfpi__attr_value__free_unpacked(value, NULL);
    }
    va_end(ap);
    if (!ok) {
        if (def)
            tfpi__node_def__free_unpacked(def, NULL);
        return oom(l);
    }
    return tp_expand_emit(l->x, def);
}

/* Emits `name` = op over a whole list of inputs and controls. */
static tfpi_code emit_list(lowering *l, const char *name, const char *op, char *const *inputs, size_t n,
                           char *const *controls, size_t n_controls, Tfpi__AttrValue *t)
{
    Tfpi__NodeDef *def = name ? tp_node_new(name, op) : NULL;
    bool ok = def && tp_node_set_inputs(def, inputs, n);
    for (size_t i = 0; ok && i < n_controls; i++)
        ok = tp_node_add_control(def, controls[i]);
    if (ok && t)
        ok = tp_node_set_attr(def, "T", t);
    else if (t)
        tfpi__attr_value__free_unpacked(t, NULL);
    if (!ok) {
        if (def)
            tfpi__node_def__free_unpacked(def, NULL);
        return oom(l);
    }
    return tp_expand_emit(l->x, def);
}

/* A list attribute of types with `n` entries, or NULL (error set). */
static const Tfpi__AttrValue *type_list(lowering *l, const char *key, size_t n, tfpi_code *code)
{
    const Tfpi__AttrValue *a = tp_attr(l->def, key);
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_LIST) {
        *code = lower_error(l, "attribute %s is not a list of types", key);
        return NULL;
    }
    if (n != (size_t)-1 && a->list->n_type != n) {
        *code = lower_error(l, "attribute %s lists %zu types for %zu tensors", key, a->list->n_type, n);
        return NULL;
    }
    return a;
}

static const Tfpi__NameAttrList *function_attr(lowering *l, const char *key, tfpi_code *code)
{
    const Tfpi__AttrValue *a = tp_attr(l->def, key);
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_FUNC || !a->func->name[0]) {
        *code = lower_error(l, "attribute %s does not name a function", key);
        return NULL;
    }
    return a->func;
}

static tfpi_dtype type_at(const Tfpi__AttrValue *list, size_t i) { return (tfpi_dtype)list->list->type[i]; }

/* Calls f as `name`; in_types / out_types (may be NULL) are the op's
 * attributes in_attr / out_attr. */
static tfpi_code call(lowering *l, const char *name, const Tfpi__NameAttrList *f, char *const *inputs, size_t n,
                      const char *control, const char *in_attr, const char *out_attr, bool in_loop)
{
    tp_bindings attrs = tp_bindings_of_func(f);
    char *controls[1] = {(char *)control};
    /* Every call made here waits for a pivot or Merge that is live exactly when its inputs are. */
    tp_call c = {.name = name, .op = l->def->op, .function = f->name, .attrs = &attrs, .inputs = inputs,
                 .n_inputs = n, .controls = controls, .n_controls = control ? 1 : 0,
                 .in_types = in_attr ? tp_attr(l->def, in_attr) : NULL,
                 .out_types = out_attr ? tp_attr(l->def, out_attr) : NULL, .in_attr = in_attr, .out_attr = out_attr,
                 .control_guards_inputs = control != NULL, .in_loop = in_loop};
    tfpi_code code = !name ? oom(l) : attrs.n == f->n_attr ? tp_inline_call(l->x, &c) : oom(l);
    tp_bindings_free(&attrs);
    return code;
}

/* Node `N` that keeps the op's name for fetches: IdentityN over its
 * outputs, or a NoOp; and the renames of its outputs and control edge. */
static tfpi_code finish(lowering *l, char *const *outputs, size_t n, const Tfpi__AttrValue *types, const char *done)
{
    const char *N = l->def->name;
    tfpi_code code = TFPI_OK;
    char *controls[1] = {(char *)done};
    for (size_t j = 0; j < n && code == TFPI_OK; j++) {
        const char *from = name_of(l, "%s:%zu", N, j);
        code = from ? tp_expand_rename(l->x, from, outputs[j]) : oom(l);
    }
    const char *from = name_of(l, "^%s", N), *to = name_of(l, "^%s", done);
    if (code == TFPI_OK)
        code = from && to ? tp_expand_rename(l->x, from, to) : oom(l);
    if (code == TFPI_OK)
        code = emit_list(l, N, n ? "IdentityN" : "NoOp", outputs, n, controls, 1,
                         n ? tp_attr_value_copy(types) : NULL);
    return code;
}

/* ---- While ---------------------------------------------------------- */

/* Loop variable i is invariant: a handle, or returned unchanged by body. */
static bool invariant(const Tfpi__FunctionDef *body, const Tfpi__AttrValue *t, size_t i)
{
    if (type_at(t, i) == TFPI_RESOURCE)
        return true;
    const Tfpi__OpDef *sig = body->signature;
    if (sig->n_input_arg != t->list->n_type || sig->n_output_arg != t->list->n_type)
        return false; /* list arguments: the inliner reports what is wrong */
    for (size_t r = 0; r < body->n_ret; r++)
        if (strcmp(body->ret[r]->key, sig->output_arg[i]->name) == 0)
            return strcmp(body->ret[r]->value, sig->input_arg[i]->name) == 0;
    return false;
}

static tfpi_code lower_while(lowering *l)
{
    tp_expander *x = l->x;
    const char *N = l->def->name;
    size_t n = l->data.n;
    tfpi_code code = TFPI_OK;
    const Tfpi__AttrValue *t = type_list(l, "T", n, &code);
    const Tfpi__NameAttrList *cond = t ? function_attr(l, "cond", &code) : NULL;
    const Tfpi__NameAttrList *body_fn = cond ? function_attr(l, "body", &code) : NULL;
    if (!body_fn)
        return code;
    const Tfpi__FunctionDef *body = tp_function_find(&x->lib, body_fn->name);
    if (!body)
        return lower_error(l, "its body '%s' is not in the graph's function library", body_fn->name);
    const Tfpi__FunctionDef *cond_fn = tp_function_find(&x->lib, cond->name);
    if (!cond_fn)
        return lower_error(l, "its cond '%s' is not in the graph's function library", cond->name);
    tp_bindings cond_attrs = tp_bindings_of_func(cond);
    tfpi_dtype *cond_types = NULL;
    int cond_outputs = tp_signature_types(cond_fn->signature, true, &cond_attrs, &cond_types);
    tp_bindings_free(&cond_attrs);
    free(cond_types);
    if (cond_outputs != 1)
        return lower_error(l, "its cond '%s' returns %d values, expected 1", cond->name, cond_outputs);
    if (n == 0)
        return lower_error(l, "a While needs at least one loop variable");
    int64_t parallel = tp_attr_int(l->def, "parallel_iterations", 10);
    bool *inv = calloc(n, sizeof *inv);
    tp_strings cond_in = {0}, body_in = {0}, outputs = {0}, exits = {0};
    if (!inv)
        return oom(l);
    size_t first = n;
    for (size_t i = 0; i < n; i++) {
        inv[i] = invariant(body, t, i);
        if (!inv[i] && first == n)
            first = i;
    }
    if (first == n) /* nothing varies: the loop still needs one Merge to iterate on */
        for (first = 0; first + 1 < n && type_at(t, first) == TFPI_RESOURCE;)
            first++;
    inv[first] = false;
    const char *entry = NULL;
    if (l->controls.n) {
        entry = name_of(l, "%s/LoopControlInputs", N);
        code = emit_list(l, entry, "NoOp", NULL, 0, l->controls.items, l->controls.n, NULL);
    }
    for (size_t i = 0; i < n && code == TFPI_OK; i++) {
        const char *enter = name_of(l, "%s/Enter_%zu", N, i);
        code = emit(l, enter, "Enter", (const char *[]){l->data.items[i], NULL}, (const char *[]){entry, NULL},
                    "T", tp_attr_new_type(type_at(t, i)), "frame_name", tp_attr_new_string(N), "is_constant",
                    tp_attr_new_bool(inv[i]), "parallel_iterations", tp_attr_new_int(parallel), NULL);
        if (code == TFPI_OK && !inv[i])
            code = emit(l, name_of(l, "%s/Merge_%zu", N, i), "Merge",
                        (const char *[]){enter, name_of(l, "%s/NextIteration_%zu", N, i), NULL}, NULL, "T",
                        tp_attr_new_type(type_at(t, i)), "N", tp_attr_new_int(2), NULL);
        if (code == TFPI_OK && !tp_strings_addf(&cond_in, "%s/%s_%zu:0", N, inv[i] ? "Enter" : "Merge", i))
            code = oom(l);
    }
    const char *pred = NULL, *loop_cond = name_of(l, "%s/LoopCond", N);
    if (code == TFPI_OK) /* the control edge from the first Merge puts cond's Consts in the frame */
        code = call(l, name_of(l, "%s/cond", N), cond, cond_in.items, n, name_of(l, "%s/Merge_%zu", N, first), "T",
                    NULL, true);
    if (code == TFPI_OK) { /* a non-bool or non-scalar cond result counts by its truth */
        pred = name_of(l, "%s/cond/ToBool", N);
        code = emit(l, pred, "ToBool", (const char *[]){name_of(l, "%s/cond:0", N), NULL}, NULL, NULL);
    }
    if (code == TFPI_OK)
        code = emit(l, loop_cond, "LoopCond", (const char *[]){pred, NULL}, NULL, NULL);
    const char *pivot = name_of(l, "%s/loop_body_control", N), *body_call = name_of(l, "%s/body", N);
    for (size_t i = 0; i < n && code == TFPI_OK; i++) {
        if (inv[i]) { /* live on the last iteration too: the body reads it after the pivot */
            const char *guarded = name_of(l, "%s/body_input_%zu", N, i);
            code = emit(l, guarded, "Identity", (const char *[]){name_of(l, "%s/Enter_%zu", N, i), NULL},
                        (const char *[]){pivot, NULL}, "T", tp_attr_new_type(type_at(t, i)), NULL);
            bool ok = code == TFPI_OK && tp_strings_addf(&body_in, "%s:0", guarded) &&
                      tp_strings_addf(&outputs, "%s", l->data.items[i]);
            if (code == TFPI_OK && !ok)
                code = oom(l);
            continue;
        }
        const char *sw = name_of(l, "%s/Switch_%zu", N, i), *exit = name_of(l, "%s/Exit_%zu", N, i);
        code = emit(l, sw, "Switch", (const char *[]){name_of(l, "%s/Merge_%zu", N, i), loop_cond, NULL}, NULL, "T",
                    tp_attr_new_type(type_at(t, i)), NULL);
        if (code == TFPI_OK)
            code = emit(l, exit, "Exit", (const char *[]){sw, NULL}, NULL, "T", tp_attr_new_type(type_at(t, i)), NULL);
        bool ok = code == TFPI_OK && tp_strings_addf(&body_in, "%s:1", sw) && tp_strings_addf(&outputs, "%s:0", exit) &&
                  tp_strings_addf(&exits, "%s", exit);
        if (code == TFPI_OK && !ok)
            code = oom(l);
    }
    if (code == TFPI_OK)
        code = emit(l, pivot, "Identity", (const char *[]){name_of(l, "%s/Switch_%zu:1", N, first), NULL}, NULL, "T",
                    tp_attr_new_type(type_at(t, first)), NULL);
    if (code == TFPI_OK)
        code = call(l, body_call, body_fn, body_in.items, n, pivot, "T", "T", true);
    for (size_t i = 0; i < n && code == TFPI_OK; i++)
        if (!inv[i])
            code = emit(l, name_of(l, "%s/NextIteration_%zu", N, i), "NextIteration",
                        (const char *[]){name_of(l, "%s/body:%zu", N, i), NULL}, (const char *[]){body_call, NULL},
                        "T", tp_attr_new_type(type_at(t, i)), NULL);
    const char *done = name_of(l, "%s/LoopExecuted", N);
    if (code == TFPI_OK)
        code = emit_list(l, done, "NoOp", NULL, 0, exits.items, exits.n, NULL);
    if (code == TFPI_OK)
        code = finish(l, outputs.items, n, t, done);
    free(inv);
    tp_strings_free(&cond_in);
    tp_strings_free(&body_in);
    tp_strings_free(&outputs);
    tp_strings_free(&exits);
    return code;
}

/* ---- If and Case ---------------------------------------------------- */

/* One side of a two-way branch: called as `name` on its inputs after
 * `control`; fills `results` with its outputs. */
typedef tfpi_code (*arm_fn)(lowering *l, const char *name, char *const *inputs, size_t n, const char *control,
                            void *arm, tp_strings *results);

static tfpi_code call_arm(lowering *l, const char *name, char *const *inputs, size_t n, const char *control,
                          void *arm, tp_strings *results)
{
    const Tfpi__NameAttrList *f = arm;
    const Tfpi__AttrValue *tout = tp_attr(l->def, "Tout");
    tfpi_code code = call(l, name, f, inputs, n, control, "Tin", "Tout", false);
    size_t outs = tout && tout->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? tout->list->n_type : 0;
    for (size_t j = 0; j < outs && code == TFPI_OK; j++)
        if (!tp_strings_addf(results, "%s:%zu", name, j))
            code = oom(l);
    return code;
}

/* pred (a bool scalar tensor) ? then : else, over inputs; the results'
 * Merges are named `N/output_j`, the join `N/branch_executed` (*done). */
static tfpi_code two_way(lowering *l, const char *N, const char *pred, char *const *inputs, size_t n,
                         const Tfpi__AttrValue *tin, size_t n_out, arm_fn then_fn, void *then_arm, arm_fn else_fn,
                         void *else_arm, tp_strings *outputs, const char **done)
{
    const char *sw = name_of(l, "%s/switch_pred", N), *pivot_f = name_of(l, "%s/pivot_f", N);
    const char *pivot_t = name_of(l, "%s/pivot_t", N);
    tp_strings on_true = {0}, on_false = {0}, then_out = {0}, else_out = {0};
    tfpi_code code = emit(l, sw, "Switch", (const char *[]){pred, pred, NULL}, NULL, "T", tp_attr_new_type(TFPI_BOOL),
                          NULL);
    if (code == TFPI_OK)
        code = emit(l, pivot_f, "Identity", (const char *[]){name_of(l, "%s:0", sw), NULL}, NULL, "T",
                    tp_attr_new_type(TFPI_BOOL), NULL);
    if (code == TFPI_OK)
        code = emit(l, pivot_t, "Identity", (const char *[]){name_of(l, "%s:1", sw), NULL}, NULL, "T",
                    tp_attr_new_type(TFPI_BOOL), NULL);
    for (size_t i = 0; i < n && code == TFPI_OK; i++) {
        const char *input = name_of(l, "%s/input_%zu", N, i);
        Tfpi__AttrValue *t = tin && type_at(tin, i) ? tp_attr_new_type(type_at(tin, i)) : NULL;
        code = t ? emit(l, input, "Switch", (const char *[]){inputs[i], pred, NULL}, NULL, "T", t, NULL)
                 : emit(l, input, "Switch", (const char *[]){inputs[i], pred, NULL}, NULL, NULL);
        if (code == TFPI_OK && (!tp_strings_addf(&on_true, "%s:1", input) || !tp_strings_addf(&on_false, "%s:0", input)))
            code = oom(l);
    }
    const char *then_name = name_of(l, "%s/then", N), *else_name = name_of(l, "%s/else", N);
    if (code == TFPI_OK)
        code = then_fn(l, then_name, on_true.items, n, pivot_t, then_arm, &then_out);
    if (code == TFPI_OK)
        code = else_fn(l, else_name, on_false.items, n, pivot_f, else_arm, &else_out);
    const Tfpi__AttrValue *tout = tp_attr(l->def, "Tout");
    for (size_t j = 0; j < n_out && code == TFPI_OK; j++) {
        const char *merge = name_of(l, "%s/output_%zu", N, j);
        code = emit(l, merge, "Merge", (const char *[]){then_out.items[j], else_out.items[j], NULL}, NULL, "T",
                    tp_attr_new_type(type_at(tout, j)), "N", tp_attr_new_int(2), NULL);
        if (code == TFPI_OK && !tp_strings_addf(outputs, "%s:0", merge))
            code = oom(l);
    }
    *done = name_of(l, "%s/branch_executed", N);
    if (code == TFPI_OK)
        code = emit(l, *done, "Merge", (const char *[]){pivot_t, pivot_f, NULL},
                    (const char *[]){then_name, else_name, NULL}, "T", tp_attr_new_type(TFPI_BOOL), "N",
                    tp_attr_new_int(2), NULL);
    tp_strings_free(&on_true);
    tp_strings_free(&on_false);
    tp_strings_free(&then_out);
    tp_strings_free(&else_out);
    return code;
}

static tfpi_code lower_if(lowering *l)
{
    tfpi_code code = TFPI_OK;
    if (l->data.n < 1)
        return lower_error(l, "an If needs its condition as input 0");
    const Tfpi__AttrValue *tin = type_list(l, "Tin", l->data.n - 1, &code);
    const Tfpi__AttrValue *tout = tin ? type_list(l, "Tout", (size_t)-1, &code) : NULL;
    const Tfpi__NameAttrList *then_fn = tout ? function_attr(l, "then_branch", &code) : NULL;
    const Tfpi__NameAttrList *else_fn = then_fn ? function_attr(l, "else_branch", &code) : NULL;
    if (!else_fn)
        return code;
    const char *N = l->def->name, *pred = name_of(l, "%s/pred", N), *done = NULL;
    tp_strings outputs = {0};
    code = emit_list(l, pred, "ToBool", l->data.items, 1, l->controls.items, l->controls.n, NULL);
    if (code == TFPI_OK)
        code = two_way(l, N, pred, l->data.items + 1, l->data.n - 1, tin, tout->list->n_type, call_arm,
                       (void *)then_fn, call_arm, (void *)else_fn, &outputs, &done);
    if (code == TFPI_OK)
        code = finish(l, outputs.items, outputs.n, tout, done);
    tp_strings_free(&outputs);
    return code;
}

/* The branches of a Case from index `first` on, with the index tensor. */
typedef struct case_rest {
    const Tfpi__AttrValue *branches;
    size_t first;
    const char *index;
} case_rest;

/* Branch rest->first if index == first, else the rest of the chain. */
static tfpi_code case_chain(lowering *l, const char *name, char *const *inputs, size_t n, const char *control,
                            void *arm, tp_strings *results)
{
    const case_rest *rest = arm;
    const Tfpi__AttrValue *branches = rest->branches, *tout = tp_attr(l->def, "Tout");
    const Tfpi__NameAttrList *here = branches->list->func[rest->first];
    if (rest->first + 1 == branches->list->n_func)
        return call_arm(l, name, inputs, n, control, (void *)here, results);
    const char *constant = name_of(l, "%s/index_%zu", name, rest->first), *pred = name_of(l, "%s/is_%zu", name,
                                                                                         rest->first);
    const char *index = rest->index, *source = name_of(l, "%.*s", (int)strcspn(index, ":"), index);
    const char *switched = name_of(l, "%s/branch_index", name), *done = NULL;
    bool same = source && control && strcmp(source, control) == 0;
    tfpi_code code = emit(l, constant, "Const", NULL, (const char *[]){source, same ? NULL : control, NULL}, "dtype",
                          tp_attr_new_type(TFPI_INT32), "value", tp_attr_new_int32_scalar((int32_t)rest->first), NULL);
    if (code == TFPI_OK)
        code = emit(l, pred, "Equal", (const char *[]){index, constant, NULL}, NULL, "T", tp_attr_new_type(TFPI_INT32),
                    NULL);
    if (code == TFPI_OK) /* the index goes on into the rest of the chain */
        code = emit(l, switched, "Switch", (const char *[]){index, pred, NULL}, NULL, "T",
                    tp_attr_new_type(TFPI_INT32), NULL);
    case_rest next = {branches, rest->first + 1, name_of(l, "%s:0", switched)};
    tp_strings outputs = {0};
    size_t n_out = tout->list->n_type;
    if (code == TFPI_OK)
        code = two_way(l, name, pred, inputs, n, tp_attr(l->def, "Tin"), n_out, call_arm, (void *)here, case_chain,
                       &next, &outputs, &done);
    for (size_t j = 0; j < outputs.n && code == TFPI_OK; j++)
        if (!tp_strings_addf(results, "%s", outputs.items[j]))
            code = oom(l);
    /* Control edges from this level wait for the branch it ran. */
    const char *from = name_of(l, "^%s", name), *to = done ? name_of(l, "^%s", done) : NULL;
    if (code == TFPI_OK)
        code = from && to ? tp_expand_rename(l->x, from, to) : oom(l);
    tp_strings_free(&outputs);
    return code;
}

static tfpi_code lower_case(lowering *l)
{
    tfpi_code code = TFPI_OK;
    if (l->data.n < 1)
        return lower_error(l, "a Case needs its branch index as input 0");
    const Tfpi__AttrValue *tin = type_list(l, "Tin", l->data.n - 1, &code);
    const Tfpi__AttrValue *tout = tin ? type_list(l, "Tout", (size_t)-1, &code) : NULL;
    const Tfpi__AttrValue *branches = tout ? tp_attr(l->def, "branches") : NULL;
    if (!tout)
        return code;
    if (!branches || branches->value_case != TFPI__ATTR_VALUE__VALUE_LIST || branches->list->n_func == 0)
        return lower_error(l, "attribute branches does not list functions");
    for (size_t b = 0; b < branches->list->n_func; b++)
        if (!tp_function_find(&l->x->lib, branches->list->func[b]->name))
            return lower_error(l, "branch %zu '%s' is not in the graph's function library", b,
                         branches->list->func[b]->name);
    const char *N = l->def->name, *index = name_of(l, "%s/branch_index", N), *chain = name_of(l, "%s/case", N);
    const char *done = name_of(l, "%s/case_executed", N);
    case_rest rest = {branches, 0, name_of(l, "%s:0", index)};
    tp_strings outputs = {0};
    code = emit_list(l, index, "Identity", l->data.items, 1, l->controls.items, l->controls.n,
                     tp_attr_new_type(TFPI_INT32));
    if (code == TFPI_OK)
        code = case_chain(l, chain, l->data.items + 1, l->data.n - 1, index, &rest, &outputs);
    if (code == TFPI_OK) /* after the branch that ran ("^N/case" is renamed to it) */
        code = emit_list(l, done, "NoOp", NULL, 0, (char *[]){(char *)chain}, 1, NULL);
    if (code == TFPI_OK)
        code = finish(l, outputs.items, outputs.n, tout, done);
    tp_strings_free(&outputs);
    return code;
}

/* ---- entry points ---------------------------------------------------- */

static tfpi_code lower(tp_expander *x, Tfpi__NodeDef *def, tfpi_code (*how)(lowering *))
{
    lowering l = {.x = x, .def = def};
    tfpi_code code = tp_split_inputs(x, def, &l.data, &l.controls);
    if (code == TFPI_OK)
        code = how(&l);
    tp_strings_free(&l.data);
    tp_strings_free(&l.controls);
    tp_strings_free(&l.names);
    tfpi__node_def__free_unpacked(def, NULL);
    return code;
}

tfpi_code tp_lower_while(tp_expander *x, Tfpi__NodeDef *def) { return lower(x, def, lower_while); }
tfpi_code tp_lower_if(tp_expander *x, Tfpi__NodeDef *def) { return lower(x, def, lower_if); }
tfpi_code tp_lower_case(tp_expander *x, Tfpi__NodeDef *def) { return lower(x, def, lower_case); }
