/* model_load.c - tp_graph_load_model: opens a model from whatever path a user
 * has (a SavedModel directory, a training directory, a .meta with its
 * checkpoint, a GraphDef with or without one), builds the graph and its
 * model info (signature, variables bound to the checkpoint), and names the
 * format of a file that is none of these. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_open.h"
#include "graph/graph.h"
#include "graph/model_info.h"
#include "model/checkpoint.h"
#include "model/meta_graph.h"
#include "model/meta_graph_info.h"
#include "model/model_format.h"
#include "model/variable_binding.h"

/* Whether dir/name is a directory (want_dir) or something else: a file
 * that is there but not a regular file is found, and its reader says so. */
static bool exists(const char *dir, const char *name, bool want_dir)
{
    char path[4200];
    struct stat st;
    if (snprintf(path, sizeof path, "%s%s%s", dir, name[0] ? "/" : "", name) >= (int)sizeof path)
        return false;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) == want_dir;
}

/* Every tensor the signature names must be in the graph. */
static tfpi_code check_signature(const tfpi_graph *g, const tp_model_info *info, tfpi_status *status)
{
    for (int o = 0; o < 2; o++) {
        const tp_signature_tensor *t = o ? info->outputs : info->inputs;
        for (int i = 0; i < (o ? info->num_outputs : info->num_inputs); i++) {
            tp_edge e;
            if (tp_graph_resolve(g, t[i].name, "tensor", &e, NULL) != TFPI_OK)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                       "%s: signature '%s' %s '%s' names tensor '%s', which the graph does not have",
                                       info->source, info->signature_key, o ? "output" : "input", t[i].key,
                                       t[i].name);
        }
    }
    return TFPI_OK;
}

/* Builds the graph of a meta graph and attaches its model info (which it
 * takes, with ckpt, whatever the outcome). */
static tfpi_graph *build(const tp_meta_graph *mg, tp_model_info *info, const char *signature, tp_checkpoint *ckpt,
                         tfpi_status *status)
{
    tfpi_code code = tp_model_info_set_signature(info, mg, signature, status);
    if (code == TFPI_OK)
        code = tp_model_info_set_signatures(info, mg, status);
    if (code == TFPI_OK)
        code = tp_model_info_set_protocol(info, mg, status);
    tfpi_graph *g = code == TFPI_OK
                        ? tp_graph_parse_with_ops(mg->graph_def.data, mg->graph_def.size,
                                                  mg->info ? mg->info->stripped_op_list.data : NULL,
                                                  mg->info ? mg->info->stripped_op_list.len : 0, info->source, status)
                        : NULL;
    if (!g) {
        tp_checkpoint_close(ckpt);
        tp_model_info_free(info);
        return NULL;
    }
    g->model = info;
    code = tp_model_info_bind_checkpoint(info, g, ckpt, status);
    if (code == TFPI_OK)
        code = check_signature(g, info, status);
    if (code != TFPI_OK) {
        tfpi_graph_free(g);
        return NULL;
    }
    return g;
}

static tfpi_graph *load_saved_model(const char *dir, const tfpi_load_options *o, tfpi_status *status)
{
    char source[4200], prefix[4200];
    snprintf(source, sizeof source, "SavedModel %s", dir);
    snprintf(prefix, sizeof prefix, "%s/variables/variables", dir);
    tp_saved_model sm;
    if (tp_saved_model_open(dir, &sm, status) != TFPI_OK)
        return NULL;
    tp_meta_graph mg;
    tfpi_graph *g = NULL;
    if (tp_saved_model_select(&sm, dir, o->tags, &mg, status) == TFPI_OK) {
        tp_model_info *info = tp_model_info_new(source, status);
        bool has_variables = exists(dir, "variables/variables.index", false);
        tp_checkpoint *ckpt = info && has_variables ? tp_checkpoint_open(prefix, status) : NULL;
        if (info && (ckpt || !has_variables))
            g = build(&mg, info, o->signature, ckpt, status);
        else
            tp_model_info_free(info);
        tp_meta_graph_free(&mg);
    }
    tp_saved_model_close(&sm);
    return g;
}

/* Maps a whole file (which must be a non-empty regular file). */
static uint8_t *map_file(const char *path, size_t *size, tfpi_status *status)
{
    int fd;
    struct stat st;
    const tp_open_result opened = tp_open_regular(path, &fd, &st);
    if (opened == TP_OPEN_FAILED) {
        tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    void *map = MAP_FAILED;
    if (opened != TP_OPEN_OK || st.st_size == 0 || (uint64_t)st.st_size > SIZE_MAX / 2)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: empty or not a regular file", path);
    else if ((map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot map: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (map == MAP_FAILED)
        return NULL;
    *size = (size_t)st.st_size;
    return map;
}

/* The checkpoint of a .meta: options->checkpoint, else the prefix beside it. */
static tp_checkpoint *meta_checkpoint(const char *meta_path, const char *given, tfpi_status *status)
{
    char prefix[4096];
    if (given && *given) {
        if (tp_checkpoint_find_prefix(given, prefix, sizeof prefix, status) != TFPI_OK)
            return NULL;
    } else if (tp_checkpoint_find_prefix(meta_path, prefix, sizeof prefix, NULL) != TFPI_OK) {
        tfpi_status_set(status, TFPI_NOT_FOUND,
                        "%s: a MetaGraphDef whose checkpoint is not beside it (no %.*s.index); give it with "
                        "--checkpoint",
                        meta_path, (int)(strlen(meta_path) > 5 ? strlen(meta_path) - 5 : 0), meta_path);
        return NULL;
    }
    return tp_checkpoint_open(prefix, status);
}

static tfpi_graph *load_meta(const char *path, const char *checkpoint, const char *signature, tfpi_status *status)
{
    size_t size;
    uint8_t *bytes = map_file(path, &size, status);
    if (!bytes)
        return NULL;
    char source[4200];
    snprintf(source, sizeof source, "meta graph %s", path);
    tp_meta_graph mg;
    tfpi_graph *g = NULL;
    if (tp_meta_graph_read(bytes, size, path, &mg, status) == TFPI_OK) {
        tp_checkpoint *ckpt = meta_checkpoint(path, checkpoint, status);
        tp_model_info *info = ckpt ? tp_model_info_new(source, status) : NULL;
        if (info)
            g = build(&mg, info, signature, ckpt, status);
        else
            tp_checkpoint_close(ckpt);
        tp_meta_graph_free(&mg);
    }
    munmap(bytes, size);
    return g;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A training directory: its `checkpoint` file names P, and P.meta is there. */
static tfpi_graph *load_checkpoint_dir(const char *dir, const tfpi_load_options *o, tfpi_status *status)
{
    char prefix[4096], meta[4200];
    if (tp_checkpoint_find_prefix(dir, prefix, sizeof prefix, status) != TFPI_OK)
        return NULL;
    snprintf(meta, sizeof meta, "%s.meta", prefix);
    if (!exists(meta, "", false)) {
        tfpi_status_set(status, TFPI_NOT_FOUND,
                        "%s: a checkpoint directory (checkpoint %s) without %s: load the graph with --checkpoint=%s, "
                        "or freeze it with freeze_graph",
                        dir, prefix, meta, dir);
        return NULL;
    }
    return load_meta(meta, o->checkpoint && *o->checkpoint ? o->checkpoint : prefix, o->signature, status);
}

static tfpi_graph *load_directory(const char *dir, const tfpi_load_options *o, tfpi_status *status)
{
    const bool saved_model = exists(dir, "saved_model.pb", false) || exists(dir, "saved_model.pbtxt", false);
    if (saved_model && o->checkpoint && *o->checkpoint)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "%s: a SavedModel takes its variables from its own variables/ directory; a checkpoint "
                        "(--checkpoint=%s) is for a GraphDef or a .meta file",
                        dir, o->checkpoint);
    else if (saved_model)
        return load_saved_model(dir, o, status);
    else if (exists(dir, "saved_model.cpb", false))
        tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                        "%s: a chunked SavedModel (saved_model.cpb, TensorFlow >= 2.13, over 2 GB), which tfpi does "
                        "not read",
                        dir);
    else if (exists(dir, "checkpoint", false))
        return load_checkpoint_dir(dir, o, status);
    else
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "%s: a directory that is not a SavedModel (no saved_model.pb) nor a training checkpoint "
                        "directory (no `checkpoint` file)",
                        dir);
    return NULL;
}

/* A GraphDef file, with the checkpoint its variables come from. */
static tfpi_graph *load_graph_with_checkpoint(const char *path, const char *checkpoint, tfpi_status *status)
{
    tfpi_graph *g = tp_graph_load_path(path, status);
    if (g && tp_graph_attach_checkpoint(g, path, checkpoint, status) != TFPI_OK) {
        tfpi_graph_free(g);
        return NULL;
    }
    return g;
}

/* After a GraphDef parse failed: a MetaGraphDef is loaded as one; other
 * known formats replace the error with what the file is. */
static tfpi_graph *load_other(const char *path, const tfpi_load_options *o, tfpi_status *status)
{
    tfpi_status parse_error = status ? *status : (tfpi_status){0};
    size_t size;
    uint8_t *bytes = map_file(path, &size, NULL);
    if (!bytes)
        return NULL;
    tp_meta_graph mg = {0};
    /* A GraphDef that failed for what its nodes or functions say is no other format. */
    bool meta = !tp_graph_def_wire_ok(bytes, size) && tp_meta_graph_read(bytes, size, path, &mg, NULL) == TFPI_OK;
    meta = meta && mg.info; /* a GraphDef can read as a MetaGraphDef with only a graph_def */
    tp_meta_graph_free(&mg);
    char hint[1024];
    const char *what = meta ? NULL : tp_model_format_hint(bytes, size, path, hint, sizeof hint);
    munmap(bytes, size);
    if (meta)
        return load_meta(path, o->checkpoint, o->signature, status);
    if (what)
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s", what);
    else if (status)
        *status = parse_error;
    return NULL;
}

tfpi_graph *tp_graph_load_model(const char *path, const tfpi_load_options *options, tfpi_status *status)
{
    static const tfpi_load_options defaults = {0};
    const tfpi_load_options *o = options ? options : &defaults;
    struct stat st;
    if (!path || !*path) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "no model path given");
        return NULL;
    }
    if (stat(path, &st) != 0) {
        int error = errno;
        char hint[1024];
        const char *what = tp_model_missing_hint(path, hint, sizeof hint);
        if (what)
            tfpi_status_set(status, TFPI_NOT_FOUND, "%s", what);
        else
            tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", path, strerror(error));
        return NULL;
    }
    if (S_ISDIR(st.st_mode))
        return load_directory(path, o, status);
    if (has_suffix(path, ".meta"))
        return load_meta(path, o->checkpoint, o->signature, status);
    if (o->checkpoint && *o->checkpoint)
        return load_graph_with_checkpoint(path, o->checkpoint, status);
    tfpi_graph *g = tp_graph_load_path(path, status);
    return g ? g : load_other(path, o, status);
}

const char *tfpi_graph_signature(const tfpi_graph *graph)
{
    return graph && graph->model ? graph->model->signature_key : NULL;
}

int tfpi_graph_signature_num_inputs(const tfpi_graph *graph)
{
    return graph && graph->model ? graph->model->num_inputs : 0;
}

int tfpi_graph_signature_num_outputs(const tfpi_graph *graph)
{
    return graph && graph->model ? graph->model->num_outputs : 0;
}

static const char *signature_entry(const tp_signature_tensor *t, int n, int i, const char **tensor_name)
{
    if (i < 0 || i >= n)
        return NULL;
    if (tensor_name)
        *tensor_name = t[i].name;
    return t[i].key;
}

const char *tfpi_graph_signature_input(const tfpi_graph *graph, int i, const char **tensor_name)
{
    return signature_entry(graph && graph->model ? graph->model->inputs : NULL, tfpi_graph_signature_num_inputs(graph),
                           i, tensor_name);
}

const char *tfpi_graph_signature_output(const tfpi_graph *graph, int i, const char **tensor_name)
{
    return signature_entry(graph && graph->model ? graph->model->outputs : NULL,
                           tfpi_graph_signature_num_outputs(graph), i, tensor_name);
}

static const tp_signature *signature_at(const tfpi_graph *graph, int s)
{
    const tp_model_info *info = graph ? graph->model : NULL;
    return info && s >= 0 && s < info->num_signatures ? &info->signatures[s] : NULL;
}

int tfpi_graph_num_signatures(const tfpi_graph *graph)
{
    return graph && graph->model ? graph->model->num_signatures : 0;
}

const char *tfpi_graph_signature_key(const tfpi_graph *graph, int s)
{
    const tp_signature *sig = signature_at(graph, s);
    return sig ? sig->key : NULL;
}

int tfpi_graph_signature_count(const tfpi_graph *graph, int s, int outputs)
{
    const tp_signature *sig = signature_at(graph, s);
    return !sig ? 0 : outputs ? sig->num_outputs : sig->num_inputs;
}

const char *tfpi_graph_signature_entry(const tfpi_graph *graph, int s, int outputs, int i, const char **tensor_name)
{
    const tp_signature *sig = signature_at(graph, s);
    if (!sig)
        return NULL;
    return outputs ? signature_entry(sig->outputs, sig->num_outputs, i, tensor_name)
                   : signature_entry(sig->inputs, sig->num_inputs, i, tensor_name);
}

/* The outermost call whose inlined body node `reader` belongs to: the
 * shortest name prefix P (at a '/') with a node P and a node
 * "P/output_control_node", as the inliner makes them; else reader itself. */
static int call_of(const tfpi_graph *graph, int reader)
{
    const char *name = graph->nodes[reader].def->name;
    char probe[4200];
    for (size_t len = 1; name[len]; len++) {
        if (name[len] != '/' || len + sizeof "/output_control_node" > sizeof probe)
            continue;
        snprintf(probe, sizeof probe, "%.*s/output_control_node", (int)len, name);
        int call = tp_graph_find(graph, name, len);
        if (call >= 0 && tp_graph_find(graph, probe, strlen(probe)) >= 0)
            return call;
    }
    return reader;
}

const char *tfpi_graph_signature_target(const tfpi_graph *graph, int s)
{
    const tp_signature *sig = signature_at(graph, s);
    tp_edge input;
    if (!sig || sig->num_outputs > 0 || sig->num_inputs == 0 ||
        tp_graph_resolve(graph, sig->inputs[0].name, "input", &input, NULL) != TFPI_OK)
        return NULL;
    for (int n = 0; n < graph->num_nodes; n++)
        for (int k = 0; k < graph->nodes[n].num_inputs; k++)
            if (graph->nodes[n].inputs[k].node == input.node)
                return graph->nodes[call_of(graph, n)].def->name;
    return NULL;
}
