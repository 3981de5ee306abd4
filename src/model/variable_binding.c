/* variable_binding.c - binds a graph's variables to checkpoint tensors
 * (variable_binding.h). The key of each variable comes from the saver's restore
 * graph when there is one: `Assign(var, RestoreV2:i)` names var's key as
 * element i of RestoreV2's tensor_names Const (users may save a variable
 * under another name) and its slice as element i of shape_and_slices
 * (partitioned variables). Without a restore graph, the key is the node's
 * name. Keys are checked at load; values are read at first use. */
#include "model/variable_binding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/node_def.h"
#include "graph/tensor_proto.h"

static bool is_variable_op(const char *op)
{
    return strcmp(op, "VariableV2") == 0 || strcmp(op, "Variable") == 0 || strcmp(op, "VarHandleOp") == 0;
}

/* Element k of a string Const's value, or NULL. */
static const ProtobufCBinaryData *const_string(const tp_node *node, int64_t k)
{
    const Tfpi__AttrValue *value = tp_attr(node->def, "value");
    if (strcmp(node->def->op, "Const") != 0 || !value || value->value_case != TFPI__ATTR_VALUE__VALUE_TENSOR ||
        value->tensor->dtype != TFPI__DATA_TYPE__DT_STRING || k < 0 || (uint64_t)k >= value->tensor->n_string_val)
        return NULL;
    return &value->tensor->string_val[k];
}

static char *copy_string(const ProtobufCBinaryData *s)
{
    if (!s || (s->len && memchr(s->data, 0, s->len)))
        return NULL;
    return s->len ? strndup((const char *)s->data, s->len) : strdup("");
}

typedef struct binder {
    tp_model_info *info;
    const tfpi_graph *graph;
    int *var_of_node; /* index into info->variables, or -1 */
    bool *from_restore; /* variables whose key the restore graph gives */
} binder;

/* Records that variable node `var` takes key/slice, unless it has one already. */
static tfpi_code set_key(binder *b, int var, const ProtobufCBinaryData *key, const ProtobufCBinaryData *slice,
                         tfpi_status *status)
{
    tp_variable *v = &b->info->variables[b->var_of_node[var]];
    if (b->from_restore[b->var_of_node[var]])
        return TFPI_OK;
    char *k = copy_string(key), *s = slice ? copy_string(slice) : strdup("");
    if (!k || !s) {
        free(k);
        free(s);
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "%s: the restore graph gives variable '%s' a key or slice that is not valid",
                               b->info->source, v->node);
    }
    free(v->key);
    free(v->slice);
    v->key = k;
    v->slice = s;
    b->from_restore[b->var_of_node[var]] = true;
    return TFPI_OK;
}

/* Where edge e comes from past Identity and IdentityN nodes (TF2 restore
 * functions, once inlined, pass handles and restored tensors through
 * them). */
static tp_edge through_identities(const tfpi_graph *g, tp_edge e)
{
    for (int hops = 0; hops < g->num_nodes; hops++) {
        const tp_node *node = &g->nodes[e.node];
        bool identity = strcmp(node->def->op, "Identity") == 0, identity_n = strcmp(node->def->op, "IdentityN") == 0;
        if ((!identity && !identity_n) || e.index >= node->num_inputs || (identity && e.index != 0))
            return e;
        e = node->inputs[e.index];
    }
    return e;
}

/* An `Assign`/`AssignVariableOp` of a variable from RestoreV2:i. */
static tfpi_code read_assign(binder *b, int n, tfpi_status *status)
{
    const tfpi_graph *g = b->graph;
    const tp_node *node = &g->nodes[n];
    const char *op = node->def->op;
    if ((strcmp(op, "Assign") != 0 && strcmp(op, "AssignVariableOp") != 0) || node->num_inputs < 2)
        return TFPI_OK;
    int var = through_identities(g, node->inputs[0]).node;
    tp_edge value = through_identities(g, node->inputs[1]);
    const tp_node *restore = &g->nodes[value.node];
    if (b->var_of_node[var] < 0 || restore->num_inputs < 3)
        return TFPI_OK;
    if (strcmp(restore->def->op, "Restore") == 0 || strcmp(restore->def->op, "RestoreSlice") == 0)
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "%s: the saver restores V1 checkpoints (op %s); tfpi reads V2 checkpoints (.index + "
                               ".data files): re-save it with TensorFlow >= 0.12",
                               b->info->source, restore->def->op);
    if (strcmp(restore->def->op, "RestoreV2") != 0)
        return TFPI_OK;
    int index = value.index;
    const ProtobufCBinaryData *key = const_string(&g->nodes[through_identities(g, restore->inputs[1]).node], index);
    const ProtobufCBinaryData *slice = const_string(&g->nodes[through_identities(g, restore->inputs[2]).node], index);
    return set_key(b, var, key, slice, status);
}

/* Marks the nodes the restore op reaches (data and control inputs). */
static bool *restore_graph(const tfpi_graph *g, const char *restore_op)
{
    int start = restore_op[0] ? tp_graph_find(g, restore_op, strlen(restore_op)) : -1;
    bool *seen = calloc((size_t)g->num_nodes + 1, sizeof *seen);
    int *stack = malloc(((size_t)g->num_nodes + 1) * sizeof *stack);
    if (!seen || !stack || start < 0) {
        free(stack);
        if (seen && start < 0)
            memset(seen, 1, (size_t)g->num_nodes); /* no restore op: every Assign counts */
        return seen;
    }
    int top = 0;
    stack[top++] = start;
    seen[start] = true;
    while (top > 0) {
        const tp_node *node = &g->nodes[stack[--top]];
        for (int k = 0; k < node->num_inputs + node->num_controls; k++) {
            int src = k < node->num_inputs ? node->inputs[k].node : node->controls[k - node->num_inputs];
            if (!seen[src]) {
                seen[src] = true;
                stack[top++] = src;
            }
        }
    }
    free(stack);
    return seen;
}

static int by_node(const void *a, const void *b)
{
    return strcmp(((const tp_variable *)a)->node, ((const tp_variable *)b)->node);
}

/* " float [3,3,1,32]" for a dtype and shape. */
static void describe(int dtype, int ndims, const int64_t *dims, char *buf, size_t size)
{
    tfpi_tensor t = {0};
    char shape[TFPI_MAX_DIMS * 22 + 3];
    tp_tensor_set_shape(&t, (tfpi_dtype)dtype, ndims, dims);
    snprintf(buf, size, "%s %s", tfpi_dtype_name((tfpi_dtype)dtype), tp_shape_string(&t, shape, sizeof shape));
}

/* Error unless the variable node's dtype and (known) shape attrs match. */
static tfpi_code check_variable(const tp_checkpoint *ckpt, const Tfpi__NodeDef *def, const char *key, int dtype,
                                int ndims, const int64_t *dims, tfpi_status *status)
{
    int want = (int)tp_attr_type(def, "dtype", (tfpi_dtype)dtype);
    want = want > 100 ? want - 100 : want;
    const Tfpi__AttrValue *shape = tp_attr(def, "shape");
    int64_t want_dims[TFPI_MAX_DIMS];
    int want_ndims = -1;
    bool known = shape && shape->value_case == TFPI__ATTR_VALUE__VALUE_SHAPE &&
                 tp_shape_from_proto(shape->shape, want_dims, &want_ndims);
    /* TF1 `Variable` nodes often carry an empty shape that means "any". */
    if (known && want_ndims == 0 && strcmp(def->op, "Variable") == 0)
        known = false;
    bool same = want == dtype && (!known || want_ndims == ndims);
    for (int d = 0; same && known && d < ndims; d++)
        same = want_dims[d] < 0 || want_dims[d] == dims[d];
    if (same)
        return TFPI_OK;
    char have[300], expected[300];
    describe(dtype, ndims, dims, have, sizeof have);
    if (known)
        describe(want, want_ndims, want_dims, expected, sizeof expected);
    else
        snprintf(expected, sizeof expected, "%s", tfpi_dtype_name((tfpi_dtype)want));
    return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "checkpoint %s: key '%s' is %s, graph expects %s (variable %s)",
                           tp_checkpoint_prefix(ckpt), key, have, expected, def->name);
}

/* Keys from the restore graph must be in the checkpoint, as its type and shape. */
static tfpi_code check_keys(const binder *b, tfpi_status *status)
{
    const tp_model_info *info = b->info;
    for (int i = 0; i < info->num_variables; i++) {
        const tp_variable *v = &info->variables[i];
        if (!b->from_restore[i])
            continue;
        const tp_checkpoint_entry *e = tp_checkpoint_find(info->checkpoint, v->key);
        if (!e)
            return tfpi_status_set(status, TFPI_NOT_FOUND, "checkpoint %s: key '%s' (variable %s) not found",
                                   tp_checkpoint_prefix(info->checkpoint), v->key, v->node);
        int node = tp_graph_find(b->graph, v->node, strlen(v->node));
        tfpi_code code = v->slice[0] || e->ndims > TFPI_MAX_DIMS
                             ? TFPI_OK
                             : check_variable(info->checkpoint, b->graph->nodes[node].def, v->key, e->dtype,
                                              e->ndims, e->dims, status);
        if (code != TFPI_OK)
            return code;
    }
    return TFPI_OK;
}

static tfpi_code list_variables(binder *b, tfpi_status *status)
{
    const tfpi_graph *g = b->graph;
    tp_model_info *info = b->info;
    for (int i = 0; i < g->num_nodes; i++) {
        if (!is_variable_op(g->nodes[i].def->op))
            continue;
        tp_variable *v = &info->variables[info->num_variables];
        b->var_of_node[i] = info->num_variables++;
        if (!(v->node = strdup(g->nodes[i].def->name)) || !(v->key = strdup(v->node)) || !(v->slice = strdup("")))
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", info->source);
    }
    return TFPI_OK;
}

tfpi_code tp_model_info_bind_checkpoint(tp_model_info *info, const tfpi_graph *graph, tp_checkpoint *ckpt,
                                        tfpi_status *status)
{
    info->checkpoint = ckpt;
    info->close_checkpoint = tp_checkpoint_close;
    binder b = {info, graph, malloc(((size_t)graph->num_nodes + 1) * sizeof(int)), NULL};
    info->variables = calloc((size_t)graph->num_nodes + 1, sizeof *info->variables);
    b.from_restore = calloc((size_t)graph->num_nodes + 1, sizeof *b.from_restore);
    bool *restore = restore_graph(graph, info->restore_op);
    tfpi_code code = TFPI_OK;
    if (!b.var_of_node || !info->variables || !b.from_restore || !restore)
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", info->source);
    for (int i = 0; code == TFPI_OK && i < graph->num_nodes; i++)
        b.var_of_node[i] = -1;
    if (code == TFPI_OK)
        code = list_variables(&b, status);
    for (int i = 0; code == TFPI_OK && i < graph->num_nodes; i++)
        if (restore[i])
            code = read_assign(&b, i, status);
    if (code == TFPI_OK && ckpt)
        code = check_keys(&b, status);
    /* Sorted by node name for look-ups (from_restore is not needed after). */
    if (code == TFPI_OK)
        qsort(info->variables, (size_t)info->num_variables, sizeof *info->variables, by_node);
    free(restore);
    free(b.var_of_node);
    free(b.from_restore);
    return code;
}

tp_variable *tp_model_info_find_variable(tp_model_info *info, const char *node)
{
    if (!info)
        return NULL;
    tp_variable key = {.node = (char *)node};
    return bsearch(&key, info->variables, (size_t)info->num_variables, sizeof key, by_node);
}

/* Reads and checks v's value (under the info's lock). */
static tfpi_code bind(tp_model_info *info, tp_variable *v, const Tfpi__NodeDef *def, int64_t max_bytes,
                      tfpi_status *status)
{
    tp_checkpoint *ckpt = info->checkpoint;
    if (!tp_checkpoint_find(ckpt, v->key))
        return tfpi_status_set(status, TFPI_NOT_FOUND, "checkpoint %s: key '%s' (variable %s) not found",
                               tp_checkpoint_prefix(ckpt), v->key, v->node);
    tfpi_code code = v->slice[0] ? tp_checkpoint_read_slice(ckpt, v->key, v->slice, max_bytes, &v->value, status)
                                 : tp_checkpoint_read(ckpt, v->key, true, max_bytes, &v->value, status);
    if (code == TFPI_OK)
        code = check_variable(ckpt, def, v->key, v->value.dtype, v->value.ndims, v->value.dims, status);
    if (code != TFPI_OK)
        tp_tensor_release(&v->value);
    v->bound = code == TFPI_OK;
    return code;
}

tfpi_code tp_graph_variable_value(const tfpi_graph *graph, const Tfpi__NodeDef *def, int64_t max_bytes,
                                  tfpi_tensor *out, tfpi_status *status)
{
    tp_model_info *info = graph->model;
    tp_variable *v = tp_model_info_find_variable(info, def->name);
    if (!v)
        return tp_node_error(def, status, TFPI_INVALID_ARGUMENT,
                             "a variable with no value: load the model with its checkpoint (a SavedModel "
                             "directory, a .meta beside its checkpoint, or --checkpoint) or freeze it with "
                             "freeze_graph");
    if (!info->checkpoint)
        return tp_node_error(def, status, TFPI_NOT_FOUND,
                             "variable read before it was restored; %s has no variables/ (no checkpoint)",
                             info->source);
    tfpi_code code = TFPI_OK;
    pthread_mutex_lock(&info->lock);
    if (!v->bound)
        code = bind(info, v, def, max_bytes, status);
    pthread_mutex_unlock(&info->lock);
    if (code != TFPI_OK)
        return code;
    *out = v->value;
    out->owns_data = false;
    return TFPI_OK;
}

tfpi_code tp_graph_attach_checkpoint(tfpi_graph *graph, const char *source, const char *checkpoint,
                                     tfpi_status *status)
{
    char prefix[4096];
    tp_checkpoint *ckpt = NULL;
    if (tp_checkpoint_find_prefix(checkpoint, prefix, sizeof prefix, status) != TFPI_OK ||
        !(ckpt = tp_checkpoint_open(prefix, status)))
        return status ? status->code : TFPI_INVALID_ARGUMENT;
    if (!(graph->model = tp_model_info_new(source, status))) {
        tp_checkpoint_close(ckpt);
        return TFPI_OUT_OF_MEMORY;
    }
    return tp_model_info_bind_checkpoint(graph->model, graph, ckpt, status);
}
