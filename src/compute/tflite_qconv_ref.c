/* tflite_qconv_ref.c - the plain C computation of TFLite's quantized
 * convolutions (tflite_qconv.h): one output value at a time, its taps in
 * (ky, kx, channel) order, the sum wrapping in 32 bits. Slow and simple on
 * purpose: it is what the fast paths are compared with. */
#include "compute/tflite_qconv.h"

/* Code i of an 8-bit tensor of q's type. */
static inline int32_t code_at(const tp_tflite_qconv *q, const void *data, int64_t i)
{
    return q->is_int8 ? ((const int8_t *)data)[i] : ((const uint8_t *)data)[i];
}

/* The int32 sum of output channel oc of output pixel (b, oy, ox), bias included. */
static int32_t pixel_sum(const tp_tflite_qconv *q, const void *input, const void *filter, int64_t b, int64_t oy,
                         int64_t ox, int64_t oc)
{
    const tp_window_params *p = &q->geo;
    const int64_t multiplier = q->depthwise ? p->out_c / p->in_c : 1;
    uint32_t acc = q->bias ? (uint32_t)q->bias[oc] : 0u;
    for (int64_t ky = 0; ky < p->window_h; ky++) {
        const int64_t y = oy * p->stride_h - p->pad_top + ky * p->dilation_h;
        for (int64_t kx = 0; y >= 0 && y < p->in_h && kx < p->window_w; kx++) {
            const int64_t x = ox * p->stride_w - p->pad_left + kx * p->dilation_w;
            if (x < 0 || x >= p->in_w)
                continue;
            const int64_t pixel = ((b * p->in_h + y) * p->in_w + x) * p->in_c;
            if (q->depthwise) {
                const int32_t v = code_at(q, input, pixel + oc / multiplier) - q->input_zero;
                const int32_t w = code_at(q, filter, (ky * p->window_w + kx) * p->out_c + oc) - q->filter_zero;
                acc += (uint32_t)(v * w);
                continue;
            }
            const int64_t tap = ((oc * p->window_h + ky) * p->window_w + kx) * p->in_c;
            for (int64_t c = 0; c < p->in_c; c++) {
                const int32_t v = code_at(q, input, pixel + c) - q->input_zero;
                const int32_t w = code_at(q, filter, tap + c) - q->filter_zero;
                acc += (uint32_t)(v * w);
            }
        }
    }
    return (int32_t)acc;
}

void tp_tflite_qconv_ref(const tp_tflite_qconv *q, const void *input, const void *filter, void *output,
                         int64_t row_begin, int64_t row_end)
{
    const tp_window_params *p = &q->geo;
    for (int64_t row = row_begin; row < row_end; row++) {
        const int64_t b = row / p->out_h, oy = row % p->out_h;
        for (int64_t ox = 0; ox < p->out_w; ox++)
            for (int64_t oc = 0; oc < p->out_c; oc++) {
                const int32_t v = tp_tflite_requantize(pixel_sum(q, input, filter, b, oy, ox, oc), q->rescale[oc],
                                                       q->output_zero, q->act_min, q->act_max);
                const int64_t at = (row * p->out_w + ox) * p->out_c + oc;
                if (q->is_int8)
                    ((int8_t *)output)[at] = (int8_t)v;
                else
                    ((uint8_t *)output)[at] = (uint8_t)v;
            }
    }
}
