/* strided_copy.h - copies a strided view of one tensor into a dense output:
 * the engine behind Slice, StridedSlice, Transpose and Tile. A view is a
 * start offset and, per output dimension, a count and a byte step through
 * the source (negative for reversed slices, zero for repeats). */
#ifndef TFPI_STRIDED_COPY_H
#define TFPI_STRIDED_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

/* Tile views use two dimensions per input dimension. */
#define TP_VIEW_MAX_DIMS (2 * TFPI_MAX_DIMS)

typedef struct tp_strided_view {
    int64_t offset; /* bytes from the source start to the element at index 0 */
    int rank;
    int64_t count[TP_VIEW_MAX_DIMS];
    int64_t step[TP_VIEW_MAX_DIMS]; /* source bytes between neighbours */
} tp_strided_view;

/* Byte strides of a dense row-major tensor, one per dimension. */
void tp_byte_strides(const tfpi_tensor *t, int64_t *strides);

/* dst (dense, row-major over view->count) = the view of src, elements of
 * elem_size bytes; rows are spread over the pool (which may be NULL). */
void tp_strided_copy(void *dst, const void *src, const tp_strided_view *view, size_t elem_size,
                     tp_threadpool *pool);

/* A zeroed view in ctx->state, for kernels that release their state with
 * free; NULL (after tp_fail) if out of memory. */
tp_strided_view *tp_new_strided_view(tp_op_ctx *ctx);

/* The run function of kernels whose prepare left a malloc'd
 * tp_strided_view in ctx->state: output 0 = that view of input 0. */
tfpi_code tp_run_strided_view(tp_op_ctx *ctx);

#endif
