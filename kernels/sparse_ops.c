/* sparse_ops.c - TensorFlow's SparseTensor plumbing, as Estimator feature
 * columns (categorical columns, safe_embedding_lookup_sparse) carry it; a
 * SparseTensor is (indices int64 [N,R], values [N], dense_shape int64 [R]):
 *   SparseReshape(indices, shape, new_shape): the same entries under a new
 *     dense shape (one size may be -1, inferred); every index is checked
 *     against the shape;
 *   SparseFillEmptyRows(indices, values, dense_shape, default_value): each
 *     row of the dense shape with no entry gets one, [row, 0, ...] =
 *     default_value; rows in order, a row's entries in input order; also
 *     gives which rows were empty and where each input entry went.
 * Output sizes come from the values (the dynamic executor runs them);
 * every row index is checked and every size goes through the budget. */
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "kernel/kernel.h"

/* indices int64 [N,R], the values or shape beside it int64 [R]. */
static tfpi_code check_sparse(tp_op_ctx *ctx, const tfpi_tensor *indices, const tfpi_tensor *shape)
{
    if (indices->dtype != TFPI_INT64 || indices->ndims != 2 || shape->dtype != TFPI_INT64 || shape->ndims != 1 ||
        shape->dims[0] != indices->dims[1])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be int64 [N,R] and the dense shape int64 [R]");
    if (!indices->data || !shape->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its inputs' values");
    return TFPI_OK;
}

/* ---- SparseReshape ---- */

typedef struct reshape_state {
    int64_t new_dims[TFPI_MAX_DIMS];
    int rank;
} reshape_state;

/* The dense size of shape (int64 [R]), or -1 with the node's error. */
static int64_t dense_size(tp_op_ctx *ctx, const tfpi_tensor *shape)
{
    int64_t size = 1;
    for (int64_t i = 0; i < shape->dims[0]; i++) {
        int64_t d = ((const int64_t *)shape->data)[i];
        if (d < 0 || !tp_checked_mul(size, d, &size)) {
            tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input shape has size %lld at %lld, or too many elements",
                    (long long)d, (long long)i);
            return -1;
        }
    }
    return size;
}

static tfpi_code reshape_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code == TFPI_OK)
        code = check_sparse(ctx, ctx->inputs[0], ctx->inputs[1]);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *want = ctx->inputs[2];
    if (want->dtype != TFPI_INT64 || want->ndims != 1 || want->dims[0] > TFPI_MAX_DIMS || !want->data)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "new_shape must be an int64 vector of at most %d sizes",
                       TFPI_MAX_DIMS);
    int64_t size = dense_size(ctx, ctx->inputs[1]), product = 1;
    if (size < 0)
        return ctx->status->code;
    free(ctx->state);
    reshape_state *s = ctx->state = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->rank = (int)want->dims[0];
    int unknown = -1;
    for (int i = 0; i < s->rank; i++) {
        int64_t d = s->new_dims[i] = ((const int64_t *)want->data)[i];
        if (d == -1 && unknown < 0)
            unknown = i;
        else if (d < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size %d is %lld: only one size may be -1, the others >= 0", i,
                           (long long)d);
        else if (!tp_checked_mul(product, d, &product))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the requested shape has too many elements");
    }
    if (unknown >= 0) {
        if (product == 0 || size % product != 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Input to reshape is a SparseTensor with %lld dense values, "
                           "but the requested shape requires a multiple of %lld", (long long)size, (long long)product);
        s->new_dims[unknown] = size / product;
    } else if (product != size) {
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Input to reshape is a tensor with %lld dense values, but the "
                       "requested shape has %lld", (long long)size, (long long)product);
    }
    int64_t out_dims[2] = {ctx->inputs[0]->dims[0], s->rank}, rank = s->rank;
    code = tp_set_output(ctx, 0, TFPI_INT64, 2, out_dims);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        code = tp_set_output(ctx, 1, TFPI_INT64, 1, &rank);
    return code;
}

static tfpi_code reshape_run(tp_op_ctx *ctx)
{
    const reshape_state *s = ctx->state;
    const tfpi_tensor *indices = ctx->inputs[0], *shape = ctx->inputs[1];
    const int64_t *in = indices->data, *dims = shape->data;
    int64_t n = indices->dims[0], r = indices->dims[1];
    int64_t *out = ctx->outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        int64_t flat = 0;
        for (int64_t k = 0; k < r; k++) {
            int64_t v = in[i * r + k];
            if (v < 0 || v >= dims[k])
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices[%lld, %lld] = %lld is out of range [0, %lld)",
                               (long long)i, (long long)k, (long long)v, (long long)dims[k]);
            flat = flat * dims[k] + v; /* < the dense size, which fits */
        }
        for (int k = s->rank - 1; k >= 0; k--) {
            out[i * s->rank + k] = s->new_dims[k] ? flat % s->new_dims[k] : 0;
            flat = s->new_dims[k] ? flat / s->new_dims[k] : 0;
        }
    }
    if (ctx->num_outputs > 1)
        memcpy(ctx->outputs[1].data, s->new_dims, (size_t)s->rank * sizeof(int64_t));
    return TFPI_OK;
}

/* ---- SparseFillEmptyRows ---- */

typedef struct fill_state {
    int64_t *row_start; /* output position of each row's first entry, rows + 1 of them */
    int64_t rows;
} fill_state;

static void free_fill(void *state)
{
    fill_state *s = state;
    if (s)
        free(s->row_start);
    free(s);
}

static tfpi_code fill_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 4, 4);
    if (code == TFPI_OK)
        code = check_sparse(ctx, ctx->inputs[0], ctx->inputs[2]);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *indices = ctx->inputs[0], *values = ctx->inputs[1], *shape = ctx->inputs[2];
    const tfpi_tensor *fallback = ctx->inputs[3];
    int64_t n = indices->dims[0], r = indices->dims[1];
    if (values->ndims != 1 || values->dims[0] != n || fallback->ndims != 0 || fallback->dtype != values->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "values must be a vector of one value per index, and "
                       "default_value a scalar of their type");
    if (r < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the dense shape must have at least one dimension");
    int64_t rows = ((const int64_t *)shape->data)[0];
    if (rows < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dense_shape[0] is %lld", (long long)rows);
    if ((code = tp_expect_within_budget(ctx, tp_sat_add(rows, 1), 2 * sizeof(int64_t), "rows")) != TFPI_OK)
        return code;
    free_fill(ctx->state);
    fill_state *s = ctx->state = calloc(1, sizeof *s);
    if (!s || !(s->row_start = calloc((size_t)rows + 2, sizeof *s->row_start)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld rows", (long long)rows);
    s->rows = rows;
    for (int64_t i = 0; i < n; i++) { /* count each row's entries in row_start[row + 1] */
        int64_t row = ((const int64_t *)indices->data)[i * r];
        if (row < 0 || row >= rows)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices(%lld, 0) is invalid: %lld is not in [0, %lld)",
                           (long long)i, (long long)row, (long long)rows);
        s->row_start[row + 1]++;
    }
    for (int64_t row = 0; row < rows; row++) /* an empty row holds the default */
        s->row_start[row + 1] = s->row_start[row] + (s->row_start[row + 1] ? s->row_start[row + 1] : 1);
    int64_t total = s->row_start[rows], index_dims[2] = {total, r};
    code = tp_set_output(ctx, 0, TFPI_INT64, 2, index_dims);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        code = tp_set_output(ctx, 1, values->dtype, 1, &total);
    if (code == TFPI_OK && ctx->num_outputs > 2)
        code = tp_set_output(ctx, 2, TFPI_BOOL, 1, &rows);
    if (code == TFPI_OK && ctx->num_outputs > 3)
        code = tp_set_output(ctx, 3, TFPI_INT64, 1, &n);
    return code;
}

static tfpi_code fill_run(tp_op_ctx *ctx)
{
    const fill_state *s = ctx->state;
    const tfpi_tensor *indices = ctx->inputs[0], *values = ctx->inputs[1];
    int64_t n = indices->dims[0], r = indices->dims[1], total = s->row_start[s->rows];
    size_t size = tfpi_dtype_size(values->dtype);
    int64_t *next = malloc(((size_t)s->rows + 1) * sizeof *next);
    if (!next)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld rows", (long long)s->rows);
    memcpy(next, s->row_start, ((size_t)s->rows + 1) * sizeof *next);
    int64_t *out_indices = ctx->outputs[0].data;
    char *out_values = ctx->num_outputs > 1 ? ctx->outputs[1].data : NULL;
    memset(out_indices, 0, (size_t)(total * r) * sizeof *out_indices);
    for (int64_t i = 0; i < n; i++) {
        int64_t row = ((const int64_t *)indices->data)[i * r], at = next[row]++;
        memcpy(&out_indices[at * r], &((const int64_t *)indices->data)[i * r], (size_t)r * sizeof *out_indices);
        if (out_values)
            memcpy(out_values + (size_t)at * size, (const char *)values->data + (size_t)i * size, size);
        if (ctx->num_outputs > 3)
            ((int64_t *)ctx->outputs[3].data)[i] = at;
    }
    for (int64_t row = 0; row < s->rows; row++) {
        bool empty = next[row] == s->row_start[row];
        if (empty) {
            out_indices[s->row_start[row] * r] = row;
            if (out_values)
                memcpy(out_values + (size_t)s->row_start[row] * size, ctx->inputs[3]->data, size);
        }
        if (ctx->num_outputs > 2)
            ((uint8_t *)ctx->outputs[2].data)[row] = empty;
    }
    free(next);
    return TFPI_OK;
}

const tp_kernel tp_kernels_sparse_ops[] = {
    TP_KERNEL("SparseReshape", reshape_prepare, reshape_run, free, TP_DYNAMIC | TP_OUTPUTS(2)),
    TP_KERNEL("SparseFillEmptyRows", fill_prepare, fill_run, free_fill, TP_DYNAMIC | TP_OUTPUTS(4)),
    TP_KERNELS_END,
};
