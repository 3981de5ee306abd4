/* graphdef_io.c - GraphDef files for the graph tools: detects binary, text
 * and memmapped files, and writes binary or text. */
#include "graphdef_io.h"
#include "core/file_open.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_util.h"
#include "freeze.h"
#include "graph/graph.h"
#include "graph/model_info.h"
#include "graph/node_build.h"
#include "graph/wire.h"
#include "graphdef_edit.h"
#include "model/graph_memmapped.h"
#include "model/memmapped.h"
#include "model/model_format.h"
#include "model/tflite_schema.h"
#include "model/variable_binding.h"
#include "model_source.h"
#include "pbtxt.h"
#include "tfpi.h"
#include "xalloc.h"

/* TensorFlow fields the project's .proto leaves out; a .pbtxt may carry
 * them, and they do not matter to a frozen graph. */
static const char *const ignored_text_fields[] = {"library", "experimental_debug_info",
                                                  "experimental_type", NULL};

static Tfpi__GraphDef *parse_text(const char *text, size_t size, const char *source, tfpi_status *status)
{
    return (Tfpi__GraphDef *)pbtxt_parse(&tfpi__graph_def__descriptor, text, size, source,
                                         ignored_text_fields, status);
}

static bool has_text_suffix(const char *path)
{
    size_t n = strlen(path);
    return (n >= 6 && strcmp(path + n - 6, ".pbtxt") == 0) || (n >= 4 && strcmp(path + n - 4, ".txt") == 0);
}

/* Text files have no control bytes but whitespace in their first 4 KiB. */
static bool looks_like_text(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size && i < 4096; i++)
        if ((data[i] < 0x20 && data[i] != '\n' && data[i] != '\r' && data[i] != '\t') || data[i] == 0x7f)
            return false;
    return size > 0;
}

/* ImmutableConst -> Const with a copy of its region as tensor_content. */
static tfpi_code inline_region(const tp_memmapped_dir *dir, Tfpi__NodeDef *node, const char *path,
                               tfpi_status *status)
{
    tfpi_tensor view = {0};
    if (tp_memmapped_const(dir, node, &view, status) != TFPI_OK) {
        char detail[sizeof status->message];
        memcpy(detail, status->message, sizeof detail);
        return tfpi_status_set(status, status->code, "%s: %s", path, detail);
    }
    Tfpi__TensorProto *value =
        gd_tensor_new(view.dtype, view.dims, view.ndims, view.data, tp_byte_size(&view));
    gd_attr_remove_all(node);
    gd_set_string(&node->op, "Const");
    gd_attr_set_type(node, "dtype", view.dtype);
    gd_attr_set_tensor(node, "value", value);
    return TFPI_OK;
}

static Tfpi__GraphDef *read_memmapped(const uint8_t *data, size_t size, const char *path,
                                      bool inline_regions, tfpi_status *status)
{
    tp_memmapped_dir dir;
    if (tp_memmapped_read_dir(data, size, path, &dir, status) != TFPI_OK)
        return NULL;
    const char *problem = tp_wire_check_graph_def(dir.graph_def->data, dir.graph_def->size);
    Tfpi__GraphDef *graph = problem ? NULL : tfpi__graph_def__unpack(NULL, dir.graph_def->size, dir.graph_def->data);
    if (problem)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a NodeDef is not valid: %s", path, problem);
    else if (!graph)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the GraphDef region of the memmapped model is damaged",
                 path);
    for (size_t i = 0; graph && inline_regions && i < graph->n_node; i++) {
        if (strcmp(graph->node[i]->op, "ImmutableConst") == 0 &&
            inline_region(&dir, graph->node[i], path, status) != TFPI_OK) {
            tfpi__graph_def__free_unpacked(graph, NULL);
            graph = NULL;
        }
    }
    tp_memmapped_dir_free(&dir);
    return graph;
}

/* A .tflite's translated graph as a GraphDef (its constants inlined as
 * Const nodes when inline_regions, else ImmutableConst nodes). */
static Tfpi__GraphDef *read_tflite(const char *path, bool inline_regions, tfpi_status *status)
{
    tfpi_graph *g = tfpi_graph_load(path, NULL, status);
    if (!g)
        return NULL;
    Tfpi__GraphDef *graph = xmalloc(sizeof *graph);
    tfpi__graph_def__init(graph);
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < g->num_nodes && code == TFPI_OK; i++) {
        Tfpi__NodeDef *node = tp_node_copy(g->nodes[i].def);
        if (!node) {
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", path);
            break;
        }
        gd_append_node(graph, node);
        if (inline_regions && strcmp(node->op, "ImmutableConst") == 0)
            code = inline_region(g->regions, node, path, status);
    }
    tfpi_graph_free(g);
    if (code != TFPI_OK) {
        tfpi__graph_def__free_unpacked(graph, NULL);
        return NULL;
    }
    return graph;
}

static Tfpi__GraphDef *parse_any(const uint8_t *data, size_t size, const char *path, bool inline_regions,
                                 graph_format *format, tfpi_status *status)
{
    if (tp_tfl_detect(data, size)) {
        *format = GRAPH_FORMAT_BINARY;
        return read_tflite(path, inline_regions, status);
    }
    if (has_text_suffix(path)) {
        *format = GRAPH_FORMAT_TEXT;
        return parse_text((const char *)data, size, path, status);
    }
    if (tp_memmapped_detect(data, size)) {
        *format = GRAPH_FORMAT_MEMMAPPED;
        return read_memmapped(data, size, path, inline_regions, status);
    }
    *format = GRAPH_FORMAT_BINARY;
    const char *problem = tp_wire_check_graph_def(data, size);
    if (problem) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a NodeDef is not valid: %s", path, problem);
        return NULL;
    }
    Tfpi__GraphDef *graph = tfpi__graph_def__unpack(NULL, size, data);
    if (graph)
        return graph;
    if (looks_like_text(data, size)) {
        *format = GRAPH_FORMAT_TEXT;
        return parse_text((const char *)data, size, path, status);
    }
    char hint[1024];
    if (tp_memmapped_looks_damaged(data, size))
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                 "%s: a memmapped model whose directory is truncated or damaged", path);
    else if (tp_model_format_hint(data, size, path, hint, sizeof hint))
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s", hint);
    else
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                 "%s: not a TensorFlow GraphDef (neither binary, text nor memmapped)", path);
    return NULL;
}

Tfpi__GraphDef *graphdef_read_model(const char *path, bool freeze, tfpi_status *status)
{
    model_source src;
    model_source_options options = {0};
    if (model_source_open(&src, path, &options, status) != TFPI_OK)
        return NULL;
    freeze_options fo = {.clear_devices = freeze, .keep_variables = !freeze, .all_signatures = !freeze,
                         .max_bytes = tfpi_default_max_memory()};
    int converted;
    Tfpi__GraphDef *graph = NULL;
    if ((!freeze && !src.info->num_signatures) || freeze_source(&src, &fo, &converted, status) == TFPI_OK) {
        graph = src.graph;
        src.graph = NULL;
    } else {
        char detail[sizeof status->message];
        memcpy(detail, status->message, sizeof detail);
        tfpi_status_set(status, status->code, "%s: %s", path, detail);
    }
    model_source_close(&src);
    return graph;
}

Tfpi__GraphDef *graphdef_read(const char *path, bool inline_regions, graph_format *format,
                              tfpi_status *status)
{
    if (model_source_is_model(path)) {
        if (format)
            *format = GRAPH_FORMAT_BINARY;
        return graphdef_read_model(path, true, status);
    }
    size_t size;
    uint8_t *data = read_file(path, &size, status);
    if (!data)
        return NULL;
    graph_format ignored;
    Tfpi__GraphDef *graph = NULL;
    if (size == 0)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the file is empty", path);
    else
        graph = parse_any(data, size, path, inline_regions, format ? format : &ignored, status);
    free(data);
    return graph;
}

Tfpi__GraphDef *graphdef_read_in_graph(const char *in_graph)
{
    if (!in_graph) {
        fprintf(stderr, "error: --in_graph is required (see --help)\n");
        return NULL;
    }
    tfpi_status status = {0};
    Tfpi__GraphDef *graph = graphdef_read(in_graph, false, NULL, &status);
    if (!graph)
        fprintf(stderr, "error: %s\n", status.message);
    return graph;
}

/* True if path is a regular file whose name or first 4 KiB say text. */
static bool is_text_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    if (has_text_suffix(path))
        return true;
    uint8_t head[4096];
    return looks_like_text(head, tp_read_head(path, head, sizeof head));
}

tfpi_graph *graphdef_load_model(const char *path, const tfpi_load_options *options, tfpi_status *status)
{
    if (!is_text_file(path))
        return tfpi_graph_load(path, options, status);
    Tfpi__GraphDef *def = graphdef_read(path, false, NULL, status);
    if (!def)
        return NULL;
    size_t size = tfpi__graph_def__get_packed_size(def);
    uint8_t *packed = malloc(size ? size : 1);
    tfpi_graph *graph = NULL;
    if (!packed) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", path);
    } else {
        tfpi__graph_def__pack(def, packed);
        graph = tfpi_graph_load_buffer(packed, size, status);
    }
    /* Its variables take their values from the checkpoint, as a binary .pb's do. */
    if (graph && options && options->checkpoint && *options->checkpoint &&
        tp_graph_attach_checkpoint(graph, path, options->checkpoint, status) != TFPI_OK) {
        tfpi_graph_free(graph);
        graph = NULL;
    }
    if (!graph && packed && !strncmp(status->message, "model buffer", 12)) { /* name the file instead */
        char detail[sizeof status->message];
        memcpy(detail, status->message + 12, sizeof detail - 12);
        detail[sizeof detail - 13] = '\0';
        snprintf(status->message, sizeof status->message, "%s%s", path, detail);
    }
    free(packed);
    tfpi__graph_def__free_unpacked(def, NULL);
    return graph;
}

static tfpi_code write_binary(FILE *f, const Tfpi__GraphDef *graph)
{
    size_t size = tfpi__graph_def__get_packed_size(graph);
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return TFPI_OUT_OF_MEMORY;
    tfpi__graph_def__pack(graph, buf);
    size_t written = fwrite(buf, 1, size, f);
    free(buf);
    return written == size ? TFPI_OK : TFPI_IO_ERROR;
}

/* Text has no form for the function library (kept as opaque bytes). */
static tfpi_code write_text(FILE *f, const Tfpi__GraphDef *graph, const char *path)
{
    Tfpi__GraphDef without_library = *graph;
    if (graph->library.len > 0) {
        fprintf(stderr, "warning: %s: the graph's function library is left out of the text form\n", path);
        without_library.library.len = 0;
        without_library.library.data = NULL;
    }
    return pbtxt_print(f, &without_library.base) ? TFPI_OK : TFPI_IO_ERROR;
}

tfpi_code graphdef_write(const char *path, const Tfpi__GraphDef *graph, bool as_text, tfpi_status *status)
{
    FILE *f = fopen(path, as_text ? "w" : "wb");
    if (!f)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    tfpi_code code = as_text ? write_text(f, graph, path) : write_binary(f, graph);
    if (fclose(f) != 0 && code == TFPI_OK)
        code = TFPI_IO_ERROR;
    if (code == TFPI_OUT_OF_MEMORY)
        return tfpi_status_set(status, code, "%s: out of memory serializing the graph", path);
    if (code != TFPI_OK)
        return tfpi_status_set(status, code, "%s: write failed: %s", path, strerror(errno));
    return TFPI_OK;
}
