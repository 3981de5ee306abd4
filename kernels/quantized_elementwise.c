/* quantized_elementwise.c - the elementwise 8-bit ops
 * (../shared/docs/quantized.md 3.3, 3.4, 3.6): QuantizedBiasAdd (both
 * operands moved to qint32 codes of a range 2^17 times the larger input
 * range, through TF's float path), QuantizedRelu, QuantizedRelu6 and
 * QuantizedReluX (clamped at the codes of 0 and of 6 or max_value; the range
 * passes through), QuantizedMul (the product of the codes less their zeros)
 * and QuantizedAdd (both operands mapped to qint32 codes of a range 2^14
 * times the larger, then added). Mul and Add broadcast numpy-style (TF
 * itself only handles a vector repeated along leading dimensions). */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel.h"
#include "compute/broadcast.h"
#include "compute/quantized_steps.h"

/* ---- QuantizedBiasAdd ---- */

static tfpi_code bias_add_prepare(tp_op_ctx *ctx)
{
    const tp_qtype *t_in, *t_bias;
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 6, 6)) != TFPI_OK || (code = tp_q_expect_quantized(ctx, 0, &t_in)) != TFPI_OK ||
        (code = tp_q_expect_quantized(ctx, 1, &t_bias)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 2, 4)) != TFPI_OK)
        return code;
    if (t_in->bits != 8 || t_bias->bits != 8)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input and bias must be quint8 or qint8");
    if (tp_attr_type(ctx->def, "out_type", TFPI_QINT32) != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "out_type must be qint32");
    const tfpi_tensor *in = ctx->inputs[0], *bias = ctx->inputs[1];
    char in_shape[96], bias_shape[96];
    if (in->ndims < 2 || bias->ndims != 1 || bias->dims[0] != in->dims[in->ndims - 1])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "bias %s must be a vector as long as the last dimension of input %s (rank >= 2)",
                       tp_shape_string(bias, bias_shape, sizeof bias_shape),
                       tp_shape_string(in, in_shape, sizeof in_shape));
    return tp_q_prepare_outputs(ctx, TFPI_QINT32, in->ndims, in->dims);
}

static tfpi_code bias_add_run(tp_op_ctx *ctx)
{
    tp_q_bias_add b = {.channels = ctx->inputs[1]->dims[0]};
    if (!(b.biases = malloc(sizeof *b.biases * (size_t)(b.channels + 1))))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    tfpi_code code = tp_q_bias_add_begin(ctx, &b);
    if (code == TFPI_OK)
        tp_q_bias_add_rows(&b, ctx->inputs[0]->data, ctx->outputs[0].data, tp_num_elements(ctx->inputs[0]));
    free(b.biases);
    return code;
}

/* ---- QuantizedRelu, QuantizedRelu6, QuantizedReluX ---- */

static tfpi_code relu_prepare_with(tp_op_ctx *ctx, int inputs)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, inputs, inputs)) != TFPI_OK ||
        (code = tp_q_expect_scalars(ctx, 1, inputs - 1)) != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->dtype != TFPI_QUINT8 && in->dtype != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; this kernel handles quint8 and qint32",
                       tfpi_dtype_name(in->dtype));
    if (tp_attr_type(ctx->def, "out_type", TFPI_QUINT8) != in->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "out_type must equal the input's type %s",
                       tfpi_dtype_name(in->dtype));
    return tp_q_prepare_outputs(ctx, in->dtype, in->ndims, in->dims);
}

static tfpi_code relu_prepare(tp_op_ctx *ctx) { return relu_prepare_with(ctx, 3); }
static tfpi_code relu_x_prepare(tp_op_ctx *ctx) { return relu_prepare_with(ctx, 4); }

/* Clamps input 0's codes to [code of 0, code of `top`] (no top if NAN). */
static tfpi_code relu_clamp(tp_op_ctx *ctx, int range_input, float top)
{
    int64_t low, high;
    tfpi_code code = tp_q_relu_begin(ctx, range_input, top, &low, &high);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    const int64_t n = tp_num_elements(in);
    if (in->dtype == TFPI_QUINT8) {
        tp_q_clamp_u8(in->data, (uint8_t)low, (uint8_t)high, ctx->outputs[0].data, n);
    } else {
        const int32_t *q = in->data, lo32 = (int32_t)low, hi32 = (int32_t)high;
        int32_t *out = ctx->outputs[0].data;
        for (int64_t i = 0; i < n; i++)
            out[i] = q[i] < lo32 ? lo32 : q[i] > hi32 ? hi32 : q[i];
    }
    return TFPI_OK;
}

static tfpi_code relu_run(tp_op_ctx *ctx) { return relu_clamp(ctx, 1, NAN); }
static tfpi_code relu6_run(tp_op_ctx *ctx) { return relu_clamp(ctx, 1, 6.0f); }
static tfpi_code relu_x_run(tp_op_ctx *ctx)
{
    float top = tp_q_scalar(ctx, 1);
    if (!isfinite(top))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "max_value %g is not finite", (double)top);
    return relu_clamp(ctx, 2, top);
}

/* ---- QuantizedMul, QuantizedAdd ---- */

typedef struct binary_state {
    tp_broadcast bc;
} binary_state;

static void binary_release(void *state) { free(state); }

static tfpi_code binary_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_q_expect_two_quint8(ctx, "Toutput");
    if (code != TFPI_OK)
        return code;
    binary_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    if ((code = tp_broadcast_prepare_two(ctx, &s->bc, &ndims, dims)) != TFPI_OK)
        return code;
    return tp_q_prepare_outputs(ctx, TFPI_QINT32, ndims, dims);
}

typedef struct binary_job {
    const uint8_t *x, *y;
    int32_t *out;
    int64_t x_step, y_step;
    bool add;
    uint32_t x_zero, y_zero;   /* Mul */
    uint32_t wx[256], wy[256]; /* Add: each code's qint32 value */
    /* Add where neither mapping clamps: wx[q] + wy[r] = base + q * x_scale + r * y_scale (mod 2^32) */
    bool linear;
    uint32_t base, x_scale, y_scale;
} binary_job;

enum { BLOCK = 64 }; /* a fixed trip count lets -O2 vectorize */

/* Whether the widener's codes 0..255 stay inside int32 (no clamp): it is
 * linear, so its ends tell. */
static bool widens_linearly(const tp_q_widener *w)
{
    return w->c0 >= INT32_MIN && w->c0 <= INT32_MAX && w->c0 + 255 * w->step >= INT32_MIN &&
           w->c0 + 255 * w->step <= INT32_MAX;
}

/* BLOCK sums of linearly widened codes (job->linear). */
static void add_block(const binary_job *job, const uint8_t *restrict x, const uint8_t *restrict y,
                      int32_t *restrict out)
{
    const uint32_t base = job->base, x_scale = job->x_scale, y_scale = job->y_scale;
    for (int j = 0; j < BLOCK; j++)
        out[j] = (int32_t)(base + x[j] * x_scale + y[j] * y_scale);
}

static void binary_run_span(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    const binary_job *job = arg;
    const uint8_t *x = job->x + in_offsets[0], *y = job->y + in_offsets[1];
    int32_t *out = job->out + out_offset;
    int64_t i = 0;
    if (job->add && job->linear && job->x_step == 1 && job->y_step == 1)
        for (; i + BLOCK <= length; i += BLOCK)
            add_block(job, x + i, y + i, out + i);
    if (job->add)
        for (; i < length; i++)
            out[i] = (int32_t)(job->wx[x[i * job->x_step]] + job->wy[y[i * job->y_step]]);
    else
        for (; i < length; i++)
            out[i] = (int32_t)(((uint32_t)x[i * job->x_step] - job->x_zero) * ((uint32_t)y[i * job->y_step] - job->y_zero));
}

static tfpi_code binary_run(tp_op_ctx *ctx, bool add)
{
    const binary_state *s = ctx->state;
    float x_min, x_max, y_min, y_max, out_min, out_max;
    tfpi_code code;
    if ((code = tp_q_read_range(ctx, 2, 3, "x", &x_min, &x_max)) != TFPI_OK ||
        (code = tp_q_read_range(ctx, 4, 5, "y", &y_min, &y_max)) != TFPI_OK)
        return code;
    if (!(x_max > x_min) || !(y_max > y_min))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "ranges must not be empty: x [%g, %g], y [%g, %g]",
                       (double)x_min, (double)x_max, (double)y_min, (double)y_max);
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8), *i32 = tp_qtype_of(TFPI_QINT32);
    binary_job job = {.x = ctx->inputs[0]->data, .y = ctx->inputs[1]->data, .out = ctx->outputs[0].data,
                      .x_step = s->bc.strides[0][s->bc.ndims - 1], .y_step = s->bc.strides[1][s->bc.ndims - 1],
                      .add = add};
    if (add) {
        float r = (float)(fmaxf(fabsf(fminf(x_min, y_min)), fabsf(fmaxf(x_max, y_max))) * 16384.0f);
        out_min = -r;
        out_max = r;
        tp_q_widener wx = tp_q_widener_make(x_min, x_max, out_min, out_max);
        tp_q_widener wy = tp_q_widener_make(y_min, y_max, out_min, out_max);
        for (int q = 0; q < 256; q++) {
            job.wx[q] = (uint32_t)tp_q_widen(&wx, q);
            job.wy[q] = (uint32_t)tp_q_widen(&wy, q);
        }
        job.linear = widens_linearly(&wx) && widens_linearly(&wy);
        job.base = job.wx[0] + job.wy[0];
        job.x_scale = (uint32_t)wx.step;
        job.y_scale = (uint32_t)wy.step;
    } else {
        job.x_zero = (uint32_t)tp_q_f2qu(0.0, x_min, x_max, u8);
        job.y_zero = (uint32_t)tp_q_f2qu(0.0, y_min, y_max, u8);
        tp_q_range_for_multiplication(x_min, x_max, y_min, y_max, i32, &out_min, &out_max);
    }
    tp_broadcast_walk(&s->bc, 0, s->bc.num_elements, binary_run_span, &job);
    tp_q_write_range(ctx, 1, out_min, out_max);
    return TFPI_OK;
}

static tfpi_code mul_run(tp_op_ctx *ctx) { return binary_run(ctx, false); }
static tfpi_code add_run(tp_op_ctx *ctx) { return binary_run(ctx, true); }

const tp_kernel tp_kernels_quantized_elementwise[] = {
    TP_KERNEL("QuantizedBiasAdd", bias_add_prepare, bias_add_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedRelu", relu_prepare, relu_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedRelu6", relu_prepare, relu6_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedReluX", relu_x_prepare, relu_x_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedMul", binary_prepare, mul_run, binary_release, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedAdd", binary_prepare, add_run, binary_release, TP_OUTPUTS(3)),
    TP_KERNELS_END,
};
