/* npy.c - the .npy format: magic "\x93NUMPY", version, header length, a
 * Python-dict header ({'descr': '<f4', 'fortran_order': False, 'shape': (...)}),
 * then the raw C-order data (string arrays: npy_strings.c). Strings are
 * written as fixed-width bytes ('|S<longest>'). */
#include "npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "npy_strings.h"
#include "tfpi.h"

static const struct {
    const char *descr;
    tfpi_dtype dtype;
} npy_types[] = {
    {"<f4", TFPI_FLOAT}, {"<i4", TFPI_INT32}, {"<i8", TFPI_INT64}, {"|u1", TFPI_UINT8},
    {"|b1", TFPI_BOOL},  {"<f8", TFPI_DOUBLE}, {"|i1", TFPI_INT8},  {"<i2", TFPI_INT16},
    {"<u2", TFPI_UINT16}, {"<f2", TFPI_HALF}, {"<c8", TFPI_COMPLEX64},
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

/* The 'descr' value of a header ("<f4", "|S5"), into buf. */
static bool header_descr(const char *header, char *buf, size_t size)
{
    const char *descr = strstr(header, "'descr'");
    const char *open = descr ? strchr(descr + 7, '\'') : NULL;
    const char *close = open ? strchr(open + 1, '\'') : NULL;
    if (!close || (size_t)(close - open - 1) >= size)
        return false;
    memcpy(buf, open + 1, (size_t)(close - open - 1));
    buf[close - open - 1] = '\0';
    return true;
}

/* A string descr: 'S' (bytes), 'U' (UTF-32) or 'O' (objects) in *kind and
 * the width of one element (bytes or characters). */
static bool string_descr(const char *descr, char *kind, size_t *width)
{
    if (strcmp(descr, "|O") == 0) {
        *kind = 'O';
        *width = 0;
        return true;
    }
    if ((strncmp(descr, "|S", 2) != 0 && strncmp(descr, "<U", 2) != 0) || descr[2] < '0' || descr[2] > '9')
        return false;
    char *end;
    unsigned long long w = strtoull(descr + 2, &end, 10);
    *kind = descr[1];
    *width = (size_t)w;
    return *end == '\0' && w > 0 && w < (1u << 24);
}

/* Fills string tensor t from the data after the header. */
static tfpi_code read_strings(tfpi_tensor *t, char kind, size_t width, const uint8_t *data, size_t size,
                              const char *path, tfpi_status *status)
{
    if (kind == 'O')
        return npy_object_strings(t, data, size, path, status);
    size_t element = kind == 'S' ? width : 4 * width;
    int64_t n = tfpi_tensor_num_elements(t);
    if (n > 0 && (uint64_t)n > size / element)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, ".npy data is truncated (%lld elements of %zu bytes)",
                               (long long)n, element);
    return kind == 'S' ? npy_fixed_bytes(t, data, width, status) : npy_fixed_unicode(t, data, width, path, status);
}

static tfpi_tensor *parse(const uint8_t *file, size_t size, const char *header, size_t data_at, const char *path,
                          tfpi_status *status)
{
    char descr[32], kind = 0;
    size_t width = 0;
    tfpi_dtype dtype = 0;
    bool known = header_descr(header, descr, sizeof descr);
    for (size_t i = 0; known && !dtype && i < NUM_NPY_TYPES; i++) /* the first, plain type */
        if (strcmp(descr, npy_types[i].descr) == 0)
            dtype = npy_types[i].dtype;
    if (!dtype && known && string_descr(descr, &kind, &width))
        dtype = TFPI_STRING;
    if (!dtype) {
        tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                 "%s: unsupported .npy type (float32, float64, float16, int64, int32, int16, int8, uint16, uint8, "
                 "bool, and strings as 'S', 'U' or object arrays)", path);
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
    tfpi_tensor *t = tfpi_tensor_new(dtype, dims, ndims, status);
    const uint8_t *data = file + data_at;
    size_t left = size - data_at;
    tfpi_code code = TFPI_OK;
    if (t && dtype == TFPI_STRING) {
        code = read_strings(t, kind, width, data, left, path, status);
    } else if (t && tfpi_tensor_byte_size(t) > left) {
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: .npy data is truncated (need %zu bytes)", path,
                               tfpi_tensor_byte_size(t));
    } else if (t) {
        memcpy(tfpi_tensor_data(t), data, tfpi_tensor_byte_size(t));
    }
    if (code != TFPI_OK) {
        tfpi_tensor_free(t);
        t = NULL;
    }
    return t;
}

tfpi_tensor *npy_read(const char *path, tfpi_status *status)
{
    size_t size;
    uint8_t *file = read_file(path, &size, status);
    if (!file)
        return NULL;
    tfpi_tensor *t = NULL;
    size_t header_len = 0, prefix = 0;
    if (size < 10 || memcmp(file, "\x93NUMPY", 6) != 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a .npy file", path);
    } else if (file[6] == 1) {
        header_len = file[8] | (size_t)file[9] << 8;
        prefix = 10;
    } else if (file[6] >= 2 && size >= 12) {
        header_len = file[8] | (size_t)file[9] << 8 | (size_t)file[10] << 16 | (size_t)file[11] << 24;
        prefix = 12;
    }
    char *header = NULL;
    if (prefix && header_len < (1u << 20) && header_len <= size - prefix && (header = calloc(header_len + 1, 1))) {
        memcpy(header, file + prefix, header_len);
        t = parse(file, size, header, prefix + header_len, path, status);
    } else if (prefix) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: truncated .npy header", path);
    }
    free(header);
    free(file);
    return t;
}

/* A string tensor as '|S<longest>' data (one block the caller frees). */
static uint8_t *fixed_bytes(const tfpi_tensor *t, size_t *width, size_t *bytes)
{
    int64_t n = tfpi_tensor_num_elements(t);
    const tfpi_bytes *s = tfpi_tensor_const_data(t);
    *width = 1;
    for (int64_t i = 0; i < n; i++)
        if (s[i].size > *width)
            *width = s[i].size;
    if (n > 0 && *width > SIZE_MAX / (size_t)n)
        return NULL;
    *bytes = (size_t)n * *width;
    uint8_t *out = calloc(*bytes ? *bytes : 1, 1);
    for (int64_t i = 0; out && i < n; i++)
        memcpy(out + (size_t)i * *width, s[i].data, s[i].size);
    return out;
}

tfpi_code npy_write(const char *path, const tfpi_tensor *t, tfpi_status *status)
{
    const char *descr = NULL;
    char string_descr_buf[32];
    const void *data = tfpi_tensor_const_data(t);
    size_t bytes = tfpi_tensor_byte_size(t), width;
    uint8_t *strings = NULL;
    for (size_t i = 0; i < NUM_NPY_TYPES; i++)
        if (npy_types[i].dtype == tfpi_tensor_dtype(t))
            descr = npy_types[i].descr;
    if (tfpi_tensor_dtype(t) == TFPI_STRING) {
        if (!(strings = fixed_bytes(t, &width, &bytes)))
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", path);
        snprintf(string_descr_buf, sizeof string_descr_buf, "|S%zu", width);
        descr = string_descr_buf;
        data = strings;
    }
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
    if (!f) {
        free(strings);
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    }
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n &&
              fwrite(data, 1, bytes, f) == bytes;
    free(strings);
    if (fclose(f) != 0 || !ok)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: write failed", path);
    return TFPI_OK;
}
