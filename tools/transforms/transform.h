/* transform.h - what every graph transform of transform_graph sees: the
 * graph to change in place, its parameters, the --inputs and --outputs
 * node names, and how to read parameters and report errors. Each transform
 * is one function `tfpi_code transform_NAME(Tfpi__GraphDef *, const
 * transform_ctx *)` listed in transforms/registry.c. */
#ifndef TFPI_TRANSFORM_H
#define TFPI_TRANSFORM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "graph.pb-c.h"
#include "tfpi.h"
#include "transform_spec.h"

typedef struct transform_ctx {
    const transform_call *call;
    int num_inputs, num_outputs;
    char **inputs, **outputs; /* node names (any ":k" dropped) */
    tfpi_status *status;
} transform_ctx;

typedef tfpi_code (*transform_fn)(Tfpi__GraphDef *graph, const transform_ctx *ctx);

typedef struct transform_def {
    const char *name;
    transform_fn run;
    const char *params; /* the parameter names it takes, space-separated */
} transform_def;

/* ---- the registry (registry.c) ---- */
const transform_def *transform_find(const char *name);
/* "add_default_attributes, backport_concatv2, ..." */
void transform_print_names(FILE *out);

/* ---- parameters: a bad value is an error naming the transform ---- */
int transform_param_count(const transform_ctx *ctx, const char *name);
const char *transform_param_value(const transform_ctx *ctx, const char *name, int i);
const char *transform_param_string(const transform_ctx *ctx, const char *name, const char *fallback);
/* A parameter that must be given exactly once. */
tfpi_code transform_param_required(const transform_ctx *ctx, const char *name, const char **out);
tfpi_code transform_param_int(const transform_ctx *ctx, const char *name, int64_t fallback, int64_t min,
                              int64_t *out);
/* A finite float. */
tfpi_code transform_param_float(const transform_ctx *ctx, const char *name, float fallback, float *out);
tfpi_code transform_param_bool(const transform_ctx *ctx, const char *name, bool fallback, bool *out);
/* A TensorFlow type name ("float", "int32", "uint8", ...) as a DataType. */
tfpi_code transform_parse_type(const transform_ctx *ctx, const char *text, int *out);

bool transform_is_input(const transform_ctx *ctx, const char *node_name);
bool transform_is_output(const transform_ctx *ctx, const char *node_name);

/* "transform 'NAME': message" into ctx->status; returns its code. */
tfpi_code transform_fail(const transform_ctx *ctx, tfpi_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
