/* freeze.c - variables to constants (freeze.h): the subgraph the outputs
 * need, each variable's value from the library's binding of the model's
 * checkpoint (the same key map, checksum, dtype and shape checks a direct
 * run uses), and the rewrites of resource-variable readers. */
#include "freeze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flat_graph.h"
#include "freeze_readers.h"
#include "freeze_restores.h"
#include "graph/graph.h"
#include "graphdef_edit.h"
#include "graphdef_inspect.h"
#include "model/variable_binding.h"
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
    gd_attr_set_tensor(node, "value", gd_tensor_copy(&value));
    return TFPI_OK;
}

/* Appends the node of tensor name `tensor` to names (at *n). */
static void add_node_of(char **names, int *n, const char *tensor)
{
    gd_input in = gd_parse_input(tensor);
    names[(*n)++] = xstrndup(in.node, in.len);
}

/* The output node names of the model's signature (":k" dropped); with
 * all, those of every signature and the targets of those with no outputs
 * (what print_required_ops must cover). */
static char **signature_outputs(const model_source *s, bool all, int *n)
{
    const tp_model_info *info = s->info;
    size_t count = (size_t)info->num_outputs + 1;
    for (int k = 0; all && k < info->num_signatures; k++)
        count += (size_t)info->signatures[k].num_outputs + 1;
    char **names = xcalloc(count, sizeof *names);
    *n = 0;
    for (int i = 0; i < info->num_outputs; i++)
        add_node_of(names, n, info->outputs[i].name);
    for (int k = 0; all && k < info->num_signatures; k++) {
        for (int i = 0; i < info->signatures[k].num_outputs; i++)
            add_node_of(names, n, info->signatures[k].outputs[i].name);
        const char *target = tfpi_graph_signature_target(s->loaded, k);
        if (target)
            names[(*n)++] = xstrdup(target);
    }
    return names;
}

/* An output name as TensorFlow's TF2 freezing writes it, relative to the
 * signature's function ("StatefulPartitionedCall/sequential/dense/Softmax",
 * "Identity"): in the flat graph it lies under the call that serves the
 * signature, "<call>/<name>". NULL if that is not a node either. */
static char *signature_relative(const model_source *s, const gd_index *index, const char *name)
{
    if (!s->info || s->info->num_outputs == 0)
        return NULL;
    gd_input call = gd_parse_input(s->info->outputs[0].name);
    char *full = xmalloc(call.len + strlen(name) + 2);
    sprintf(full, "%.*s/%s", (int)call.len, call.node, name);
    if (gd_index_find_input(index, full) >= 0)
        return full;
    free(full);
    return NULL;
}

/* The outputs to keep: the names given (a flat TF2 graph also takes them
 * relative to the signature's function), or the signature's. */
static char **output_names(const model_source *s, const freeze_options *o, bool flat, int *n, tfpi_status *status)
{
    if (!o->outputs) {
        if (!s->info || (!s->info->signature_key && !(o->all_signatures && s->info->num_signatures))) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "the model has no signature to freeze for: name the outputs (freeze_graph "
                            "--output_node_names=...)");
            return NULL;
        }
        return signature_outputs(s, o->all_signatures, n);
    }
    gd_index index;
    gd_index_build(&index, s->graph);
    char **names = xcalloc((size_t)o->num_outputs + 1, sizeof *names);
    for (int i = 0; i < o->num_outputs; i++) {
        char *relative = gd_index_find_input(&index, o->outputs[i]) < 0 && flat
                             ? signature_relative(s, &index, o->outputs[i])
                             : NULL;
        names[i] = relative ? relative : xstrdup(o->outputs[i]);
    }
    gd_index_free(&index);
    *n = o->num_outputs;
    return names;
}

/* Output i was asked for by a name TensorFlow's TF2 freezing gives it
 * (names[i] is where it lies in the flat graph): an Identity of that name
 * lets the frozen graph be fetched by it too. */
static void add_aliases(model_source *s, const freeze_options *o, char *const *names)
{
    for (int i = 0; o->outputs && i < o->num_outputs; i++) {
        int dtype = tfpi_graph_output_dtype(s->loaded, names[i]);
        if (strcmp(names[i], o->outputs[i]) == 0 || dtype == 0)
            continue;
        Tfpi__NodeDef *alias = gd_node_new(o->outputs[i], "Identity");
        gd_add_input(alias, names[i]);
        gd_attr_set_type(alias, "T", dtype);
        gd_append_node(s->graph, alias);
    }
}

/* Makes each variable the outputs need (allowed, not denied) a Const and
 * rewrites what reads it. */
static tfpi_code convert_variables(model_source *s, const freeze_options *o, int *converted, tfpi_status *status)
{
    Tfpi__GraphDef *g = s->graph;
    freeze_readers *readers = freeze_readers_new(g);
    tfpi_code code = TFPI_OK;
    size_t n = g->n_node; /* rewrites append axis Consts, which are no variables */
    for (size_t i = 0; i < n && code == TFPI_OK; i++) {
        Tfpi__NodeDef *node = g->node[i];
        if (!is_variable(node->op) || (o->allow && !in_list(o->allow, node->name)) ||
            (o->deny && in_list(o->deny, node->name)))
            continue;
        bool resource = strcmp(node->op, "VarHandleOp") == 0;
        if ((code = convert_variable(s, node, o->max_bytes, status)) == TFPI_OK) {
            ++*converted;
            code = freeze_readers_rewrite(readers, g, (int)i, tp_attr_type(node, "dtype", 0), resource, status);
        }
    }
    freeze_readers_free(readers);
    return code;
}

tfpi_code freeze_source(model_source *s, const freeze_options *o, int *converted, tfpi_status *status)
{
    *converted = 0;
    int n = 0;
    bool flat = flat_graph_needed(s);
    if (flat)
        flat_graph_replace(s);
    char **outputs = output_names(s, o, flat, &n, status);
    if (!outputs)
        return status->code;
    tfpi_code code = keep_needed(s->graph, (const char *const *)outputs, n, status);
    if (code == TFPI_OK && !o->keep_variables)
        code = convert_variables(s, o, converted, status);
    if (code == TFPI_OK && !o->keep_variables && (code = freeze_restores(s, o->max_bytes, converted, status)) == TFPI_OK)
        code = keep_needed(s->graph, (const char *const *)outputs, n, status); /* the restore ops are read no more */
    if (code == TFPI_OK && flat && !o->keep_variables) {
        flat_graph_single_results(s->graph);
        if (flat_graph_drop_control_edges(s->graph))
            code = keep_needed(s->graph, (const char *const *)outputs, n, status);
    }
    if (code == TFPI_OK && flat)
        add_aliases(s, o, outputs);
    Tfpi__GraphDef *g = s->graph;
    for (size_t i = 0; i < g->n_node && o->clear_devices; i++)
        gd_set_string(&g->node[i]->device, "");
    for (int i = 0; i < n; i++)
        free(outputs[i]);
    free(outputs);
    return code;
}
