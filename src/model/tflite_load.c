/* tflite_load.c - a .tflite file as a tfpi_graph (tflite.h): reads and
 * checks it, chooses the subgraph (a signature's, else the first), names
 * each buffer as a region ImmutableConst nodes point into, translates the
 * subgraph and gives the graph the signature's keys. */
#include "model/tflite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/model_info.h"
#include "model/memmapped.h"
#include "model/tflite_calls.h"
#include "model/tflite_functions.h"
#include "model/tflite_graph.h"

/* A GraphDef producer past the versions whose Placeholder shape {} meant
 * unknown: a .tflite scalar input is a scalar. */
#define TFLITE_PRODUCER 1000

typedef struct tflite_backing {
    tp_model_bytes bytes;
    char *source; /* the model's name in messages, for as long as the graph lives */
    tp_tfl_model model;
    int subgraph;
    tp_memmapped_dir regions;
    char *region_names;      /* "tflite_buffer_<i>\0" for each buffer with data */
    void **aligned_copies;   /* buffers whose data the file leaves misaligned */
    int num_copies;
    char **tensor_names;     /* per tensor of the subgraph */
    int num_tensors;
} tflite_backing;

static void backing_free(void *p)
{
    tflite_backing *b = p;
    if (!b)
        return;
    for (int i = 0; b->tensor_names && i < b->num_tensors; i++)
        free(b->tensor_names[i]);
    free(b->tensor_names);
    for (int i = 0; i < b->num_copies; i++)
        free(b->aligned_copies[i]);
    free(b->aligned_copies);
    free(b->region_names);
    free(b->source);
    tp_memmapped_dir_free(&b->regions);
    tp_tfl_model_free(&b->model);
    if (b->bytes.release)
        b->bytes.release(b->bytes.data, b->bytes.size);
    free(b);
}

const tp_tfl_model *tp_tfl_graph_model(const tfpi_graph *graph, int *subgraph)
{
    if (!graph || graph->free_backing != backing_free)
        return NULL;
    const tflite_backing *b = graph->backing;
    if (subgraph)
        *subgraph = b->subgraph;
    return &b->model;
}

const char *tp_tfl_graph_tensor_name(const tfpi_graph *graph, int t)
{
    const tflite_backing *b = tp_tfl_graph_model(graph, NULL) ? graph->backing : NULL;
    return b && t >= 0 && t < b->num_tensors ? b->tensor_names[t] : NULL;
}

/* One region per buffer with data, named TP_TFL_REGION_PREFIX<index>;
 * data the file leaves misaligned for an 8-byte element is copied. */
static tfpi_code make_regions(tflite_backing *b, const char *source, tfpi_status *status)
{
    const tp_tfl_model *m = &b->model;
    const size_t name_size = sizeof TP_TFL_REGION_PREFIX + 11;
    b->regions.regions = calloc((size_t)m->num_buffers + 1, sizeof *b->regions.regions);
    b->region_names = malloc(((size_t)m->num_buffers + 1) * name_size);
    b->aligned_copies = calloc((size_t)m->num_buffers + 1, sizeof *b->aligned_copies);
    if (!b->regions.regions || !b->region_names || !b->aligned_copies ||
        !tp_name_map_init(&b->regions.index, (size_t)m->num_buffers + 1))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    for (int i = 0; i < m->num_buffers; i++) {
        const tp_tfl_buffer *buffer = &m->buffers[i];
        if (!buffer->data)
            continue;
        const uint8_t *data = buffer->data;
        if ((uintptr_t)data % 8) {
            void *copy = aligned_alloc(64, (buffer->size + 63) & ~(size_t)63);
            if (!copy)
                return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for buffer %d (%zu bytes)",
                                       source, i, buffer->size);
            memcpy(copy, data, buffer->size);
            b->aligned_copies[b->num_copies++] = copy;
            data = copy;
        }
        char *name = b->region_names + (size_t)i * name_size;
        snprintf(name, name_size, TP_TFL_REGION_PREFIX "%d", i);
        tp_region *r = &b->regions.regions[b->regions.num_regions];
        *r = (tp_region){name, data, buffer->size};
        tp_name_map_insert(&b->regions.index, name, b->regions.num_regions++);
    }
    return TFPI_OK;
}

/* The signature to serve: `key`, else serving_default, else the only one;
 * NULL (no signature: subgraph 0) when the file has none or several. */
static const tp_tfl_signature *choose_signature(const tp_tfl_model *m, const char *key, const char *source,
                                                tfpi_status *status, bool *failed)
{
    *failed = false;
    for (int i = 0; i < m->num_signatures; i++)
        if (strcmp(m->signatures[i].key, key && *key ? key : "serving_default") == 0)
            return &m->signatures[i];
    if (!key || !*key)
        return m->num_signatures == 1 ? &m->signatures[0] : NULL;
    char keys[300] = "";
    for (int i = 0; i < m->num_signatures; i++) {
        size_t at = strlen(keys);
        snprintf(keys + at, sizeof keys - at, "%s%s", i ? ", " : "", m->signatures[i].key);
    }
    *failed = true;
    tfpi_status_set(status, TFPI_NOT_FOUND, "%s: no signature '%s' (the file has %s%s)", source, key,
                    m->num_signatures ? "" : "none", keys);
    return NULL;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const tp_signature_tensor *)a)->key, ((const tp_signature_tensor *)b)->key);
}

static tfpi_code copy_entries(const tflite_backing *b, const tp_tfl_tensor_map *maps, int n, tp_signature_tensor **out,
                              int *count)
{
    const tp_tfl_subgraph *g = &b->model.subgraphs[b->subgraph];
    if (!(*out = calloc((size_t)n + 1, sizeof **out)))
        return TFPI_OUT_OF_MEMORY;
    for (int i = 0; i < n; i++) {
        tp_signature_tensor *s = &(*out)[i];
        const tp_tfl_tensor *t = &g->tensors[maps[i].tensor];
        ++*count;
        if (!(s->key = strdup(maps[i].name)) || !(s->name = strdup(b->tensor_names[maps[i].tensor])))
            return TFPI_OUT_OF_MEMORY;
        s->dtype = t->dtype;
        s->ndims = t->ndims;
        memcpy(s->dims, t->signature, sizeof s->dims);
    }
    qsort(*out, (size_t)n, sizeof **out, by_key);
    return TFPI_OK;
}

/* The graph's model info: the signature's keys and the tensors they name. */
static tfpi_code attach_signature(tfpi_graph *g, const tflite_backing *b, const tp_tfl_signature *sig,
                                  const char *source, tfpi_status *status)
{
    tp_model_info *info = tp_model_info_new(source, status);
    if (!info)
        return TFPI_OUT_OF_MEMORY;
    g->model = info;
    for (int i = 0; i < sig->num_inputs + sig->num_outputs; i++) {
        uint32_t t = i < sig->num_inputs ? sig->inputs[i].tensor : sig->outputs[i - sig->num_inputs].tensor;
        if (!b->tensor_names[t])
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                   "%s: signature '%s' names tensor %u, which nothing in its subgraph computes",
                                   source, sig->key, t);
    }
    if (!(info->signature_key = strdup(sig->key)) ||
        copy_entries(b, sig->inputs, sig->num_inputs, &info->inputs, &info->num_inputs) != TFPI_OK ||
        copy_entries(b, sig->outputs, sig->num_outputs, &info->outputs, &info->num_outputs) != TFPI_OK)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    return TFPI_OK;
}

static tfpi_graph *build(tflite_backing *b, const tp_tfl_signature *sig, const char *source, tfpi_status *status)
{
    tp_tfl_translator x;
    tfpi_code code = tp_tfl_translate(&x, &b->model, b->subgraph, source, status);
    if (code != TFPI_OK) {
        tp_tfl_translator_free(&x);
        backing_free(b);
        return NULL;
    }
    b->tensor_names = x.tensor_names; /* the graph keeps the names */
    b->num_tensors = x.g->num_tensors;
    x.tensor_names = NULL;
    uint8_t *library;
    size_t library_size;
    Tfpi__NodeDef **defs = x.nodes.defs;
    tfpi_graph *g = NULL;
    if (tp_tfl_function_library(&b->model, b->subgraph, &library, &library_size, source, status) != TFPI_OK)
        tp_node_list_free(&x.nodes);
    else if (library) /* WHILE, IF, CALL_ONCE: lowered to tfpi's control flow */
        g = tp_graph_build_functions(defs, (int)x.nodes.n, TFLITE_PRODUCER, library, library_size, NULL, source,
                                     status);
    else
        g = tp_graph_build(defs, (int)x.nodes.n, TFLITE_PRODUCER, source, status);
    free(library);
    if (x.nodes.defs)
        free(defs);
    x.nodes = (tp_node_list){0}; /* the nodes were taken by tp_graph_build */
    tp_tfl_translator_free(&x);
    if (!g) {
        backing_free(b);
        return NULL;
    }
    g->backing = b;
    g->free_backing = backing_free;
    g->regions = &b->regions;
    if (b->bytes.file_mapped) {
        g->file_map = b->bytes.data;
        g->file_map_size = b->bytes.size;
    }
    code = tp_graph_check_mapped_consts(g, source, status);
    if (code == TFPI_OK && sig)
        code = attach_signature(g, b, sig, source, status);
    if (code != TFPI_OK) {
        tfpi_graph_free(g);
        return NULL;
    }
    return g;
}

tfpi_graph *tp_tfl_load(tp_model_bytes bytes, const char *signature, const char *source, tfpi_status *status)
{
    tfpi_status local = {0};
    tflite_backing *b = calloc(1, sizeof *b);
    if (!b) {
        if (bytes.release)
            bytes.release(bytes.data, bytes.size);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
        return NULL;
    }
    b->bytes = bytes;
    if (!(b->source = strdup(source))) {
        backing_free(b);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
        return NULL;
    }
    source = b->source;
    bool failed = false;
    const tp_tfl_signature *sig = NULL;
    if (tp_tfl_model_read(bytes.data, bytes.size, source, &b->model, &local) == TFPI_OK &&
        tp_tfl_check_calls(&b->model, source, &local) == TFPI_OK && make_regions(b, source, &local) == TFPI_OK)
        sig = choose_signature(&b->model, signature, source, &local, &failed);
    if (local.code != TFPI_OK || failed) {
        backing_free(b);
        if (status)
            *status = local;
        return NULL;
    }
    b->subgraph = sig ? (int)sig->subgraph : 0;
    tfpi_graph *g = build(b, sig, source, &local);
    if (!g && status)
        *status = local;
    return g;
}
