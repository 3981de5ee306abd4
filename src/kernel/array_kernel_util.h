/* array_kernel_util.h - argument checks the array kernels (concat, split,
 * slice, gather, pad, ...) share: axis arguments, index inputs that must be
 * known while planning, and how many outputs the graph may use. Every
 * failure is reported with tp_fail, so the message names the node. */
#ifndef TFPI_ARRAY_KERNEL_UTIL_H
#define TFPI_ARRAY_KERNEL_UTIL_H

#include "kernel/kernel.h"

/* Resolves axis against rank (valid: -rank .. rank-1) into *out; `what`
 * names the argument in the error ("axis", "split_dim"). */
tfpi_code tp_resolve_axis(tp_op_ctx *ctx, int64_t axis, int rank, const char *what, int *out);

/* Reads input `input`, an int32 or int64 tensor of at most `max` elements
 * whose value is known while planning, into values; *count receives the
 * element count. The caller checks the rank it wants. */
tfpi_code tp_read_index_values(tp_op_ctx *ctx, int input, const char *what, int64_t *values, int max,
                               int *count);

/* The same for an input that must hold exactly one value. */
tfpi_code tp_read_index_scalar(tp_op_ctx *ctx, int input, const char *what, int64_t *value);

/* The flat position, counted in slices, of index tuple i of `indices`
 * ([..., k], int32 or int64) in a tensor whose first k dims are dims
 * (GatherNd, ScatterNd); an error naming the index when one lies outside
 * its dimension. */
tfpi_code tp_index_tuple_offset(tp_op_ctx *ctx, const tfpi_tensor *indices, int64_t i, int k, const int64_t *dims,
                                int64_t *offset);

/* Fails unless the graph uses at most `produced` outputs of the node. */
tfpi_code tp_expect_outputs_at_most(tp_op_ctx *ctx, int produced);

/* Reshape's output shape: input 0's elements in the shape held by input
 * shape_input (known while planning; one -1 is inferred). */
tfpi_code tp_reshape_dims(tp_op_ctx *ctx, int shape_input, int64_t *dims, int *ndims);

#endif
