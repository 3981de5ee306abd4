/* window_geometry.c - checks the inputs and attributes of the NHWC window
 * ops (Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool) and resolves them
 * into a tp_window_params with TensorFlow's output size and padding rules
 * (GetWindowedOutputSize): SAME gives ceil(in / stride) outputs and puts the
 * smaller half of the padding before; VALID uses no padding; EXPLICIT takes
 * the node's explicit_paddings. */
#include "compute/window_geometry.h"

#include <string.h>

#include "core/checked_math.h"

typedef enum padding_kind { PADDING_VALID, PADDING_SAME, PADDING_EXPLICIT } padding_kind;

typedef struct window_attrs {
    padding_kind padding;
    const char *padding_name;
    int64_t stride_h, stride_w;
    int64_t dilation_h, dilation_w;
    int64_t explicit_pads[4]; /* top, bottom, left, right */
} window_attrs;

static tfpi_code expect_rank4(tp_op_ctx *ctx, int input, const char *what, const char *layout)
{
    char shape[96];
    if (ctx->inputs[input]->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s (input %d) must be 4-D %s, got shape %s", what,
                       input, layout, tp_shape_string(ctx->inputs[input], shape, sizeof shape));
    return TFPI_OK;
}

static tfpi_code expect_nhwc(tp_op_ctx *ctx)
{
    char buf[32];
    const char *format = tp_attr_string(ctx->def, "data_format", buf, sizeof buf, "NHWC");
    if (strcmp(format, "NHWC") != 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "data_format '%s' is not supported: tfpi runs NHWC graphs only", format);
    return TFPI_OK;
}

/* The H and W entries of an NHWC list such as strides or ksize, whose batch
 * and depth entries must be 1; count < 0 means the attr is absent. */
static tfpi_code spatial_pair(tp_op_ctx *ctx, const char *name, const int64_t *v, int count,
                              int64_t *h, int64_t *w)
{
    if (count < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "missing attr '%s'", name);
    if (count != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s must have 4 values (NHWC), has %d", name, count);
    for (int i = 0; i < 4; i++) /* TensorFlow reads these lists as int32 */
        if (v[i] != (int32_t)v[i])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attr '%s' has value %lld out of range for an int32", name,
                           (long long)v[i]);
    if (v[1] < 1 || v[2] < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s must be positive, got [%lld,%lld,%lld,%lld]", name,
                       (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
    if (v[0] != 1 || v[3] != 1)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "%s other than 1 in the batch and depth dimensions are not supported, got "
                       "[%lld,%lld,%lld,%lld]",
                       name, (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
    *h = v[1];
    *w = v[2];
    return TFPI_OK;
}

/* An NHWC list attr; an absent one is all ones if optional, else an error. */
static tfpi_code spatial_pair_attr(tp_op_ctx *ctx, const char *name, bool optional, int64_t *h,
                                   int64_t *w)
{
    int64_t v[4];
    int count = tp_attr_int_list(ctx->def, name, v, 4);
    if (count < 0 && optional) {
        *h = *w = 1;
        return TFPI_OK;
    }
    return spatial_pair(ctx, name, v, count, h, w);
}

static tfpi_code read_explicit_paddings(tp_op_ctx *ctx, window_attrs *a)
{
    int64_t pads[8];
    int count = tp_attr_int_list(ctx->def, "explicit_paddings", pads, 8);
    if (count != 8)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "padding EXPLICIT needs 8 explicit_paddings (before/after per NHWC dimension), has %d",
                       count < 0 ? 0 : count);
    for (int i = 0; i < 8; i++)
        if (pads[i] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "explicit_paddings must not be negative, got %lld",
                           (long long)pads[i]);
    if (pads[0] || pads[1] || pads[6] || pads[7])
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "explicit_paddings of the batch and depth dimensions must be 0");
    memcpy(a->explicit_pads, pads + 2, sizeof a->explicit_pads);
    return TFPI_OK;
}

static tfpi_code read_padding(tp_op_ctx *ctx, bool explicit_allowed, window_attrs *a)
{
    char buf[32];
    const char *padding = tp_attr_string(ctx->def, "padding", buf, sizeof buf, NULL);
    if (!padding)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "missing attr 'padding'");
    if (strcmp(padding, "SAME") == 0) {
        a->padding = PADDING_SAME;
        a->padding_name = "SAME";
    } else if (strcmp(padding, "VALID") == 0) {
        a->padding = PADDING_VALID;
        a->padding_name = "VALID";
    } else if (explicit_allowed && strcmp(padding, "EXPLICIT") == 0) {
        a->padding = PADDING_EXPLICIT;
        a->padding_name = "EXPLICIT";
        return read_explicit_paddings(ctx, a);
    } else {
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "padding '%s' is not supported (expected SAME, VALID%s)",
                       padding, explicit_allowed ? " or EXPLICIT" : "");
    }
    return TFPI_OK;
}

/* TensorFlow's output size along one dimension and the padding before the
 * first input element; false if the output size would be negative or the
 * geometry does not fit in int64 (strides and dilations are positive). */
static bool window_output_size(const window_attrs *a, int64_t in, int64_t window, int64_t stride,
                               int64_t dilation, const int64_t explicit_pads[2], int64_t *out,
                               int64_t *pad_before)
{
    int64_t span, padded = in, needed;
    if (!tp_checked_mul(window - 1, dilation, &span) || !tp_checked_add(span, 1, &span))
        return false;
    *pad_before = a->padding == PADDING_EXPLICIT ? explicit_pads[0] : 0;
    if (a->padding == PADDING_EXPLICIT &&
        (!tp_checked_add(in, explicit_pads[0], &padded) || !tp_checked_add(padded, explicit_pads[1], &padded)))
        return false;
    switch (a->padding) {
    case PADDING_EXPLICIT:
    case PADDING_VALID: {
        /* TensorFlow: (padded - span + stride) / stride, accepted unless negative */
        int64_t d = padded - span;
        *out = d >= 0 ? d / stride + 1 : 0;
        return d >= 0 || -d - stride < stride;
    }
    case PADDING_SAME:
        *out = in / stride + (in % stride != 0);
        if (!tp_checked_mul(*out > 0 ? *out - 1 : 0, stride, &needed) || !tp_checked_add(needed, span, &needed))
            return false;
        needed -= in;
        *pad_before = needed > 0 ? needed / 2 : 0;
        return true;
    }
    return false;
}

/* Whether the product of the non-zero dims fits in int64. The kernels
 * multiply batch, height and width before depth, so even an empty tensor's
 * other dims must not overflow when multiplied. */
static bool dims_multiply(int64_t d0, int64_t d1, int64_t d2, int64_t d3)
{
    const int64_t dims[4] = {d0 ? d0 : 1, d1 ? d1 : 1, d2 ? d2 : 1, d3 ? d3 : 1};
    int64_t product;
    return tp_checked_product(dims, 4, &product);
}

static tfpi_code window_geometry(tp_op_ctx *ctx, const window_attrs *a, const int64_t *in_dims,
                                 int64_t window_h, int64_t window_w, int64_t out_c, tp_window_params *p)
{
    *p = (tp_window_params){
        .batch = in_dims[0], .in_h = in_dims[1], .in_w = in_dims[2], .in_c = in_dims[3],
        .window_h = window_h, .window_w = window_w,
        .stride_h = a->stride_h, .stride_w = a->stride_w,
        .dilation_h = a->dilation_h, .dilation_w = a->dilation_w,
        .out_c = out_c,
    };
    if (!window_output_size(a, p->in_h, window_h, a->stride_h, a->dilation_h, a->explicit_pads, &p->out_h,
                            &p->pad_top) ||
        !window_output_size(a, p->in_w, window_w, a->stride_w, a->dilation_w, a->explicit_pads + 2,
                            &p->out_w, &p->pad_left))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "computed output size would be negative (or overflow): input %lldx%lld, window %lldx%lld, "
                       "strides %lldx%lld, dilations %lldx%lld, padding %s",
                       (long long)p->in_h, (long long)p->in_w, (long long)window_h, (long long)window_w,
                       (long long)a->stride_h, (long long)a->stride_w, (long long)a->dilation_h,
                       (long long)a->dilation_w, a->padding_name);
    if (!dims_multiply(p->batch, p->in_h, p->in_w, p->in_c) || !dims_multiply(p->batch, p->out_h, p->out_w, p->out_c) ||
        !dims_multiply(window_h, window_w, p->in_c, p->out_c))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the output would be %lldx%lldx%lldx%lld (input %lldx%lldx%lldx%lld, window %lldx%lld, "
                       "padding %s): its dims multiply past int64",
                       (long long)p->batch, (long long)p->out_h, (long long)p->out_w, (long long)p->out_c,
                       (long long)p->batch, (long long)p->in_h, (long long)p->in_w, (long long)p->in_c,
                       (long long)window_h, (long long)window_w, a->padding_name);
    return TFPI_OK;
}

tfpi_code tp_conv_window_params(tp_op_ctx *ctx, bool depthwise, tp_window_params *p)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 2, 2)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 0, TFPI_FLOAT)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 1, TFPI_FLOAT)) != TFPI_OK)
        return code;
    return tp_conv_window_geometry(ctx, depthwise, p);
}

tfpi_code tp_conv_window_geometry(tp_op_ctx *ctx, bool depthwise, tp_window_params *p)
{
    window_attrs a = {0};
    tfpi_code code;
    if ((code = expect_rank4(ctx, 0, "input", "NHWC")) != TFPI_OK ||
        (code = expect_rank4(ctx, 1, "filter",
                             depthwise ? "[height, width, in_channels, channel_multiplier]"
                                       : "[height, width, in_channels, out_channels]")) != TFPI_OK ||
        (code = expect_nhwc(ctx)) != TFPI_OK || (code = read_padding(ctx, true, &a)) != TFPI_OK ||
        (code = spatial_pair_attr(ctx, "strides", false, &a.stride_h, &a.stride_w)) != TFPI_OK ||
        (code = spatial_pair_attr(ctx, "dilations", true, &a.dilation_h, &a.dilation_w)) != TFPI_OK)
        return code;
    const int64_t *in = ctx->inputs[0]->dims, *filter = ctx->inputs[1]->dims;
    char in_shape[96], filter_shape[96];
    if (filter[2] != in[3])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the input has %lld channels but the filter expects %lld (input %s, filter %s)",
                       (long long)in[3], (long long)filter[2],
                       tp_shape_string(ctx->inputs[0], in_shape, sizeof in_shape),
                       tp_shape_string(ctx->inputs[1], filter_shape, sizeof filter_shape));
    if (filter[0] < 1 || filter[1] < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the filter's height and width must be positive, got %s",
                       tp_shape_string(ctx->inputs[1], filter_shape, sizeof filter_shape));
    return window_geometry(ctx, &a, in, filter[0], filter[1], depthwise ? in[3] * filter[3] : filter[3], p);
}

tfpi_code tp_window_geometry_of(tp_op_ctx *ctx, const int64_t *in_dims, int64_t window_h, int64_t window_w,
                                int64_t out_c, const int64_t strides[2], const int64_t dilations[2], bool same,
                                tp_window_params *p)
{
    window_attrs a = {.padding = same ? PADDING_SAME : PADDING_VALID, .padding_name = same ? "SAME" : "VALID",
                      .stride_h = strides[0], .stride_w = strides[1],
                      .dilation_h = dilations[0], .dilation_w = dilations[1]};
    return window_geometry(ctx, &a, in_dims, window_h, window_w, out_c, p);
}

tfpi_code tp_pool_window_params(tp_op_ctx *ctx, const int64_t *ksize, int ksize_count,
                                const int64_t *strides, int strides_count, bool explicit_allowed,
                                tp_window_params *p)
{
    tfpi_code code = tp_expect_dtype(ctx, 0, TFPI_FLOAT);
    return code != TFPI_OK ? code
                           : tp_pool_window_geometry(ctx, ksize, ksize_count, strides, strides_count,
                                                     explicit_allowed, p);
}

tfpi_code tp_pool_window_geometry(tp_op_ctx *ctx, const int64_t *ksize, int ksize_count,
                                  const int64_t *strides, int strides_count, bool explicit_allowed,
                                  tp_window_params *p)
{
    window_attrs a = {.dilation_h = 1, .dilation_w = 1};
    int64_t window_h, window_w;
    tfpi_code code;
    if ((code = expect_rank4(ctx, 0, "input", "NHWC")) != TFPI_OK || (code = expect_nhwc(ctx)) != TFPI_OK ||
        (code = read_padding(ctx, explicit_allowed, &a)) != TFPI_OK ||
        (code = spatial_pair(ctx, "ksize", ksize, ksize_count, &window_h, &window_w)) != TFPI_OK ||
        (code = spatial_pair(ctx, "strides", strides, strides_count, &a.stride_h, &a.stride_w)) != TFPI_OK)
        return code;
    const int64_t *in = ctx->inputs[0]->dims;
    return window_geometry(ctx, &a, in, window_h, window_w, in[3], p);
}

void tp_window_taps(int64_t origin, int64_t dilation, int64_t size, int64_t extent, int64_t *first,
                    int64_t *end)
{
    /* Tap k reads origin + k * dilation; keep 0 <= that < extent. */
    int64_t lo = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
    int64_t hi = origin >= extent ? 0 : (extent - origin + dilation - 1) / dilation;
    if (hi > size)
        hi = size;
    if (lo > hi)
        lo = hi;
    *first = lo;
    *end = hi;
}

int64_t tp_window_rows_per_chunk(const tp_window_params *p, int64_t per_tap, int64_t min_work)
{
    int64_t taps_h = p->window_h < p->in_h ? p->window_h : p->in_h;
    int64_t taps_w = p->window_w < p->in_w ? p->window_w : p->in_w;
    int64_t row_work = tp_sat_mul(tp_sat_mul(tp_sat_mul(p->out_w, taps_h), taps_w), per_tap);
    return 1 + min_work / tp_sat_add(row_work, 1);
}
