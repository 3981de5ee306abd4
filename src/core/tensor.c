/* tensor.c - tensor storage, shapes, and the public tfpi_tensor_* calls. */
#include "core/tensor.h"

#include "core/checked_math.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tfpi.h"

size_t tfpi_dtype_size(tfpi_dtype dtype)
{
    switch (dtype) {
    case TFPI_FLOAT: case TFPI_INT32: case TFPI_QINT32: return 4;
    case TFPI_DOUBLE: case TFPI_INT64: return 8;
    case TFPI_UINT8: case TFPI_INT8: case TFPI_BOOL: case TFPI_QINT8: case TFPI_QUINT8: return 1;
    case TFPI_INT16: case TFPI_UINT16: case TFPI_HALF: case TFPI_QINT16: case TFPI_QUINT16: return 2;
    case TFPI_STRING: return sizeof(tfpi_bytes);
    case TFPI_RESOURCE: case TFPI_VARIANT: return sizeof(void *);
    }
    return 0;
}

const char *tfpi_dtype_name(tfpi_dtype dtype)
{
    switch (dtype) {
    case TFPI_FLOAT: return "float";
    case TFPI_DOUBLE: return "double";
    case TFPI_INT32: return "int32";
    case TFPI_UINT8: return "uint8";
    case TFPI_INT16: return "int16";
    case TFPI_INT8: return "int8";
    case TFPI_STRING: return "string";
    case TFPI_INT64: return "int64";
    case TFPI_BOOL: return "bool";
    case TFPI_QINT8: return "qint8";
    case TFPI_QUINT8: return "quint8";
    case TFPI_QINT32: return "qint32";
    case TFPI_QINT16: return "qint16";
    case TFPI_QUINT16: return "quint16";
    case TFPI_UINT16: return "uint16";
    case TFPI_HALF: return "half";
    case TFPI_RESOURCE: return "resource";
    case TFPI_VARIANT: return "variant";
    }
    return "unsupported";
}

void tp_tensor_set_shape(tfpi_tensor *t, tfpi_dtype dtype, int ndims, const int64_t *dims)
{
    t->dtype = dtype;
    t->ndims = ndims;
    for (int i = 0; i < ndims; i++)
        t->dims[i] = dims[i];
}

int64_t tp_num_elements(const tfpi_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndims; i++)
        n *= t->dims[i];
    return n;
}

size_t tp_byte_size(const tfpi_tensor *t)
{
    return (size_t)tp_num_elements(t) * tfpi_dtype_size(t->dtype);
}

/* Asks the kernel to back the 2 MB-aligned part of a large block with huge
 * pages (where transparent huge pages are "madvise", as on Debian and
 * Raspberry Pi OS): zeroing 1 GB then takes 512 page faults, not 262,144.
 * Only advice: without huge pages the block stays as it is. */
static void advise_huge_pages(void *p, size_t bytes)
{
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1), end = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}

tfpi_code tp_tensor_alloc(tfpi_tensor *t, tfpi_status *status)
{
    size_t bytes = tp_byte_size(t);
    size_t rounded = (bytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (!p)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory allocating %zu bytes", bytes);
    advise_huge_pages(p, rounded);
    memset(p, 0, rounded ? rounded : 64);
    tp_tensor_release(t);
    t->data = p;
    t->owns_data = true;
    return TFPI_OK;
}

void tp_tensor_release(tfpi_tensor *t)
{
    if (t->owns_data && t->data) {
        if (t->dtype == TFPI_STRING) {
            tfpi_bytes *s = t->data;
            for (int64_t i = 0; i < tp_num_elements(t); i++)
                free((void *)s[i].data);
        }
        free(t->data);
    }
    t->data = NULL;
    t->owns_data = false;
}

/* The largest tensor tfpi agrees to describe: half the address space, and
 * at most 2^40 bytes. */
#define MAX_TENSOR_BYTES ((uint64_t)(SIZE_MAX / 2) < ((uint64_t)1 << 40) ? (uint64_t)(SIZE_MAX / 2) : ((uint64_t)1 << 40))

bool tp_shape_fits(tfpi_dtype dtype, int ndims, const int64_t *dims)
{
    int64_t elements, bytes;
    int64_t size = tfpi_dtype_size(dtype) ? (int64_t)tfpi_dtype_size(dtype) : 1;
    return ndims >= 0 && ndims <= TFPI_MAX_DIMS && tp_checked_product(dims, ndims, &elements) &&
           tp_checked_mul(elements, size, &bytes) && (uint64_t)bytes <= MAX_TENSOR_BYTES;
}

static bool shape_is_valid(tfpi_dtype dtype, const int64_t *dims, int ndims, tfpi_status *status)
{
    if (ndims < 0 || ndims > TFPI_MAX_DIMS) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "tensor rank %d is outside 0..%d", ndims, TFPI_MAX_DIMS);
        return false;
    }
    if (!tp_shape_fits(dtype, ndims, dims)) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "tensor shape is negative or too large");
        return false;
    }
    return true;
}

tfpi_tensor *tfpi_tensor_new(tfpi_dtype dtype, const int64_t *dims, int ndims, tfpi_status *status)
{
    if (tfpi_dtype_size(dtype) == 0) {
        tfpi_status_set(status, TFPI_UNIMPLEMENTED, "tensor type %d is not supported", (int)dtype);
        return NULL;
    }
    if (!shape_is_valid(dtype, dims, ndims, status))
        return NULL;
    tfpi_tensor *t = calloc(1, sizeof *t);
    if (!t) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    tp_tensor_set_shape(t, dtype, ndims, dims);
    if (tp_tensor_alloc(t, status) != TFPI_OK) {
        free(t);
        return NULL;
    }
    return t;
}

tfpi_code tfpi_tensor_set_string(tfpi_tensor *t, size_t index, const void *data, size_t size,
                                 tfpi_status *status)
{
    if (t->dtype != TFPI_STRING || (uint64_t)index >= (uint64_t)tp_num_elements(t))
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "string element %zu is out of range", index);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory copying %zu bytes", size);
    if (size)
        memcpy(copy, data, size);
    tfpi_bytes *s = t->data;
    free((void *)s[index].data);
    s[index].data = copy;
    s[index].size = size;
    return TFPI_OK;
}

tfpi_code tp_tensor_copy_from(tfpi_tensor *dst, const tfpi_tensor *src, tfpi_status *status)
{
    tp_tensor_release(dst);
    tp_tensor_set_shape(dst, src->dtype, src->ndims, src->dims);
    tfpi_code code = tp_tensor_alloc(dst, status);
    if (code != TFPI_OK || src->dtype != TFPI_STRING) {
        if (code == TFPI_OK && tp_byte_size(src) > 0) /* an empty tensor may have no data */
            memcpy(dst->data, src->data, tp_byte_size(src));
        return code;
    }
    const tfpi_bytes *s = src->data;
    for (int64_t i = 0; i < tp_num_elements(src); i++)
        if ((code = tfpi_tensor_set_string(dst, (size_t)i, s[i].data, s[i].size, status)) != TFPI_OK)
            return code;
    return TFPI_OK;
}

tfpi_tensor *tp_tensor_clone(const tfpi_tensor *src, tfpi_status *status)
{
    tfpi_tensor *t = calloc(1, sizeof *t);
    if (!t) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    if (tp_tensor_copy_from(t, src, status) != TFPI_OK) {
        tfpi_tensor_free(t);
        return NULL;
    }
    return t;
}

tfpi_code tp_tensor_own_strings(tfpi_tensor *t, tfpi_status *status)
{
    tfpi_bytes *s = t->data;
    int64_t n = tp_num_elements(t);
    for (int64_t i = 0; i < n; i++) {
        uint8_t *copy = malloc(s[i].size ? s[i].size : 1);
        if (!copy) {
            for (int64_t j = i; j < n; j++) /* not ours yet: must not be freed */
                s[j] = (tfpi_bytes){0, NULL};
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory copying strings");
        }
        if (s[i].size)
            memcpy(copy, s[i].data, s[i].size);
        s[i].data = copy;
    }
    return TFPI_OK;
}

void tp_tensor_forget_strings(tfpi_tensor *t)
{
    if (t->dtype == TFPI_STRING && t->data)
        memset(t->data, 0, tp_byte_size(t));
}

uint64_t tp_string_bytes(const tfpi_tensor *t)
{
    uint64_t bytes = 0;
    if (t->dtype != TFPI_STRING || !t->data)
        return 0;
    const tfpi_bytes *s = t->data;
    for (int64_t i = 0, n = tp_num_elements(t); i < n; i++)
        if (__builtin_add_overflow(bytes, (uint64_t)s[i].size, &bytes))
            return UINT64_MAX;
    return bytes;
}

bool tp_same_strings(const tfpi_tensor *a, const tfpi_tensor *b)
{
    if (a->dtype != TFPI_STRING || b->dtype != TFPI_STRING || !tp_same_shape(a, b))
        return false;
    const tfpi_bytes *x = a->data, *y = b->data;
    for (int64_t i = 0; i < tp_num_elements(a); i++)
        if (x[i].size != y[i].size || (x[i].size && memcmp(x[i].data, y[i].data, x[i].size) != 0))
            return false;
    return true;
}

void tfpi_tensor_free(tfpi_tensor *t)
{
    if (!t)
        return;
    tp_tensor_release(t);
    free(t);
}

const char *tp_shape_string(const tfpi_tensor *t, char *buf, size_t size)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < t->ndims && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "", (long long)t->dims[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

bool tp_same_shape(const tfpi_tensor *a, const tfpi_tensor *b)
{
    if (a->ndims != b->ndims)
        return false;
    for (int i = 0; i < a->ndims; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

/* A float value as int64, saturated (NaN reads as 0): no undefined conversion. */
static int64_t saturate_to_int(double v)
{
    if (v != v)
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    return v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
}

int64_t tp_get_int(const tfpi_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case TFPI_INT32: case TFPI_QINT32: return ((const int32_t *)t->data)[i];
    case TFPI_INT64: return ((const int64_t *)t->data)[i];
    case TFPI_UINT8: case TFPI_QUINT8: case TFPI_BOOL: return ((const uint8_t *)t->data)[i];
    case TFPI_INT8: case TFPI_QINT8: return ((const int8_t *)t->data)[i];
    case TFPI_INT16: case TFPI_QINT16: return ((const int16_t *)t->data)[i];
    case TFPI_UINT16: case TFPI_QUINT16: return ((const uint16_t *)t->data)[i];
    case TFPI_FLOAT: return saturate_to_int(((const float *)t->data)[i]);
    case TFPI_DOUBLE: return saturate_to_int(((const double *)t->data)[i]);
    default: return 0;
    }
}

tfpi_dtype tfpi_tensor_dtype(const tfpi_tensor *t) { return t->dtype; }
int tfpi_tensor_ndims(const tfpi_tensor *t) { return t->ndims; }
int64_t tfpi_tensor_dim(const tfpi_tensor *t, int i) { return i >= 0 && i < t->ndims ? t->dims[i] : -1; }
int64_t tfpi_tensor_num_elements(const tfpi_tensor *t) { return tp_num_elements(t); }
size_t tfpi_tensor_byte_size(const tfpi_tensor *t) { return tp_byte_size(t); }
void *tfpi_tensor_data(tfpi_tensor *t) { return t->data; }
const void *tfpi_tensor_const_data(const tfpi_tensor *t) { return t->data; }
