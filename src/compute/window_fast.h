/* window_fast.h - the SIMD paths of the NHWC window ops that are not a
 * GEMM: DepthwiseConv2dNative with channel multiplier 1 (the common case),
 * MaxPool and AvgPool. Channels are the vector lanes. They give the results
 * of window_ref.h up to float rounding (AvgPool multiplies by 1 / taps), and
 * split output rows over `pool` the same way. */
#ifndef TFPI_WINDOW_FAST_H
#define TFPI_WINDOW_FAST_H

#include "compute/gemm.h"
#include "compute/window_geometry.h"

/* p->out_c must equal p->in_c; the epilogue is applied per channel. */
void tp_depthwise_conv2d_fast(const tp_window_params *p, const float *input, const float *filter,
                              float *output, const tp_gemm_epilogue *epilogue, tp_threadpool *pool);

void tp_max_pool_fast(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool);

void tp_avg_pool_fast(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool);

#endif
