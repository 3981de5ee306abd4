/* graphdef_edit.c - malloc'd construction and in-place edits of NodeDefs,
 * attributes and TensorProtos (see graphdef_edit.h). */
#include "graphdef_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
#include "xalloc.h"

void gd_set_string(char **field, const char *value)
{
    char *copy = xstrdup(value);
    if (*field != protobuf_c_empty_string)
        free(*field);
    *field = copy;
}

Tfpi__NodeDef *gd_node_new(const char *name, const char *op)
{
    Tfpi__NodeDef *node = xmalloc(sizeof *node);
    tfpi__node_def__init(node);
    node->name = xstrdup(name);
    node->op = xstrdup(op);
    return node;
}

void gd_append_node(Tfpi__GraphDef *graph, Tfpi__NodeDef *node)
{
    graph->node = xrealloc(graph->node, (graph->n_node + 1) * sizeof *graph->node);
    graph->node[graph->n_node++] = node;
}

void gd_add_input(Tfpi__NodeDef *node, const char *input)
{
    node->input = xrealloc(node->input, (node->n_input + 1) * sizeof *node->input);
    node->input[node->n_input++] = xstrdup(input);
}

void gd_remove_control_inputs(Tfpi__GraphDef *graph)
{
    for (size_t i = 0; i < graph->n_node; i++) {
        Tfpi__NodeDef *node = graph->node[i];
        size_t kept = 0;
        for (size_t k = 0; k < node->n_input; k++) {
            if (node->input[k][0] == '^')
                free(node->input[k]);
            else
                node->input[kept++] = node->input[k];
        }
        node->n_input = kept;
    }
}

static Tfpi__NodeDef__AttrEntry *find_entry(const Tfpi__NodeDef *node, const char *key, size_t *index)
{
    for (size_t i = 0; i < node->n_attr; i++) {
        if (node->attr[i]->key && strcmp(node->attr[i]->key, key) == 0) {
            if (index)
                *index = i;
            return node->attr[i];
        }
    }
    return NULL;
}

static Tfpi__AttrValue *new_value(void)
{
    Tfpi__AttrValue *v = xmalloc(sizeof *v);
    tfpi__attr_value__init(v);
    return v;
}

/* The entry for key, created (with no value) if the node has none. */
static Tfpi__NodeDef__AttrEntry *entry_for(Tfpi__NodeDef *node, const char *key)
{
    Tfpi__NodeDef__AttrEntry *e = find_entry(node, key, NULL);
    if (!e) {
        e = xmalloc(sizeof *e);
        tfpi__node_def__attr_entry__init(e);
        e->key = xstrdup(key);
        node->attr = xrealloc(node->attr, (node->n_attr + 1) * sizeof *node->attr);
        node->attr[node->n_attr++] = e;
    }
    tfpi__attr_value__free_unpacked(e->value, NULL);
    e->value = NULL;
    return e;
}

Tfpi__AttrValue *gd_attr_set(Tfpi__NodeDef *node, const char *key)
{
    Tfpi__NodeDef__AttrEntry *e = entry_for(node, key);
    e->value = new_value();
    return e->value;
}

void gd_attr_set_copy(Tfpi__NodeDef *node, const char *key, const Tfpi__AttrValue *value)
{
    size_t size = tfpi__attr_value__get_packed_size(value);
    uint8_t *bytes = xmalloc(size);
    tfpi__attr_value__pack(value, bytes);
    Tfpi__AttrValue *copy = tfpi__attr_value__unpack(NULL, size, bytes);
    free(bytes);
    if (!copy) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    entry_for(node, key)->value = copy;
}

bool gd_attr_remove(Tfpi__NodeDef *node, const char *key)
{
    size_t i;
    Tfpi__NodeDef__AttrEntry *e = find_entry(node, key, &i);
    if (!e)
        return false;
    protobuf_c_message_free_unpacked(&e->base, NULL);
    memmove(&node->attr[i], &node->attr[i + 1], (node->n_attr - i - 1) * sizeof *node->attr);
    node->n_attr--;
    return true;
}

void gd_attr_remove_all(Tfpi__NodeDef *node)
{
    for (size_t i = 0; i < node->n_attr; i++)
        protobuf_c_message_free_unpacked(&node->attr[i]->base, NULL);
    free(node->attr);
    node->attr = NULL;
    node->n_attr = 0;
}

void gd_attr_set_type(Tfpi__NodeDef *node, const char *key, int dtype)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_TYPE;
    v->type = (Tfpi__DataType)dtype;
}

void gd_attr_set_string(Tfpi__NodeDef *node, const char *key, const char *value)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_S;
    v->s.len = strlen(value);
    v->s.data = (uint8_t *)xstrdup(value);
}

void gd_attr_set_int(Tfpi__NodeDef *node, const char *key, int64_t value)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_I;
    v->i = value;
}

void gd_attr_set_float(Tfpi__NodeDef *node, const char *key, float value)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_F;
    v->f = value;
}

void gd_attr_set_bool(Tfpi__NodeDef *node, const char *key, bool value)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_B;
    v->b = value;
}

void gd_attr_set_ints(Tfpi__NodeDef *node, const char *key, const int64_t *values, size_t count)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_LIST;
    v->list = xmalloc(sizeof *v->list);
    tfpi__attr_value__list_value__init(v->list);
    if (count > 0) {
        v->list->i = xmalloc(count * sizeof *v->list->i);
        memcpy(v->list->i, values, count * sizeof *v->list->i);
        v->list->n_i = count;
    }
}

void gd_attr_set_shape(Tfpi__NodeDef *node, const char *key, const int64_t *dims, int ndims)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_SHAPE;
    v->shape = gd_shape_new(dims, ndims);
}

void gd_attr_set_tensor(Tfpi__NodeDef *node, const char *key, Tfpi__TensorProto *tensor)
{
    Tfpi__AttrValue *v = gd_attr_set(node, key);
    v->value_case = TFPI__ATTR_VALUE__VALUE_TENSOR;
    v->tensor = tensor;
}

Tfpi__TensorShapeProto *gd_shape_new(const int64_t *dims, int ndims)
{
    Tfpi__TensorShapeProto *shape = xmalloc(sizeof *shape);
    tfpi__tensor_shape_proto__init(shape);
    if (ndims < 0) {
        shape->unknown_rank = 1;
        return shape;
    }
    shape->n_dim = (size_t)ndims;
    shape->dim = xcalloc((size_t)ndims, sizeof *shape->dim);
    for (int i = 0; i < ndims; i++) {
        shape->dim[i] = xmalloc(sizeof *shape->dim[i]);
        tfpi__tensor_shape_proto__dim__init(shape->dim[i]);
        shape->dim[i]->size = dims[i];
    }
    return shape;
}

Tfpi__TensorProto *gd_tensor_new(int dtype, const int64_t *dims, int ndims, const void *content,
                                 size_t bytes)
{
    Tfpi__TensorProto *t = xmalloc(sizeof *t);
    tfpi__tensor_proto__init(t);
    t->dtype = (Tfpi__DataType)dtype;
    t->tensor_shape = gd_shape_new(dims, ndims);
    if (bytes > 0) {
        t->tensor_content.data = xmalloc(bytes);
        memcpy(t->tensor_content.data, content, bytes);
        t->tensor_content.len = bytes;
    }
    return t;
}

Tfpi__TensorProto *gd_tensor_copy(const tfpi_tensor *t)
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
