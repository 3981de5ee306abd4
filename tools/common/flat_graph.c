/* flat_graph.c - the loaded model's nodes, calls inlined and control flow
 * lowered, copied back into a GraphDef (flat_graph.h). */
#include "flat_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/node_def.h"
#include "graphdef_edit.h"
#include "xalloc.h"

bool flat_graph_needed(const model_source *s)
{
    return s->loaded && s->graph && s->graph->library.len > 0;
}

/* A deep copy of def (through its wire form: every field malloc'd). */
static Tfpi__NodeDef *copy_node(const Tfpi__NodeDef *def)
{
    size_t size = tfpi__node_def__get_packed_size(def);
    uint8_t *bytes = xmalloc(size ? size : 1);
    tfpi__node_def__pack(def, bytes);
    Tfpi__NodeDef *copy = tfpi__node_def__unpack(NULL, size, bytes);
    free(bytes);
    if (!copy) { /* only out of memory: the bytes were just packed */
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    return copy;
}

/* "node:0" as TensorFlow writes it, "node" (OpenCV reads only that form). */
static void drop_output_zero(Tfpi__NodeDef *node)
{
    for (size_t k = 0; k < node->n_input; k++) {
        size_t len = strlen(node->input[k]);
        if (len > 2 && strcmp(node->input[k] + len - 2, ":0") == 0)
            node->input[k][len - 2] = '\0';
    }
}

void flat_graph_replace(model_source *s)
{
    const tfpi_graph *loaded = s->loaded;
    Tfpi__GraphDef *g = s->graph;
    for (size_t i = 0; i < g->n_node; i++)
        tfpi__node_def__free_unpacked(g->node[i], NULL);
    free(g->node);
    g->node = xcalloc((size_t)loaded->num_nodes + 1, sizeof *g->node);
    g->n_node = (size_t)loaded->num_nodes;
    for (int i = 0; i < loaded->num_nodes; i++) {
        g->node[i] = copy_node(loaded->nodes[i].def);
        drop_output_zero(g->node[i]);
    }
    free(g->library.data);
    g->library.data = NULL;
    g->library.len = 0;
}

/* Ops whose order control edges carry: control flow, and tables (each
 * lookup waits for the table's filling). */
static bool needs_control_edges(const char *op)
{
    static const char *const ops[] = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "_SwitchN",
                                      "RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration",
                                      "HashTableV2", "MutableHashTableV2"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

bool flat_graph_drop_control_edges(Tfpi__GraphDef *g)
{
    for (size_t i = 0; i < g->n_node; i++)
        if (needs_control_edges(g->node[i]->op))
            return false;
    gd_remove_control_inputs(g);
    return true;
}

void flat_graph_single_results(Tfpi__GraphDef *g)
{
    for (size_t i = 0; i < g->n_node; i++) {
        Tfpi__NodeDef *node = g->node[i];
        const Tfpi__AttrValue *t = tp_attr(node, "T");
        if (strcmp(node->op, "IdentityN") != 0 || !t || t->value_case != TFPI__ATTR_VALUE__VALUE_LIST ||
            t->list->n_type != 1)
            continue;
        int dtype = t->list->type[0];
        gd_set_string(&node->op, "Identity");
        gd_attr_set_type(node, "T", dtype);
    }
}
