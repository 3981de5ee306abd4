/* node_build.c - NodeDefs and AttrValues made in memory, allocated the way
 * protobuf-c's unpacker allocates (malloc), so free_unpacked frees them. */
#include "graph/node_build.h"

#include <stdlib.h>
#include <string.h>

bool tp_node_list_push(tp_node_list *list, Tfpi__NodeDef *def)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        Tfpi__NodeDef **grown = realloc(list->defs, cap * sizeof *grown);
        if (!grown) {
            tfpi__node_def__free_unpacked(def, NULL);
            return false;
        }
        list->defs = grown;
        list->cap = cap;
    }
    list->defs[list->n++] = def;
    return true;
}

void tp_node_list_free(tp_node_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        tfpi__node_def__free_unpacked(list->defs[i], NULL);
    free(list->defs);
    *list = (tp_node_list){0};
}

Tfpi__NodeDef *tp_node_new(const char *name, const char *op)
{
    Tfpi__NodeDef *def = malloc(sizeof *def);
    if (!def)
        return NULL;
    tfpi__node_def__init(def);
    char *n = strdup(name), *o = strdup(op);
    if (!n || !o) {
        free(n);
        free(o);
        free(def);
        return NULL;
    }
    def->name = n;
    def->op = o;
    return def;
}

/* Packs and unpacks a message: a deep copy owned by the caller. */
static void *copy_message(const ProtobufCMessage *m, const ProtobufCMessageDescriptor *descriptor)
{
    size_t size = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(size + 1);
    if (!buf)
        return NULL;
    protobuf_c_message_pack(m, buf);
    void *copy = protobuf_c_message_unpack(descriptor, NULL, size, buf);
    free(buf);
    return copy;
}

Tfpi__NodeDef *tp_node_copy(const Tfpi__NodeDef *def)
{
    return copy_message(&def->base, &tfpi__node_def__descriptor);
}

Tfpi__AttrValue *tp_attr_value_copy(const Tfpi__AttrValue *value)
{
    return copy_message(&value->base, &tfpi__attr_value__descriptor);
}

bool tp_node_add_input(Tfpi__NodeDef *def, const char *input)
{
    char **grown = realloc(def->input, (def->n_input + 1) * sizeof *grown);
    if (!grown)
        return false;
    def->input = grown;
    if (!(grown[def->n_input] = strdup(input)))
        return false;
    def->n_input++;
    return true;
}

bool tp_node_add_control(Tfpi__NodeDef *def, const char *node_name)
{
    size_t len = strlen(node_name);
    char *control = malloc(len + 2);
    if (!control)
        return false;
    control[0] = '^';
    memcpy(control + 1, node_name, len + 1);
    bool ok = tp_node_add_input(def, control);
    free(control);
    return ok;
}

bool tp_node_set_inputs(Tfpi__NodeDef *def, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < def->n_input; i++)
        free(def->input[i]);
    free(def->input);
    def->input = NULL;
    def->n_input = 0;
    for (size_t i = 0; i < n; i++)
        if (!tp_node_add_input(def, inputs[i]))
            return false;
    return true;
}

bool tp_node_rename(Tfpi__NodeDef *def, const char *name)
{
    char *copy = strdup(name);
    if (!copy)
        return false;
    if (def->name != protobuf_c_empty_string)
        free(def->name);
    def->name = copy;
    return true;
}

bool tp_node_set_attr(Tfpi__NodeDef *def, const char *key, Tfpi__AttrValue *value)
{
    if (!value)
        return false;
    for (size_t i = 0; i < def->n_attr; i++)
        if (def->attr[i]->key && strcmp(def->attr[i]->key, key) == 0) {
            if (def->attr[i]->value)
                tfpi__attr_value__free_unpacked(def->attr[i]->value, NULL);
            def->attr[i]->value = value;
            return true;
        }
    Tfpi__NodeDef__AttrEntry *entry = malloc(sizeof *entry);
    Tfpi__NodeDef__AttrEntry **grown = entry ? realloc(def->attr, (def->n_attr + 1) * sizeof *grown) : NULL;
    char *k = grown ? strdup(key) : NULL;
    if (grown)
        def->attr = grown;
    if (!k) {
        free(entry);
        tfpi__attr_value__free_unpacked(value, NULL);
        return false;
    }
    tfpi__node_def__attr_entry__init(entry);
    entry->key = k;
    entry->value = value;
    def->attr[def->n_attr++] = entry;
    return true;
}

static Tfpi__AttrValue *new_value(Tfpi__AttrValue__ValueCase kind)
{
    Tfpi__AttrValue *v = malloc(sizeof *v);
    if (v) {
        tfpi__attr_value__init(v);
        v->value_case = kind;
    }
    return v;
}

Tfpi__AttrValue *tp_attr_new_type(tfpi_dtype type)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_TYPE);
    if (v)
        v->type = (Tfpi__DataType)type;
    return v;
}

Tfpi__AttrValue *tp_attr_new_int(int64_t i)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_I);
    if (v)
        v->i = i;
    return v;
}

Tfpi__AttrValue *tp_attr_new_bool(bool b)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_B);
    if (v)
        v->b = b;
    return v;
}

Tfpi__AttrValue *tp_attr_new_string(const char *s)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_S);
    size_t len = strlen(s);
    if (v && !(v->s.data = malloc(len + 1))) {
        free(v);
        return NULL;
    }
    if (v) {
        memcpy(v->s.data, s, len);
        v->s.data[len] = 0; /* so a reader may use it as a C string */
        v->s.len = len;
    }
    return v;
}

Tfpi__AttrValue *tp_attr_new_type_list(const tfpi_dtype *types, size_t n)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_LIST);
    Tfpi__AttrValue__ListValue *list = v ? malloc(sizeof *list) : NULL;
    Tfpi__DataType *items = list ? malloc((n + 1) * sizeof *items) : NULL;
    if (!items) {
        free(list);
        free(v);
        return NULL;
    }
    tfpi__attr_value__list_value__init(list);
    for (size_t i = 0; i < n; i++)
        items[i] = (Tfpi__DataType)types[i];
    list->type = items;
    list->n_type = n;
    v->list = list;
    return v;
}

Tfpi__AttrValue *tp_attr_new_int32_scalar(int32_t value)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_TENSOR);
    Tfpi__TensorProto *t = v ? malloc(sizeof *t) : NULL;
    Tfpi__TensorShapeProto *shape = t ? malloc(sizeof *shape) : NULL;
    int32_t *ints = shape ? malloc(sizeof *ints) : NULL;
    if (!ints) {
        free(shape);
        free(t);
        free(v);
        return NULL;
    }
    tfpi__tensor_proto__init(t);
    tfpi__tensor_shape_proto__init(shape);
    t->dtype = TFPI__DATA_TYPE__DT_INT32;
    t->tensor_shape = shape;
    ints[0] = value;
    t->int_val = ints;
    t->n_int_val = 1;
    v->tensor = t;
    return v;
}

/* A TensorShapeProto of dims[0..n) (-1: unknown size; n < 0: unknown rank). */
static Tfpi__TensorShapeProto *new_shape(const int64_t *dims, int n)
{
    Tfpi__TensorShapeProto *shape = malloc(sizeof *shape);
    if (!shape)
        return NULL;
    tfpi__tensor_shape_proto__init(shape);
    shape->unknown_rank = n < 0;
    size_t count = n > 0 ? (size_t)n : 0;
    shape->dim = calloc(count + 1, sizeof *shape->dim);
    for (size_t i = 0; shape->dim && i < count; i++) {
        if (!(shape->dim[i] = malloc(sizeof *shape->dim[i])))
            break;
        tfpi__tensor_shape_proto__dim__init(shape->dim[i]);
        shape->dim[i]->size = dims[i];
        shape->n_dim = i + 1;
    }
    if (!shape->dim || shape->n_dim != count) {
        tfpi__tensor_shape_proto__free_unpacked(shape, NULL);
        return NULL;
    }
    return shape;
}

Tfpi__AttrValue *tp_attr_new_shape(const int64_t *dims, int n)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_SHAPE);
    if (v && !(v->shape = new_shape(dims, n))) {
        free(v);
        return NULL;
    }
    return v;
}

Tfpi__AttrValue *tp_attr_new_tensor(tfpi_dtype dtype, const int64_t *dims, int n, const void *data, size_t bytes)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_TENSOR);
    Tfpi__TensorProto *t = v ? malloc(sizeof *t) : NULL;
    if (t)
        tfpi__tensor_proto__init(t);
    if (v)
        v->tensor = t;
    if (!t || !(t->tensor_shape = new_shape(dims, n)) || !(t->tensor_content.data = malloc(bytes + 1))) {
        if (v)
            tfpi__attr_value__free_unpacked(v, NULL);
        return NULL;
    }
    t->dtype = (Tfpi__DataType)dtype;
    if (bytes)
        memcpy(t->tensor_content.data, data, bytes);
    t->tensor_content.len = bytes;
    return v;
}

Tfpi__AttrValue *tp_attr_new_list(void)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_LIST);
    if (v && !(v->list = malloc(sizeof *v->list))) {
        free(v);
        return NULL;
    }
    if (v)
        tfpi__attr_value__list_value__init(v->list);
    return v;
}

Tfpi__AttrValue *tp_attr_new_int_list(const int64_t *values, size_t n)
{
    Tfpi__AttrValue *v = tp_attr_new_list();
    if (v && !(v->list->i = malloc((n + 1) * sizeof *v->list->i))) {
        tfpi__attr_value__free_unpacked(v, NULL);
        return NULL;
    }
    if (v && n)
        memcpy(v->list->i, values, n * sizeof *values);
    if (v)
        v->list->n_i = n;
    return v;
}

Tfpi__AttrValue *tp_attr_new_float_list(const float *values, size_t n)
{
    Tfpi__AttrValue *v = tp_attr_new_list();
    if (v && !(v->list->f = malloc((n + 1) * sizeof *v->list->f))) {
        tfpi__attr_value__free_unpacked(v, NULL);
        return NULL;
    }
    if (v && n)
        memcpy(v->list->f, values, n * sizeof *values);
    if (v)
        v->list->n_f = n;
    return v;
}

Tfpi__AttrValue *tp_attr_new_float(float f)
{
    Tfpi__AttrValue *v = new_value(TFPI__ATTR_VALUE__VALUE_F);
    if (v)
        v->f = f;
    return v;
}
