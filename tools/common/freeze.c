/* freeze.c - variables to constants (freeze.h): the subgraph the outputs
 * need, each variable's value from the library's binding of the model's
 * checkpoint (the same key map, checksum, dtype and shape checks a direct
 * run uses), and the rewrites of resource-variable readers. */
#include "freeze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graphdef_edit.h"
#include "graphdef_inspect.h"
#include "xalloc.h"

static bool is_variable(const char *op)
{
    return !strcmp(op, "VariableV2") || !strcmp(op, "Variable") || !strcmp(op, "VarHandleOp");
}

/* True if name is one of the comma-separated names of list. */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* Drops every node the outputs do not reach over data and control edges. */
static tfpi_code keep_needed(Tfpi__GraphDef *g, const char *const *outputs, int n, tfpi_status *status)
{
    gd_index index;
    gd_index_build(&index, g);
    bool *keep = xcalloc(g->n_node + 1, sizeof *keep);
    size_t *stack = xmalloc((g->n_node + 1) * sizeof *stack), top = 0;
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < n && code == TFPI_OK; i++) {
        int node = gd_index_find_input(&index, outputs[i]);
        if (node < 0)
            code = tfpi_status_set(status, TFPI_NOT_FOUND, "output node '%s' is not in the graph", outputs[i]);
        else if (!keep[node])
            keep[node] = true, stack[top++] = (size_t)node;
    }
    while (code == TFPI_OK && top > 0) {
        const Tfpi__NodeDef *node = g->node[stack[--top]];
        for (size_t k = 0; k < node->n_input; k++) {
            int src = gd_index_find_input(&index, node->input[k]);
            if (src >= 0 && !keep[src])
                keep[src] = true, stack[top++] = (size_t)src;
        }
    }
    gd_index_free(&index);
    size_t kept = 0;
    for (size_t i = 0; i < g->n_node; i++) {
        if (keep[i] || code != TFPI_OK)
            g->node[kept++] = g->node[i];
        else
            tfpi__node_def__free_unpacked(g->node[i], NULL);
    }
    g->n_node = kept;
    free(keep);
    free(stack);
    return code;
}

/* A TensorProto holding a copy of t. */
static Tfpi__TensorProto *tensor_proto(const tfpi_tensor *t)
{
    if (t->dtype != TFPI_STRING)
        return gd_tensor_new(t->dtype, t->dims, t->ndims, t->data, tp_byte_size(t));
    Tfpi__TensorProto *p = gd_tensor_new(TFPI_STRING, t->dims, t->ndims, NULL, 0);
    size_t n = (size_t)tp_num_elements(t);
    p->string_val = xcalloc(n + 1, sizeof *p->string_val);
    p->n_string_val = n;
    for (size_t i = 0; i < n; i++) {
        const tfpi_bytes *s = &((const tfpi_bytes *)t->data)[i];
        p->string_val[i].data = xmalloc(s->size ? s->size : 1);
        memcpy(p->string_val[i].data, s->data, s->size);
        p->string_val[i].len = s->size;
    }
    return p;
}

/* Makes variable node `node` a Const holding its checkpoint value. */
static tfpi_code convert_variable(model_source *s, Tfpi__NodeDef *node, int64_t max_bytes, tfpi_status *status)
{
    if (!s->info)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "node '%s' (%s) is a variable, and no checkpoint was given for its value", node->name,
                               node->op);
    const tfpi_graph *g = s->loaded;
    int index = tp_graph_find(g, node->name, strlen(node->name));
    tfpi_tensor value;
    tfpi_code code = index < 0 ? tfpi_status_set(status, TFPI_INTERNAL, "variable '%s' is not in the loaded model",
                                                 node->name)
                               : tp_graph_variable_value(g, g->nodes[index].def, max_bytes, &value, status);
    if (code != TFPI_OK)
        return code;
    gd_attr_remove_all(node);
    gd_set_string(&node->op, "Const");
    gd_attr_set_type(node, "dtype", value.dtype);
    gd_attr_set_tensor(node, "value", tensor_proto(&value));
    return TFPI_OK;
}

/* The readers of a converted resource variable: ReadVariableOp becomes
 * Identity, ResourceGather becomes GatherV2 with a new axis Const. */
static void retype_readers(Tfpi__GraphDef *g, const char *var, int dtype)
{
    size_t n = g->n_node;
    for (size_t i = 0; i < n; i++) {
        Tfpi__NodeDef *node = g->node[i];
        gd_input in = node->n_input ? gd_parse_input(node->input[0]) : (gd_input){0};
        if (!node->n_input || in.control || in.len != strlen(var) || strncmp(in.node, var, in.len) != 0)
            continue;
        if (strcmp(node->op, "ReadVariableOp") == 0) {
            gd_set_string(&node->op, "Identity");
            gd_attr_remove(node, "dtype");
            gd_attr_set_type(node, "T", dtype);
        } else if (strcmp(node->op, "ResourceGather") == 0 && tp_attr_int(node, "batch_dims", 0) == 0) {
            char *axis_name = xmalloc(strlen(node->name) + sizeof "/axis");
            sprintf(axis_name, "%s/axis", node->name);
            Tfpi__NodeDef *axis = gd_node_new(axis_name, "Const");
            int32_t zero = 0;
            gd_attr_set_type(axis, "dtype", TFPI_INT32);
            gd_attr_set_tensor(axis, "value", gd_tensor_new(TFPI_INT32, NULL, 0, &zero, sizeof zero));
            gd_set_string(&node->op, "GatherV2");
            gd_attr_remove(node, "dtype");
            gd_attr_remove(node, "validate_indices");
            gd_attr_set_type(node, "Tparams", dtype);
            gd_attr_set_type(node, "Taxis", TFPI_INT32);
            gd_add_input(node, axis_name);
            gd_append_node(g, axis);
            free(axis_name);
        }
    }
}

/* The signature's output node names (":k" dropped). */
static char **signature_outputs(const tp_model_info *info, int *n)
{
    char **names = xcalloc((size_t)info->num_outputs + 1, sizeof *names);
    for (int i = 0; i < info->num_outputs; i++) {
        gd_input in = gd_parse_input(info->outputs[i].name);
        names[i] = xstrndup(in.node, in.len);
    }
    *n = info->num_outputs;
    return names;
}

tfpi_code freeze_source(model_source *s, const freeze_options *o, int *converted, tfpi_status *status)
{
    *converted = 0;
    int n = o->num_outputs;
    char **own = NULL;
    const char *const *outputs = o->outputs;
    if (!outputs) {
        if (!s->info || !s->info->signature_key)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                   "the model has no signature to freeze for: name the outputs (freeze_graph "
                                   "--output_node_names=...)");
        outputs = (const char *const *)(own = signature_outputs(s->info, &n));
    }
    tfpi_code code = keep_needed(s->graph, outputs, n, status);
    Tfpi__GraphDef *g = s->graph;
    for (size_t i = 0; i < g->n_node && code == TFPI_OK; i++) {
        Tfpi__NodeDef *node = g->node[i];
        if (!is_variable(node->op) || o->keep_variables || (o->allow && !in_list(o->allow, node->name)) ||
            (o->deny && in_list(o->deny, node->name)))
            continue;
        bool resource = strcmp(node->op, "VarHandleOp") == 0;
        if ((code = convert_variable(s, node, o->max_bytes, status)) == TFPI_OK) {
            ++*converted;
            if (resource)
                retype_readers(g, node->name, tp_attr_type(node, "dtype", 0));
        }
    }
    for (size_t i = 0; i < g->n_node && o->clear_devices; i++)
        gd_set_string(&g->node[i]->device, "");
    for (int i = 0; own && i < n; i++)
        free(own[i]);
    free(own);
    return code;
}
