/* freeze.h - TensorFlow's convert_variables_to_constants for a model
 * source (model_source.h): keeps what the outputs need (over data and
 * control edges, as extract_sub_graph does) and turns each variable into a
 * Const holding its checkpoint value (VarHandleOp too, its ReadVariableOps
 * becoming Identity and ResourceGathers GatherV2). The result is a frozen
 * GraphDef TensorFlow itself loads. */
#ifndef TFPI_FREEZE_H
#define TFPI_FREEZE_H

#include <stdbool.h>
#include <stdint.h>

#include "model_source.h"

typedef struct freeze_options {
    const char *const *outputs; /* node names; NULL: the signature's outputs */
    bool all_signatures;        /* with outputs NULL: every signature's outputs (and no-output signatures' targets) */
    int num_outputs;
    const char *allow, *deny; /* comma-separated variable names to convert / to leave (NULL: no list) */
    bool clear_devices;       /* blank every node's device */
    bool keep_variables;      /* only keep what the outputs need (what running the model directly uses) */
    int64_t max_bytes;        /* budget for the values read (< 0: none) */
} freeze_options;

/* Freezes s->graph in place; *converted gets the number of variables made
 * Consts. Errors name the node, the variable or the checkpoint key. */
tfpi_code freeze_source(model_source *s, const freeze_options *o, int *converted, tfpi_status *status);

#endif
