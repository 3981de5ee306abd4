/* model_source.c - opens a model for the graph tools (model_source.h): the
 * library loads it (signature, variable keys, checkpoint: the same checks
 * and messages as every other tool), and the GraphDef is read beside it. */
#include "model_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file_util.h"
#include "graph/graph.h"
#include "graph/wire.h"
#include "graphdef_io.h"
#include "model/variable_binding.h"

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

bool model_source_is_model(const char *path) { return is_dir(path) || has_suffix(path, ".meta"); }

static bool is_saved_model_dir(const char *dir)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/saved_model.pb", dir);
    bool binary = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    snprintf(path, sizeof path, "%s/saved_model.pbtxt", dir);
    return binary || (stat(path, &st) == 0 && S_ISREG(st.st_mode));
}

static Tfpi__GraphDef *unpack_graph(tp_bytes_range r, const char *source, tfpi_status *status)
{
    const char *problem = tp_wire_check_graph_def(r.data, r.size);
    Tfpi__GraphDef *g = problem ? NULL : tfpi__graph_def__unpack(NULL, r.size, r.data);
    if (problem)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a NodeDef is not valid: %s", source, problem);
    else if (!g)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the meta graph's GraphDef is not valid", source);
    return g;
}

/* Reads the meta graph of a SavedModel (the one the library chose) or of a
 * .meta file, and its GraphDef. */
static tfpi_code read_meta(model_source *s, const char *path, const char *tags, tfpi_status *status)
{
    tfpi_code code;
    const char *source = path;
    if (s->saved_model) {
        if ((code = tp_saved_model_open(path, &s->sm, status)) != TFPI_OK)
            return code;
        source = s->sm.path;
        code = tp_saved_model_select(&s->sm, path, tags, &s->meta, status);
    } else {
        size_t size;
        if (!(s->meta_bytes = read_file(path, &size, status)))
            return status->code;
        code = tp_meta_graph_read(s->meta_bytes, size, path, &s->meta, status);
    }
    if (code != TFPI_OK)
        return code;
    s->has_meta = true;
    s->graph = unpack_graph(s->meta.graph_def, source, status);
    return s->graph ? TFPI_OK : status->code;
}

/* A directory or .meta: loaded by the library, GraphDef read beside it. */
static tfpi_code open_model(model_source *s, const char *path, const model_source_options *o, tfpi_status *status)
{
    tfpi_load_options lo = {o->tags, o->signature, o->checkpoint};
    if (!(s->loaded = tfpi_graph_load(path, &lo, status)))
        return status->code;
    s->info = s->loaded->model;
    if (!is_dir(path))
        return read_meta(s, path, NULL, status);
    if ((s->saved_model = is_saved_model_dir(path)))
        return read_meta(s, path, o->tags, status);
    char prefix[4096], meta[4200];
    tfpi_code code = tp_checkpoint_find_prefix(path, prefix, sizeof prefix, status);
    snprintf(meta, sizeof meta, "%s.meta", prefix);
    return code == TFPI_OK ? read_meta(s, meta, NULL, status) : code;
}

/* A GraphDef file; with a checkpoint, also built by the library to bind its variables. */
static tfpi_code open_graph_def(model_source *s, const char *path, const model_source_options *o,
                                tfpi_status *status)
{
    if (!(s->graph = graphdef_read(path, true, NULL, status)))
        return status->code;
    if (!o->checkpoint || !*o->checkpoint)
        return TFPI_OK;
    size_t size = tfpi__graph_def__get_packed_size(s->graph);
    uint8_t *bytes = malloc(size ? size : 1);
    if (!bytes)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", path);
    tfpi__graph_def__pack(s->graph, bytes);
    s->loaded = tp_graph_parse_binary(bytes, size, path, status);
    free(bytes);
    if (!s->loaded || tp_graph_attach_checkpoint(s->loaded, path, o->checkpoint, status) != TFPI_OK)
        return status->code;
    s->info = s->loaded->model;
    return TFPI_OK;
}

tfpi_code model_source_open(model_source *s, const char *path, const model_source_options *o, tfpi_status *status)
{
    memset(s, 0, sizeof *s);
    tfpi_code code = model_source_is_model(path) ? open_model(s, path, o, status) : open_graph_def(s, path, o, status);
    if (code != TFPI_OK)
        model_source_close(s);
    return code;
}

void model_source_close(model_source *s)
{
    if (s->graph)
        tfpi__graph_def__free_unpacked(s->graph, NULL);
    tfpi_graph_free(s->loaded);
    if (s->has_meta)
        tp_meta_graph_free(&s->meta);
    if (s->saved_model)
        tp_saved_model_close(&s->sm);
    free(s->meta_bytes);
    memset(s, 0, sizeof *s);
}
