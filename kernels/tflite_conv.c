/* tflite_conv.c - TensorFlow Lite's quantized CONV_2D, DEPTHWISE_CONV_2D
 * and FULLY_CONNECTED on int8 tensors (TF2 converter: per-channel filter
 * scales, filter zero points 0) and uint8 tensors (TF1/TOCO: one scale and
 * zero point per tensor, filters included), read as src/compute/
 * tflite_node.h says: inputs input, filter (CONV_2D [O,H,W,I],
 * DEPTHWISE_CONV_2D [1,H,W,C*M], FULLY_CONNECTED [O,I]) and an optional
 * int32 bias [O]; options stride_w, stride_h, dilation_w_factor,
 * dilation_h_factor, padding, depth_multiplier, fused_activation_function,
 * keep_num_dims, weights_format; quantization in q_in<i>_* / q_out0_*.
 * prepare resolves everything into a tp_tflite_qconv (compute/
 * tflite_qconv.h) with TFLite's multipliers: for uint8 operators and a
 * per-tensor FULLY_CONNECTED the real factor is (double)(float)(input
 * scale x filter scale) / output scale, the product rounded to float first
 * as TFLite's GetQuantizedConvolutionMultipler does; for int8 convolutions
 * (and a per-channel FULLY_CONNECTED) input scale x channel scale / output
 * scale in double (PopulateConvolutionQuantizationParams). The uint8 bias
 * scale must match input x filter scale within 1e-6, as TFLite checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "compute/tflite_node.h"
#include "compute/tflite_qconv.h"
#include "graph/graph.h"

typedef enum qconv_kind { KIND_CONV, KIND_DEPTHWISE, KIND_FULLY_CONNECTED } qconv_kind;

typedef struct qconv_state {
    tp_tflite_qconv q;
    tp_tfl_multiplier *rescale; /* out_c, owned */
    tp_tflite_qconv_gemm gemm;  /* CONV_2D and FULLY_CONNECTED */
    tp_tflite_qdepthwise depthwise;
} qconv_state;

static void qconv_release(void *state)
{
    qconv_state *s = state;
    if (s) {
        free(s->rescale);
        tp_tflite_qconv_gemm_free(&s->gemm);
        tp_tflite_qdepthwise_free(&s->depthwise);
    }
    free(state);
}

/* An option that must be a positive int (absent: 1). */
static tfpi_code positive_option(tp_op_ctx *ctx, const char *name, int64_t *value)
{
    *value = tp_attr_int(ctx->def, name, 1);
    if (*value < 1 || *value > INT32_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "option %s must be a positive int32, got %lld", name,
                       (long long)*value);
    return TFPI_OK;
}

/* The padding option: SAME (also when absent: the schema's default) or VALID. */
static tfpi_code padding_option(tp_op_ctx *ctx, bool *same)
{
    char buf[16];
    const char *padding = tp_attr_string(ctx->def, "padding", buf, sizeof buf, "SAME");
    *same = strcmp(padding, "SAME") == 0;
    if (!*same && strcmp(padding, "VALID") != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "padding '%s' is not SAME or VALID", padding);
    return TFPI_OK;
}

static tfpi_code expect_rank(tp_op_ctx *ctx, int input, int rank, const char *what)
{
    char shape[96];
    if (ctx->inputs[input]->ndims != rank)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s (input %d) must be %d-D, got shape %s", what, input, rank,
                       tp_shape_string(ctx->inputs[input], shape, sizeof shape));
    return TFPI_OK;
}

/* The window geometry of a convolution; *out_c from the filter. */
static tfpi_code conv_geometry(tp_op_ctx *ctx, qconv_kind kind, tp_window_params *p)
{
    tfpi_code code;
    if ((code = expect_rank(ctx, 0, 4, "the input [batch, height, width, channels]")) != TFPI_OK ||
        (code = expect_rank(ctx, 1, 4, kind == KIND_CONV ? "the filter [out, height, width, in]"
                                                          : "the filter [1, height, width, channels]")) != TFPI_OK)
        return code;
    const int64_t *in = ctx->inputs[0]->dims, *f = ctx->inputs[1]->dims;
    char in_shape[96], f_shape[96];
    tp_shape_string(ctx->inputs[0], in_shape, sizeof in_shape);
    tp_shape_string(ctx->inputs[1], f_shape, sizeof f_shape);
    int64_t out_c;
    if (kind == KIND_CONV) {
        if (f[3] != in[3])
            return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                           "the input has %lld channels and the filter %lld (input %s, filter %s): grouped "
                           "convolutions are not supported",
                           (long long)in[3], (long long)f[3], in_shape, f_shape);
        out_c = f[0];
    } else {
        out_c = f[3];
        if (f[0] != 1 || in[3] < 1 || out_c % in[3] != 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "the filter %s must be [1, height, width, input channels x depth_multiplier] for the "
                           "input %s",
                           f_shape, in_shape);
        const int64_t declared = tp_attr_int(ctx->def, "depth_multiplier", 0);
        if (declared != 0 && declared != out_c / in[3])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "depth_multiplier is %lld but the filter %s over the input %s makes it %lld",
                           (long long)declared, f_shape, in_shape, (long long)(out_c / in[3]));
    }
    const int64_t window_h = kind == KIND_CONV ? f[1] : f[1], window_w = f[2];
    if (window_h < 1 || window_w < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter %s has an empty window", f_shape);
    int64_t strides[2], dilations[2];
    bool same;
    if ((code = positive_option(ctx, "stride_h", &strides[0])) != TFPI_OK ||
        (code = positive_option(ctx, "stride_w", &strides[1])) != TFPI_OK ||
        (code = positive_option(ctx, "dilation_h_factor", &dilations[0])) != TFPI_OK ||
        (code = positive_option(ctx, "dilation_w_factor", &dilations[1])) != TFPI_OK ||
        (code = padding_option(ctx, &same)) != TFPI_OK)
        return code;
    return tp_window_geometry_of(ctx, in, window_h, window_w, out_c, strides, dilations, same, p);
}

/* FULLY_CONNECTED as rows of a 1x1 image; the output's shape in dims. */
static tfpi_code fc_geometry(tp_op_ctx *ctx, tp_window_params *p, int *ndims, int64_t *dims)
{
    tfpi_code code = expect_rank(ctx, 1, 2, "the weights [units, depth]");
    if (code != TFPI_OK)
        return code;
    char buf[24], in_shape[96], w_shape[96];
    const char *format = tp_attr_string(ctx->def, "weights_format", buf, sizeof buf, "DEFAULT");
    if (strcmp(format, "DEFAULT") != 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "weights_format %s is not supported (only DEFAULT)", format);
    const tfpi_tensor *in = ctx->inputs[0];
    const int64_t units = ctx->inputs[1]->dims[0], depth = ctx->inputs[1]->dims[1];
    int64_t size = tp_num_elements(in);
    tp_shape_string(in, in_shape, sizeof in_shape);
    tp_shape_string(ctx->inputs[1], w_shape, sizeof w_shape);
    const bool keep = tp_attr_bool(ctx->def, "keep_num_dims", false);
    if (depth < 1 || in->ndims < 1 || size % depth != 0 || (keep && in->dims[in->ndims - 1] != depth))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the input %s does not divide into rows of the weights' depth "
                       "(weights %s%s)", in_shape, w_shape, keep ? ", keep_num_dims" : "");
    const int64_t rows = size / depth;
    *p = (tp_window_params){.batch = rows, .in_h = 1, .in_w = 1, .in_c = depth, .window_h = 1, .window_w = 1,
                            .stride_h = 1, .stride_w = 1, .dilation_h = 1, .dilation_w = 1,
                            .out_h = 1, .out_w = 1, .out_c = units};
    if (keep) {
        *ndims = in->ndims;
        memcpy(dims, in->dims, sizeof(int64_t) * (size_t)in->ndims);
        dims[in->ndims - 1] = units;
    } else {
        *ndims = 2;
        dims[0] = rows;
        dims[1] = units;
    }
    return TFPI_OK;
}

/* Input and output quantization, per tensor within the type's codes. */
static tfpi_code tensor_quantization(tp_op_ctx *ctx, tp_tfl_quant *in, tp_tfl_quant *out)
{
    tfpi_code code = tp_tfl_expect_per_tensor(ctx, "in", 0, in);
    return code != TFPI_OK ? code : tp_tfl_expect_per_tensor(ctx, "out", 0, out);
}

/* The filter's quantization: one scale, or one per output channel along
 * its output dimension (int8 only); every scale positive and finite; the
 * zero point within uint8's codes, or 0 for an int8 convolution filter
 * (TFLite's int8 spec; its kernels ignore any other), or an int8 code for
 * FULLY_CONNECTED (whose kernel subtracts it). */
static tfpi_code filter_quantization(tp_op_ctx *ctx, qconv_kind kind, int64_t out_c, tp_tfl_quant *f)
{
    if (!tp_tfl_quant_of(ctx->def, "in", 1, f))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter (input 1) has no quantization");
    const bool int8 = ctx->inputs[0]->dtype == TFPI_INT8;
    const int axis = kind == KIND_DEPTHWISE ? 3 : 0;
    if (f->count != 1 && (f->count != out_c || f->dim != axis || !int8))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the filter has %lld scales along dimension %d: expected 1, or %lld along dimension %d "
                       "for int8 tensors",
                       (long long)f->count, f->dim, (long long)out_c, axis);
    for (int64_t c = 0; c < f->count; c++) {
        if (!(f->scale[c] > 0.0f) || !isfinite(f->scale[c]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter's scale %lld is %g: it must be positive and finite",
                           (long long)c, (double)f->scale[c]);
        const int64_t z = f->zero_point[c];
        const bool fits = int8 ? (kind == KIND_FULLY_CONNECTED && f->count == 1 ? z >= -128 && z <= 127 : z == 0)
                               : z >= 0 && z <= 255;
        if (!fits)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter's zero point %lld is %lld: %s", (long long)c,
                           (long long)z,
                           !int8 ? "uint8 codes are 0..255"
                           : kind == KIND_FULLY_CONNECTED ? "per-channel int8 weights must have zero points 0"
                                                          : "int8 convolution filters must have zero point 0");
    }
    return TFPI_OK;
}

/* TFLite's check that the uint8 (or per-tensor FULLY_CONNECTED) bias scale
 * is the input scale x filter scale. */
static tfpi_code check_bias_scale(tp_op_ctx *ctx, double product)
{
    tp_tfl_quant b;
    if (!tp_tfl_quant_of(ctx->def, "in", 2, &b) || b.count != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the bias (input 2) must be quantized per tensor");
    const double bias = b.scale[0];
    if (!(fabs(product - bias) <= 1e-6 * fmin(product, bias)))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the bias scale %g is not the input scale x filter scale %g (TFLite requires it)", bias,
                       product);
    return TFPI_OK;
}

/* The rescale factors of the output channels (see the top of the file). */
static tfpi_code make_rescale(tp_op_ctx *ctx, qconv_kind kind, const tp_tfl_quant *in, const tp_tfl_quant *f,
                              const tp_tfl_quant *out, bool has_bias, qconv_state *s)
{
    const int64_t out_c = s->q.geo.out_c;
    const bool per_tensor_rule = !s->q.is_int8 || (kind == KIND_FULLY_CONNECTED && f->count == 1);
    if (!(s->rescale = malloc(sizeof *s->rescale * (size_t)(out_c + 1))))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    if (per_tensor_rule) {
        const double product = (double)(in->scale[0] * f->scale[0]);
        tfpi_code code = has_bias ? check_bias_scale(ctx, product) : TFPI_OK;
        if (code != TFPI_OK)
            return code;
    }
    for (int64_t c = 0; c < out_c; c++) {
        const double filter_scale = f->scale[f->count == 1 ? 0 : c];
        const double real = per_tensor_rule ? (double)(in->scale[0] * f->scale[0]) / (double)out->scale[0]
                                            : (double)in->scale[0] * filter_scale / (double)out->scale[0];
        if (!tp_tfl_quantize_multiplier(real, &s->rescale[c]))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "output channel %lld rescales by %g (input scale x filter scale / output scale): "
                           "too large",
                           (long long)c, real);
    }
    return TFPI_OK;
}

static tfpi_code check_types(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_dtype t = ctx->inputs[0]->dtype;
    if (t == TFPI_FLOAT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "float input with 8-bit weights (a hybrid model) is not supported by this kernel");
    if (t != TFPI_INT8 && t != TFPI_UINT8)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input type %s is not supported (int8 or uint8)",
                       tfpi_dtype_name(t));
    if (ctx->inputs[1]->dtype != t)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "the filter is %s and the input %s: they must be the same type",
                       tfpi_dtype_name(ctx->inputs[1]->dtype), tfpi_dtype_name(t));
    const tfpi_dtype out = tp_attr_type(ctx->def, "T", t);
    if (out != t)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "a %s output from a %s input is not supported",
                       tfpi_dtype_name(out), tfpi_dtype_name(t));
    return TFPI_OK;
}

/* The optional bias: int32 with one value per output channel. */
static tfpi_code check_bias(tp_op_ctx *ctx, int64_t out_c, bool *has_bias)
{
    *has_bias = !tp_tfl_input_absent(ctx, 2);
    if (!*has_bias)
        return TFPI_OK;
    const tfpi_tensor *bias = ctx->inputs[2];
    char shape[96];
    if (bias->dtype != TFPI_INT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "the bias (input 2) is %s: only int32 is supported",
                       tfpi_dtype_name(bias->dtype));
    if (tp_num_elements(bias) != out_c)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the bias %s must have one value per output channel (%lld)",
                       tp_shape_string(bias, shape, sizeof shape), (long long)out_c);
    return TFPI_OK;
}

static tfpi_code qconv_prepare(tp_op_ctx *ctx, qconv_kind kind)
{
    tfpi_code code = check_types(ctx);
    if (code != TFPI_OK)
        return code;
    qconv_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    tp_window_params *p = &s->q.geo;
    int ndims = 4;
    int64_t dims[TFPI_MAX_DIMS];
    if (kind == KIND_FULLY_CONNECTED)
        code = fc_geometry(ctx, p, &ndims, dims);
    else
        code = conv_geometry(ctx, kind, p);
    if (code != TFPI_OK)
        return code;
    if (kind != KIND_FULLY_CONNECTED) {
        dims[0] = p->batch, dims[1] = p->out_h, dims[2] = p->out_w, dims[3] = p->out_c;
    }
    const tfpi_dtype t = ctx->inputs[0]->dtype;
    bool has_bias;
    if ((code = tp_set_output(ctx, 0, t, ndims, dims)) != TFPI_OK || (code = check_bias(ctx, p->out_c, &has_bias)) != TFPI_OK)
        return code;
    tp_tfl_quant in, f, out;
    tp_tfl_activation act;
    int32_t qmin, qmax;
    tp_tfl_code_range(t, &qmin, &qmax);
    if ((code = tensor_quantization(ctx, &in, &out)) != TFPI_OK ||
        (code = filter_quantization(ctx, kind, p->out_c, &f)) != TFPI_OK ||
        (code = tp_tfl_activation_of(ctx, &act)) != TFPI_OK)
        return code;
    s->q.depthwise = kind == KIND_DEPTHWISE;
    s->q.is_int8 = t == TFPI_INT8;
    s->q.input_zero = (int32_t)in.zero_point[0];
    s->q.filter_zero = (int32_t)f.zero_point[0];
    s->q.output_zero = (int32_t)out.zero_point[0];
    if (!tp_tfl_activation_range(act, out.scale[0], s->q.output_zero, qmin, qmax, &s->q.act_min, &s->q.act_max))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "fused activation %s is not supported on quantized outputs",
                       act == TP_TFL_ACT_TANH ? "TANH" : "SIGN_BIT");
    if ((code = make_rescale(ctx, kind, &in, &f, &out, has_bias, s)) != TFPI_OK)
        return code;
    s->q.rescale = s->rescale;
    tp_tflite_qconv planned = s->q;
    planned.bias = has_bias ? ctx->inputs[2]->data : NULL;
    const bool bias_known = !has_bias || planned.bias;
    const bool ok = kind == KIND_DEPTHWISE
                        ? tp_tflite_qdepthwise_plan(&s->depthwise, &planned, ctx->inputs[1]->data, bias_known,
                                                    tp_threadpool_cpu(ctx->pool))
                        : tp_tflite_qconv_gemm_plan(&s->gemm, &planned, ctx->inputs[1]->data, bias_known,
                                                    tp_threadpool_cpu(ctx->pool), ctx->graph, ctx->def);
    if (!ok)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory preparing the weights");
    if (kind == KIND_DEPTHWISE && s->depthwise.fast && s->depthwise.bias_known) /* runs from its own copy */
        tp_graph_drop_constant_pages(ctx->graph, ctx->inputs[1]->data,
                                     (size_t)(p->window_h * p->window_w * p->out_c));
    return TFPI_OK;
}

typedef struct qconv_job {
    tp_tflite_qconv q;
    const void *input, *filter;
    void *output;
} qconv_job;

static void ref_rows(void *arg, int64_t begin, int64_t end)
{
    const qconv_job *job = arg;
    tp_tflite_qconv_ref(&job->q, job->input, job->filter, job->output, begin, end);
}

static tfpi_code qconv_run(tp_op_ctx *ctx)
{
    const qconv_state *s = ctx->state;
    qconv_job job = {.q = s->q, .input = ctx->inputs[0]->data, .filter = ctx->inputs[1]->data,
                     .output = ctx->outputs[0].data};
    job.q.bias = tp_tfl_input_absent(ctx, 2) ? NULL : ctx->inputs[2]->data;
    bool ok = true;
    if (!s->q.depthwise)
        ok = tp_tflite_qconv_gemm_run(&job.q, &s->gemm, job.input, job.filter, job.output, ctx->pool);
    else if (s->depthwise.fast)
        ok = tp_tflite_qdepthwise_run(&job.q, &s->depthwise, job.input, job.filter, job.output, ctx->pool);
    else
        tp_parallel_for(ctx->pool, s->q.geo.batch * s->q.geo.out_h, 1, ref_rows, &job);
    return ok ? TFPI_OK : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the convolution's rows");
}

static tfpi_code conv_prepare(tp_op_ctx *ctx) { return qconv_prepare(ctx, KIND_CONV); }
static tfpi_code depthwise_prepare(tp_op_ctx *ctx) { return qconv_prepare(ctx, KIND_DEPTHWISE); }
static tfpi_code fully_connected_prepare(tp_op_ctx *ctx) { return qconv_prepare(ctx, KIND_FULLY_CONNECTED); }

const tp_kernel tp_kernels_tflite_conv[] = {
    TP_KERNEL("CONV_2D", conv_prepare, qconv_run, qconv_release, TP_TFLITE_OP),
    TP_KERNEL("DEPTHWISE_CONV_2D", depthwise_prepare, qconv_run, qconv_release, TP_TFLITE_OP),
    TP_KERNEL("FULLY_CONNECTED", fully_connected_prepare, qconv_run, qconv_release, TP_TFLITE_OP),
    TP_KERNELS_END,
};
