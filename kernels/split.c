/* split.c - cutting a tensor into pieces along an axis, on any element
 * type: Split (split_dim is the first input, num_split equal pieces),
 * SplitV (size_splits, one of which may be -1, then the axis) and Unpack
 * (num pieces of size 1 with the axis removed). These have one output per
 * piece; the graph decides how many it uses, and only those are written.
 * All three see the input as [outer][axis][inner] and copy, for each outer
 * index, one contiguous piece to every output in turn. */
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"

/* Sizes of the pieces along the axis, and the axis. */
typedef struct split_state {
    int axis;
    int num_pieces;
    int64_t sizes[];
} split_state;

static tfpi_code new_state(tp_op_ctx *ctx, int axis, int64_t num_pieces, split_state **out)
{
    if (num_pieces < 1 || num_pieces > 1 << 20)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot split into %lld pieces", (long long)num_pieces);
    split_state *s = calloc(1, sizeof *s + (size_t)num_pieces * sizeof s->sizes[0]);
    if (!(ctx->state = s))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->axis = axis;
    s->num_pieces = (int)num_pieces;
    *out = s;
    return tp_expect_outputs_at_most(ctx, s->num_pieces);
}

/* The tensor that is cut: Split takes split_dim first. */
static const tfpi_tensor *value_of(const tp_op_ctx *ctx)
{
    return ctx->inputs[strcmp(ctx->def->op, "Split") == 0 ? 1 : 0];
}

/* Output k: the input's shape with s->sizes[k] on the axis, or without the
 * axis (Unpack). */
static void set_piece_shapes(tp_op_ctx *ctx, const split_state *s, bool drop_axis)
{
    const tfpi_tensor *in = value_of(ctx);
    for (int k = 0; k < ctx->num_outputs; k++) {
        int64_t dims[TFPI_MAX_DIMS];
        int n = 0;
        for (int d = 0; d < in->ndims; d++)
            if (d != s->axis || !drop_axis)
                dims[n++] = d == s->axis ? s->sizes[k] : in->dims[d];
        tp_tensor_set_shape(&ctx->outputs[k], in->dtype, n, dims);
    }
}

static tfpi_code split_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    int64_t axis_value, num_split = tp_attr_int(ctx->def, "num_split", 1);
    int axis;
    split_state *s;
    if (code == TFPI_OK)
        code = tp_read_index_scalar(ctx, 0, "split_dim", &axis_value);
    if (code == TFPI_OK)
        code = tp_resolve_axis(ctx, axis_value, ctx->inputs[1]->ndims, "split_dim", &axis);
    if (code == TFPI_OK)
        code = new_state(ctx, axis, num_split, &s);
    if (code != TFPI_OK)
        return code;
    int64_t dim = ctx->inputs[1]->dims[axis];
    if (dim % num_split != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dimension %d (size %lld) does not split into %lld pieces",
                       axis, (long long)dim, (long long)num_split);
    for (int k = 0; k < s->num_pieces; k++)
        s->sizes[k] = dim / num_split;
    set_piece_shapes(ctx, s, false);
    return TFPI_OK;
}

/* Fills s->sizes from size_splits (input 1), inferring one -1. */
static tfpi_code read_size_splits(tp_op_ctx *ctx, split_state *s, int64_t dim)
{
    const tfpi_tensor *t = ctx->inputs[1];
    tfpi_code code = t->dtype == TFPI_INT32 || t->dtype == TFPI_INT64 ? tp_expect_known(ctx, 1)
                     : tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size_splits must be int32 or int64");
    if (code != TFPI_OK)
        return code;
    int inferred = -1;
    int64_t total = 0;
    for (int k = 0; k < s->num_pieces; k++) {
        s->sizes[k] = tp_get_int(t, k);
        if (s->sizes[k] == -1 && inferred < 0)
            inferred = k;
        else if (s->sizes[k] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size_splits[%d] = %lld is invalid", k,
                           (long long)s->sizes[k]);
        else
            total = tp_sat_add(total, s->sizes[k]);
    }
    if (inferred >= 0 && total <= dim)
        s->sizes[inferred] = dim - total;
    else if (inferred >= 0 || total != dim)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size_splits add up to %lld, the dimension has %lld",
                       (long long)total, (long long)dim);
    return TFPI_OK;
}

static tfpi_code split_v_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    int64_t axis_value;
    int axis;
    split_state *s;
    if (code == TFPI_OK)
        code = tp_read_index_scalar(ctx, 2, "axis", &axis_value);
    if (code == TFPI_OK)
        code = tp_resolve_axis(ctx, axis_value, ctx->inputs[0]->ndims, "axis", &axis);
    if (code == TFPI_OK && ctx->inputs[1]->ndims != 1)
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size_splits must be a vector");
    int64_t num_split = code == TFPI_OK ? tp_attr_int(ctx->def, "num_split", ctx->inputs[1]->dims[0]) : 0;
    if (code == TFPI_OK && num_split != ctx->inputs[1]->dims[0])
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute num_split = %lld, but size_splits has %lld values",
                       (long long)num_split, (long long)ctx->inputs[1]->dims[0]);
    if (code == TFPI_OK)
        code = new_state(ctx, axis, ctx->inputs[1]->dims[0], &s);
    if (code == TFPI_OK)
        code = read_size_splits(ctx, s, ctx->inputs[0]->dims[axis]);
    if (code != TFPI_OK)
        return code;
    set_piece_shapes(ctx, s, false);
    return TFPI_OK;
}

static tfpi_code unpack_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    int axis;
    split_state *s;
    if (code == TFPI_OK)
        code = tp_resolve_axis(ctx, tp_attr_int(ctx->def, "axis", 0), ctx->inputs[0]->ndims, "axis", &axis);
    if (code != TFPI_OK)
        return code;
    int64_t dim = ctx->inputs[0]->dims[axis];
    if (tp_attr_int(ctx->def, "num", dim) != dim)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "num is %lld, but dimension %d has size %lld",
                       (long long)tp_attr_int(ctx->def, "num", dim), axis, (long long)dim);
    if ((code = new_state(ctx, axis, dim, &s)) != TFPI_OK)
        return code;
    for (int k = 0; k < s->num_pieces; k++)
        s->sizes[k] = 1;
    set_piece_shapes(ctx, s, true);
    return TFPI_OK;
}

static tfpi_code split_run(tp_op_ctx *ctx)
{
    const split_state *s = ctx->state;
    const tfpi_tensor *in = value_of(ctx);
    int64_t outer = 1, inner = (int64_t)tfpi_dtype_size(in->dtype);
    for (int d = 0; d < s->axis; d++)
        outer *= in->dims[d];
    for (int d = s->axis + 1; d < in->ndims; d++)
        inner *= in->dims[d];
    const char *src = in->data;
    for (int64_t o = 0; o < outer; o++) {
        for (int k = 0; k < s->num_pieces; k++) {
            size_t piece = (size_t)(s->sizes[k] * inner);
            if (k < ctx->num_outputs)
                memcpy((char *)ctx->outputs[k].data + (size_t)o * piece, src, piece);
            src += piece;
        }
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_split[] = {
    TP_KERNEL("Split", split_prepare, split_run, free, 0),
    TP_KERNEL("SplitV", split_v_prepare, split_run, free, 0),
    TP_KERNEL("Unpack", unpack_prepare, split_run, free, 0),
    TP_KERNELS_END,
};
