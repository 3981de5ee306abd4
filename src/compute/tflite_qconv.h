/* tflite_qconv.h - TensorFlow Lite's quantized convolutions, resolved once
 * while planning into what every kernel path computes from: CONV_2D,
 * DEPTHWISE_CONV_2D and FULLY_CONNECTED (a 1x1 convolution over rows) on
 * int8 or uint8 tensors. Each output is
 *   clamp(output_zero + rescale_c(bias[c] + sum over in-image taps of
 *         (x - input_zero) * (w - filter_zero)), act_min, act_max)
 * with the sum in int32 (wrapping), rescale_c the channel's fixed-point
 * multiplier (tflite_fixed_point.h: doubling high multiply, rounding
 * shift), as TFLite's reference kernels do (reference_ops::Conv and
 * DepthwiseConv for uint8, reference_integer_ops::ConvPerChannel and
 * DepthwiseConvPerChannel for int8, FullyConnected). Taps outside the
 * image contribute nothing. This file also has the plain C reference
 * computation that the fast paths (tflite_qgemm.h, tflite_qdepthwise.h)
 * are tested against. */
#ifndef TFPI_TFLITE_QCONV_H
#define TFPI_TFLITE_QCONV_H

#include <stdbool.h>
#include <stdint.h>

#include "compute/tflite_fixed_point.h"
#include "compute/window_geometry.h"

typedef struct tp_tflite_qconv {
    /* NHWC geometry. A convolution's filter is [out_c][window_h][window_w]
     * [in_c] (TFLite's OHWI); a depthwise one's [1][window_h][window_w]
     * [out_c], output channel c * m + j reading input channel c (m =
     * out_c / in_c). FULLY_CONNECTED: batch rows of a 1x1 image, filter
     * [out_c][in_c]. */
    tp_window_params geo;
    bool depthwise;
    bool is_int8; /* int8 tensors, else uint8 */
    int32_t input_zero, filter_zero, output_zero;
    int32_t act_min, act_max;         /* within the output type's codes */
    const int32_t *bias;              /* out_c values, or NULL */
    const tp_tfl_multiplier *rescale; /* out_c multipliers */
} tp_tflite_qconv;

/* TFLite's rescale of one int32 sum into an output code. */
static inline int32_t tp_tflite_requantize(int32_t acc, tp_tfl_multiplier m, int32_t zero, int32_t lo, int32_t hi)
{
    const int32_t v = (int32_t)((uint32_t)tp_tfl_multiply(acc, m) + (uint32_t)zero);
    return v < lo ? lo : v > hi ? hi : v;
}

/* Output rows [row_begin, row_end) (row = batch * out_h + y) of q, plain C:
 * input, filter and output in q's 8-bit type. */
void tp_tflite_qconv_ref(const tp_tflite_qconv *q, const void *input, const void *filter, void *output,
                         int64_t row_begin, int64_t row_end);

#endif
