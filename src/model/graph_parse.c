/* graph_parse.c - reads a binary GraphDef. The top level (a sequence of
 * NodeDef fields) is walked here so each NodeDef is unpacked by protobuf-c on
 * its own: errors can name the node, and a caller that maps the file can drop
 * the pages already parsed, keeping peak memory near one copy of the model. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph/graph.h"
#include "graph/node_build.h"
#include "graph/wire.h"
#include "model/mapped_constants.h"
#include "tfpi.h"

/* What the top-level fields give. */
typedef struct parsed {
    tp_node_list nodes;
    int producer;
    const uint8_t *library; /* GraphDef.library, serialized; NULL if absent */
    size_t library_size;
    tp_mapped_notes *notes; /* a mapped file's 8-bit constants, or NULL */
} parsed;

/* Handles one top-level field; returns a problem description or NULL. */
static const char *read_field(const tp_wire_field *f, parsed *p, const char *source, tfpi_status *status)
{
    if (f->number == 1 && f->wire_type == TP_WIRE_LEN) {
        const char *problem = tp_wire_check_node_def(f->bytes, f->length);
        if (problem) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node %zu is not a valid NodeDef: %s", source,
                            p->nodes.n, problem);
            return "";
        }
        Tfpi__NodeDef *def = tfpi__node_def__unpack(NULL, f->length, f->bytes);
        if (!def) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node %zu is not a valid NodeDef", source,
                     p->nodes.n);
            return "";
        }
        if (p->notes && !tp_mapped_constants_note(p->notes, def, f->bytes, f->length)) {
            tfpi__node_def__free_unpacked(def, NULL);
            def = NULL;
        }
        if (!def || !tp_node_list_push(&p->nodes, def)) {
            tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
            return "";
        }
        return NULL;
    }
    if (f->number == 4 && f->wire_type == TP_WIRE_LEN) {
        Tfpi__VersionDef *v = tfpi__version_def__unpack(NULL, f->length, f->bytes);
        if (!v)
            return "invalid versions field";
        p->producer = v->producer;
        tfpi__version_def__free_unpacked(v, NULL);
        return NULL;
    }
    if (f->number == 2 && f->wire_type == TP_WIRE_LEN) { /* the function library: read when a node calls it */
        p->library = f->bytes;
        p->library_size = f->length;
        return NULL;
    }
    if (f->number == 3 && f->wire_type == TP_WIRE_VARINT)
        return NULL; /* deprecated version */
    return "not a GraphDef field";
}

bool tp_graph_def_wire_ok(const uint8_t *data, size_t size)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size) {
        if (!tp_wire_next(&r, &f))
            return false;
        bool known = f.wire_type == ((f.number == 1 || f.number == 2 || f.number == 4) ? TP_WIRE_LEN
                                     : f.number == 3                                 ? TP_WIRE_VARINT
                                                                                     : -1);
        if (!known || (f.number == 1 && tp_wire_check_node_def(f.bytes, f.length)))
            return false;
    }
    return true;
}

/* Gives the pages of a file mapping below `end` back to the kernel once a
 * megabyte or more has been parsed: NodeDefs are copies, so peak memory stays
 * near one copy of the model instead of two. */
static void drop_parsed_pages(const uint8_t *data, size_t end, size_t *dropped)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t upto = end / page * page;
    if (upto >= *dropped + (1u << 20)) {
        madvise((void *)(uintptr_t)(data + *dropped), upto - *dropped, MADV_DONTNEED);
        *dropped = upto;
    }
}

/* notes: data is a mapped file (its pages are dropped as they are parsed)
 * whose 8-bit constants are noted there; else NULL. */
static tfpi_graph *parse(const uint8_t *data, size_t size, tp_mapped_notes *notes, const Tfpi__OpList *ops,
                         const char *source, tfpi_status *status)
{
    if (size == 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the file is empty", source);
        return NULL;
    }
    parsed p = {.notes = notes};
    tp_wire_reader r = {data, size, 0};
    const char *problem = NULL;
    size_t dropped = 0;
    while (!problem && r.pos < r.size) {
        size_t at = r.pos;
        tp_wire_field f;
        problem = tp_wire_next(&r, &f) ? read_field(&f, &p, source, status) : "malformed or truncated protobuf field";
        if (notes)
            drop_parsed_pages(data, r.pos, &dropped);
        if (problem && *problem)
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a TensorFlow GraphDef (%s at byte %zu)",
                     source, problem, at);
    }
    if (problem) {
        tp_node_list_free(&p.nodes);
        return NULL;
    }
    tfpi_graph *g = p.library || ops ? tp_graph_build_functions(p.nodes.defs, (int)p.nodes.n, p.producer, p.library,
                                                                 p.library_size, ops, source, status)
                                     : tp_graph_build(p.nodes.defs, (int)p.nodes.n, p.producer, source, status);
    free(p.nodes.defs);
    return g;
}

tfpi_graph *tp_graph_parse_binary(const uint8_t *data, size_t size, const char *source, tfpi_status *status)
{
    return parse(data, size, NULL, NULL, source, status);
}

tfpi_graph *tp_graph_parse_mapped(tp_model_bytes *bytes, const char *source, tfpi_status *status)
{
    tp_mapped_notes notes = {0};
    tfpi_graph *g = parse(bytes->data, bytes->size, &notes, NULL, source, status);
    if (g)
        tp_mapped_constants_adopt(g, &notes, bytes);
    free(notes.items);
    return g;
}

tfpi_graph *tp_graph_parse_with_ops(const uint8_t *data, size_t size, const uint8_t *op_list, size_t op_list_size,
                                    const char *source, tfpi_status *status)
{
    tp_wire_reader r = {op_list, op_list_size, 0};
    tp_wire_field f;
    while (r.pos < r.size && tp_wire_next(&r, &f)) {
        const char *problem = f.number == 1 && f.wire_type == TP_WIRE_LEN ? tp_wire_check_op_def(f.bytes, f.length)
                                                                          : NULL;
        if (problem) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the graph's op list is not valid: %s", source, problem);
            return NULL;
        }
    }
    Tfpi__OpList *ops = op_list_size ? tfpi__op_list__unpack(NULL, op_list_size, op_list) : NULL;
    if (op_list_size && !ops) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the graph's op list (stripped_op_list) is not valid",
                        source);
        return NULL;
    }
    tfpi_graph *g = parse(data, size, NULL, ops, source, status);
    if (ops)
        tfpi__op_list__free_unpacked(ops, NULL);
    return g;
}
