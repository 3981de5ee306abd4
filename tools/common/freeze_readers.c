/* freeze_readers.c - the readers of a variable made a Const
 * (freeze_readers.h): a walk from the variable along the edges that carry
 * its handle or reference, rewriting each node it meets. */
#include "freeze_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/node_def.h"
#include "graphdef_edit.h"
#include "graphdef_inspect.h"
#include "xalloc.h"

typedef struct reader {
    int node, input, output; /* node reads `output` of the producer as its data input `input` */
} reader;

struct freeze_readers {
    int *start; /* readers of node p: items[start[p] .. start[p + 1]) */
    reader *items;
    size_t num_readers;
    bool *seen; /* the readers the current walk has rewritten */
    int *queue; /* (node, output) pairs still to follow */
    size_t queue_size;
};

freeze_readers *freeze_readers_new(const Tfpi__GraphDef *g)
{
    freeze_readers *r = xcalloc(1, sizeof *r);
    gd_index index;
    gd_index_build(&index, g);
    size_t total = 0;
    r->start = xcalloc(g->n_node + 2, sizeof *r->start);
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        int *fill = pass ? xcalloc(g->n_node + 1, sizeof *fill) : NULL;
        for (size_t c = 0; c < g->n_node; c++) {
            for (size_t k = 0; k < g->node[c]->n_input; k++) {
                gd_input in = gd_parse_input(g->node[c]->input[k]);
                int p = in.control ? -1 : tp_name_map_find(&index.map, in.node, in.len);
                if (p < 0)
                    continue;
                if (pass == 0)
                    r->start[p + 1]++, total++;
                else
                    r->items[r->start[p] + fill[p]++] = (reader){(int)c, (int)k, in.index};
            }
        }
        if (pass == 0) {
            for (size_t p = 0; p < g->n_node; p++)
                r->start[p + 1] += r->start[p];
            r->items = xcalloc(total + 1, sizeof *r->items);
        }
        free(fill);
    }
    gd_index_free(&index);
    r->num_readers = total;
    r->seen = xcalloc(total + 1, sizeof *r->seen);
    return r;
}

void freeze_readers_free(freeze_readers *r)
{
    if (!r)
        return;
    free(r->start);
    free(r->items);
    free(r->seen);
    free(r->queue);
    free(r);
}

/* ---- the rewrites ---- */

static bool is_op(const Tfpi__NodeDef *node, const char *op) { return strcmp(node->op, op) == 0; }

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Ops that change a variable. */
static bool writes(const char *op)
{
    static const char *const prefixes[] = {"Assign", "ResourceApply", "ResourceSparseApply", "ResourceScatter",
                                           "Scatter", "Apply", "SparseApply", "CountUpTo", "ResourceCountUpTo",
                                           "DestroyResourceOp"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts_with(op, prefixes[i]))
            return true;
    return false;
}

/* The node named by input string `input`, as a control input. */
static char *control_input(const char *input)
{
    gd_input in = gd_parse_input(input);
    char *name = xmalloc(in.len + 2);
    name[0] = '^';
    memcpy(name + 1, in.node, in.len);
    name[in.len + 1] = '\0';
    return name;
}

/* The node becomes a Const `true` that still waits for what it read (so it
 * stays in that loop frame or cond branch). */
static void make_true_const(Tfpi__NodeDef *node)
{
    char *after = control_input(node->input[0]);
    for (size_t k = 0; k < node->n_input; k++)
        free(node->input[k]);
    node->n_input = 0;
    gd_add_input(node, after);
    free(after);
    gd_attr_remove_all(node);
    gd_set_string(&node->op, "Const");
    uint8_t yes = 1;
    gd_attr_set_type(node, "dtype", TFPI_BOOL);
    gd_attr_set_tensor(node, "value", gd_tensor_new(TFPI_BOOL, NULL, 0, &yes, 1));
}

/* ResourceGather -> GatherV2 with a new Const axis 0 (in the frame of the params). */
static void gather_to_gather_v2(Tfpi__GraphDef *g, Tfpi__NodeDef *node, int dtype)
{
    char *axis_name = xmalloc(strlen(node->name) + sizeof "/axis");
    sprintf(axis_name, "%s/axis", node->name);
    Tfpi__NodeDef *axis = gd_node_new(axis_name, "Const");
    char *after = control_input(node->input[0]);
    gd_add_input(axis, after);
    free(after);
    int32_t zero = 0;
    gd_attr_set_type(axis, "dtype", TFPI_INT32);
    gd_attr_set_tensor(axis, "value", gd_tensor_new(TFPI_INT32, NULL, 0, &zero, sizeof zero));
    gd_set_string(&node->op, "GatherV2");
    gd_attr_remove(node, "dtype");
    gd_attr_remove(node, "validate_indices");
    gd_attr_remove(node, "batch_dims");
    gd_attr_set_type(node, "Tparams", dtype);
    gd_attr_set_type(node, "Taxis", TFPI_INT32);
    /* control inputs must stay last */
    size_t data = 0;
    while (data < node->n_input && node->input[data][0] != '^')
        data++;
    gd_add_input(node, axis_name);
    char *moved = node->input[node->n_input - 1];
    memmove(&node->input[data + 1], &node->input[data], (node->n_input - 1 - data) * sizeof *node->input);
    node->input[data] = moved;
    gd_append_node(g, axis);
    free(axis_name);
}

/* T of a node passing the value on; IdentityN's T is a list (entry k). */
static void retype(Tfpi__NodeDef *node, int k, int dtype)
{
    if (is_op(node, "IdentityN")) {
        Tfpi__AttrValue *t = (Tfpi__AttrValue *)tp_attr(node, "T");
        if (t && t->value_case == TFPI__ATTR_VALUE__VALUE_LIST && (size_t)k < t->list->n_type)
            t->list->type[k] = (Tfpi__DataType)dtype;
        return;
    }
    gd_attr_set_type(node, "T", dtype);
}

typedef struct walk {
    freeze_readers *r;
    Tfpi__GraphDef *g;
    const char *var;
    int dtype;
    bool resource;
    size_t top;
    tfpi_status *status;
} walk;

static void follow(walk *w, int node, int output)
{
    freeze_readers *r = w->r;
    if (w->top + 2 > r->queue_size) {
        r->queue_size = 2 * r->queue_size + 64;
        r->queue = xrealloc(r->queue, r->queue_size * sizeof *r->queue);
    }
    r->queue[w->top++] = node;
    r->queue[w->top++] = output;
}

/* The outputs of pass-through node c that carry what its input k carried. */
static void follow_through(walk *w, int c, int k)
{
    const Tfpi__NodeDef *node = w->g->node[c];
    if (is_op(node, "IdentityN"))
        follow(w, c, k);
    else if (is_op(node, "Switch"))
        follow(w, c, 0), follow(w, c, 1);
    else if (is_op(node, "_SwitchN"))
        for (int64_t o = 0; o < tp_attr_int(node, "num_outs", 0) && o < 1024; o++)
            follow(w, c, (int)o);
    else
        follow(w, c, 0);
}

static bool passes_on(const char *op)
{
    static const char *const ops[] = {"Identity", "IdentityN", "Enter", "Exit", "NextIteration", "Switch", "_SwitchN",
                                      "Merge"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

static tfpi_code refuse(walk *w, const Tfpi__NodeDef *node)
{
    if (writes(node->op))
        return tfpi_status_set(w->status, TFPI_UNIMPLEMENTED,
                               "node '%s' (%s) changes variable '%s': a frozen graph has only constants (run the "
                               "model itself to keep its state)",
                               node->name, node->op, w->var);
    return tfpi_status_set(w->status, TFPI_UNIMPLEMENTED,
                           "node '%s' (%s) takes the handle of variable '%s', which freeze_graph cannot give it as a "
                           "constant",
                           node->name, node->op, w->var);
}

/* Reader c (input k) of a resource handle. */
static tfpi_code rewrite_resource_reader(walk *w, int c, int k)
{
    Tfpi__NodeDef *node = w->g->node[c];
    if (is_op(node, "ReadVariableOp")) {
        gd_set_string(&node->op, "Identity");
        gd_attr_remove(node, "dtype");
        gd_attr_set_type(node, "T", w->dtype);
    } else if (is_op(node, "ResourceGather") && k == 0 && tp_attr_int(node, "batch_dims", 0) == 0) {
        gather_to_gather_v2(w->g, node, w->dtype);
    } else if (is_op(node, "ResourceGatherNd") && k == 0) {
        gd_set_string(&node->op, "GatherNd");
        gd_attr_remove(node, "dtype");
        gd_attr_set_type(node, "Tparams", w->dtype);
    } else if (is_op(node, "VariableShape")) {
        gd_set_string(&node->op, "Shape");
        gd_attr_set_type(node, "T", w->dtype);
    } else if (is_op(node, "VarIsInitializedOp")) {
        make_true_const(node);
    } else if (passes_on(node->op) && !(is_op(node, "Switch") && k != 0) && !(is_op(node, "_SwitchN") && k != 0)) {
        retype(node, k, w->dtype);
        follow_through(w, c, k);
    } else {
        return refuse(w, node);
    }
    return TFPI_OK;
}

/* Reader c (input k) of a TF1 variable's reference: other readers take its value. */
static tfpi_code rewrite_ref_reader(walk *w, int c, int k)
{
    static const char *const ref_ops[] = {"RefSwitch", "RefEnter", "RefExit", "RefNextIteration", "RefIdentity",
                                          "RefMerge"};
    Tfpi__NodeDef *node = w->g->node[c];
    if (is_op(node, "IsVariableInitialized")) {
        make_true_const(node);
        return TFPI_OK;
    }
    if (writes(node->op))
        return refuse(w, node);
    for (size_t i = 0; i < sizeof ref_ops / sizeof ref_ops[0]; i++) {
        if (is_op(node, ref_ops[i]) && (k == 0 || !is_op(node, "RefSwitch"))) {
            gd_set_string(&node->op, ref_ops[i] + 3);
            follow_through(w, c, k);
        }
    }
    return TFPI_OK;
}

tfpi_code freeze_readers_rewrite(freeze_readers *r, Tfpi__GraphDef *g, int var, int dtype, bool resource,
                                 tfpi_status *status)
{
    walk w = {r, g, g->node[var]->name, dtype, resource, 0, status};
    memset(r->seen, 0, r->num_readers * sizeof *r->seen);
    follow(&w, var, 0);
    tfpi_code code = TFPI_OK;
    while (w.top > 0 && code == TFPI_OK) {
        int output = r->queue[--w.top], node = r->queue[--w.top];
        for (int i = r->start[node]; i < r->start[node + 1] && code == TFPI_OK; i++) {
            const reader *rd = &r->items[i];
            if (rd->output != output || r->seen[i])
                continue;
            r->seen[i] = true;
            code = resource ? rewrite_resource_reader(&w, rd->node, rd->input)
                            : rewrite_ref_reader(&w, rd->node, rd->input);
        }
    }
    return code;
}
