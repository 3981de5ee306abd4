/* insert_logging.c - insert_logging(op=..., prefix=..., show_name=false,
 * show_op=false, message="", first_n=-1, summarize=1024): a Print node
 * after each matching node (by op, or by name prefix; every node when
 * neither is given) that passes output 0 through and prints all the
 * node's used outputs (kernels/print.c writes them to stderr). Readers of
 * output 0 read the Print instead. With show_name the lines are what
 * freeze_requantization_ranges reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

static bool selected(const transform_ctx *ctx, const Tfpi__NodeDef *node)
{
    int ops = transform_param_count(ctx, "op"), prefixes = transform_param_count(ctx, "prefix");
    for (int i = 0; i < ops; i++)
        if (strcmp(transform_param_value(ctx, "op", i), node->op) == 0)
            return true;
    for (int i = 0; i < prefixes; i++) {
        const char *prefix = transform_param_value(ctx, "prefix", i);
        if (strncmp(node->name, prefix, strlen(prefix)) == 0)
            return true;
    }
    return ops == 0 && prefixes == 0;
}

/* How many outputs of node the graph reads (at least 1). */
static int outputs_read(const Tfpi__GraphDef *graph, const Tfpi__NodeDef *node)
{
    int count = 1;
    size_t len = strlen(node->name);
    for (size_t i = 0; i < graph->n_node; i++)
        for (size_t k = 0; k < graph->node[i]->n_input; k++) {
            gd_input in = gd_parse_input(graph->node[i]->input[k]);
            if (!in.control && in.len == len && !memcmp(in.node, node->name, len) && in.index + 1 > count)
                count = in.index + 1;
        }
    return count;
}

typedef struct print_settings {
    bool show_name, show_op;
    const char *message;
    int64_t first_n, summarize;
} print_settings;

static void add_print(rw_graph *g, Tfpi__NodeDef *node, const print_settings *s)
{
    int type = tp_attr_type(node, "T", tp_attr_type(node, "dtype", TFPI_FLOAT));
    int outputs = outputs_read(g->def, node);
    char base[300], message[1000];
    snprintf(base, sizeof base, "%s__print__", node->name);
    char *name = rw_unique_name(g, base);
    /* TF's prefix: ";OP;" then ";NAME__print__;" (freeze_requantization_ranges reads it) */
    snprintf(message, sizeof message, "%s%s%s%s%s%s%s", s->show_op ? ";" : "", s->show_op ? node->op : "",
             s->show_op ? ";" : "", s->show_name ? ";" : "", s->show_name ? name : "", s->show_name ? ";" : "",
             s->message);
    rw_replace_input(g->def, node->name, name); /* output 0's readers now read the Print */
    Tfpi__NodeDef *print = gd_node_new(name, "Print");
    for (int k = 0; k <= outputs; k++) { /* the pass-through, then every output */
        char input[320];
        snprintf(input, sizeof input, "%s:%d", node->name, k == 0 ? 0 : k - 1);
        gd_add_input(print, input);
    }
    gd_attr_set_type(print, "T", type);
    Tfpi__AttrValue *u = gd_attr_set(print, "U");
    u->value_case = TFPI__ATTR_VALUE__VALUE_LIST;
    u->list = xmalloc(sizeof *u->list);
    tfpi__attr_value__list_value__init(u->list);
    u->list->n_type = (size_t)outputs;
    u->list->type = xmalloc((size_t)outputs * sizeof *u->list->type);
    for (int k = 0; k < outputs; k++)
        u->list->type[k] = (Tfpi__DataType)type;
    gd_attr_set_string(print, "message", message);
    gd_attr_set_int(print, "first_n", s->first_n);
    gd_attr_set_int(print, "summarize", s->summarize);
    gd_set_string(&print->device, node->device);
    gd_append_node(g->def, print);
    rw_refresh(g);
    free(name);
}

tfpi_code transform_insert_logging(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    print_settings s = {.message = transform_param_string(ctx, "message", "")};
    tfpi_code code = transform_param_bool(ctx, "show_name", false, &s.show_name);
    if (code == TFPI_OK)
        code = transform_param_bool(ctx, "show_op", false, &s.show_op);
    if (code == TFPI_OK)
        code = transform_param_int(ctx, "first_n", -1, -1, &s.first_n);
    if (code == TFPI_OK)
        code = transform_param_int(ctx, "summarize", 1024, 0, &s.summarize);
    if (code != TFPI_OK)
        return code;
    rw_graph g;
    rw_open(&g, graph);
    size_t n = graph->n_node; /* not the Prints this adds */
    for (size_t i = 0; i < n; i++) {
        Tfpi__NodeDef *node = graph->node[i];
        if (selected(ctx, node) && strcmp(node->op, "Const") != 0 && strcmp(node->op, "NoOp") != 0)
            add_print(&g, node, &s);
    }
    rw_close(&g);
    return TFPI_OK;
}
