/* load_flags.h - the flags every tool that runs a model takes to say how
 * to open it (tfpi_graph_load): --saved_model_tags and --signature_def for
 * a SavedModel directory, --checkpoint for the variables of a .meta or a
 * GraphDef. */
#ifndef TFPI_LOAD_FLAGS_H
#define TFPI_LOAD_FLAGS_H

#include "flags.h"
#include "tfpi.h"

typedef struct load_flags {
    const char *saved_model_tags, *signature_def, *checkpoint;
} load_flags;

#define LOAD_FLAGS(l)                                                                                        \
    {"saved_model_tags", FLAG_STRING, &(l).saved_model_tags,                                                 \
     "SavedModel directory: the meta graph's tags, comma-separated (default serve)"},                        \
        {"signature_def", FLAG_STRING, &(l).signature_def,                                                   \
         "SavedModel directory: the signature whose keys name inputs and outputs (default serving_default)"}, \
        {"checkpoint", FLAG_STRING, &(l).checkpoint,                                                         \
         "the variables of a .meta or .pb: checkpoint prefix (model.ckpt) or its directory"}

/* Loads the model at path with these flags. */
tfpi_graph *load_flags_graph(const load_flags *l, const char *path, tfpi_status *status);

/* For a flag still at its tool default (`value` equals `tool_default`)
 * that names nothing in a graph served through a signature with exactly
 * one input (input) or output (!input): that key; in a .tflite without
 * such a signature: its first input or output. Otherwise value. */
const char *load_flags_signature_default(const tfpi_graph *graph, const char *value, const char *tool_default,
                                         int input);

#endif
