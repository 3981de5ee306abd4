/* tflite_batch_matmul.c - TensorFlow Lite's BATCH_MATMUL on int8 tensors
 * (TFLite's quantized form; it has no uint8 one), each quantized per
 * tensor: out[..., i, j] = sum over k of (lhs[..., i, k] - lhs zero) x
 * (rhs[..., k, j] - rhs zero) in int32 (wrapping), rescaled by TFLite's
 * multiplier of (double)(float)(lhs scale x rhs scale) / output scale
 * (GetQuantizedConvolutionMultipler, the product rounded to float first),
 * plus the output zero point, clamped to int8 (BATCH_MATMUL has no fused
 * activation). adj_x / adj_y take lhs as [..., k, i] / rhs as [..., j, k];
 * the batch dimensions (rank 2 to 5) broadcast as TFLite's do. Rows of the
 * output run in parallel. */
#include <stdlib.h>

#include "compute/tflite_node.h"
#include "compute/tflite_qconv.h"

enum { MAX_RANK = 5 };

typedef struct bmm_state {
    int64_t batches, rows, cols, depth;
    /* per output batch, the lhs and rhs matrix it reads */
    int64_t *lhs_at, *rhs_at;
    /* element strides of lhs along i and k, of rhs along k and j */
    int64_t lhs_i, lhs_k, rhs_k, rhs_j;
    int32_t lhs_zero, rhs_zero, out_zero;
    tp_tfl_multiplier rescale;
} bmm_state;

static void bmm_release(void *state)
{
    bmm_state *s = state;
    if (s)
        free(s->lhs_at);
    free(state);
}

static tfpi_code check_inputs(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    if (a->dtype != TFPI_INT8 || b->dtype != TFPI_INT8 || tp_tfl_output_dtype(ctx) != TFPI_INT8)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "the inputs are %s and %s and the output %s: quantized BATCH_MATMUL takes int8 (TFLite has no "
                       "uint8 form)",
                       tfpi_dtype_name(a->dtype), tfpi_dtype_name(b->dtype), tfpi_dtype_name(tp_tfl_output_dtype(ctx)));
    if (a->ndims < 2 || b->ndims < 2 || a->ndims > MAX_RANK || b->ndims > MAX_RANK)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the inputs must be of rank 2 to 5, not %d and %d", a->ndims,
                       b->ndims);
    return TFPI_OK;
}

/* The output's shape, and which lhs and rhs matrix each output batch reads. */
static tfpi_code shapes(tp_op_ctx *ctx, bmm_state *s)
{
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    const bool adj_x = tp_attr_bool(ctx->def, "adj_x", false), adj_y = tp_attr_bool(ctx->def, "adj_y", false);
    const int64_t a_r = a->dims[a->ndims - 2], a_c = a->dims[a->ndims - 1];
    const int64_t b_r = b->dims[b->ndims - 2], b_c = b->dims[b->ndims - 1];
    s->rows = adj_x ? a_c : a_r, s->depth = adj_x ? a_r : a_c;
    s->cols = adj_y ? b_r : b_c;
    if ((adj_y ? b_c : b_r) != s->depth)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "lhs has depth %lld and rhs %lld (adj_x %d, adj_y %d)",
                       (long long)s->depth, (long long)(adj_y ? b_c : b_r), adj_x, adj_y);
    s->lhs_i = adj_x ? 1 : a_c, s->lhs_k = adj_x ? a_c : 1;
    s->rhs_k = adj_y ? 1 : b_c, s->rhs_j = adj_y ? b_c : 1;
    /* batch dimensions, right-aligned over MAX_RANK - 2 */
    int64_t ad[MAX_RANK - 2], bd[MAX_RANK - 2], od[MAX_RANK];
    const int nb = MAX_RANK - 2, out_rank = (a->ndims > b->ndims ? a->ndims : b->ndims);
    for (int i = 0; i < nb; i++) {
        const int ai = a->ndims - 2 - nb + i, bi = b->ndims - 2 - nb + i;
        ad[i] = ai >= 0 ? a->dims[ai] : 1, bd[i] = bi >= 0 ? b->dims[bi] : 1;
        if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "batch dimensions %lld and %lld do not broadcast",
                           (long long)ad[i], (long long)bd[i]);
        od[i] = ad[i] == 1 ? bd[i] : ad[i];
    }
    int64_t dims[MAX_RANK];
    for (int i = 0; i < out_rank - 2; i++)
        dims[i] = od[nb - (out_rank - 2) + i];
    dims[out_rank - 2] = s->rows, dims[out_rank - 1] = s->cols;
    tfpi_code code = tp_set_output(ctx, 0, TFPI_INT8, out_rank, dims);
    if (code != TFPI_OK)
        return code;
    s->batches = 1;
    for (int i = 0; i < nb; i++)
        s->batches *= od[i]; /* within the output's elements, unless they are 0 */
    if (tp_num_elements(&ctx->outputs[0]) == 0)
        s->batches = 0;
    if ((code = tp_expect_within_budget(ctx, s->batches + 1, 2 * sizeof(int64_t), "batch offsets")) != TFPI_OK)
        return code;
    if (!(s->lhs_at = malloc(sizeof(int64_t) * 2 * (size_t)(s->batches + 1))))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->rhs_at = s->lhs_at + s->batches + 1;
    for (int64_t n = 0; n < s->batches; n++) {
        int64_t rest = n, la = 0, ra = 0, a_stride = a_r * a_c, b_stride = b_r * b_c;
        for (int i = nb - 1; i >= 0; i--) {
            const int64_t at = rest % od[i];
            rest /= od[i];
            la += (ad[i] == 1 ? 0 : at) * a_stride, ra += (bd[i] == 1 ? 0 : at) * b_stride;
            a_stride *= ad[i], b_stride *= bd[i];
        }
        s->lhs_at[n] = la, s->rhs_at[n] = ra;
    }
    return TFPI_OK;
}

static tfpi_code quantization(tp_op_ctx *ctx, bmm_state *s)
{
    tp_tfl_quant a, b, out;
    tfpi_code code;
    if ((code = tp_tfl_expect_per_tensor(ctx, "in", 0, &a)) != TFPI_OK ||
        (code = tp_tfl_expect_per_tensor(ctx, "in", 1, &b)) != TFPI_OK ||
        (code = tp_tfl_expect_per_tensor(ctx, "out", 0, &out)) != TFPI_OK)
        return code;
    const double real = (double)(a.scale[0] * b.scale[0]) / (double)out.scale[0];
    if (!tp_tfl_quantize_multiplier(real, &s->rescale))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the rescale %g (lhs scale x rhs scale / output scale) is too large",
                       real);
    s->lhs_zero = (int32_t)a.zero_point[0], s->rhs_zero = (int32_t)b.zero_point[0];
    s->out_zero = (int32_t)out.zero_point[0];
    return TFPI_OK;
}

static tfpi_code bmm_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = check_inputs(ctx);
    if (code != TFPI_OK)
        return code;
    bmm_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if ((code = shapes(ctx, s)) != TFPI_OK)
        return code;
    return quantization(ctx, s);
}

typedef struct bmm_job {
    const bmm_state *s;
    const int8_t *lhs, *rhs;
    int8_t *out;
} bmm_job;

/* Output rows [begin, end), row = batch x rows + i. */
static void bmm_rows(void *arg, int64_t begin, int64_t end)
{
    const bmm_job *job = arg;
    const bmm_state *s = job->s;
    for (int64_t row = begin; row < end; row++) {
        const int64_t n = row / s->rows, i = row % s->rows;
        const int8_t *a = job->lhs + s->lhs_at[n] + i * s->lhs_i, *b = job->rhs + s->rhs_at[n];
        for (int64_t j = 0; j < s->cols; j++) {
            uint32_t acc = 0;
            for (int64_t k = 0; k < s->depth; k++)
                acc += (uint32_t)((a[k * s->lhs_k] - s->lhs_zero) * (b[k * s->rhs_k + j * s->rhs_j] - s->rhs_zero));
            job->out[row * s->cols + j] = (int8_t)tp_tflite_requantize((int32_t)acc, s->rescale, s->out_zero, -128, 127);
        }
    }
}

static tfpi_code bmm_run(tp_op_ctx *ctx)
{
    const bmm_state *s = ctx->state;
    bmm_job job = {s, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data};
    tp_parallel_for(ctx->pool, s->batches * s->rows, 1, bmm_rows, &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_batch_matmul[] = {
    TP_KERNEL("BATCH_MATMUL", bmm_prepare, bmm_run, bmm_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
