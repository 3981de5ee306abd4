/* tflite_strings.c - a constant STRING tensor of a .tflite file (a hash
 * table's vocabulary) as a Const node (tflite_strings.h). TFLite lays the
 * buffer out as an int32 count n, n + 1 int32 offsets from the buffer's
 * start (string i is bytes [offset[i], offset[i + 1])), then the bytes;
 * every number is checked against the buffer and the tensor's shape. */
#include "model/tflite_strings.h"

#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static tfpi_code bad(tp_tfl_translator *x, int32_t t, const char *what, long long a, long long b)
{
    return tfpi_status_set(x->status, TFPI_INVALID_ARGUMENT, "%s: tensor %d ('%s'): its strings' buffer %s (%lld, %lld)",
                           x->source, (int)t, x->g->tensors[t].name, what, a, b);
}

/* A TensorProto of the strings, or NULL with the status set. */
static Tfpi__AttrValue *decode(tp_tfl_translator *x, int32_t t, const tp_tfl_buffer *b)
{
    const tp_tfl_tensor *tensor = &x->g->tensors[t];
    int64_t elements;
    if (!tp_checked_product(tensor->dims, tensor->ndims, &elements))
        elements = -1; /* the loader refuses such shapes already */
    uint32_t n = b->size >= 4 ? le32(b->data) : 0;
    uint64_t header = 4 + 4 * ((uint64_t)n + 1);
    if (b->size < 4 || header > b->size) {
        bad(x, t, "is shorter than its count and offsets (bytes, strings)", (long long)b->size, (long long)n);
        return NULL;
    }
    if ((int64_t)n != elements) {
        bad(x, t, "holds a different number of strings than the shape's elements", (long long)n, (long long)elements);
        return NULL;
    }
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t at = le32(b->data + 4 + 4 * (size_t)i), previous = i ? le32(b->data + 4 * (size_t)i) : (uint32_t)header;
        if (at < previous || at > b->size) {
            bad(x, t, "has an offset before the one ahead of it or past its end (offset, bytes)", (long long)at,
                (long long)b->size);
            return NULL;
        }
    }
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, tensor->dims, sizeof dims);
    Tfpi__AttrValue *value = tp_attr_new_tensor(TFPI_STRING, dims, tensor->ndims, NULL, 0);
    Tfpi__TensorProto *proto = value ? value->tensor : NULL;
    if (proto && !(proto->string_val = calloc((size_t)n + 1, sizeof *proto->string_val))) {
        tfpi__attr_value__free_unpacked(value, NULL);
        proto = NULL;
    }
    for (uint32_t i = 0; proto && i < n; i++) {
        uint32_t from = le32(b->data + 4 + 4 * (size_t)i), to = le32(b->data + 8 + 4 * (size_t)i);
        ProtobufCBinaryData *s = &proto->string_val[i];
        if (!(s->data = malloc((size_t)(to - from) + 1))) {
            tfpi__attr_value__free_unpacked(value, NULL);
            proto = NULL;
            break;
        }
        memcpy(s->data, b->data + from, to - from);
        s->len = to - from;
        proto->n_string_val = i + 1;
    }
    if (!proto)
        tfpi_status_set(x->status, TFPI_OUT_OF_MEMORY, "%s: out of memory reading tensor %d's strings", x->source,
                        (int)t);
    return proto ? value : NULL;
}

Tfpi__NodeDef *tp_tfl_string_const(tp_tfl_translator *x, int32_t t, const char *name)
{
    const tp_tfl_buffer *b = tp_tfl_tensor_data(x->m, &x->g->tensors[t]);
    Tfpi__AttrValue *value = b ? decode(x, t, b) : NULL;
    if (!value)
        return NULL;
    Tfpi__NodeDef *def = tp_tfl_emit(x, name, "Const", NULL, 0);
    if (!def) {
        tfpi__attr_value__free_unpacked(value, NULL);
        return NULL;
    }
    if (!tp_tfl_attr(x, def, "dtype", tp_attr_new_type(TFPI_STRING))) {
        tfpi__attr_value__free_unpacked(value, NULL);
        return NULL;
    }
    return tp_tfl_attr(x, def, "value", value) ? def : NULL;
}
