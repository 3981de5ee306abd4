/* freeze_restores.c - RestoreV2 outputs made Consts (freeze_restores.h):
 * the keys come from the op's tensor_names Const (through Identity nodes,
 * as an inlined restore function passes it), the values from the model's
 * checkpoint, whole tensors only. */
#include "freeze_restores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "graphdef_inspect.h"
#include "model/checkpoint.h"
#include "xalloc.h"

/* The Const an input leads to past Identity nodes, or NULL. */
static const Tfpi__NodeDef *const_behind(const Tfpi__GraphDef *g, const gd_index *index, const char *input)
{
    for (int hops = 0; hops < 100; hops++) {
        int i = gd_index_find_input(index, input);
        if (i < 0)
            return NULL;
        const Tfpi__NodeDef *node = g->node[i];
        if (strcmp(node->op, "Const") == 0)
            return node;
        if (strcmp(node->op, "Identity") != 0 || node->n_input == 0)
            return NULL;
        input = node->input[0];
    }
    return NULL;
}

/* Element k of a string Const's value, or NULL. */
static const ProtobufCBinaryData *string_at(const Tfpi__NodeDef *node, int k)
{
    const Tfpi__AttrValue *v = node ? tp_attr(node, "value") : NULL;
    if (!v || v->value_case != TFPI__ATTR_VALUE__VALUE_TENSOR || k < 0 || (size_t)k >= v->tensor->n_string_val)
        return NULL;
    return &v->tensor->string_val[k];
}

/* The Const for output k of RestoreV2 node r: named "<r>/tensor_<k>", made once. */
static tfpi_code restored_const(model_source *s, const gd_index *index, const Tfpi__NodeDef *r, int k,
                                int64_t max_bytes, char **name, int *converted, tfpi_status *status)
{
    *name = xmalloc(strlen(r->name) + 32);
    sprintf(*name, "%s/tensor_%d", r->name, k);
    if (gd_index_find_input(index, *name) >= 0)
        return TFPI_OK;
    for (size_t i = 0; i < s->graph->n_node; i++) /* made earlier in this pass */
        if (strcmp(s->graph->node[i]->name, *name) == 0)
            return TFPI_OK;
    const ProtobufCBinaryData *key = r->n_input > 2 ? string_at(const_behind(s->graph, index, r->input[1]), k) : NULL;
    const ProtobufCBinaryData *slice = r->n_input > 2 ? string_at(const_behind(s->graph, index, r->input[2]), k) : NULL;
    if (!key || !slice || slice->len || memchr(key->data, 0, key->len) || !s->info || !s->info->checkpoint)
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "node '%s' (RestoreV2): output %d is not a whole tensor of the model's checkpoint "
                               "named by a constant", r->name, k);
    char *k_text = xstrndup((const char *)key->data, key->len);
    tfpi_tensor value = {0};
    tfpi_code code = tp_checkpoint_read(s->info->checkpoint, k_text, false, max_bytes, &value, status);
    if (code == TFPI_OK) {
        Tfpi__NodeDef *c = gd_node_new(*name, "Const");
        gd_attr_set_type(c, "dtype", value.dtype);
        gd_attr_set_tensor(c, "value", gd_tensor_copy(&value));
        gd_append_node(s->graph, c);
        ++*converted;
    }
    tp_tensor_release(&value);
    free(k_text);
    return code;
}

tfpi_code freeze_restores(model_source *s, int64_t max_bytes, int *converted, tfpi_status *status)
{
    Tfpi__GraphDef *g = s->graph;
    gd_index index;
    gd_index_build(&index, g);
    tfpi_code code = TFPI_OK;
    size_t n = g->n_node;
    for (size_t c = 0; c < n && code == TFPI_OK; c++) {
        Tfpi__NodeDef *node = g->node[c];
        for (size_t k = 0; k < node->n_input && code == TFPI_OK; k++) {
            gd_input in = gd_parse_input(node->input[k]);
            int src = in.control ? -1 : gd_index_find_input(&index, node->input[k]);
            if (src < 0 || strcmp(g->node[src]->op, "RestoreV2") != 0)
                continue;
            char *name = NULL;
            if ((code = restored_const(s, &index, g->node[src], in.index, max_bytes, &name, converted, status)) ==
                TFPI_OK)
                gd_set_string(&node->input[k], name);
            free(name);
        }
    }
    gd_index_free(&index);
    return code;
}
