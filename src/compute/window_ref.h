/* window_ref.h - the plain C reference computations of the NHWC window ops
 * (float): Conv2D, DepthwiseConv2dNative, MaxPool and AvgPool. They are what
 * the kernels run on every target, and the baseline that any optimised path
 * is tested against. Each splits the output rows over `pool` (NULL: run on
 * the caller). Geometry comes from window_geometry.h. */
#ifndef TFPI_WINDOW_REF_H
#define TFPI_WINDOW_REF_H

#include "core/threadpool.h"
#include "compute/window_geometry.h"

/* filter [window_h][window_w][in_c][out_c] (HWIO). */
void tp_conv2d_ref(const tp_window_params *p, const float *input, const float *filter, float *output,
                   tp_threadpool *pool);

/* filter [window_h][window_w][in_c][multiplier], multiplier = out_c / in_c;
 * output channel c * multiplier + m reads input channel c. */
void tp_depthwise_conv2d_ref(const tp_window_params *p, const float *input, const float *filter,
                             float *output, tp_threadpool *pool);

/* Padding taps are ignored: a max over only padding is -FLT_MAX. */
void tp_max_pool_ref(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool);

/* Averages over the taps inside the input only (padding is not counted). */
void tp_avg_pool_ref(const tp_window_params *p, const float *input, float *output, tp_threadpool *pool);

#endif
