/* model_source.h - a model as the graph tools see it, whatever form it
 * comes in (a SavedModel directory, a training directory, a .meta file, a
 * binary/text/memmapped GraphDef with or without a checkpoint): the GraphDef
 * to edit or print, and, when it has variables, the loaded tfpi graph whose
 * model info knows the signature, each variable's checkpoint key and the
 * open checkpoint. freeze.h turns one into a frozen GraphDef. */
#ifndef TFPI_MODEL_SOURCE_H
#define TFPI_MODEL_SOURCE_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "graph/model_info.h"
#include "model/meta_graph.h"
#include "tfpi.h"

typedef struct model_source_options {
    const char *tags;       /* SavedModel tag set (NULL: serve) */
    const char *signature;  /* SavedModel signature (NULL: serving_default) */
    const char *checkpoint; /* variables of a .meta or a GraphDef (NULL: beside a .meta) */
} model_source_options;

typedef struct model_source {
    Tfpi__GraphDef *graph;
    tfpi_graph *loaded;   /* the model loaded by the library (NULL: a GraphDef without checkpoint) */
    tp_model_info *info;  /* loaded->model, or NULL */
    bool saved_model;     /* path was a SavedModel directory */
    bool has_meta;        /* meta holds the meta graph (SavedModel or .meta) */
    tp_meta_graph meta;   /* borrows sm's bytes or meta_bytes */
    tp_saved_model sm;
    uint8_t *meta_bytes;
} model_source;

/* Opens path; errors name it. */
tfpi_code model_source_open(model_source *s, const char *path, const model_source_options *o, tfpi_status *status);
void model_source_close(model_source *s);

/* True if path is something only model_source_open reads (a directory or a
 * .meta file), not a GraphDef file. */
bool model_source_is_model(const char *path);

#endif
