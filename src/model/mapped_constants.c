/* mapped_constants.c - a binary GraphDef's 8-bit constants read in place
 * from the mapped model file, and dropping constants' pages
 * (mapped_constants.h). */
#include "model/mapped_constants.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graph/wire.h"

/* Smaller constants stay copies: dropping their pages would gain little. */
enum { SMALLEST_MAPPED = 4096 };

/* What the graph keeps: the mapping, and the tensors pointing into it. */
typedef struct mapped_backing {
    tp_model_bytes bytes;
    Tfpi__TensorProto **tensors;
    size_t n;
} mapped_backing;

static bool is_8bit(int dtype)
{
    return dtype == TFPI_INT8 || dtype == TFPI_UINT8 || dtype == TFPI_QINT8 || dtype == TFPI_QUINT8;
}

/* The "value" attribute's tensor, or NULL. */
static const Tfpi__TensorProto *value_tensor(const Tfpi__NodeDef *def)
{
    for (size_t i = 0; i < def->n_attr; i++)
        if (def->attr[i]->key && strcmp(def->attr[i]->key, "value") == 0)
            return def->attr[i]->value && def->attr[i]->value->value_case == TFPI__ATTR_VALUE__VALUE_TENSOR
                       ? def->attr[i]->value->tensor
                       : NULL;
    return NULL;
}

/* The last length-delimited field `number` of a message's wire form, or
 * false. */
static bool last_field(const uint8_t *data, size_t size, uint32_t number, tp_wire_field *out)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    bool found = false;
    while (r.pos < r.size && tp_wire_next(&r, &f))
        if (f.number == number && f.wire_type == TP_WIRE_LEN) {
            *out = f;
            found = true;
        }
    return found;
}

/* Where the value attribute's tensor_content (NodeDef.attr = 5, entry key 1
 * and value 2, AttrValue.tensor = 8, TensorProto.tensor_content = 4) lies
 * in the NodeDef's wire form, or NULL. */
static const uint8_t *find_content(const uint8_t *wire, size_t size)
{
    tp_wire_reader r = {wire, size, 0};
    tp_wire_field f, key, value, tensor, content;
    const uint8_t *found = NULL;
    while (r.pos < r.size && tp_wire_next(&r, &f))
        if (f.number == 5 && f.wire_type == TP_WIRE_LEN && last_field(f.bytes, f.length, 1, &key) &&
            key.length == 5 && memcmp(key.bytes, "value", 5) == 0 && last_field(f.bytes, f.length, 2, &value) &&
            last_field(value.bytes, value.length, 8, &tensor) &&
            last_field(tensor.bytes, tensor.length, 4, &content))
            found = content.bytes;
    return found;
}

bool tp_mapped_constants_note(tp_mapped_notes *notes, const Tfpi__NodeDef *def, const uint8_t *wire, size_t size)
{
    const Tfpi__TensorProto *t = def->op && strcmp(def->op, "Const") == 0 ? value_tensor(def) : NULL;
    if (!t || !is_8bit(t->dtype) || t->tensor_content.len < SMALLEST_MAPPED)
        return true;
    /* The parser's copy is what counts: a file whose fields repeat or merge
     * is read from the file only where the bytes are the same. */
    const uint8_t *in_file = find_content(wire, size);
    if (!in_file || (size_t)(wire + size - in_file) < t->tensor_content.len ||
        memcmp(in_file, t->tensor_content.data, t->tensor_content.len) != 0)
        return true;
    if (notes->n == notes->cap) {
        size_t cap = notes->cap ? 2 * notes->cap : 16;
        tp_mapped_note *items = realloc(notes->items, cap * sizeof *items);
        if (!items)
            return false;
        notes->items = items;
        notes->cap = cap;
    }
    notes->items[notes->n++] = (tp_mapped_note){def, t, t->tensor_content.data, in_file};
    return true;
}

static int by_def(const void *a, const void *b)
{
    const uintptr_t x = (uintptr_t)((const tp_mapped_note *)a)->def, y = (uintptr_t)((const tp_mapped_note *)b)->def;
    return (x > y) - (x < y);
}

/* Gives the tensors back their own (empty) content, so that freeing the
 * NodeDefs frees nothing of the mapping, and releases the mapping. */
static void mapped_backing_free(void *p)
{
    mapped_backing *m = p;
    for (size_t i = 0; i < m->n; i++)
        m->tensors[i]->tensor_content = (ProtobufCBinaryData){0, NULL};
    free(m->tensors);
    m->bytes.release(m->bytes.data, m->bytes.size);
    free(m);
}

void tp_mapped_constants_adopt(tfpi_graph *g, tp_mapped_notes *notes, tp_model_bytes *bytes)
{
    mapped_backing *m = NULL;
    if (notes->n && !g->backing && (m = calloc(1, sizeof *m)) &&
        !(m->tensors = malloc(notes->n * sizeof *m->tensors))) {
        free(m);
        m = NULL;
    }
    if (m) {
        qsort(notes->items, notes->n, sizeof *notes->items, by_def);
        for (int i = 0; i < g->num_nodes; i++) {
            const tp_mapped_note key = {.def = g->nodes[i].def};
            const tp_mapped_note *note = bsearch(&key, notes->items, notes->n, sizeof *notes->items, by_def);
            /* Still the noted tensor with the parser's copy: building the
             * graph may have replaced nodes. */
            Tfpi__TensorProto *t = note ? (Tfpi__TensorProto *)value_tensor(g->nodes[i].def) : NULL;
            if (!t || t != note->tensor || t->tensor_content.data != note->copy)
                continue;
            free(t->tensor_content.data);
            t->tensor_content.data = (uint8_t *)note->in_file;
            m->tensors[m->n++] = t;
        }
    }
    if (m && m->n) {
        m->bytes = *bytes;
        bytes->release = NULL;
        g->backing = m;
        g->free_backing = mapped_backing_free;
        g->file_map = m->bytes.data;
        g->file_map_size = m->bytes.size;
    } else if (m) {
        free(m->tensors);
        free(m);
    }
    free(notes->items);
    *notes = (tp_mapped_notes){0};
}

void tp_graph_drop_constant_pages(const tfpi_graph *graph, const void *data, size_t size)
{
    if (!graph || !graph->file_map || !size)
        return;
    const uintptr_t begin = (uintptr_t)data, map = (uintptr_t)graph->file_map;
    if (begin < map || begin - map > graph->file_map_size || size > graph->file_map_size - (begin - map))
        return;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t first = begin / page * page, end = begin + size;
    /* Clean pages of a private read-only file mapping: what is read there
     * later comes from the file again. */
    madvise((void *)first, end - first, MADV_DONTNEED);
}
