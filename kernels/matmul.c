/* matmul.c - MatMul (transpose_a, transpose_b), BatchMatMul and
 * BatchMatMulV2 (adj_x, adj_y) on float tensors. BatchMatMul needs equal
 * batch dimensions; BatchMatMulV2 broadcasts them numpy-style. prepare works
 * out which matrices of a and b each output matrix multiplies. Without
 * transposes run is the fast GEMM (src/compute/gemm.c; for a session of
 * precision fp16 a single constant b of several rows' product is converted
 * to binary16 panels once per graph, src/compute/gemm_weights.c,
 * src/compute/gemm_fp16.h), which applies any scale,
 * bias and activation fused into the node as it stores; with one, it splits
 * all output rows over the pool, calls the plain C reference product
 * (src/compute/matmul_ref.c, which the tests also compare the GEMM with) and then
 * applies the fused steps. */
#include "kernel/kernel.h"

#include <stdlib.h>

#include "compute/epilogue.h"
#include "compute/gemm.h"
#include "compute/gemm_fp16.h"
#include "compute/gemm_weights.h"
#include "compute/matmul_ref.h"

typedef enum batch_rule { NO_BATCH, EQUAL_BATCH, BROADCAST_BATCH } batch_rule;

typedef struct matmul_state {
    tp_matmul_params params;
    int64_t batches;                /* output matrices */
    tp_epilogue epilogue;
    const uint16_t *b_fp16;         /* the same in binary16 for a session of precision fp16, or NULL */
    int64_t *a_offsets, *b_offsets; /* element offset of each output matrix's operands */
    int64_t offsets[];              /* storage of both arrays */
} matmul_state;

typedef struct matmul_job {
    const matmul_state *state;
    const float *a, *b;
    float *c;
} matmul_job;

/* Batch dimension i of t, with t's batch dimensions right-aligned to
 * out_rank ones and missing leading ones read as 1. */
static int64_t aligned_batch_dim(const tfpi_tensor *t, int out_rank, int i)
{
    int ti = i - (out_rank - (t->ndims - 2));
    return ti >= 0 ? t->dims[ti] : 1;
}

/* The element offset of t's operand matrix for each output matrix. */
static void operand_offsets(const tfpi_tensor *t, int out_rank, const int64_t *out_dims, int64_t batches,
                            int64_t *offsets)
{
    int64_t strides[TFPI_MAX_DIMS];
    int64_t stride = t->dims[t->ndims - 2] * t->dims[t->ndims - 1];
    for (int i = out_rank - 1; i >= 0; i--) {
        int64_t dim = aligned_batch_dim(t, out_rank, i);
        strides[i] = dim == 1 ? 0 : stride; /* a broadcast dimension reuses the same matrix */
        stride *= dim;
    }
    for (int64_t batch = 0; batch < batches; batch++) {
        int64_t offset = 0, rest = batch;
        for (int i = out_rank - 1; i >= 0; i--) {
            offset += rest % out_dims[i] * strides[i];
            rest /= out_dims[i];
        }
        offsets[batch] = offset;
    }
}

static tfpi_code check_operands(tp_op_ctx *ctx, batch_rule rule)
{
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    char a_shape[96], b_shape[96];
    tp_shape_string(a, a_shape, sizeof a_shape);
    tp_shape_string(b, b_shape, sizeof b_shape);
    if (rule == NO_BATCH && (a->ndims != 2 || b->ndims != 2))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs must be 2-D matrices, got %s and %s", a_shape,
                       b_shape);
    if (a->ndims < 2 || b->ndims < 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs must be at least 2-D, got %s and %s", a_shape,
                       b_shape);
    if (rule == EQUAL_BATCH && a->ndims != b->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs must have the same rank, got %s and %s", a_shape,
                       b_shape);
    return TFPI_OK;
}

/* Sets the output shape [batch dims..., m, n] and fills dims with it. */
static tfpi_code set_output_shape(tp_op_ctx *ctx, batch_rule rule, const tp_matmul_params *params,
                                  int batch_rank, int64_t *dims)
{
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    for (int i = 0; i < batch_rank; i++) {
        int64_t a_dim = aligned_batch_dim(a, batch_rank, i), b_dim = aligned_batch_dim(b, batch_rank, i);
        if (a_dim != b_dim && (rule != BROADCAST_BATCH || (a_dim != 1 && b_dim != 1))) {
            char a_shape[96], b_shape[96];
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the batch dimensions of %s and %s %s",
                           tp_shape_string(a, a_shape, sizeof a_shape),
                           tp_shape_string(b, b_shape, sizeof b_shape),
                           rule == BROADCAST_BATCH ? "cannot be broadcast" : "differ");
        }
        dims[i] = a_dim == 1 ? b_dim : a_dim;
    }
    dims[batch_rank] = params->m;
    dims[batch_rank + 1] = params->n;
    return tp_set_output(ctx, 0, TFPI_FLOAT, batch_rank + 2, dims);
}

static tfpi_code prepare_matmul(tp_op_ctx *ctx, batch_rule rule, const char *transpose_a_attr,
                                const char *transpose_b_attr)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 0, TFPI_FLOAT)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 1, TFPI_FLOAT)) != TFPI_OK ||
        (code = check_operands(ctx, rule)) != TFPI_OK)
        return code;
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    const int64_t *a_mat = a->dims + a->ndims - 2, *b_mat = b->dims + b->ndims - 2;
    const bool transpose_a = tp_attr_bool(ctx->def, transpose_a_attr, false);
    const bool transpose_b = tp_attr_bool(ctx->def, transpose_b_attr, false);
    const tp_matmul_params params = {
        .m = transpose_a ? a_mat[1] : a_mat[0],
        .k = transpose_a ? a_mat[0] : a_mat[1],
        .n = transpose_b ? b_mat[0] : b_mat[1],
        .transpose_a = transpose_a,
        .transpose_b = transpose_b,
    };
    const int64_t b_k = transpose_b ? b_mat[1] : b_mat[0];
    if (params.k != b_k) {
        char a_shape[96], b_shape[96];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "matrix sizes are incompatible: %s (%s=%s) and %s (%s=%s) give inner dimensions "
                       "%lld and %lld",
                       tp_shape_string(a, a_shape, sizeof a_shape), transpose_a_attr,
                       transpose_a ? "true" : "false", tp_shape_string(b, b_shape, sizeof b_shape),
                       transpose_b_attr, transpose_b ? "true" : "false", (long long)params.k,
                       (long long)b_k);
    }
    const int batch_rank = (a->ndims > b->ndims ? a->ndims : b->ndims) - 2;
    int64_t dims[TFPI_MAX_DIMS];
    if ((code = set_output_shape(ctx, rule, &params, batch_rank, dims)) != TFPI_OK)
        return code;
    int64_t batches = 1;
    for (int i = 0; i < batch_rank; i++)
        batches *= dims[i];
    matmul_state *state = malloc(sizeof *state + 2 * (size_t)batches * sizeof state->offsets[0]);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    *state = (matmul_state){.params = params, .batches = batches, .epilogue = {0}};
    state->a_offsets = state->offsets;
    state->b_offsets = state->offsets + batches;
    operand_offsets(a, batch_rank, dims, batches, state->a_offsets);
    operand_offsets(b, batch_rank, dims, batches, state->b_offsets);
    ctx->state = state;
    if (b->data && batches == 1 && params.m > 1 && !transpose_a && !transpose_b && tp_gemm_fp16_wanted(ctx->pool))
        state->b_fp16 = tp_gemm_graph_panels_fp16(ctx->graph, ctx->def, b->data, params.k, params.n);
    return TFPI_OK;
}

static tfpi_code matmul_prepare(tp_op_ctx *ctx)
{
    return prepare_matmul(ctx, NO_BATCH, "transpose_a", "transpose_b");
}

static tfpi_code batch_matmul_prepare(tp_op_ctx *ctx)
{
    return prepare_matmul(ctx, EQUAL_BATCH, "adj_x", "adj_y");
}

static tfpi_code batch_matmul_v2_prepare(tp_op_ctx *ctx)
{
    return prepare_matmul(ctx, BROADCAST_BATCH, "adj_x", "adj_y");
}

static tfpi_code matmul_fuse(tp_op_ctx *ctx, tp_fuse_op op, const float *values, int64_t count)
{
    matmul_state *s = ctx->state;
    return tp_epilogue_add(&s->epilogue, op, values, count, s->params.n);
}

static void matmul_release(void *state)
{
    matmul_state *s = state;
    if (s)
        tp_epilogue_free(&s->epilogue);
    free(s);
}

/* Items are output rows counted across all output matrices. */
static void matmul_rows(void *arg, int64_t begin, int64_t end)
{
    const matmul_job *job = arg;
    const matmul_state *s = job->state;
    const int64_t m = s->params.m, matrix_size = m * s->params.n;
    for (int64_t item = begin; item < end;) {
        const int64_t batch = item / m, row = item % m;
        const int64_t row_end = row + (end - item) < m ? row + (end - item) : m;
        tp_matmul_rows_ref(&s->params, job->a + s->a_offsets[batch], job->b + s->b_offsets[batch],
                           job->c + batch * matrix_size, row, row_end);
        item += row_end - row;
    }
}

/* Each output matrix through the GEMM, a read in place; false: out of
 * memory. */
static bool matmul_gemm(const matmul_state *s, const float *a, const float *b, float *c, tp_threadpool *pool)
{
    const tp_matmul_params *p = &s->params;
    bool ok = true;
    for (int64_t batch = 0; ok && batch < s->batches; batch++) {
        const tp_gemm_matrix rows = {a + s->a_offsets[batch], p->k};
        const tp_gemm g = {p->m, p->n, 1, p->k, tp_gemm_matrix_rows, &rows,
                           b + s->b_offsets[batch], p->n, c + batch * p->m * p->n,
                           p->n, tp_epilogue_view(&s->epilogue), false, s->b_fp16};
        ok = tp_gemm_run(&g, pool);
    }
    return ok;
}

static tfpi_code matmul_run(tp_op_ctx *ctx)
{
    const matmul_state *s = ctx->state;
    if (!s->params.transpose_a && !s->params.transpose_b)
        return matmul_gemm(s, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data, ctx->pool)
                   ? TFPI_OK
                   : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    matmul_job job = {s, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data};
    /* Chunks of at least ~16k multiply-adds. */
    const int64_t row_work = s->params.n * s->params.k;
    tp_parallel_for(ctx->pool, s->batches * s->params.m, 1 + 16384 / (row_work + 1), matmul_rows, &job);
    tp_epilogue_run(&s->epilogue, job.c, s->batches * s->params.m, s->params.n, ctx->pool);
    return TFPI_OK;
}

const tp_kernel tp_kernels_matmul[] = {
    TP_KERNEL_FUSING("MatMul", matmul_prepare, matmul_run, matmul_release, 0, matmul_fuse),
    TP_KERNEL_FUSING("BatchMatMul", batch_matmul_prepare, matmul_run, matmul_release, 0, matmul_fuse),
    TP_KERNEL_FUSING("BatchMatMulV2", batch_matmul_v2_prepare, matmul_run, matmul_release, 0, matmul_fuse),
    TP_KERNELS_END
};
