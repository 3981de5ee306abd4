/* graph_parse.c - reads a binary GraphDef. The top level (a sequence of
 * NodeDef fields) is walked here so each NodeDef is unpacked by protobuf-c on
 * its own: errors can name the node, and a caller that maps the file can drop
 * the pages already parsed, keeping peak memory near one copy of the model. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph/graph.h"
#include "tfpi.h"
#include "graph/wire.h"

typedef struct node_list {
    Tfpi__NodeDef **defs;
    size_t n, cap;
} node_list;

static bool node_list_push(node_list *list, Tfpi__NodeDef *def)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        Tfpi__NodeDef **grown = realloc(list->defs, cap * sizeof *grown);
        if (!grown)
            return false;
        list->defs = grown;
        list->cap = cap;
    }
    list->defs[list->n++] = def;
    return true;
}

/* Handles one top-level field; returns a problem description or NULL. */
static const char *read_field(const tp_wire_field *f, node_list *list, int *producer,
                              const char *source, tfpi_status *status)
{
    if (f->number == 1 && f->wire_type == TP_WIRE_LEN) {
        const char *problem = tp_wire_check_node_def(f->bytes, f->length);
        if (problem) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node %zu is not a valid NodeDef: %s", source,
                            list->n, problem);
            return "";
        }
        Tfpi__NodeDef *def = tfpi__node_def__unpack(NULL, f->length, f->bytes);
        if (!def) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: node %zu is not a valid NodeDef", source,
                     list->n);
            return "";
        }
        if (!node_list_push(list, def)) {
            tfpi__node_def__free_unpacked(def, NULL);
            tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
            return "";
        }
        return NULL;
    }
    if (f->number == 4 && f->wire_type == TP_WIRE_LEN) {
        Tfpi__VersionDef *v = tfpi__version_def__unpack(NULL, f->length, f->bytes);
        if (!v)
            return "invalid versions field";
        *producer = v->producer;
        tfpi__version_def__free_unpacked(v, NULL);
        return NULL;
    }
    if ((f->number == 2 && f->wire_type == TP_WIRE_LEN) ||
        (f->number == 3 && f->wire_type == TP_WIRE_VARINT))
        return NULL; /* function library, deprecated version */
    return "not a GraphDef field";
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

tfpi_graph *tp_graph_parse_binary(const uint8_t *data, size_t size, bool mapped, const char *source,
                                  tfpi_status *status)
{
    if (size == 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the file is empty", source);
        return NULL;
    }
    node_list list = {0};
    int producer = 0;
    tp_wire_reader r = {data, size, 0};
    const char *problem = NULL;
    size_t dropped = 0;
    while (!problem && r.pos < r.size) {
        size_t at = r.pos;
        tp_wire_field f;
        problem = tp_wire_next(&r, &f) ? read_field(&f, &list, &producer, source, status)
                                       : "malformed or truncated protobuf field";
        if (mapped)
            drop_parsed_pages(data, r.pos, &dropped);
        if (problem && *problem)
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a TensorFlow GraphDef (%s at byte %zu)",
                     source, problem, at);
    }
    if (problem) {
        for (size_t i = 0; i < list.n; i++)
            tfpi__node_def__free_unpacked(list.defs[i], NULL);
        free(list.defs);
        return NULL;
    }
    tfpi_graph *g = tp_graph_build(list.defs, (int)list.n, producer, source, status);
    free(list.defs);
    return g;
}
