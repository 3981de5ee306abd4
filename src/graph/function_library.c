/* function_library.c - the function library unpacked and indexed, call
 * attribute bindings, signature arguments expanded against them, and the
 * flat position of a named output argument of any op. */
#include "graph/function_library.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/node_build.h"
#include "graph/wire.h"

static tfpi_code library_error(tp_function_library *lib, tfpi_status *status, const char *source,
                               const char *what, const char *detail)
{
    tfpi_code code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the function library is not valid: %s%s",
                                     source, what, detail);
    tp_function_library_close(lib);
    return code;
}

/* A function's name, body node names and ops. */
static const char *check_function(const Tfpi__FunctionDef *f, size_t index, char *detail, size_t size)
{
    if (!f->signature || !f->signature->name[0]) {
        snprintf(detail, size, "function %zu has no name", index);
        return detail;
    }
    for (size_t i = 0; i < f->n_node_def; i++)
        if (!f->node_def[i]->name[0] || !f->node_def[i]->op[0]) {
            snprintf(detail, size, "function '%s': body node %zu has no %s", f->signature->name, i,
                     f->node_def[i]->name[0] ? "op" : "name");
            return detail;
        }
    return NULL;
}

tfpi_code tp_function_library_open(tp_function_library *lib, const uint8_t *data, size_t size,
                                   const Tfpi__OpList *ops, const char *source, tfpi_status *status)
{
    *lib = (tp_function_library){.ops = ops};
    size_t bad = 0;
    const char *problem = tp_wire_check_function_library(data, size, &bad);
    char detail[300] = "";
    if (problem) {
        snprintf(detail, sizeof detail, "function %zu: %s", bad, problem);
        return library_error(lib, status, source, "", detail);
    }
    lib->lib = tfpi__function_def_library__unpack(NULL, size, data);
    if (!lib->lib)
        return library_error(lib, status, source, "", "malformed or truncated protobuf");
    size_t n = lib->lib->n_function;
    if (!tp_name_map_init(&lib->functions, n) || !(lib->bodies = calloc(n + 1, sizeof *lib->bodies)) ||
        !tp_name_map_init(&lib->op_index, ops ? ops->n_op : 0)) {
        tp_function_library_close(lib);
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for the function library", source);
    }
    for (size_t i = 0; i < n; i++) {
        const Tfpi__FunctionDef *f = lib->lib->function[i];
        if (check_function(f, i, detail, sizeof detail))
            return library_error(lib, status, source, "", detail);
        if (!tp_name_map_insert(&lib->functions, f->signature->name, (int)i))
            return library_error(lib, status, source, "two functions are named ", f->signature->name);
    }
    for (size_t i = 0; ops && i < ops->n_op; i++)
        if (ops->op[i]->name[0])
            tp_name_map_insert(&lib->op_index, ops->op[i]->name, (int)i); /* the first of two alike wins */
    return TFPI_OK;
}

void tp_function_library_close(tp_function_library *lib)
{
    for (size_t i = 0; lib->bodies && lib->lib && i < lib->lib->n_function; i++)
        tp_name_map_free(&lib->bodies[i]);
    free(lib->bodies);
    tp_name_map_free(&lib->functions);
    tp_name_map_free(&lib->op_index);
    if (lib->lib)
        tfpi__function_def_library__free_unpacked(lib->lib, NULL);
    *lib = (tp_function_library){0};
}

const Tfpi__FunctionDef *tp_function_find(const tp_function_library *lib, const char *name)
{
    if (!lib->lib)
        return NULL;
    int i = tp_name_map_find(&lib->functions, name, strlen(name));
    return i < 0 ? NULL : lib->lib->function[i];
}

const Tfpi__OpDef *tp_op_def_find(const tp_function_library *lib, const char *op)
{
    if (!lib->ops)
        return NULL;
    int i = tp_name_map_find(&lib->op_index, op, strlen(op));
    return i < 0 ? NULL : lib->ops->op[i];
}

int tp_function_body_node(tp_function_library *lib, const Tfpi__FunctionDef *f, const char *name, size_t len)
{
    int index = tp_name_map_find(&lib->functions, f->signature->name, strlen(f->signature->name));
    if (index < 0)
        return -1;
    tp_name_map *body = &lib->bodies[index];
    if (!body->capacity) {
        if (!tp_name_map_init(body, f->n_node_def))
            return -1;
        for (size_t i = 0; i < f->n_node_def; i++)
            tp_name_map_insert(body, f->node_def[i]->name, (int)i); /* duplicates: refused by the inliner */
    }
    return tp_name_map_find(body, name, len);
}

/* The NodeDef and NameAttrList attribute entries share one layout. */
static tp_bindings bindings_of(size_t n, Tfpi__NodeDef__AttrEntry *const *entries)
{
    tp_bindings b = {0};
    if (n && !(b.items = malloc(n * sizeof *b.items)))
        return b;
    for (size_t i = 0; i < n; i++)
        if (entries[i]->key && entries[i]->value)
            b.items[b.n++] = (tp_attr_binding){entries[i]->key, entries[i]->value};
    return b;
}

tp_bindings tp_bindings_of_node(const Tfpi__NodeDef *def)
{
    return bindings_of(def->n_attr, def->attr);
}

tp_bindings tp_bindings_of_func(const Tfpi__NameAttrList *func)
{
    _Static_assert(sizeof(Tfpi__NameAttrList__AttrEntry) == sizeof(Tfpi__NodeDef__AttrEntry) &&
                       offsetof(Tfpi__NameAttrList__AttrEntry, key) == offsetof(Tfpi__NodeDef__AttrEntry, key) &&
                       offsetof(Tfpi__NameAttrList__AttrEntry, value) == offsetof(Tfpi__NodeDef__AttrEntry, value),
                   "attribute map entries share one layout");
    return bindings_of(func->n_attr, (Tfpi__NodeDef__AttrEntry *const *)func->attr);
}

const Tfpi__AttrValue *tp_binding_find(const tp_bindings *b, const char *key)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->items[i].key, key) == 0)
            return b->items[i].value;
    return NULL;
}

void tp_bindings_free(tp_bindings *b)
{
    free(b->items);
    *b = (tp_bindings){0};
}

const Tfpi__AttrValue *tp_function_attr(const Tfpi__FunctionDef *f, const Tfpi__AttrValue *value,
                                        const tp_bindings *call)
{
    if (!value || value->value_case != TFPI__ATTR_VALUE__VALUE_PLACEHOLDER)
        return value;
    const Tfpi__AttrValue *bound = tp_binding_find(call, value->placeholder);
    if (bound)
        return bound;
    for (size_t i = 0; f->signature && i < f->signature->n_attr; i++)
        if (strcmp(f->signature->attr[i]->name, value->placeholder) == 0)
            return f->signature->attr[i]->default_value;
    return NULL;
}

int tp_arg_expand(const Tfpi__OpDef__ArgDef *arg, const tp_bindings *attrs, tfpi_dtype *types, int max_types)
{
    int count = 1;
    tfpi_dtype type = (tfpi_dtype)arg->type;
    const Tfpi__AttrValue *list = NULL;
    if (arg->type_list_attr[0]) {
        list = tp_binding_find(attrs, arg->type_list_attr);
        if (!list || list->value_case != TFPI__ATTR_VALUE__VALUE_LIST || list->list->n_type > 1000000)
            return -1;
        count = (int)list->list->n_type;
    } else if (arg->number_attr[0]) {
        const Tfpi__AttrValue *n = tp_binding_find(attrs, arg->number_attr);
        if (!n || n->value_case != TFPI__ATTR_VALUE__VALUE_I || n->i < 0 || n->i > 1000000)
            return -1;
        count = (int)n->i;
    }
    if (arg->type_attr[0]) {
        const Tfpi__AttrValue *t = tp_binding_find(attrs, arg->type_attr);
        type = t && t->value_case == TFPI__ATTR_VALUE__VALUE_TYPE ? (tfpi_dtype)t->type : 0;
    }
    for (int i = 0; types && i < count && i < max_types; i++)
        types[i] = list ? (tfpi_dtype)list->list->type[i] : type;
    return count;
}

int tp_signature_types(const Tfpi__OpDef *sig, bool outputs, const tp_bindings *attrs, tfpi_dtype **types)
{
    size_t n_args = outputs ? sig->n_output_arg : sig->n_input_arg;
    Tfpi__OpDef__ArgDef *const *args = outputs ? sig->output_arg : sig->input_arg;
    int total = 0;
    *types = NULL;
    for (size_t a = 0; a < n_args; a++) {
        int count = tp_arg_expand(args[a], attrs, NULL, 0);
        if (count < 0 || total > 1000000)
            return -1;
        total += count;
    }
    if (!(*types = calloc((size_t)total + 1, sizeof **types)))
        return -1;
    int at = 0;
    for (size_t a = 0; a < n_args; a++)
        at += tp_arg_expand(args[a], attrs, *types + at, total - at);
    return total;
}

/* The range of output argument `arg` in an OpDef's outputs. */
static bool range_in_op_def(const Tfpi__OpDef *op, const tp_bindings *attrs, const char *arg, size_t len,
                            int *offset, int *count)
{
    int at = 0;
    for (size_t a = 0; a < op->n_output_arg; a++) {
        int n = tp_arg_expand(op->output_arg[a], attrs, NULL, 0);
        if (n < 0)
            return false;
        if (strncmp(op->output_arg[a]->name, arg, len) == 0 && op->output_arg[a]->name[len] == '\0') {
            *offset = at;
            *count = n;
            return true;
        }
        at += n;
    }
    return false;
}

/* The same in a built-in table entry ("a,b*attr,..."). */
static bool range_in_table(const char *spec, const tp_bindings *attrs, const char *arg, size_t len, int *offset,
                           int *count)
{
    int at = 0;
    while (*spec) {
        size_t name_len = strcspn(spec, "*,");
        int n = 1;
        const char *end = spec + name_len;
        if (*end == '*') {
            size_t attr_len = strcspn(end + 1, ",");
            char attr[64];
            snprintf(attr, sizeof attr, "%.*s", (int)attr_len, end + 1);
            const Tfpi__AttrValue *v = tp_binding_find(attrs, attr);
            n = !v ? -1 : v->value_case == TFPI__ATTR_VALUE__VALUE_I ? (int)(v->i < 0 || v->i > 1000000 ? -1 : v->i)
                : v->value_case == TFPI__ATTR_VALUE__VALUE_LIST   ? (int)v->list->n_type
                                                                  : -1;
            end += 1 + attr_len;
        }
        if (n < 0)
            return false;
        if (name_len == len && strncmp(spec, arg, len) == 0) {
            *offset = at;
            *count = n;
            return true;
        }
        at += n;
        spec = *end ? end + 1 : end;
    }
    return false;
}

bool tp_output_arg_range(const tp_function_library *lib, const char *op, const tp_bindings *attrs, const char *arg,
                         size_t arg_len, int *offset, int *count, bool *known_op)
{
    const Tfpi__FunctionDef *f = tp_function_find(lib, op);
    const Tfpi__OpDef *def = f ? f->signature : tp_op_def_find(lib, op);
    *known_op = true;
    if (def)
        return range_in_op_def(def, attrs, arg, arg_len, offset, count);
    const char *spec = tp_builtin_output_args(op);
    if (spec)
        return range_in_table(spec, attrs, arg, arg_len, offset, count);
    *known_op = false;
    *offset = 0;
    *count = -1;
    return true;
}

tfpi_code tp_fill_default_attrs(Tfpi__NodeDef *def, const Tfpi__OpDef *op, tfpi_status *status)
{
    for (size_t a = 0; op && a < op->n_attr; a++) {
        const Tfpi__OpDef__AttrDef *attr = op->attr[a];
        if (!attr->default_value || attr->default_value->value_case == TFPI__ATTR_VALUE__VALUE__NOT_SET)
            continue;
        bool present = false;
        for (size_t i = 0; i < def->n_attr && !present; i++)
            present = def->attr[i]->key && strcmp(def->attr[i]->key, attr->name) == 0;
        if (!present && !tp_node_set_attr(def, attr->name, tp_attr_value_copy(attr->default_value)))
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory filling the default attributes of '%s'",
                                   def->name);
    }
    return TFPI_OK;
}
