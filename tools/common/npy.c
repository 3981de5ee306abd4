/* npy.c - the .npy format: magic "\x93NUMPY", version, header length, a
 * Python-dict header ({'descr': '<f4', 'fortran_order': False, 'shape': (...)}),
 * then the raw C-order data. */
#include "npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfpi.h"

static const struct {
    const char *descr;
    tfpi_dtype dtype;
} npy_types[] = {
    {"<f4", TFPI_FLOAT}, {"<i4", TFPI_INT32}, {"<i8", TFPI_INT64}, {"|u1", TFPI_UINT8},
    {"|b1", TFPI_BOOL},  {"<f8", TFPI_DOUBLE}, {"|i1", TFPI_INT8},  {"<i2", TFPI_INT16},
    {"<u2", TFPI_UINT16}, {"<f2", TFPI_HALF},
    /* Written only (a file is read as the plain type above): the quantized
     * types as their codes' integer type, as TensorFlow's Python API gives them. */
    {"|u1", TFPI_QUINT8}, {"|i1", TFPI_QINT8}, {"<i4", TFPI_QINT32}, {"<u2", TFPI_QUINT16}, {"<i2", TFPI_QINT16},
};
#define NUM_NPY_TYPES (sizeof npy_types / sizeof npy_types[0])

/* Parses the shape tuple "(1, 224, 224, 3)" that follows 'shape': */
static int parse_shape(const char *p, int64_t *dims)
{
    int n = 0;
    if (!p || !(p = strchr(p, '(')))
        return -1;
    for (p++;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')')
            return n;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || n == TFPI_MAX_DIMS)
            return -1;
        dims[n++] = v;
        p = end;
    }
}

static tfpi_tensor *parse_header(const char *header, const char *path, tfpi_status *status)
{
    const char *descr = strstr(header, "'descr'");
    tfpi_dtype dtype = 0;
    for (size_t i = 0; descr && !dtype && i < NUM_NPY_TYPES; i++)
        if (strstr(descr, npy_types[i].descr) == strchr(descr + 7, '\'') + 1)
            dtype = npy_types[i].dtype;
    if (!dtype) {
        tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                 "%s: unsupported .npy type (float32, float64, float16, int64, int32, int16, int8, uint16, uint8, bool only)", path);
        return NULL;
    }
    const char *fortran = strstr(header, "'fortran_order'");
    const char *fortran_value = fortran ? fortran + strspn(fortran + 15, ": ") + 15 : NULL;
    if (!fortran_value || strncmp(fortran_value, "False", 5) != 0) {
        tfpi_status_set(status, TFPI_UNIMPLEMENTED, "%s: Fortran-order .npy files are not supported", path);
        return NULL;
    }
    int64_t dims[TFPI_MAX_DIMS];
    int ndims = parse_shape(strstr(header, "'shape'"), dims);
    if (ndims < 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: malformed .npy shape", path);
        return NULL;
    }
    return tfpi_tensor_new(dtype, dims, ndims, status);
}

tfpi_tensor *npy_read(const char *path, tfpi_status *status)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    unsigned char pre[12];
    tfpi_tensor *t = NULL;
    char *header = NULL;
    size_t header_len = 0, prefix = 0;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a .npy file", path);
    } else if (pre[6] == 1) {
        header_len = pre[8] | (size_t)pre[9] << 8;
        prefix = 10;
    } else if (pre[6] >= 2 && fread(pre + 10, 1, 2, f) == 2) {
        header_len = pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
        prefix = 12;
    }
    if (prefix && header_len < (1u << 20) && (header = calloc(header_len + 1, 1)) &&
        fread(header, 1, header_len, f) == header_len) {
        t = parse_header(header, path, status);
        size_t bytes = t ? tfpi_tensor_byte_size(t) : 0;
        if (t && fread(tfpi_tensor_data(t), 1, bytes, f) != bytes) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: .npy data is truncated (need %zu bytes)", path,
                     bytes);
            tfpi_tensor_free(t);
            t = NULL;
        }
    } else if (prefix) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: truncated .npy header", path);
    }
    free(header);
    fclose(f);
    return t;
}

tfpi_code npy_write(const char *path, const tfpi_tensor *t, tfpi_status *status)
{
    const char *descr = NULL;
    for (size_t i = 0; i < NUM_NPY_TYPES; i++)
        if (npy_types[i].dtype == tfpi_tensor_dtype(t))
            descr = npy_types[i].descr;
    if (!descr)
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED, "%s: cannot write a %s tensor as .npy", path,
                        tfpi_dtype_name(tfpi_tensor_dtype(t)));
    char header[512];
    int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < tfpi_tensor_ndims(t); i++)
        n += snprintf(header + n, sizeof header - (size_t)n, "%lld%s", (long long)tfpi_tensor_dim(t, i),
                      tfpi_tensor_ndims(t) == 1 ? "," : i + 1 < tfpi_tensor_ndims(t) ? ", " : "");
    n += snprintf(header + n, sizeof header - (size_t)n, "), }");
    while ((10 + n + 1) % 64)
        header[n++] = ' ';
    header[n++] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff),
                             (unsigned char)(n >> 8)};
    FILE *f = fopen(path, "wb");
    if (!f)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    size_t bytes = tfpi_tensor_byte_size(t);
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n &&
              fwrite(tfpi_tensor_const_data(t), 1, bytes, f) == bytes;
    if (fclose(f) != 0 || !ok)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: write failed", path);
    return TFPI_OK;
}
