/* function_expand.c - builds a graph whose GraphDef carries a function
 * library: fills in attributes stripped at save time, expands every call
 * and functional control-flow op into one flat graph (function_inline.c,
 * function_lower.c), redirects the consumers of what was replaced, and
 * hands the result to tp_graph_build. A graph that calls nothing is built
 * as it is. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/function_expand.h"
#include "graph/graph.h"

bool tp_strings_addf(tp_strings *s, const char *fmt, ...)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        char **grown = realloc(s->items, cap * sizeof *grown);
        if (!grown)
            return false;
        s->items = grown;
        s->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = len < 0 ? NULL : malloc((size_t)len + 1);
    if (!text)
        return false;
    va_start(ap, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
    s->items[s->n++] = text;
    return true;
}

void tp_strings_free(tp_strings *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->items[i]);
    free(s->items);
    *s = (tp_strings){0};
}

tfpi_code tp_expand_out_of_memory(tp_expander *x)
{
    return tfpi_status_set(x->status, TFPI_OUT_OF_MEMORY, "%s: out of memory expanding the graph's functions",
                           x->source);
}

tfpi_code tp_expand_error(tp_expander *x, const char *node, const char *op, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT, "%s: node '%s' (%s): %s", x->source, node, op, detail);
}

tfpi_code tp_expand_emit(tp_expander *x, Tfpi__NodeDef *def)
{
    if (x->out.n >= TP_MAX_EXPANDED_NODES) {
        tfpi_code code = tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT,
                                         "%s: expanding the graph's function calls makes more than %d nodes "
                                         "(at node '%s')",
                                         x->source, TP_MAX_EXPANDED_NODES, def->name);
        tfpi__node_def__free_unpacked(def, NULL);
        return code;
    }
    return tp_node_list_push(&x->out, def) ? TFPI_OK : tp_expand_out_of_memory(x);
}

tfpi_code tp_expand_rename(tp_expander *x, const char *from, const char *to)
{
    bool oom = false;
    if (!tp_strings_addf(&x->rename_from, "%s", from) || !tp_strings_addf(&x->rename_to, "%s", to))
        return tp_expand_out_of_memory(x);
    if (!tp_name_map_insert_growing(&x->renames, x->rename_from.items[x->rename_from.n - 1],
                                    (int)x->rename_from.n - 1, &oom))
        return oom ? tp_expand_out_of_memory(x)
                   : tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT, "%s: '%s' is replaced twice", x->source, from);
    return TFPI_OK;
}

tfpi_code tp_split_inputs(tp_expander *x, const Tfpi__NodeDef *def, tp_strings *data, tp_strings *controls)
{
    for (size_t i = 0; i < def->n_input; i++) {
        const char *in = def->input[i];
        bool ok = in[0] == '^' ? tp_strings_addf(controls, "%s", in + 1) : tp_strings_addf(data, "%s", in);
        if (!ok)
            return tp_expand_out_of_memory(x);
    }
    return TFPI_OK;
}

static bool is_call_op(const char *op)
{
    return strcmp(op, "PartitionedCall") == 0 || strcmp(op, "StatefulPartitionedCall") == 0;
}

/* A PartitionedCall, or a node whose op is a library function. */
static tfpi_code expand_call(tp_expander *x, Tfpi__NodeDef *def, const char *function, tp_bindings *attrs)
{
    tp_strings data = {0}, controls = {0};
    tfpi_code code = tp_split_inputs(x, def, &data, &controls);
    tp_call call = {.name = def->name, .op = def->op, .function = function, .attrs = attrs,
                    .inputs = data.items, .n_inputs = data.n, .controls = controls.items,
                    .n_controls = controls.n, .in_attr = "Tin", .out_attr = "Tout", .keep_node = true};
    if (is_call_op(def->op)) {
        call.in_types = tp_attr(def, "Tin");
        call.out_types = tp_attr(def, "Tout");
    }
    if (code == TFPI_OK)
        code = tp_inline_call(x, &call);
    tp_strings_free(&data);
    tp_strings_free(&controls);
    return code;
}

tfpi_code tp_expand_node(tp_expander *x, Tfpi__NodeDef *def)
{
    const char *op = def->op;
    tfpi_code code;
    if (!strcmp(op, "While") || !strcmp(op, "StatelessWhile"))
        return tp_lower_while(x, def);
    if (!strcmp(op, "If") || !strcmp(op, "StatelessIf"))
        return tp_lower_if(x, def);
    if (!strcmp(op, "Case") || !strcmp(op, "StatelessCase"))
        return tp_lower_case(x, def);
    if (is_call_op(op)) {
        const Tfpi__AttrValue *f = tp_attr(def, "f");
        if (!f || f->value_case != TFPI__ATTR_VALUE__VALUE_FUNC || !f->func->name[0])
            code = tp_expand_error(x, def->name, op, "attribute f does not name a function");
        else {
            tp_bindings attrs = tp_bindings_of_func(f->func);
            code = attrs.n == f->func->n_attr ? expand_call(x, def, f->func->name, &attrs)
                                              : tp_expand_out_of_memory(x);
            tp_bindings_free(&attrs);
        }
    } else if (tp_function_find(&x->lib, op)) {
        tp_bindings attrs = tp_bindings_of_node(def);
        code = attrs.n == def->n_attr ? expand_call(x, def, op, &attrs) : tp_expand_out_of_memory(x);
        tp_bindings_free(&attrs);
    } else {
        return tp_expand_emit(x, def);
    }
    tfpi__node_def__free_unpacked(def, NULL);
    return code;
}

/* What replaces input `in`, following renames of renames; `in` itself if
 * nothing does. A "node" input is looked up as "node:0". */
static const char *renamed(const tp_expander *x, const char *in, char *key, size_t size)
{
    const char *current = in;
    for (size_t hops = 0; hops <= x->rename_from.n; hops++) {
        const char *lookup = current;
        if (current[0] != '^' && !strchr(current, ':')) {
            snprintf(key, size, "%s:0", current);
            lookup = key;
        }
        int i = tp_name_map_find(&x->renames, lookup, strlen(lookup));
        if (i < 0)
            return current;
        current = x->rename_to.items[i];
    }
    return current; /* a cycle: tp_graph_build names the node it cannot place */
}

static tfpi_code apply_renames(tp_expander *x)
{
    char key[512];
    for (size_t n = 0; n < x->out.n; n++) {
        Tfpi__NodeDef *def = x->out.defs[n];
        for (size_t i = 0; i < def->n_input; i++) {
            if (strlen(def->input[i]) + 3 > sizeof key)
                continue; /* longer than any name we rename */
            const char *to = renamed(x, def->input[i], key, sizeof key);
            if (to == def->input[i])
                continue;
            char *copy = strdup(to);
            if (!copy)
                return tp_expand_out_of_memory(x);
            free(def->input[i]);
            def->input[i] = copy;
        }
    }
    return TFPI_OK;
}

/* ---- the flat graph's size, estimated before anything is copied ---- */

enum { SIZE_UNKNOWN = 0, SIZE_IN_PROGRESS = -1 };

static int64_t function_size(const tp_function_library *lib, const char *name, int64_t *memo, int depth);

/* The function a call node calls: attribute f of a PartitionedCall, or
 * the op itself when it names a function; NULL for other nodes. */
static const char *callee(const tp_function_library *lib, const Tfpi__NodeDef *def)
{
    if (is_call_op(def->op)) {
        const Tfpi__AttrValue *f = tp_attr(def, "f");
        return f && f->value_case == TFPI__ATTR_VALUE__VALUE_FUNC ? f->func->name : NULL;
    }
    return lib->lib && tp_function_find(lib, def->op) ? def->op : NULL;
}

/* At least how many nodes def becomes: itself; or for a call, what the
 * callee becomes plus the node keeping the call's name; or for a While,
 * If or Case, that node plus what each of its functions becomes. */
static int64_t node_size(const tp_function_library *lib, const Tfpi__NodeDef *def, int64_t *memo, int depth)
{
    int64_t size = 1;
    const char *f = callee(lib, def);
    if (f)
        return size + function_size(lib, f, memo, depth + 1);
    static const char *const keys[] = {"cond", "body", "then_branch", "else_branch"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const Tfpi__AttrValue *a = tp_attr(def, keys[k]);
        if (a && a->value_case == TFPI__ATTR_VALUE__VALUE_FUNC)
            size += function_size(lib, a->func->name, memo, depth + 1);
    }
    const Tfpi__AttrValue *branches = tp_attr(def, "branches");
    for (size_t b = 0; branches && branches->value_case == TFPI__ATTR_VALUE__VALUE_LIST && b < branches->list->n_func;
         b++)
        size += function_size(lib, branches->list->func[b]->name, memo, depth + 1);
    return size;
}

/* At least how many nodes an inlined call of function `name` makes: its
 * body's and the output control node (0 for what is not a function, or
 * calls itself: the inliner reports that). */
static int64_t function_size(const tp_function_library *lib, const char *name, int64_t *memo, int depth)
{
    int index = lib->lib ? tp_name_map_find(&lib->functions, name, strlen(name)) : -1;
    if (index < 0 || depth > TP_MAX_CALL_DEPTH || memo[index] == SIZE_IN_PROGRESS)
        return 0;
    if (memo[index] != SIZE_UNKNOWN)
        return memo[index];
    memo[index] = SIZE_IN_PROGRESS;
    const Tfpi__FunctionDef *f = lib->lib->function[index];
    int64_t size = 1;
    for (size_t i = 0; i < f->n_node_def && size <= TP_MAX_EXPANDED_NODES; i++)
        size += node_size(lib, f->node_def[i], memo, depth);
    memo[index] = size < TP_MAX_EXPANDED_NODES ? size : TP_MAX_EXPANDED_NODES + 1;
    return memo[index];
}

/* Refuses a graph whose calls would make more than TP_MAX_EXPANDED_NODES
 * nodes before making any of them. */
static tfpi_code check_size(tp_expander *x, Tfpi__NodeDef *const *defs, int n)
{
    int64_t *memo = calloc(x->lib.lib ? x->lib.lib->n_function + 1 : 1, sizeof *memo);
    if (!memo)
        return tp_expand_out_of_memory(x);
    int64_t size = 0;
    for (int i = 0; i < n && size <= TP_MAX_EXPANDED_NODES; i++)
        size += node_size(&x->lib, defs[i], memo, 0);
    free(memo);
    if (size > TP_MAX_EXPANDED_NODES)
        return tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT,
                               "%s: expanding the graph's function calls makes more than %d nodes", x->source,
                               TP_MAX_EXPANDED_NODES);
    return TFPI_OK;
}

/* Whether the graph calls anything the expander replaces. */
static bool calls_functions(Tfpi__NodeDef *const *defs, int n, const tp_function_library *lib)
{
    static const char *const ops[] = {"PartitionedCall", "StatefulPartitionedCall", "While", "StatelessWhile",
                                      "If", "StatelessIf", "Case", "StatelessCase"};
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (strcmp(defs[i]->op, ops[k]) == 0)
                return true;
        if (tp_function_find(lib, defs[i]->op))
            return true;
    }
    return false;
}

static void expander_free(tp_expander *x)
{
    tp_function_library_close(&x->lib);
    tp_node_list_free(&x->out);
    tp_strings_free(&x->rename_from);
    tp_strings_free(&x->rename_to);
    tp_name_map_free(&x->renames);
    free(x->references_checked);
}

static void free_defs(Tfpi__NodeDef **defs, int from, int n)
{
    for (int i = from; i < n; i++)
        tfpi__node_def__free_unpacked(defs[i], NULL);
}

tfpi_graph *tp_graph_build_functions(Tfpi__NodeDef **defs, int n, int producer, const uint8_t *library,
                                     size_t library_size, const Tfpi__OpList *ops, const char *source,
                                     tfpi_status *status)
{
    tp_expander x = {.source = source, .status = status};
    tfpi_status library_status = {0};
    tfpi_code code = TFPI_OK;
    /* A library nothing can call is not read any further. */
    if (tp_function_library_open(&x.lib, library, library_size, ops, source, &library_status) != TFPI_OK &&
        calls_functions(defs, n, &x.lib)) {
        if (status)
            *status = library_status;
        code = library_status.code;
    }
    for (int i = 0; code == TFPI_OK && ops && i < n; i++)
        code = tp_fill_default_attrs(defs[i], tp_op_def_find(&x.lib, defs[i]->op), status);
    if (code == TFPI_OK && !calls_functions(defs, n, &x.lib)) {
        expander_free(&x);
        return tp_graph_build(defs, n, producer, source, status);
    }
    if (code == TFPI_OK)
        code = check_size(&x, defs, n);
    if (code == TFPI_OK && !(x.references_checked = calloc(x.lib.lib ? x.lib.lib->n_function + 1 : 1, 1)))
        code = tp_expand_out_of_memory(&x);
    if (code == TFPI_OK && !tp_name_map_init(&x.renames, 64))
        code = tp_expand_out_of_memory(&x);
    int done = 0;
    for (; code == TFPI_OK && done < n; done++)
        code = tp_expand_node(&x, defs[done]);
    free_defs(defs, done, n);
    if (code == TFPI_OK)
        code = apply_renames(&x);
    if (code != TFPI_OK) {
        expander_free(&x);
        return NULL;
    }
    tp_node_list out = x.out;
    x.out = (tp_node_list){0};
    expander_free(&x);
    tfpi_graph *g = tp_graph_build(out.defs, (int)out.n, producer, source, status);
    free(out.defs);
    return g;
}
