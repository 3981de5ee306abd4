/* tflite_transpose_conv.c - TensorFlow Lite's TRANSPOSE_CONV on int8
 * tensors (TF2 converter: filter scales per output channel along
 * dimension 0, or one; zero points 0) and uint8 tensors (one scale and
 * zero point per tensor, filters included). Inputs as the file orders
 * them: output_shape (int32 [4], known while planning), the filter
 * [out_c, h, w, in_c] (OHWI), the input [batch, h, w, in_c] and an
 * optional int32 bias [out_c]; options padding, stride_h, stride_w and
 * fused_activation_function. The rules of TFLite's reference kernels
 * (reference_integer_ops::TransposeConv for int8, reference_ops::
 * TransposeConv for uint8, and transpose_conv.cc's Prepare/Eval):
 *  - Input pixel (y, x) adds (x - input_zero) x (w - filter_zero) of tap
 *    (ky, kx) to output pixel (y * stride_h - pad_h + ky, x * stride_w -
 *    pad_w + kx) when that lies inside the output, in int32 (wrapping).
 *  - pad: TFLite's ComputePaddingHeightWidth with the OUTPUT size as the
 *    image: n = ceil(out / stride) (SAME) or (out + stride - k) / stride
 *    (VALID), pad = max((n - 1) x stride + k - out, 0) / 2; the odd
 *    remainder is not used.
 *  - Then bias[c], the channel's multiplier (int8: input scale x filter
 *    scale[c] / output scale in double; uint8: (double)(float)(input x
 *    filter scale) / output scale, with TFLite's bias scale check), the
 *    output zero point, and the clamp of the fused activation.
 * It runs as TFLite's optimized kernel does: per image and band of input
 * rows, the 8-bit GEMM (compute/tflite_qgemm.h, through tflite_qconv.h
 * with int32 sums out) multiplies the input pixels [pixels, in_c] by the
 * filter seen as [out_c x h x w, in_c], giving each pixel's contribution
 * to every tap and channel (zero-point terms in); these are added into the
 * image's int32 sums at the output pixels the taps reach (col2im; threads
 * take channel ranges), then each sum gets the bias and the rescale. The
 * same int32 sums as the reference's scatter (addition modulo 2^32
 * commutes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/tflite_node.h"
#include "compute/tflite_qconv.h"
#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"

enum { SHAPE_IN, FILTER_IN, DATA_IN, BIAS_IN };

typedef struct tconv_state {
    int64_t batch, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, stride_h, stride_w, pad_h, pad_w;
    bool is_int8;
    int32_t input_zero, filter_zero, output_zero, act_min, act_max;
    tp_tfl_multiplier *rescale; /* out_c */
    int64_t taps;               /* out_c x k_h x k_w: the GEMM's columns */
    int64_t band;               /* input rows per GEMM call */
    tp_tflite_qconv gemm_q;     /* the GEMM as a 1 x 1 convolution of in_c into taps channels */
    tp_tflite_qconv_gemm gemm;
} tconv_state;

static void tconv_release(void *state)
{
    tconv_state *s = state;
    if (s) {
        free(s->rescale);
        tp_tflite_qconv_gemm_free(&s->gemm);
    }
    free(state);
}

/* TFLite's padding for one dimension of a transposed convolution. */
static int64_t padding_of(bool same, int64_t out, int64_t stride, int64_t k)
{
    const int64_t n = same ? (out + stride - 1) / stride : (out + stride - k) / stride;
    const int64_t total = (n - 1) * stride + k - out;
    return total > 0 ? total / 2 : 0;
}

static tfpi_code check_types(tp_op_ctx *ctx, tconv_state *s)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 4);
    if (code != TFPI_OK)
        return code;
    const tfpi_dtype t = ctx->inputs[DATA_IN]->dtype;
    if (t != TFPI_INT8 && t != TFPI_UINT8)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "the input (input 2) is %s: this kernel takes int8 or uint8",
                       tfpi_dtype_name(t));
    if (ctx->inputs[FILTER_IN]->dtype != t || tp_tfl_output_dtype(ctx) != t)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "the filter is %s, the input %s and the output %s: TFLite takes one type",
                       tfpi_dtype_name(ctx->inputs[FILTER_IN]->dtype), tfpi_dtype_name(t),
                       tfpi_dtype_name(tp_tfl_output_dtype(ctx)));
    if (ctx->inputs[SHAPE_IN]->dtype != TFPI_INT32)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output_shape (input 0) is %s, not int32",
                       tfpi_dtype_name(ctx->inputs[SHAPE_IN]->dtype));
    if (ctx->inputs[DATA_IN]->ndims != 4 || ctx->inputs[FILTER_IN]->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the input and the filter must be 4-D, not of rank %d and %d",
                       ctx->inputs[DATA_IN]->ndims, ctx->inputs[FILTER_IN]->ndims);
    s->is_int8 = t == TFPI_INT8;
    return TFPI_OK;
}

/* Sizes, strides and padding; the output's shape from output_shape. */
static tfpi_code geometry(tp_op_ctx *ctx, tconv_state *s)
{
    int64_t shape[4];
    int count;
    tfpi_code code = tp_read_index_values(ctx, SHAPE_IN, "output_shape", shape, 4, &count);
    if (code != TFPI_OK)
        return code;
    const int64_t *in = ctx->inputs[DATA_IN]->dims, *f = ctx->inputs[FILTER_IN]->dims;
    if (count != 4 || shape[0] != in[0] || shape[3] != f[0] || f[3] != in[3] || in[3] < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "output_shape must be [%lld, height, width, %lld] (the input's batch, the filter's "
                       "output channels), with the filter's input channels %lld those of the input (%lld, >= 1)",
                       (long long)in[0], (long long)f[0], (long long)f[3], (long long)in[3]);
    s->stride_h = tp_attr_int(ctx->def, "stride_h", 1);
    s->stride_w = tp_attr_int(ctx->def, "stride_w", 1);
    if (s->stride_h < 1 || s->stride_w < 1 || s->stride_h > (1 << 20) || s->stride_w > (1 << 20))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "stride_h %lld and stride_w %lld must be in 1..2^20",
                       (long long)s->stride_h, (long long)s->stride_w);
    for (int i = 1; i < 3; i++)
        if (shape[i] < 1 || shape[i] > (1 << 24) || f[i] < 1 || f[i] > (1 << 24))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the output and filter heights and widths must be in 1..2^24");
    char buf[16];
    const char *padding = tp_attr_string(ctx->def, "padding", buf, sizeof buf, "SAME");
    const bool same = strcmp(padding, "SAME") == 0;
    if (!same && strcmp(padding, "VALID") != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "padding '%s' is not SAME or VALID", padding);
    s->batch = in[0], s->in_h = in[1], s->in_w = in[2], s->in_c = in[3];
    s->out_h = shape[1], s->out_w = shape[2], s->out_c = shape[3], s->k_h = f[1], s->k_w = f[2];
    s->pad_h = padding_of(same, s->out_h, s->stride_h, s->k_h);
    s->pad_w = padding_of(same, s->out_w, s->stride_w, s->k_w);
    return tp_set_output(ctx, 0, ctx->inputs[DATA_IN]->dtype, 4, shape);
}

/* The filter's quantization (see the top of the file). */
static tfpi_code filter_quantization(tp_op_ctx *ctx, const tconv_state *s, tp_tfl_quant *f)
{
    if (!tp_tfl_quant_of(ctx->def, "in", FILTER_IN, f))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter (input 1) has no quantization");
    if (f->count != 1 && (f->count != s->out_c || f->dim != 0 || !s->is_int8))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the filter has %lld scales along dimension %d: expected 1, or %lld along dimension 0 for "
                       "int8 tensors",
                       (long long)f->count, f->dim, (long long)s->out_c);
    for (int64_t c = 0; c < f->count; c++) {
        const int64_t z = f->zero_point[c];
        if (!(f->scale[c] > 0.0f) || !isfinite(f->scale[c]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter's scale %lld is %g: it must be positive and finite",
                           (long long)c, (double)f->scale[c]);
        if (s->is_int8 ? z != 0 : z < 0 || z > 255)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter's zero point %lld is %lld: %s", (long long)c,
                           (long long)z, s->is_int8 ? "int8 filters must have zero point 0" : "uint8 codes are 0..255");
    }
    return TFPI_OK;
}

/* The optional bias: int32, one value per output channel; for uint8 its
 * scale must be the input scale x filter scale (TFLite's check). */
static tfpi_code check_bias(tp_op_ctx *ctx, const tconv_state *s, double product)
{
    if (ctx->num_inputs <= BIAS_IN || tp_tfl_input_absent(ctx, BIAS_IN))
        return TFPI_OK;
    const tfpi_tensor *bias = ctx->inputs[BIAS_IN];
    if (bias->dtype != TFPI_INT32 || tp_num_elements(bias) != s->out_c)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the bias (input 3) must be int32 with %lld values, not %s with %lld",
                       (long long)s->out_c, tfpi_dtype_name(bias->dtype), (long long)tp_num_elements(bias));
    tp_tfl_quant b;
    if (s->is_int8)
        return TFPI_OK;
    if (!tp_tfl_quant_of(ctx->def, "in", BIAS_IN, &b) || b.count != 1 ||
        !(fabs(product - b.scale[0]) <= 1e-6 * fmin(product, b.scale[0])))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the bias scale must be the input scale x filter scale %g (TFLite requires it)", product);
    return TFPI_OK;
}

static tfpi_code quantization(tp_op_ctx *ctx, tconv_state *s)
{
    tp_tfl_quant in, f, out;
    tp_tfl_activation act;
    int32_t qmin, qmax;
    tfpi_code code;
    if ((code = tp_tfl_expect_per_tensor(ctx, "in", DATA_IN, &in)) != TFPI_OK ||
        (code = tp_tfl_expect_per_tensor(ctx, "out", 0, &out)) != TFPI_OK ||
        (code = filter_quantization(ctx, s, &f)) != TFPI_OK || (code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK ||
        (code = check_bias(ctx, s, (double)(in.scale[0] * f.scale[0]))) != TFPI_OK)
        return code;
    tp_tfl_code_range(ctx->inputs[DATA_IN]->dtype, &qmin, &qmax);
    s->input_zero = (int32_t)in.zero_point[0];
    s->filter_zero = (int32_t)f.zero_point[0];
    s->output_zero = (int32_t)out.zero_point[0];
    if (!tp_tfl_activation_range(act, out.scale[0], s->output_zero, qmin, qmax, &s->act_min, &s->act_max))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "fused activation %s is not supported on quantized outputs",
                       act == TP_TFL_ACT_TANH ? "TANH" : "SIGN_BIT");
    if (!(s->rescale = malloc(sizeof *s->rescale * (size_t)s->out_c)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int64_t c = 0; c < s->out_c; c++) {
        const double real = s->is_int8 ? (double)in.scale[0] * (double)f.scale[f.count == 1 ? 0 : c] / (double)out.scale[0]
                                       : (double)(in.scale[0] * f.scale[0]) / (double)out.scale[0];
        if (!tp_tfl_quantize_multiplier(real, &s->rescale[c]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "output channel %lld rescales by %g (input scale x filter scale / output scale): too large",
                           (long long)c, real);
    }
    return TFPI_OK;
}

static tfpi_code tconv_prepare(tp_op_ctx *ctx)
{
    tconv_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    tfpi_code code;
    if ((code = check_types(ctx, s)) != TFPI_OK || (code = geometry(ctx, s)) != TFPI_OK ||
        (code = quantization(ctx, s)) != TFPI_OK)
        return code;
    /* the filter holds out_c x k_h x k_w x in_c codes: taps fits */
    s->taps = s->out_c * s->k_h * s->k_w;
    int64_t row_bytes;
    if (!tp_checked_mul(s->in_w, s->taps * (int64_t)sizeof(int32_t), &row_bytes))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "an input row's %lld x %lld columns are too many",
                       (long long)s->in_w, (long long)s->taps);
    s->band = row_bytes >= (4 << 20) ? 1 : (4 << 20) / row_bytes;
    s->band = s->band > s->in_h ? s->in_h : s->band;
    int64_t sums;
    if (!tp_checked_mul(s->out_h * s->out_w, s->out_c, &sums) ||
        (code = tp_expect_within_budget(ctx, sums, sizeof(int32_t), "the image's int32 sums")) != TFPI_OK ||
        (code = tp_expect_within_budget(ctx, s->band * s->in_w * s->taps, sizeof(int32_t), "the GEMM's columns")) !=
            TFPI_OK)
        return code;
    s->gemm_q = (tp_tflite_qconv){
        .geo = {.batch = s->band * s->in_w, .in_h = 1, .in_w = 1, .in_c = s->in_c, .window_h = 1, .window_w = 1,
                .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1, .out_h = 1, .out_w = 1,
                .out_c = s->taps},
        .is_int8 = s->is_int8, .input_zero = s->input_zero, .filter_zero = s->filter_zero, .sums = true};
    if (!tp_tflite_qconv_gemm_plan(&s->gemm, &s->gemm_q, ctx->inputs[FILTER_IN]->data, true,
                                   tp_threadpool_cpu(ctx->pool), ctx->graph, ctx->def))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory preparing the weights");
    return TFPI_OK;
}

typedef struct tconv_job {
    const tconv_state *s;
    const int32_t *cols; /* [pixels of the band][taps] */
    int64_t y0, rows;    /* the band: input rows y0 .. y0 + rows */
    int32_t *sums;       /* the image's [out_h][out_w][out_c] */
    const int32_t *bias;
    uint8_t *output;     /* the image's codes */
} tconv_job;

/* Adds the band's columns of output channels [begin, end) into the sums
 * at the output pixels their taps reach (col2im). */
static void scatter_channels(void *arg, int64_t begin, int64_t end)
{
    const tconv_job *job = arg;
    const tconv_state *s = job->s;
    for (int64_t r = 0; r < job->rows * s->in_w; r++) {
        const int64_t y = job->y0 + r / s->in_w, x = r % s->in_w;
        const int32_t *col = job->cols + r * s->taps;
        for (int64_t ky = 0; ky < s->k_h; ky++) {
            const int64_t oy = y * s->stride_h - s->pad_h + ky;
            if (oy < 0 || oy >= s->out_h)
                continue;
            for (int64_t kx = 0; kx < s->k_w; kx++) {
                const int64_t ox = x * s->stride_w - s->pad_w + kx;
                if (ox < 0 || ox >= s->out_w)
                    continue;
                uint32_t *sum = (uint32_t *)job->sums + (oy * s->out_w + ox) * s->out_c;
                for (int64_t c = begin; c < end; c++)
                    sum[c] += (uint32_t)col[(c * s->k_h + ky) * s->k_w + kx];
            }
        }
    }
}

/* The codes of output pixels [begin, end) of the image: bias, rescale. */
static void requantize_pixels(void *arg, int64_t begin, int64_t end)
{
    const tconv_job *job = arg;
    const tconv_state *s = job->s;
    for (int64_t i = begin * s->out_c; i < end * s->out_c; i++) {
        const int64_t c = i % s->out_c;
        const uint32_t acc = (uint32_t)job->sums[i] + (job->bias ? (uint32_t)job->bias[c] : 0u);
        job->output[i] = (uint8_t)tp_tflite_requantize((int32_t)acc, s->rescale[c], s->output_zero, s->act_min,
                                                       s->act_max); /* the low byte is the int8 code too */
    }
}

static tfpi_code tconv_run(tp_op_ctx *ctx)
{
    const tconv_state *s = ctx->state;
    const bool has_bias = ctx->num_inputs > BIAS_IN && !tp_tfl_input_absent(ctx, BIAS_IN);
    const uint8_t *input = ctx->inputs[DATA_IN]->data;
    const int64_t out_image = s->out_h * s->out_w * s->out_c;
    int32_t *cols = malloc(sizeof(int32_t) * (size_t)(s->band * s->in_w * s->taps));
    int32_t *sums = malloc(sizeof(int32_t) * (size_t)out_image);
    bool ok = cols && sums;
    tconv_job job = {.s = s, .cols = cols, .sums = sums, .bias = has_bias ? ctx->inputs[BIAS_IN]->data : NULL};
    for (int64_t b = 0; ok && b < s->batch; b++) {
        memset(sums, 0, sizeof(int32_t) * (size_t)out_image);
        for (job.y0 = 0; ok && job.y0 < s->in_h; job.y0 += s->band) {
            job.rows = s->in_h - job.y0 < s->band ? s->in_h - job.y0 : s->band;
            tp_tflite_qconv q = s->gemm_q;
            q.geo.batch = job.rows * s->in_w;
            ok = tp_tflite_qconv_gemm_run(&q, &s->gemm, input + ((b * s->in_h + job.y0) * s->in_w) * s->in_c,
                                          ctx->inputs[FILTER_IN]->data, cols, ctx->pool);
            if (ok)
                tp_parallel_for(ctx->pool, s->out_c, 16, scatter_channels, &job);
        }
        job.output = (uint8_t *)ctx->outputs[0].data + b * out_image;
        if (ok)
            tp_parallel_for(ctx->pool, s->out_h * s->out_w, 64, requantize_pixels, &job);
    }
    free(cols);
    free(sums);
    return ok ? TFPI_OK : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the transposed convolution's sums");
}

const tp_kernel tp_kernels_tflite_transpose_conv[] = {
    TP_KERNEL("TRANSPOSE_CONV", tconv_prepare, tconv_run, tconv_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
