/* wire_nodedef.c - checks a serialized NodeDef (or each NodeDef of a
 * GraphDef) before protobuf-c unpacks it: its name and op hold no NUL byte (the C strings would silently be
 * cut short), and its attribute values (AttrValue -> func / list.func ->
 * NameAttrList -> attr -> AttrValue ...) nest at most TP_WIRE_MAX_DEPTH
 * levels, as protobuf's other runtimes limit recursion, so the unpacker
 * cannot run out of stack. */
#include <string.h>

#include "graph/wire.h"

/* The message kinds on the recursive path. */
typedef enum kind { ATTR_MAP_ENTRY, ATTR_VALUE, LIST_VALUE, NAME_ATTR_LIST } kind;

/* The submessage field of `k` that leads further down, if f is one. */
static bool descends(kind k, const tp_wire_field *f, kind *next)
{
    if (f->wire_type != TP_WIRE_LEN)
        return false;
    switch (k) {
    case ATTR_MAP_ENTRY: *next = ATTR_VALUE; return f->number == 2;
    case ATTR_VALUE:
        *next = f->number == 1 ? LIST_VALUE : NAME_ATTR_LIST;
        return f->number == 1 || f->number == 10;
    case LIST_VALUE: *next = NAME_ATTR_LIST; return f->number == 9;
    case NAME_ATTR_LIST: *next = ATTR_MAP_ENTRY; return f->number == 2;
    }
    return false;
}

/* Walks a message of kind k at nesting depth `depth`. */
static const char *check_nesting(const uint8_t *data, size_t size, kind k, int depth)
{
    if (depth > TP_WIRE_MAX_DEPTH)
        return "attribute values nest more than 100 levels deep";
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    kind next;
    while (r.pos < r.size) {
        if (!tp_wire_next(&r, &f))
            return NULL; /* malformed: protobuf-c reports it */
        const char *problem = descends(k, &f, &next) ? check_nesting(f.bytes, f.length, next, depth + 1) : NULL;
        if (problem)
            return problem;
    }
    return NULL;
}

const char *tp_wire_check_node_def(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size) {
        if (!tp_wire_next(&r, &f))
            return NULL;
        if (f.wire_type != TP_WIRE_LEN)
            continue;
        if ((f.number == 1 || f.number == 2) && memchr(f.bytes, 0, f.length))
            return f.number == 1 ? "its name holds a NUL byte" : "its op holds a NUL byte";
        const char *problem = f.number == 5 ? check_nesting(f.bytes, f.length, ATTR_MAP_ENTRY, 1) : NULL;
        if (problem)
            return problem;
    }
    return NULL;
}

const char *tp_wire_check_graph_def(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size && tp_wire_next(&r, &f)) {
        const char *problem = f.number == 1 && f.wire_type == TP_WIRE_LEN ? tp_wire_check_node_def(f.bytes, f.length)
                                                                          : NULL;
        if (problem)
            return problem;
    }
    return NULL;
}
