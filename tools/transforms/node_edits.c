/* node_edits.c - transforms that edit nodes one at a time: remove_device,
 * set_device, remove_attribute, rename_attribute, rename_op and
 * remove_control_dependencies. */
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "transforms.h"

tfpi_code transform_remove_device(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < graph->n_node; i++)
        gd_set_string(&graph->node[i]->device, "");
    return TFPI_OK;
}

tfpi_code transform_set_device(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    const char *device;
    bool if_default;
    tfpi_code code = transform_param_required(ctx, "device", &device);
    if (code == TFPI_OK)
        code = transform_param_bool(ctx, "if_default", false, &if_default);
    for (size_t i = 0; code == TFPI_OK && i < graph->n_node; i++)
        if (!if_default || !graph->node[i]->device[0])
            gd_set_string(&graph->node[i]->device, device);
    return code;
}

/* op_name "*" (the default) matches every op. */
static bool op_matches(const Tfpi__NodeDef *node, const char *op_name)
{
    return strcmp(op_name, "*") == 0 || strcmp(node->op, op_name) == 0;
}

tfpi_code transform_remove_attribute(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    const char *attribute;
    tfpi_code code = transform_param_required(ctx, "attribute_name", &attribute);
    const char *op_name = transform_param_string(ctx, "op_name", "*");
    for (size_t i = 0; code == TFPI_OK && i < graph->n_node; i++)
        if (op_matches(graph->node[i], op_name))
            gd_attr_remove(graph->node[i], attribute);
    return code;
}

tfpi_code transform_rename_attribute(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    const char *old_name, *new_name;
    tfpi_code code = transform_param_required(ctx, "old_attribute_name", &old_name);
    if (code == TFPI_OK)
        code = transform_param_required(ctx, "new_attribute_name", &new_name);
    const char *op_name = transform_param_string(ctx, "op_name", "*");
    for (size_t i = 0; code == TFPI_OK && i < graph->n_node; i++) {
        Tfpi__NodeDef *node = graph->node[i];
        if (!op_matches(node, op_name) || !tp_attr(node, old_name) || strcmp(old_name, new_name) == 0)
            continue;
        gd_attr_remove(node, new_name); /* the renamed one replaces it */
        for (size_t a = 0; a < node->n_attr; a++)
            if (strcmp(node->attr[a]->key, old_name) == 0) {
                gd_attr_remove(node, new_name);
                gd_set_string(&node->attr[a]->key, new_name);
                break;
            }
    }
    return code;
}

tfpi_code transform_rename_op(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    const char *old_op, *new_op;
    tfpi_code code = transform_param_required(ctx, "old_op_name", &old_op);
    if (code == TFPI_OK)
        code = transform_param_required(ctx, "new_op_name", &new_op);
    for (size_t i = 0; code == TFPI_OK && i < graph->n_node; i++)
        if (strcmp(graph->node[i]->op, old_op) == 0)
            gd_set_string(&graph->node[i]->op, new_op);
    return code;
}

tfpi_code transform_remove_control_dependencies(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    (void)ctx;
    gd_remove_control_inputs(graph);
    return TFPI_OK;
}
