/* src/core/ - what every stage shares: the tensor struct and its shape
 * helpers (this file), status messages, the thread pool, wrapping integer
 * arithmetic, the profiling clock. Depends on nothing but the public tfpi.h.
 *
 * tensor.h - the tensor struct behind the public tfpi_tensor handle, shared
 * by the runtime and the kernels, and small shape helpers. */
#ifndef TFPI_TENSOR_H
#define TFPI_TENSOR_H

#include <stdbool.h>

#include "tfpi.h"

struct tfpi_tensor {
    tfpi_dtype dtype;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    void *data;     /* NULL while planning when the value is not known yet */
    bool owns_data; /* tfpi_tensor_free / tp_tensor_release frees data */
};

/* Sets dtype and shape; data is left alone. */
void tp_tensor_set_shape(tfpi_tensor *t, tfpi_dtype dtype, int ndims, const int64_t *dims);
/* True if every dim is >= 0 and the bytes fit in memory we could address
 * (checked before anything is allocated for a shape a model describes). */
bool tp_shape_fits(tfpi_dtype dtype, int ndims, const int64_t *dims);
/* Number of elements; 1 for a scalar. */
int64_t tp_num_elements(const tfpi_tensor *t);
/* Bytes of the data: elements * element size (string: array of tfpi_bytes). */
size_t tp_byte_size(const tfpi_tensor *t);
/* Allocates zeroed owned data for the current shape (64-byte aligned). */
tfpi_code tp_tensor_alloc(tfpi_tensor *t, tfpi_status *status);
/* Frees owned data (and owned string elements) and clears the pointer. */
void tp_tensor_release(tfpi_tensor *t);
/* Makes dst an owned deep copy of src (shape, data, string bytes). */
tfpi_code tp_tensor_copy_from(tfpi_tensor *dst, const tfpi_tensor *src, tfpi_status *status);
/* Replaces each borrowed element of an owned string tensor by its own copy
 * (on failure the elements not yet copied are cleared, never freed). */
tfpi_code tp_tensor_own_strings(tfpi_tensor *t, tfpi_status *status);
/* Clears the elements of a string tensor whose elements are borrowed (a
 * kernel copied them by reference), so releasing it frees none of them. */
void tp_tensor_forget_strings(tfpi_tensor *t);
/* The bytes a string tensor's elements hold (UINT64_MAX if the sum
 * overflows: Fill repeats one element 2^40 times); 0 for other types. */
uint64_t tp_string_bytes(const tfpi_tensor *t);
/* Two string tensors with the same shape and bytes. */
bool tp_same_strings(const tfpi_tensor *a, const tfpi_tensor *b);
/* Deep copy of shape and data into a new owned tensor. */
tfpi_tensor *tp_tensor_clone(const tfpi_tensor *src, tfpi_status *status);
/* "[1,224,224,3]" into buf. */
const char *tp_shape_string(const tfpi_tensor *t, char *buf, size_t size);
bool tp_same_shape(const tfpi_tensor *a, const tfpi_tensor *b);
/* Reads element i of an integer tensor (INT32/INT64/UINT8/...) as int64. */
int64_t tp_get_int(const tfpi_tensor *t, int64_t i);

#endif
