/* broadcast.c - broadcast shapes and the walk over the output in
 * contiguous runs (see broadcast.h). */
#include "compute/broadcast.h"

/* Size of input t along output dim d of a rank-`rank` broadcast: shapes are
 * aligned on their last dimension and missing leading dims count as 1. */
static int64_t aligned_dim(const tfpi_tensor *t, int rank, int d)
{
    int lead = rank - t->ndims;
    return d < lead ? 1 : t->dims[d - lead];
}

bool tp_broadcast_init(tp_broadcast *bc, int n, tfpi_tensor *const *inputs, int *out_ndims,
                       int64_t *out_dims)
{
    int rank = 0;
    for (int k = 0; k < n; k++)
        if (inputs[k]->ndims > rank)
            rank = inputs[k]->ndims;
    for (int d = 0; d < rank; d++) {
        int64_t size = 1;
        for (int k = 0; k < n; k++) {
            int64_t s = aligned_dim(inputs[k], rank, d);
            if (s == 1)
                continue;
            if (size != 1 && s != size)
                return false;
            size = s;
        }
        out_dims[d] = size;
    }
    *out_ndims = rank;

    /* Merge output dims from the innermost outwards: dims of size 1 vanish,
     * and neighbours where every operand is either full or broadcast in both
     * become one dim. `full` has bit k set when operand k is not broadcast. */
    unsigned group_full[TFPI_MAX_DIMS];
    int64_t group_size[TFPI_MAX_DIMS];
    int groups = 0;
    for (int d = rank - 1; d >= 0; d--) {
        if (out_dims[d] == 1)
            continue;
        unsigned full = 0;
        for (int k = 0; k < n; k++)
            if (aligned_dim(inputs[k], rank, d) == out_dims[d])
                full |= 1u << k;
        if (groups > 0 && group_full[groups - 1] == full) {
            group_size[groups - 1] *= out_dims[d];
        } else {
            group_full[groups] = full;
            group_size[groups] = out_dims[d];
            groups++;
        }
    }

    bc->num_inputs = n;
    bc->num_elements = 1;
    for (int d = 0; d < rank; d++)
        bc->num_elements *= out_dims[d];
    if (groups == 0) { /* a single element: every operand is contiguous */
        bc->ndims = 1;
        bc->dims[0] = 1;
        for (int k = 0; k < n; k++)
            bc->strides[k][0] = 1;
        return true;
    }
    bc->ndims = groups;
    int64_t running[TP_BROADCAST_MAX_INPUTS];
    for (int k = 0; k < n; k++)
        running[k] = 1;
    for (int g = 0; g < groups; g++) { /* group g is merged dim groups-1-g */
        int d = groups - 1 - g;
        bc->dims[d] = group_size[g];
        for (int k = 0; k < n; k++) {
            bool full = group_full[g] & (1u << k);
            bc->strides[k][d] = full ? running[k] : 0;
            if (full)
                running[k] *= group_size[g];
        }
    }
    return true;
}

tfpi_code tp_broadcast_prepare_two(tp_op_ctx *ctx, tp_broadcast *bc, int *out_ndims, int64_t *out_dims)
{
    char a[96], b[96];
    if (!tp_broadcast_init(bc, 2, ctx->inputs, out_ndims, out_dims))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "incompatible shapes %s and %s",
                       tp_shape_string(ctx->inputs[0], a, sizeof a), tp_shape_string(ctx->inputs[1], b, sizeof b));
    return TFPI_OK;
}

void tp_broadcast_walk(const tp_broadcast *bc, int64_t begin, int64_t end, tp_broadcast_run_fn fn,
                       void *arg)
{
    if (begin >= end)
        return;
    const int last = bc->ndims - 1;
    int64_t coord[TFPI_MAX_DIMS], offsets[TP_BROADCAST_MAX_INPUTS] = {0};
    int64_t rest = begin;
    for (int d = last; d >= 0; d--) {
        coord[d] = rest % bc->dims[d];
        rest /= bc->dims[d];
        for (int k = 0; k < bc->num_inputs; k++)
            offsets[k] += coord[d] * bc->strides[k][d];
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t length = bc->dims[last] - coord[last];
        if (length > end - pos)
            length = end - pos;
        fn(arg, pos, offsets, length);
        pos += length;
        coord[last] += length;
        for (int k = 0; k < bc->num_inputs; k++)
            offsets[k] += length * bc->strides[k][last];
        for (int d = last; d > 0 && coord[d] == bc->dims[d]; d--) {
            coord[d] = 0;
            coord[d - 1]++;
            for (int k = 0; k < bc->num_inputs; k++)
                offsets[k] += bc->strides[k][d - 1] - bc->dims[d] * bc->strides[k][d];
        }
    }
}
