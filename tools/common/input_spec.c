/* input_spec.c - building benchmark feeds from comma/colon separated flags. */
#include "input_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"

/* Returns the idx-th field of list separated by sep (malloc'd) or NULL. */
static char *field(const char *list, char sep, int idx)
{
    for (int i = 0; list && i < idx; i++) {
        list = strchr(list, sep);
        if (list)
            list++;
    }
    if (!list)
        return NULL;
    const char *end = strchr(list, sep);
    return strndup(list, end ? (size_t)(end - list) : strlen(list));
}

static int count_fields(const char *list, char sep)
{
    int n = *list ? 1 : 0;
    for (; *list; list++)
        n += *list == sep;
    return n;
}

/* TensorFlow's type names (DataTypeString) and numpy's spellings of them. */
static const struct {
    const char *name;
    tfpi_dtype type;
} type_names[] = {
    {"float", TFPI_FLOAT}, {"float32", TFPI_FLOAT}, {"double", TFPI_DOUBLE}, {"float64", TFPI_DOUBLE},
    {"int32", TFPI_INT32}, {"int64", TFPI_INT64},
    {"int16", TFPI_INT16}, {"int8", TFPI_INT8}, {"uint8", TFPI_UINT8}, {"uint16", TFPI_UINT16},
    {"quint8", TFPI_QUINT8}, {"qint8", TFPI_QINT8}, {"qint32", TFPI_QINT32}, {"bool", TFPI_BOOL},
    {"string", TFPI_STRING},
};

static int parse_type(const char *name, tfpi_dtype *out)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (!strcmp(name, type_names[i].name)) {
            *out = type_names[i].type;
            return 0;
        }
    fprintf(stderr, "error: --input_layer_type: unknown type '%s' (accepted:", name);
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        fprintf(stderr, " %s", type_names[i].name);
    fprintf(stderr, ")\n");
    return -1;
}

/* 0, or 1 after printing what is wrong with the shape of input `name`
 * ("" is a scalar). */
static int parse_shape(const char *text, const char *name, int64_t *dims, int *ndims)
{
    *ndims = 0;
    for (const char *p = text; *p;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (v == -1 && end != p) {
            fprintf(stderr, "error: --input_layer_shape: '%s' for input '%s' has -1: give the size to benchmark "
                            "with (e.g. 1 for the batch)\n", text, name);
            return 1;
        }
        if (end == p || v < 0 || *ndims == TFPI_MAX_DIMS || (*end && *end != ',')) {
            fprintf(stderr, "error: --input_layer_shape: no valid shape for input '%s' in '%s' (sizes separated "
                            "by ',', ':' between inputs, e.g. 1,224,224,3)\n", name, text);
            return 1;
        }
        dims[(*ndims)++] = v;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* Fills a numeric tensor from "v1,v2,..." (cycled) or the default pattern. */
static int fill_values(tfpi_tensor *t, const char *values)
{
    int64_t n = tfpi_tensor_num_elements(t);
    int num_values = values && *values ? count_fields(values, ',') : 0;
    double *v = calloc((size_t)num_values + 1, sizeof *v);
    if (!v)
        return -1;
    for (int i = 0; i < num_values; i++) {
        char *f = field(values, ',', i), *end = NULL;
        v[i] = f ? strtod(f, &end) : 0;
        int bad = !f || end == f || *end;
        free(f);
        if (bad) {
            free(v);
            return -1;
        }
    }
    uint32_t rng = 12345;
    void *data = tfpi_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        rng = rng * 1664525u + 1013904223u;
        double x = num_values ? v[i % num_values] : (double)(rng >> 8) / (double)(1u << 23) - 1.0;
        double v = num_values ? x : 0;
        switch (tfpi_tensor_dtype(t)) {
        case TFPI_FLOAT: ((float *)data)[i] = (float)x; break;
        case TFPI_DOUBLE: ((double *)data)[i] = x; break;
        case TFPI_INT32: case TFPI_QINT32: ((int32_t *)data)[i] = (int32_t)v; break;
        case TFPI_INT64: ((int64_t *)data)[i] = (int64_t)v; break;
        case TFPI_INT16: ((int16_t *)data)[i] = (int16_t)v; break;
        case TFPI_UINT16: ((uint16_t *)data)[i] = (uint16_t)v; break;
        case TFPI_INT8: case TFPI_QINT8: ((int8_t *)data)[i] = (int8_t)v; break;
        default: ((uint8_t *)data)[i] = (uint8_t)v; break;
        }
    }
    free(v);
    return 0;
}

static tfpi_tensor *string_input(const char *values, tfpi_status *status)
{
    if (!values || values[0] != '@') {
        snprintf(status->message, sizeof status->message, "a string input needs --input_layer_values=@file");
        return NULL;
    }
    return read_file_tensor(values + 1, status);
}

int input_spec_parse(input_spec *spec, const char *layers, const char *shapes, const char *types,
                     const char *values)
{
    spec->count = count_fields(layers, ',');
    spec->names = calloc((size_t)spec->count + 1, sizeof *spec->names);
    spec->tensors = calloc((size_t)spec->count + 1, sizeof *spec->tensors);
    if (!spec->names || !spec->tensors)
        return 1;
    for (int i = 0; i < spec->count; i++) {
        char *shape = field(shapes, ':', i), *type = field(types, ',', i), *vals = field(values, ':', i);
        int64_t dims[TFPI_MAX_DIMS];
        int ndims = 0, rc = 0;
        tfpi_dtype dtype = TFPI_FLOAT;
        tfpi_status status = {0};
        spec->names[i] = field(layers, ',', i);
        if (type && parse_type(type, &dtype)) {
            rc = 1;
        } else if (dtype != TFPI_STRING && (!shape || parse_shape(shape, spec->names[i], dims, &ndims))) {
            if (!shape)
                fprintf(stderr, "error: --input_layer_shape: no shape for input '%s' (':' between inputs)\n",
                        spec->names[i]);
            rc = 1;
        } else if (dtype == TFPI_STRING) {
            if (!(spec->tensors[i] = string_input(vals, &status))) {
                fprintf(stderr, "error: --input_layer_values: %s\n", status.message);
                rc = 1;
            }
        } else if (!(spec->tensors[i] = tfpi_tensor_new(dtype, dims, ndims, &status))) {
            fprintf(stderr, "error: --input_layer_shape: %s\n", status.message);
            rc = 1;
        } else if (fill_values(spec->tensors[i], vals)) {
            fprintf(stderr, "error: --input_layer_values: cannot parse '%s'\n", vals);
            rc = 1;
        }
        free(shape);
        free(type);
        free(vals);
        if (rc)
            return rc;
    }
    return 0;
}

void input_spec_free(input_spec *spec)
{
    for (int i = 0; i < spec->count; i++) {
        free(spec->names ? spec->names[i] : NULL);
        tfpi_tensor_free(spec->tensors ? spec->tensors[i] : NULL);
    }
    free(spec->names);
    free(spec->tensors);
    memset(spec, 0, sizeof *spec);
}
