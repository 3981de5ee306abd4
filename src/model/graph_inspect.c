/* graph_inspect.c - the public questions about a loaded graph: its nodes'
 * names, ops, data and control inputs, a node's dtype and shape attributes
 * (what a Placeholder expects) and a Const's value. Bindings (python/tfpi) list inputs and outputs with
 * them. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/node_def.h"
#include "graph/tensor_proto.h"
#include "model/graph_memmapped.h"
#include "tfpi.h"

int tfpi_graph_num_nodes(const tfpi_graph *graph) { return graph->num_nodes; }

const char *tfpi_graph_node_name(const tfpi_graph *graph, int index)
{
    return index >= 0 && index < graph->num_nodes ? graph->nodes[index].def->name : NULL;
}

const char *tfpi_graph_node_op(const tfpi_graph *graph, int index)
{
    return index >= 0 && index < graph->num_nodes ? graph->nodes[index].def->op : NULL;
}

tfpi_dtype tfpi_graph_node_dtype(const tfpi_graph *graph, const char *tensor_name)
{
    tp_edge e;
    if (tp_graph_resolve(graph, tensor_name, "tensor", &e, NULL) != TFPI_OK)
        return 0;
    return tp_attr_type(graph->nodes[e.node].def, "dtype", 0);
}

int tfpi_graph_node_num_inputs(const tfpi_graph *graph, int index)
{
    return index >= 0 && index < graph->num_nodes ? graph->nodes[index].num_inputs : 0;
}

int tfpi_graph_node_input(const tfpi_graph *graph, int index, int k, int *output_index)
{
    if (index < 0 || index >= graph->num_nodes || k < 0 || k >= graph->nodes[index].num_inputs)
        return -1;
    if (output_index)
        *output_index = graph->nodes[index].inputs[k].index;
    return graph->nodes[index].inputs[k].node;
}

int tfpi_graph_node_shape(const tfpi_graph *graph, const char *tensor_name, int64_t *dims,
                          int max_dims)
{
    tp_edge e;
    if (tp_graph_resolve(graph, tensor_name, "tensor", &e, NULL) != TFPI_OK)
        return -1;
    const Tfpi__AttrValue *attr = tp_attr(graph->nodes[e.node].def, "shape");
    if (!attr || attr->value_case != TFPI__ATTR_VALUE__VALUE_SHAPE || !attr->shape ||
        attr->shape->unknown_rank || attr->shape->n_dim > (size_t)TFPI_MAX_DIMS)
        return -1;
    const Tfpi__TensorShapeProto *shape = attr->shape;
    for (size_t i = 0; i < shape->n_dim && (int)i < max_dims; i++)
        dims[i] = shape->dim[i]->size < 0 ? -1 : shape->dim[i]->size;
    return (int)shape->n_dim;
}

int tfpi_graph_node_num_control_inputs(const tfpi_graph *graph, int index)
{
    return index >= 0 && index < graph->num_nodes ? graph->nodes[index].num_controls : 0;
}

int tfpi_graph_node_control_input(const tfpi_graph *graph, int index, int k)
{
    if (index < 0 || index >= graph->num_nodes || k < 0 || k >= graph->nodes[index].num_controls)
        return -1;
    return graph->nodes[index].controls[k];
}

tfpi_tensor *tfpi_graph_const_value(const tfpi_graph *graph, const char *name, tfpi_status *status)
{
    int index = tp_graph_find(graph, name, strlen(name));
    const Tfpi__NodeDef *def = index >= 0 ? graph->nodes[index].def : NULL;
    if (def && strcmp(def->op, "ImmutableConst") == 0) { /* a memmapped or .tflite weight */
        tfpi_tensor region = {0};
        return tp_graph_mapped_const(graph, def, &region, status) == TFPI_OK ? tp_tensor_clone(&region, status)
                                                                              : NULL;
    }
    const Tfpi__AttrValue *value = def ? tp_attr(def, "value") : NULL;
    if (!def || strcmp(def->op, "Const") != 0 || !value || value->value_case != TFPI__ATTR_VALUE__VALUE_TENSOR) {
        tfpi_status_set(status, TFPI_NOT_FOUND, "'%s' is not a Const node of the graph", name);
        return NULL;
    }
    tfpi_tensor view = {0};
    void *owned = NULL;
    tfpi_tensor *copy = NULL;
    if (tp_tensor_from_proto(value->tensor, &view, &owned, name, status) == TFPI_OK)
        copy = tp_tensor_clone(&view, status);
    free(owned); /* expanded values; strings point into the proto and were copied */
    return copy;
}
