/* graphdef_inspect.c - input strings, the name index, and TensorFlow's
 * spelling of types and shapes (see graphdef_inspect.h). */
#include "graphdef_inspect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfpi.h"
#include "graph/tensor_proto.h"

gd_input gd_parse_input(const char *input)
{
    gd_input in = {input, strlen(input), 0, false};
    if (input[0] == '^') {
        in.control = true;
        in.node++;
        in.len--;
        return in;
    }
    const char *colon = strrchr(input, ':');
    if (!colon || !colon[1])
        return in;
    long k = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (!isdigit((unsigned char)*p) || k > 1000000)
            return in;
        k = k * 10 + (*p - '0');
    }
    in.len = (size_t)(colon - input);
    in.index = (int)k;
    return in;
}

void gd_index_build(gd_index *index, const Tfpi__GraphDef *graph)
{
    if (!tp_name_map_init(&index->map, graph->n_node)) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < graph->n_node; i++)
        tp_name_map_insert(&index->map, graph->node[i]->name, (int)i);
}

void gd_index_free(gd_index *index) { tp_name_map_free(&index->map); }

int gd_index_find_input(const gd_index *index, const char *input)
{
    gd_input in = gd_parse_input(input);
    return tp_name_map_find(&index->map, in.node, in.len);
}

const char *gd_dtype_name(int dtype, char *buf, size_t size)
{
    bool ref = dtype > 100;
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&tfpi__data_type__descriptor, ref ? dtype - 100 : dtype);
    if (!v || dtype == 0) {
        snprintf(buf, size, dtype == 0 ? "INVALID" : "unknown dtype %d", dtype);
        return buf;
    }
    size_t n = 0;
    for (const char *p = v->name + 3; *p && n + 1 < size; p++) /* skip "DT_" */
        buf[n++] = (char)tolower((unsigned char)*p);
    buf[n] = '\0';
    if (ref)
        strncat(buf, "_ref", size - n - 1);
    return buf;
}

const char *gd_shape_string(const Tfpi__TensorShapeProto *shape, char *buf, size_t size)
{
    if (!shape || shape->unknown_rank) {
        snprintf(buf, size, "<unknown>");
        return buf;
    }
    size_t n = (size_t)snprintf(buf, size, "[");
    for (size_t i = 0; i < shape->n_dim && n < size; i++) {
        int64_t d = shape->dim[i]->size;
        n += d < 0 ? (size_t)snprintf(buf + n, size - n, "%s?", i ? "," : "")
                   : (size_t)snprintf(buf + n, size - n, "%s%lld", i ? "," : "", (long long)d);
    }
    if (n < size)
        snprintf(buf + n, size - n, "]");
    return buf;
}

int64_t gd_shape_elements(const Tfpi__TensorShapeProto *shape)
{
    if (!shape)
        return 1; /* no shape: a scalar */
    if (shape->unknown_rank)
        return -1;
    const int64_t limit = (int64_t)1 << 40;
    int64_t n = 1;
    for (size_t i = 0; i < shape->n_dim; i++) {
        int64_t d = shape->dim[i]->size;
        if (d < 0 || (d > 0 && n > limit / d))
            return -1;
        n *= d;
    }
    return n;
}

tfpi_code gd_tensor_value(const Tfpi__TensorProto *proto, tfpi_tensor *out, void **owned, const char *what,
                          tfpi_status *status)
{
    *owned = NULL;
    if (gd_shape_elements(proto->tensor_shape) < 0)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: tensor has no usable shape", what);
    return tp_tensor_from_proto(proto, out, owned, what, status);
}
