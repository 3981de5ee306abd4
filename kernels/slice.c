/* slice.c - Slice and StridedSlice on any element type. prepare turns the
 * (known) begin/size or begin/end/strides inputs into a strided view of the
 * input and the output shape; run copies the view (strided_copy.c).
 *
 * StridedSlice follows TensorFlow's ValidateStridedSliceOp: the sparse
 * spec (one entry per begin value, with ellipsis, new-axis and shrink
 * masks) is expanded to one entry per input dimension; indices are
 * canonicalised (negative counts from the end, then clamped, masked ones
 * take the full range in the stride's direction); a shrunk dimension takes
 * exactly one in-range index. */
#include <stdlib.h>

#include "kernel/array_kernel_util.h"
#include "compute/strided_copy.h"

/* Begin values of a StridedSlice (new axes and an ellipsis included). */
#define MAX_SPARSE_DIMS 32

static tfpi_code slice_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t begin[TFPI_MAX_DIMS], size[TFPI_MAX_DIMS], strides[TFPI_MAX_DIMS];
    int num_begin = 0, num_size = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "begin", begin, TFPI_MAX_DIMS, &num_begin);
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 2, "size", size, TFPI_MAX_DIMS, &num_size);
    if (code != TFPI_OK)
        return code;
    if (num_begin != in->ndims || num_size != in->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "begin and size must have one value per input dimension (%d), have %d and %d",
                       in->ndims, num_begin, num_size);
    tp_strided_view *view = tp_new_strided_view(ctx);
    if (!view)
        return TFPI_OUT_OF_MEMORY;
    tp_byte_strides(in, strides);
    view->rank = in->ndims;
    for (int d = 0; d < in->ndims; d++) {
        if (begin[d] < 0 || begin[d] > in->dims[d])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "begin[%d] = %lld is outside [0, %lld]", d,
                           (long long)begin[d], (long long)in->dims[d]);
        int64_t available = in->dims[d] - begin[d];
        view->count[d] = size[d] == -1 ? available : size[d];
        if (view->count[d] < 0 || view->count[d] > available)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size[%d] = %lld is outside [0, %lld] (or -1)", d,
                           (long long)size[d], (long long)available);
        view->step[d] = strides[d];
        view->offset += begin[d] * strides[d];
    }
    return tp_set_output(ctx, 0, in->dtype, in->ndims, view->count);
}

/* ---- StridedSlice ---------------------------------------------------------- */

typedef struct sparse_spec {
    int dims;
    int64_t begin[MAX_SPARSE_DIMS + 1], end[MAX_SPARSE_DIMS + 1], strides[MAX_SPARSE_DIMS + 1];
    uint64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
} sparse_spec;

/* One entry per input dimension. */
typedef struct dense_spec {
    int64_t begin[TFPI_MAX_DIMS], end[TFPI_MAX_DIMS], strides[TFPI_MAX_DIMS];
    uint64_t begin_mask, end_mask, shrink_mask;
    /* Output dims in order: a dense index, or NEW_AXIS (a dim of 1); shrunk
     * dims do not appear. */
    int num_output_dims;
    int output_dims[MAX_SPARSE_DIMS + TFPI_MAX_DIMS];
} dense_spec;

enum { NEW_AXIS = -1 };

static bool bit(uint64_t mask, int i) { return (mask >> i) & 1; }

static tfpi_code read_sparse_spec(tp_op_ctx *ctx, sparse_spec *s)
{
    int num_end = 0, num_strides = 0;
    tfpi_code code = tp_read_index_values(ctx, 1, "begin", s->begin, MAX_SPARSE_DIMS, &s->dims);
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 2, "end", s->end, MAX_SPARSE_DIMS, &num_end);
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 3, "strides", s->strides, MAX_SPARSE_DIMS, &num_strides);
    if (code != TFPI_OK)
        return code;
    for (int i = 1; i <= 3; i++)
        if (ctx->inputs[i]->ndims != 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "begin, end and strides must be vectors");
    if (num_end != s->dims || num_strides != s->dims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "begin, end and strides must have the same length, have %d, %d and %d", s->dims,
                       num_end, num_strides);
    uint64_t valid = (UINT64_C(1) << s->dims) - 1;
    s->begin_mask = (uint64_t)tp_attr_int(ctx->def, "begin_mask", 0) & valid;
    s->end_mask = (uint64_t)tp_attr_int(ctx->def, "end_mask", 0) & valid;
    s->ellipsis_mask = (uint64_t)tp_attr_int(ctx->def, "ellipsis_mask", 0) & valid;
    s->new_axis_mask = (uint64_t)tp_attr_int(ctx->def, "new_axis_mask", 0) & valid;
    s->shrink_axis_mask = (uint64_t)tp_attr_int(ctx->def, "shrink_axis_mask", 0) & valid;
    if (s->ellipsis_mask & (s->ellipsis_mask - 1))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "multiple ellipses in the slice spec are not allowed");
    if (!s->ellipsis_mask) /* an implicit ellipsis at the end covers the rest */
        s->ellipsis_mask = UINT64_C(1) << s->dims++;
    return TFPI_OK;
}

/* TF's BuildDenseSpec. */
static tfpi_code build_dense_spec(tp_op_ctx *ctx, const sparse_spec *s, int rank, dense_spec *d)
{
    int new_axes_after_ellipsis = 0;
    for (int i = 0, seen = 0; i < s->dims; i++) {
        if (seen && bit(s->new_axis_mask, i))
            new_axes_after_ellipsis++;
        seen |= bit(s->ellipsis_mask, i);
    }
    int full = 0;
    d->num_output_dims = 0;
    for (int i = 0; i < s->dims; i++) {
        if (bit(s->ellipsis_mask, i)) {
            /* the ellipsis spans what the entries after it leave over */
            int stop = rank - (s->dims - i) + 1 + new_axes_after_ellipsis;
            for (stop = stop < rank ? stop : rank; full < stop; full++) {
                d->begin[full] = d->end[full] = 0;
                d->strides[full] = 1;
                d->begin_mask |= UINT64_C(1) << full;
                d->end_mask |= UINT64_C(1) << full;
                d->output_dims[d->num_output_dims++] = full;
            }
        } else if (bit(s->new_axis_mask, i)) {
            d->output_dims[d->num_output_dims++] = NEW_AXIS;
        } else {
            if (full == rank)
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                               "the slice spec indexes more dimensions than the input has (%d)", rank);
            d->begin[full] = s->begin[i];
            d->end[full] = s->end[i];
            d->strides[full] = s->strides[i];
            d->begin_mask |= (uint64_t)bit(s->begin_mask, i) << full;
            d->end_mask |= (uint64_t)bit(s->end_mask, i) << full;
            if (bit(s->shrink_axis_mask, i))
                d->shrink_mask |= UINT64_C(1) << full;
            else
                d->output_dims[d->num_output_dims++] = full;
            full++;
        }
    }
    return TFPI_OK;
}

/* TF's canonical(): a begin (which = 0) or end (which = 1) index made
 * absolute and clamped to the range valid for the stride's direction. */
static int64_t canonical_index(int64_t x, int which, bool masked, int64_t stride, int64_t dim)
{
    int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
    if (masked)
        return (stride > 0) == (which == 0) ? lo : hi;
    int64_t forward = x < 0 ? dim + x : x;
    return forward < lo ? lo : forward > hi ? hi : forward;
}

/* The first index and the number of indices dense dim i takes. */
static tfpi_code slice_dense_dim(tp_op_ctx *ctx, const dense_spec *d, int i, int64_t dim,
                                 int64_t *begin, int64_t *count)
{
    int64_t stride = d->strides[i], b, e;
    if (stride == 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "strides[%d] must be non-zero", i);
    if (bit(d->shrink_mask, i)) {
        if (stride < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "dimension %d takes a single index, which needs a positive stride", i);
        b = d->begin[i] < 0 ? dim + d->begin[i] : d->begin[i];
        if (b < 0 || b >= dim)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "slice index %lld of dimension %d is out of bounds",
                           (long long)d->begin[i], i);
        e = b + 1;
    } else {
        b = canonical_index(d->begin[i], 0, bit(d->begin_mask, i), stride, dim);
        e = canonical_index(d->end[i], 1, bit(d->end_mask, i), stride, dim);
    }
    int64_t interval = e - b;
    if (interval == 0 || (interval < 0) != (stride < 0))
        *count = 0;
    else
        *count = interval / stride + (interval % stride != 0);
    *begin = b;
    return TFPI_OK;
}

static tfpi_code strided_slice_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 4, 4);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    sparse_spec sparse = {0};
    dense_spec dense = {0};
    if ((code = read_sparse_spec(ctx, &sparse)) != TFPI_OK ||
        (code = build_dense_spec(ctx, &sparse, in->ndims, &dense)) != TFPI_OK)
        return code;
    if (dense.num_output_dims > TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the result would have rank %d, above %d",
                       dense.num_output_dims, TFPI_MAX_DIMS);
    tp_strided_view *view = tp_new_strided_view(ctx);
    if (!view)
        return TFPI_OUT_OF_MEMORY;
    int64_t strides[TFPI_MAX_DIMS], begin[TFPI_MAX_DIMS], count[TFPI_MAX_DIMS];
    tp_byte_strides(in, strides);
    view->rank = in->ndims;
    for (int i = 0; i < in->ndims; i++) {
        if ((code = slice_dense_dim(ctx, &dense, i, in->dims[i], &begin[i], &count[i])) != TFPI_OK)
            return code;
        view->count[i] = count[i];
        /* A huge stride takes at most one element, whose step is never used. */
        view->step[i] = count[i] > 1 ? strides[i] * dense.strides[i] : 0;
        view->offset += begin[i] * strides[i];
    }
    int64_t out_dims[TFPI_MAX_DIMS];
    for (int k = 0; k < dense.num_output_dims; k++)
        out_dims[k] = dense.output_dims[k] == NEW_AXIS ? 1 : count[dense.output_dims[k]];
    return tp_set_output(ctx, 0, in->dtype, dense.num_output_dims, out_dims);
}

const tp_kernel tp_kernels_slice[] = {
    TP_KERNEL("Slice", slice_prepare, tp_run_strided_view, free, 0),
    TP_KERNEL("StridedSlice", strided_slice_prepare, tp_run_strided_view, free, 0),
    TP_KERNELS_END,
};
