/* window_geometry.h - the sliding-window geometry of the NHWC ops (Conv2D,
 * DepthwiseConv2dNative, MaxPool, AvgPool): reading and checking their
 * strides, dilations, ksize, padding and data_format, and TensorFlow's
 * output size and padding arithmetic for SAME, VALID and EXPLICIT. */
#ifndef TFPI_WINDOW_GEOMETRY_H
#define TFPI_WINDOW_GEOMETRY_H

#include "kernel/kernel.h"

/* One NHWC window op, fully resolved: output pixel (oy, ox) reads input rows
 * oy * stride_h - pad_top + ky * dilation_h for ky in [0, window_h), and
 * likewise for columns; taps outside the input are padding. */
typedef struct tp_window_params {
    int64_t batch, in_h, in_w, in_c;
    int64_t window_h, window_w; /* filter or ksize, undilated */
    int64_t stride_h, stride_w;
    int64_t dilation_h, dilation_w;
    int64_t pad_top, pad_left;
    int64_t out_h, out_w, out_c;
} tp_window_params;

/* Conv2D and DepthwiseConv2dNative: checks inputs (float NHWC input, filter
 * [h, w, in_c, k]) and attributes, and fills p; out_c is k for a convolution
 * and in_c * k (k = channel multiplier) for a depthwise convolution. */
tfpi_code tp_conv_window_params(tp_op_ctx *ctx, bool depthwise, tp_window_params *p);
/* The same checks of inputs 0 and 1 (input, filter) of any element type,
 * for kernels that check their inputs' count and types themselves. */
tfpi_code tp_conv_window_geometry(tp_op_ctx *ctx, bool depthwise, tp_window_params *p);

/* The geometry of a window op whose attributes were read elsewhere (a
 * TFLite operator's stride_h, dilation_w_factor, padding...): input dims
 * [batch, h, w, c], the window, out_c, strides and dilations as {h, w}
 * (each at least 1) and SAME or VALID padding, by the rules above (which
 * are TFLite's too). */
tfpi_code tp_window_geometry_of(tp_op_ctx *ctx, const int64_t *in_dims, int64_t window_h, int64_t window_w,
                                int64_t out_c, const int64_t strides[2], const int64_t dilations[2], bool same,
                                tp_window_params *p);

/* Pooling: checks input 0 (float NHWC) and the padding and data_format attrs;
 * ksize and strides are NHWC lists (from attrs or constant inputs) of count
 * entries each (count < 0: the attr is absent). explicit_allowed: whether
 * padding may be EXPLICIT. */
tfpi_code tp_pool_window_params(tp_op_ctx *ctx, const int64_t *ksize, int ksize_count,
                                const int64_t *strides, int strides_count, bool explicit_allowed,
                                tp_window_params *p);
/* The same for input 0 of any element type. */
tfpi_code tp_pool_window_geometry(tp_op_ctx *ctx, const int64_t *ksize, int ksize_count,
                                  const int64_t *strides, int strides_count, bool explicit_allowed,
                                  tp_window_params *p);

/* Output rows per thread chunk, so that a chunk holds at least min_work
 * multiply-adds (or comparisons) when each tap of each output pixel costs
 * per_tap. Only taps that can meet the input count (a ksize of 2^31 over a
 * 4x4 input is 16 taps) and the product saturates instead of wrapping. */
int64_t tp_window_rows_per_chunk(const tp_window_params *p, int64_t per_tap, int64_t min_work);

/* The taps k in [*first, *end) of a window of `size` taps spaced `dilation`
 * apart and starting at `origin` that fall inside [0, extent). */
void tp_window_taps(int64_t origin, int64_t dilation, int64_t size, int64_t extent, int64_t *first,
                    int64_t *end);

#endif
