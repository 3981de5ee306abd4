/* graph_build.c - turns parsed NodeDefs into a tfpi_graph: checks names,
 * resolves every input string to a (node, output) edge, and answers name
 * look-ups. Any model format (binary, memmapped) ends up here. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/model_info.h"
#include "graph/node_def.h"
#include "tfpi.h"

int tp_graph_find(const tfpi_graph *graph, const char *name, size_t len)
{
    return tp_name_map_find(&graph->names, name, len);
}

/* Splits "node:k" into the node part's length and k (0 if absent).
 * Returns false if the ":k" suffix is malformed. */
static bool split_tensor_name(const char *name, size_t *node_len, int *index)
{
    const char *colon = strrchr(name, ':');
    *node_len = strlen(name);
    *index = 0;
    if (!colon)
        return true;
    long k = 0;
    const char *p = colon + 1;
    if (!*p)
        return false;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || k > 100000)
            return false;
        k = k * 10 + (*p - '0');
    }
    *node_len = (size_t)(colon - name);
    *index = (int)k;
    return true;
}

/* The tensor a signature key names, or NULL. */
static const char *signature_tensor(const tfpi_graph *graph, const char *key, const char *what)
{
    bool feed = strcmp(what, "feed") == 0, fetch = strcmp(what, "fetch") == 0;
    const char *tensor = fetch ? NULL : tp_model_info_signature_tensor(graph->model, key, true);
    return tensor || feed ? tensor : tp_model_info_signature_tensor(graph->model, key, false);
}

tfpi_code tp_graph_resolve(const tfpi_graph *graph, const char *tensor_name, const char *what,
                           tp_edge *out, tfpi_status *status)
{
    const char *signature_name = tensor_name ? signature_tensor(graph, tensor_name, what) : NULL;
    if (signature_name)
        tensor_name = signature_name;
    size_t len;
    int index;
    if (!tensor_name || !*tensor_name || !split_tensor_name(tensor_name, &len, &index))
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s '%s' is not a valid tensor name (node or node:k)",
                        what, tensor_name ? tensor_name : "");
    int node = tp_graph_find(graph, tensor_name, len);
    if (node < 0 && graph->model && graph->model->signature_key && !signature_name) {
        char keys[300];
        return tfpi_status_set(status, TFPI_NOT_FOUND,
                               "%s '%s' is neither a key of signature '%s' (%s) nor a node of the graph", what,
                               tensor_name, graph->model->signature_key,
                               tp_model_info_signature_keys(graph->model, what, keys, sizeof keys));
    }
    if (node < 0)
        return tfpi_status_set(status, TFPI_NOT_FOUND, "%s '%s': the graph has no node named '%.*s'", what,
                        tensor_name, (int)len, tensor_name);
    out->node = node;
    out->index = index;
    return TFPI_OK;
}

static void free_nodes(tp_node *nodes, Tfpi__NodeDef **defs, int n)
{
    for (int i = 0; i < n; i++) {
        if (nodes) {
            free(nodes[i].inputs);
            free(nodes[i].controls);
        }
        if (defs[i])
            tfpi__node_def__free_unpacked(defs[i], NULL);
    }
    free(nodes);
}

void tfpi_graph_free(tfpi_graph *graph)
{
    if (!graph)
        return;
    /* First: a backing may own bytes the NodeDefs point to (mapped_constants.c). */
    if (graph->free_backing && !graph->backing_borrowed)
        graph->free_backing(graph->backing);
    for (int i = 0; i < graph->num_nodes; i++) {
        free(graph->nodes[i].inputs);
        free(graph->nodes[i].controls);
        tfpi__node_def__free_unpacked(graph->nodes[i].def, NULL);
    }
    free(graph->nodes);
    tp_name_map_free(&graph->names);
    tp_derived_cache_free(graph->derived);
    if (!graph->backing_borrowed)
        tp_model_info_free(graph->model);
    free(graph);
}

void tp_graph_borrow_backing(tfpi_graph *copy, const tfpi_graph *original)
{
    copy->backing = original->backing;
    copy->free_backing = original->free_backing;
    copy->model = original->model;
    copy->regions = original->regions;
    copy->file_map = original->file_map;
    copy->file_map_size = original->file_map_size;
    copy->backing_borrowed = true;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(Tfpi__NodeDef__AttrEntry *const *)a)->key, (*(Tfpi__NodeDef__AttrEntry *const *)b)->key);
}

/* Every attribute entry has a name and a value, and no name appears twice
 * (protobuf-c keeps both entries of a map where TensorFlow keeps one). */
static tfpi_code check_attrs(const Tfpi__NodeDef *def, const char *source, tfpi_status *status)
{
    for (size_t i = 0; i < def->n_attr; i++) {
        if (!def->attr[i]->key || !def->attr[i]->key[0])
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node '%s' (%s) has an empty attribute name",
                                   source, def->name, def->op);
        if (!def->attr[i]->value || def->attr[i]->value->value_case == TFPI__ATTR_VALUE__VALUE__NOT_SET)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node '%s' (%s): attribute '%s' has no value",
                                   source, def->name, def->op, def->attr[i]->key);
    }
    if (def->n_attr < 2)
        return TFPI_OK;
    Tfpi__NodeDef__AttrEntry **sorted = malloc(def->n_attr * sizeof *sorted);
    if (!sorted)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    memcpy(sorted, def->attr, def->n_attr * sizeof *sorted);
    qsort(sorted, def->n_attr, sizeof *sorted, by_key);
    tfpi_code code = TFPI_OK;
    for (size_t i = 1; i < def->n_attr && code == TFPI_OK; i++)
        if (strcmp(sorted[i - 1]->key, sorted[i]->key) == 0)
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node '%s' (%s): attribute '%s' appears twice",
                                   source, def->name, def->op, sorted[i]->key);
    free(sorted);
    return code;
}

/* TensorFlow's node name rule: pieces joined by '>', each a letter, digit,
 * '.' or '_' then letters, digits and "-./_". */
static bool valid_node_name(const char *name)
{
    const char *p = name;
    for (;;) {
        if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '_'))
            return false;
        for (p++; isalnum((unsigned char)*p) || (*p && strchr("-./_", *p)); p++)
            ;
        if (!*p)
            return true;
        if (*p++ != '>')
            return false;
    }
}

/* The name with every byte outside printable ASCII shown as '?', so that
 * an error message stays one line. */
static const char *printable(const char *name, char *buf, size_t size)
{
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++)
        buf[i] = name[i] >= ' ' && name[i] <= '~' ? name[i] : '?';
    buf[i] = 0;
    return buf;
}

static bool is_ref_op(const char *op)
{
    return strncmp(op, "Ref", 3) == 0;
}

/* Whether input k of Ref op `op` is a reference: RefSwitch's predicate
 * (input 1) is a plain bool, every other data input of a Ref op (RefEnter,
 * RefMerge, RefSwitch's data) is one. */
static bool is_ref_input(const char *op, int k)
{
    return k == 0 || strcmp(op, "RefSwitch") != 0;
}

/* A Ref op (RefSwitch, RefEnter...) takes references: its reference inputs
 * must come from variables or other Ref ops. TensorFlow refuses anything
 * else ("expected float_ref"); frozen graphs have no references at all. */
static tfpi_code check_ref_inputs(const tfpi_graph *g, int i, const char *source, tfpi_status *status)
{
    static const char *const variables[] = {"VariableV2", "Variable", "TemporaryVariable"};
    const tp_node *node = &g->nodes[i];
    if (!is_ref_op(node->def->op))
        return TFPI_OK;
    for (int k = 0; k < node->num_inputs; k++) {
        if (!is_ref_input(node->def->op, k))
            continue;
        const Tfpi__NodeDef *from = g->nodes[node->inputs[k].node].def;
        bool ref = is_ref_op(from->op);
        for (size_t v = 0; v < sizeof variables / sizeof variables[0]; v++)
            ref = ref || strcmp(from->op, variables[v]) == 0;
        if (!ref)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                   "%s: node '%s' (%s): input %d comes from '%s' (%s), which is not a reference "
                                   "(a variable); TensorFlow refuses this graph (expected a _ref type): use %s",
                                   source, node->def->name, node->def->op, k, from->name, from->op,
                                   node->def->op + 3);
    }
    return TFPI_OK;
}

/* Resolves the input strings of node i into edges. */
static tfpi_code link_inputs(tfpi_graph *g, int i, const char *source, tfpi_status *status)
{
    tp_node *node = &g->nodes[i];
    const Tfpi__NodeDef *def = node->def;
    node->inputs = calloc(def->n_input + 1, sizeof *node->inputs);
    node->controls = calloc(def->n_input + 1, sizeof *node->controls);
    if (!node->inputs || !node->controls)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    for (size_t k = 0; k < def->n_input; k++) {
        const char *in = def->input[k];
        bool control = in[0] == '^';
        size_t len;
        int index;
        if (!split_tensor_name(in + control, &len, &index) || len == 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node '%s' has a malformed input '%s'",
                            source, def->name, in);
        int src = tp_graph_find(g, in + control, len);
        if (src < 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: node '%s' has input '%s', but no node is named '%.*s'", source,
                            def->name, in, (int)len, in + control);
        if (control) {
            node->controls[node->num_controls++] = src;
            continue;
        }
        if (node->num_controls > 0)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: node '%s' lists data input '%s' after a control input", source,
                            def->name, in);
        node->inputs[node->num_inputs++] = (tp_edge){src, index};
        if (g->nodes[src].num_outputs < index + 1)
            g->nodes[src].num_outputs = index + 1;
    }
    return TFPI_OK;
}

/* Graphs written before GraphDef version 22 (or with no versions field)
 * gave a Placeholder of unknown shape the shape attr `{}`; TensorFlow reads
 * it as unknown there, and so does tfpi (it means a scalar after). */
static void old_placeholder_shapes(Tfpi__NodeDef **defs, int n, int producer)
{
    for (int i = 0; i < n && producer <= 21; i++) {
        Tfpi__AttrValue *shape = (Tfpi__AttrValue *)tp_attr(defs[i], "shape");
        if (strcmp(defs[i]->op, "Placeholder") == 0 && shape && shape->value_case == TFPI__ATTR_VALUE__VALUE_SHAPE &&
            shape->shape->n_dim == 0)
            shape->shape->unknown_rank = true;
    }
}

tfpi_graph *tp_graph_build(Tfpi__NodeDef **defs, int n, int producer, const char *source,
                           tfpi_status *status)
{
    old_placeholder_shapes(defs, n, producer);
    tfpi_graph *g = calloc(1, sizeof *g);
    tp_node *nodes = calloc((size_t)n + 1, sizeof *nodes);
    tp_derived_cache *derived = tp_derived_cache_new();
    if (!g || !nodes || !derived || !tp_name_map_init(&g->names, (size_t)n)) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %d nodes", source, n);
        tp_derived_cache_free(derived);
        if (g)
            tp_name_map_free(&g->names);
        free(g);
        free_nodes(nodes, defs, n);
        return NULL;
    }
    g->nodes = nodes;
    g->derived = derived;
    g->producer = producer;
    for (int i = 0; i < n; i++) {
        nodes[i].def = defs[i];
        nodes[i].num_outputs = 1;
    }
    g->num_nodes = n;
    tfpi_code code = tp_tie_table_initializers(defs, n, source, status);
    if (code == TFPI_OK && n == 0)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the graph has no nodes", source);
    for (int i = 0; i < n && code == TFPI_OK; i++) {
        char shown[128];
        if (!defs[i]->name[0] || !defs[i]->op[0])
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node %d has an empty %s", source, i,
                            defs[i]->name[0] ? "op" : "name");
        else if (!valid_node_name(defs[i]->name))
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                   "%s: node %d: node name '%s' contains invalid characters (TensorFlow's rule: "
                                   "a letter, digit, '.' or '_', then letters, digits and -./_, pieces joined by '>')",
                                   source, i, printable(defs[i]->name, shown, sizeof shown));
        else if ((code = check_attrs(defs[i], source, status)) == TFPI_OK &&
                 !tp_name_map_insert(&g->names, defs[i]->name, i))
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: two nodes are named '%s'", source,
                            defs[i]->name);
    }
    for (int i = 0; i < n && code == TFPI_OK; i++)
        code = link_inputs(g, i, source, status);
    for (int i = 0; i < n && code == TFPI_OK; i++)
        code = check_ref_inputs(g, i, source, status);
    if (code != TFPI_OK) {
        tfpi_graph_free(g);
        return NULL;
    }
    return g;
}
