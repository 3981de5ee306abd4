/* wire_nodedef.c - checks a serialized NodeDef (or each NodeDef of a
 * GraphDef, of a function library, an OpDef) before protobuf-c unpacks it: its name and op hold no NUL byte (the C strings would silently be
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

/* No NUL byte in the string fields a and b of a message. */
static const char *check_strings(const uint8_t *data, size_t size, uint32_t a, uint32_t b, const char *problem)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size && tp_wire_next(&r, &f))
        if (f.wire_type == TP_WIRE_LEN && (f.number == a || f.number == b) && memchr(f.bytes, 0, f.length))
            return problem;
    return NULL;
}

const char *tp_wire_check_op_def(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size && tp_wire_next(&r, &f)) {
        if (f.wire_type != TP_WIRE_LEN)
            continue;
        const char *problem = NULL;
        if (f.number == 1 && memchr(f.bytes, 0, f.length))
            problem = "its name holds a NUL byte";
        else if (f.number == 2 || f.number == 3) /* ArgDef: name, type_attr, number_attr, type_list_attr */
            problem = check_strings(f.bytes, f.length, 1, 4, "an argument name holds a NUL byte");
        if (!problem && (f.number == 2 || f.number == 3))
            problem = check_strings(f.bytes, f.length, 5, 6, "an argument name holds a NUL byte");
        if (f.number == 4) { /* AttrDef: name, default_value, allowed_values */
            tp_wire_reader a = {f.bytes, f.length, 0};
            tp_wire_field g;
            problem = check_strings(f.bytes, f.length, 1, 1, "an attribute name holds a NUL byte");
            while (!problem && a.pos < a.size && tp_wire_next(&a, &g))
                if (g.wire_type == TP_WIRE_LEN && (g.number == 3 || g.number == 7))
                    problem = check_nesting(g.bytes, g.length, ATTR_VALUE, 2);
        }
        if (problem)
            return problem;
    }
    return NULL;
}

/* One FunctionDef: its signature, body nodes, attributes and maps. */
static const char *check_function(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size && tp_wire_next(&r, &f)) {
        if (f.wire_type != TP_WIRE_LEN)
            continue;
        const char *problem = NULL;
        switch (f.number) {
        case 1: problem = tp_wire_check_op_def(f.bytes, f.length); break;
        case 3: problem = tp_wire_check_node_def(f.bytes, f.length); break;
        case 4: case 6: problem = check_strings(f.bytes, f.length, 1, 2, "a ret entry holds a NUL byte"); break;
        case 5: problem = check_nesting(f.bytes, f.length, ATTR_MAP_ENTRY, 1); break;
        case 7: { /* arg_attr: map<uint32, ArgAttrs{attr 1: map}> */
            tp_wire_reader e = {f.bytes, f.length, 0};
            tp_wire_field g, h;
            while (!problem && e.pos < e.size && tp_wire_next(&e, &g))
                if (g.number == 2 && g.wire_type == TP_WIRE_LEN) {
                    tp_wire_reader a = {g.bytes, g.length, 0};
                    while (!problem && a.pos < a.size && tp_wire_next(&a, &h))
                        if (h.number == 1 && h.wire_type == TP_WIRE_LEN)
                            problem = check_nesting(h.bytes, h.length, ATTR_MAP_ENTRY, 2);
                }
            break;
        }
        }
        if (problem)
            return problem;
    }
    return NULL;
}

const char *tp_wire_check_function_library(const uint8_t *data, size_t size, size_t *function)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    *function = 0;
    while (r.pos < r.size && tp_wire_next(&r, &f)) {
        if (f.number != 1 || f.wire_type != TP_WIRE_LEN)
            continue;
        const char *problem = check_function(f.bytes, f.length);
        if (problem)
            return problem;
        (*function)++;
    }
    return NULL;
}
