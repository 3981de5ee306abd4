/* broadcast.h - TensorFlow/numpy broadcasting for the elementwise kernels:
 * the output shape of up to TP_BROADCAST_MAX_INPUTS operands, and a walk
 * over any range of output elements in contiguous innermost runs, giving
 * each operand's element offset. Dimensions that broadcast alike are merged,
 * so x[1,64,64,32] * y[32] walks 4096 runs of 32 and same-shape operands
 * walk one run. */
#ifndef TFPI_BROADCAST_H
#define TFPI_BROADCAST_H

#include <stdbool.h>

#include "core/tensor.h"
#include "kernel/kernel.h"

#define TP_BROADCAST_MAX_INPUTS 3

typedef struct tp_broadcast {
    int num_inputs;
    int ndims; /* after merging; at least 1 */
    int64_t dims[TFPI_MAX_DIMS];
    /* Element strides of each operand per merged dim; 0 where it broadcasts.
     * The innermost stride is 0 (the operand repeats one value along the
     * run) or 1 (it is contiguous along the run). */
    int64_t strides[TP_BROADCAST_MAX_INPUTS][TFPI_MAX_DIMS];
    int64_t num_elements;
} tp_broadcast;

/* Broadcasts the shapes of inputs[0..n-1] (n <= TP_BROADCAST_MAX_INPUTS):
 * writes the output rank and dims and prepares bc. Returns false if two
 * inputs have different sizes other than 1 in the same aligned dimension. */
bool tp_broadcast_init(tp_broadcast *bc, int n, tfpi_tensor *const *inputs, int *out_ndims,
                       int64_t *out_dims);

/* A binary kernel's prepare step: broadcasts inputs 0 and 1 into bc and
 * writes the output rank and dims, or fails the node with "incompatible
 * shapes A and B". */
tfpi_code tp_broadcast_prepare_two(tp_op_ctx *ctx, tp_broadcast *bc, int *out_ndims, int64_t *out_dims);

/* One run of `length` output elements starting at out_offset; operand k
 * starts at in_offsets[k] and moves by bc->strides[k][bc->ndims - 1]. */
typedef void (*tp_broadcast_run_fn)(void *arg, int64_t out_offset, const int64_t *in_offsets,
                                    int64_t length);

/* Calls fn for the output elements [begin, end), in order. */
void tp_broadcast_walk(const tp_broadcast *bc, int64_t begin, int64_t end, tp_broadcast_run_fn fn,
                       void *arg);

/* True if operand k repeats one value along every run. */
static inline bool tp_broadcast_inner_is_scalar(const tp_broadcast *bc, int k)
{
    return bc->strides[k][bc->ndims - 1] == 0;
}

#endif
