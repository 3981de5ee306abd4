/* rewrite.c - shared graph surgery for the transforms (see rewrite.h). */
#include "rewrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "xalloc.h"

void rw_refresh(rw_graph *g)
{
    gd_index_free(&g->index);
    gd_index_build(&g->index, g->def);
    free(g->uses);
    g->uses = xcalloc(g->def->n_node + 1, sizeof *g->uses);
    for (size_t i = 0; i < g->def->n_node; i++)
        for (size_t k = 0; k < g->def->node[i]->n_input; k++) {
            int src = gd_index_find_input(&g->index, g->def->node[i]->input[k]);
            if (src >= 0)
                g->uses[src]++;
        }
}

void rw_open(rw_graph *g, Tfpi__GraphDef *def)
{
    memset(g, 0, sizeof *g);
    g->def = def;
    rw_refresh(g);
}

void rw_close(rw_graph *g)
{
    gd_index_free(&g->index);
    free(g->uses);
    memset(g, 0, sizeof *g);
}

int rw_node_index(const rw_graph *g, const char *input) { return gd_index_find_input(&g->index, input); }

int rw_num_data_inputs(const Tfpi__NodeDef *node)
{
    int n = 0;
    while ((size_t)n < node->n_input && node->input[n][0] != '^')
        n++;
    return n;
}

Tfpi__NodeDef *rw_source(const rw_graph *g, const char *input, bool *private_chain)
{
    *private_chain = true;
    for (int hops = 0; hops <= (int)g->def->n_node; hops++) {
        gd_input in = gd_parse_input(input);
        int i = rw_node_index(g, input);
        if (i < 0 || in.control || in.index != 0)
            return NULL;
        Tfpi__NodeDef *node = g->def->node[i];
        *private_chain = *private_chain && g->uses[i] == 1;
        if (strcmp(node->op, "Identity") != 0 || rw_num_data_inputs(node) != 1)
            return node;
        input = node->input[0];
    }
    return NULL; /* an Identity cycle */
}

Tfpi__NodeDef *rw_private_input(const rw_graph *g, const Tfpi__NodeDef *node, int k, const char *op,
                                const transform_ctx *ctx)
{
    if (k >= rw_num_data_inputs(node))
        return NULL;
    gd_input in = gd_parse_input(node->input[k]);
    int i = rw_node_index(g, node->input[k]);
    if (i < 0 || in.index != 0 || g->uses[i] != 1 || strcmp(g->def->node[i]->op, op) != 0 ||
        transform_is_output(ctx, g->def->node[i]->name))
        return NULL;
    return g->def->node[i];
}

bool rw_unit_dilations(const Tfpi__NodeDef *node)
{
    const Tfpi__AttrValue *d = tp_attr(node, "dilations");
    if (!d || d->value_case != TFPI__ATTR_VALUE__VALUE_LIST)
        return true;
    for (size_t i = 0; i < d->list->n_i; i++)
        if (d->list->i[i] != 1)
            return false;
    return true;
}

bool rw_is_nhwc(const Tfpi__NodeDef *node)
{
    char format[16];
    return strcmp(tp_attr_string(node, "data_format", format, sizeof format, "NHWC"), "NHWC") == 0;
}

void rw_set_data_inputs(Tfpi__NodeDef *node, const char *const *inputs, int n)
{
    size_t old = (size_t)rw_num_data_inputs(node), total = (size_t)n + node->n_input - old;
    char **fresh = xmalloc((total + 1) * sizeof *fresh);
    for (int k = 0; k < n; k++)
        fresh[k] = xstrdup(inputs[k]);
    for (size_t k = old; k < node->n_input; k++)
        fresh[(size_t)n + k - old] = node->input[k];
    for (size_t k = 0; k < old; k++)
        free(node->input[k]);
    free(node->input);
    node->input = fresh;
    node->n_input = total;
}

/* True if input refers to the same tensor as `ref` (parsed). */
static bool same_tensor(const char *input, const gd_input *ref)
{
    gd_input in = gd_parse_input(input);
    return in.control == ref->control && in.len == ref->len && in.index == ref->index &&
           memcmp(in.node, ref->node, in.len) == 0;
}

void rw_replace_input(Tfpi__GraphDef *def, const char *from, const char *to)
{
    gd_input f = gd_parse_input(from), t = gd_parse_input(to);
    gd_input from_control = {f.node, f.len, 0, true};
    char *to_control = xmalloc(t.len + 2);
    snprintf(to_control, t.len + 2, "^%.*s", (int)t.len, t.node);
    for (size_t i = 0; i < def->n_node; i++)
        for (size_t k = 0; k < def->node[i]->n_input; k++) {
            if (same_tensor(def->node[i]->input[k], &f))
                gd_set_string(&def->node[i]->input[k], to);
            else if (same_tensor(def->node[i]->input[k], &from_control))
                gd_set_string(&def->node[i]->input[k], to_control);
        }
    free(to_control);
}

void rw_redirect_node(Tfpi__GraphDef *def, const char *from, const char *to)
{
    size_t len = strlen(from), size = strlen(to) + 24;
    char *renamed = xmalloc(size);
    for (size_t i = 0; i < def->n_node; i++)
        for (size_t k = 0; k < def->node[i]->n_input; k++) {
            gd_input in = gd_parse_input(def->node[i]->input[k]);
            if (in.len != len || memcmp(in.node, from, len) != 0)
                continue;
            if (in.control)
                snprintf(renamed, size, "^%s", to);
            else if (in.index > 0)
                snprintf(renamed, size, "%s:%d", to, in.index);
            else
                snprintf(renamed, size, "%s", to);
            gd_set_string(&def->node[i]->input[k], renamed);
        }
    free(renamed);
}

void rw_delete_nodes(rw_graph *g, const bool *doomed)
{
    size_t kept = 0;
    for (size_t i = 0; i < g->def->n_node; i++) {
        if (doomed[i])
            tfpi__node_def__free_unpacked(g->def->node[i], NULL);
        else
            g->def->node[kept++] = g->def->node[i];
    }
    g->def->n_node = kept;
    rw_refresh(g);
}

void rw_delete_unused(rw_graph *g, bool *candidates, const transform_ctx *ctx)
{
    size_t n = g->def->n_node;
    bool *doomed = xcalloc(n + 1, sizeof *doomed);
    int *uses = xmalloc((n + 1) * sizeof *uses);
    memcpy(uses, g->uses, n * sizeof *uses);
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < n; i++) {
            Tfpi__NodeDef *node = g->def->node[i];
            if (!candidates[i] || doomed[i] || uses[i] > 0 || transform_is_output(ctx, node->name))
                continue;
            doomed[i] = changed = true;
            for (size_t k = 0; k < node->n_input; k++) {
                int src = rw_node_index(g, node->input[k]);
                if (src >= 0) {
                    uses[src]--;
                    candidates[src] = true;
                }
            }
        }
    }
    rw_delete_nodes(g, doomed);
    free(uses);
    free(doomed);
}

char *rw_unique_name(const rw_graph *g, const char *base)
{
    size_t n = strlen(base) + 24;
    char *name = xmalloc(n);
    snprintf(name, n, "%s", base);
    for (int k = 1; rw_node_index(g, name) >= 0; k++)
        snprintf(name, n, "%s_%d", base, k);
    return name;
}

bool rw_const_value(const Tfpi__NodeDef *node, tfpi_tensor *out, void **owned)
{
    *owned = NULL;
    if (strcmp(node->op, "Const") != 0)
        return false;
    const Tfpi__AttrValue *value = tp_attr(node, "value");
    tfpi_status ignored;
    return value && value->value_case == TFPI__ATTR_VALUE__VALUE_TENSOR &&
           gd_tensor_value(value->tensor, out, owned, node->name, &ignored) == TFPI_OK;
}

void rw_make_const(Tfpi__NodeDef *node, tfpi_dtype dtype, const int64_t *dims, int ndims, const void *data)
{
    tfpi_tensor shape = {0};
    tp_tensor_set_shape(&shape, dtype, ndims, dims);
    Tfpi__TensorProto *value = gd_tensor_new(dtype, dims, ndims, data, tp_byte_size(&shape));
    gd_attr_remove_all(node);
    gd_set_string(&node->op, "Const");
    gd_attr_set_type(node, "dtype", dtype);
    gd_attr_set_tensor(node, "value", value);
}

void rw_make_dequantize(Tfpi__NodeDef *node, const char *const inputs[3])
{
    rw_set_data_inputs(node, inputs, 3);
    gd_attr_remove_all(node);
    gd_set_string(&node->op, "Dequantize");
    gd_attr_set_type(node, "T", TFPI_QUINT8);
    gd_attr_set_string(node, "mode", "MIN_FIRST");
}
