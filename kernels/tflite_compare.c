/* tflite_compare.c - TensorFlow Lite's EQUAL, NOT_EQUAL, LESS,
 * LESS_EQUAL, GREATER and GREATER_EQUAL of two uint8 or int8 tensors
 * quantized differently (the reader gives TF's comparisons the codes of
 * tensors quantized alike), numpy-broadcast, into bool, with the rule of
 * TFLite's comparisons.cc and reference ComparisonWithScaling: each input
 * less its zero point, shifted left 8 bits, times its own scale as a
 * fixed-point multiplier (a doubling high multiply and a rounding right
 * shift), and the two results compared. TFLite's rule takes scales below
 * 1 (its right shift is undefined for others): larger ones are refused.
 * Each scaled value depends on its code alone: 256-entry tables made
 * while planning. */
#include <stdlib.h>

#include "compute/broadcast.h"
#include "compute/tflite_node.h"

typedef enum cmp_op { CMP_EQUAL, CMP_NOT_EQUAL, CMP_LESS, CMP_LESS_EQUAL, CMP_GREATER, CMP_GREATER_EQUAL } cmp_op;

typedef struct cmp_state {
    cmp_op op;
    tp_broadcast bc;
    int32_t scaled[2][256];
} cmp_state;

static void cmp_release(void *state) { free(state); }

static tfpi_code scale_table(tp_op_ctx *ctx, int k, int32_t *table)
{
    tp_tfl_qparams q;
    tp_tfl_multiplier m;
    tfpi_code code = tp_tfl_qparams_of(ctx, "in", k, &q);
    if (code != TFPI_OK)
        return code;
    if (!tp_tfl_quantize_multiplier((double)q.scale, &m) || m.shift > 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d has scale %g: TFLite's quantized comparison takes "
                       "scales below 1", k, (double)q.scale);
    const bool is_signed = ctx->inputs[k]->dtype == TFPI_INT8;
    for (int b = 0; b < 256; b++) {
        const int32_t c = is_signed ? (int32_t)(int8_t)b : b;
        table[b] = tp_tfl_rounding_divide_by_pot(tp_tfl_rounding_doubling_high_mul((c - q.zero_point) * 256, m.mantissa),
                                                 -m.shift);
    }
    return TFPI_OK;
}

static tfpi_code cmp_prepare(tp_op_ctx *ctx, cmp_op op)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, false)) != TFPI_OK)
        return code;
    if (ctx->inputs[1]->dtype != ctx->inputs[0]->dtype || tp_tfl_output_dtype(ctx) != TFPI_BOOL)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the inputs must have one type and the output be bool, not %s, %s "
                       "and %s", tfpi_dtype_name(ctx->inputs[0]->dtype), tfpi_dtype_name(ctx->inputs[1]->dtype),
                       tfpi_dtype_name(tp_tfl_output_dtype(ctx)));
    cmp_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->op = op;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    if ((code = tp_broadcast_prepare_two(ctx, &s->bc, &ndims, dims)) != TFPI_OK ||
        (code = tp_set_output(ctx, 0, TFPI_BOOL, ndims, dims)) != TFPI_OK ||
        (code = scale_table(ctx, 0, s->scaled[0])) != TFPI_OK)
        return code;
    return scale_table(ctx, 1, s->scaled[1]);
}

typedef struct cmp_job {
    const cmp_state *s;
    const uint8_t *x, *y;
    bool *out;
} cmp_job;

static bool compare(cmp_op op, int32_t a, int32_t b)
{
    switch (op) {
    case CMP_EQUAL: return a == b;
    case CMP_NOT_EQUAL: return a != b;
    case CMP_LESS: return a < b;
    case CMP_LESS_EQUAL: return a <= b;
    case CMP_GREATER: return a > b;
    default: return a >= b;
    }
}

static void cmp_span(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    const cmp_job *job = arg;
    const cmp_state *s = job->s;
    const int64_t xs = s->bc.strides[0][s->bc.ndims - 1], ys = s->bc.strides[1][s->bc.ndims - 1];
    const uint8_t *x = job->x + in_offsets[0], *y = job->y + in_offsets[1];
    for (int64_t i = 0; i < length; i++)
        job->out[out_offset + i] = compare(s->op, s->scaled[0][x[i * xs]], s->scaled[1][y[i * ys]]);
}

static void cmp_range(void *arg, int64_t begin, int64_t end)
{
    const cmp_job *job = arg;
    tp_broadcast_walk(&job->s->bc, begin, end, cmp_span, arg);
}

static tfpi_code cmp_run(tp_op_ctx *ctx)
{
    const cmp_state *s = ctx->state;
    cmp_job job = {s, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data};
    tp_parallel_for(ctx->pool, s->bc.num_elements, 16384, cmp_range, &job);
    return TFPI_OK;
}

static tfpi_code equal_prepare(tp_op_ctx *ctx) { return cmp_prepare(ctx, CMP_EQUAL); }
static tfpi_code not_equal_prepare(tp_op_ctx *ctx) { return cmp_prepare(ctx, CMP_NOT_EQUAL); }
static tfpi_code less_prepare(tp_op_ctx *ctx) { return cmp_prepare(ctx, CMP_LESS); }
static tfpi_code less_equal_prepare(tp_op_ctx *ctx) { return cmp_prepare(ctx, CMP_LESS_EQUAL); }
static tfpi_code greater_prepare(tp_op_ctx *ctx) { return cmp_prepare(ctx, CMP_GREATER); }
static tfpi_code greater_equal_prepare(tp_op_ctx *ctx) { return cmp_prepare(ctx, CMP_GREATER_EQUAL); }

const tp_kernel tp_kernels_tflite_compare[] = {
    TP_KERNEL("EQUAL", equal_prepare, cmp_run, cmp_release, TP_TFLITE_OP),
    TP_KERNEL("NOT_EQUAL", not_equal_prepare, cmp_run, cmp_release, TP_TFLITE_OP),
    TP_KERNEL("LESS", less_prepare, cmp_run, cmp_release, TP_TFLITE_OP),
    TP_KERNEL("LESS_EQUAL", less_equal_prepare, cmp_run, cmp_release, TP_TFLITE_OP),
    TP_KERNEL("GREATER", greater_prepare, cmp_run, cmp_release, TP_TFLITE_OP),
    TP_KERNEL("GREATER_EQUAL", greater_equal_prepare, cmp_run, cmp_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
