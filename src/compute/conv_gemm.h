/* conv_gemm.h - Conv2D (float NHWC, HWIO filter) as one GEMM: output pixels
 * are the rows, output channels the columns, and k runs over the filter taps
 * times the input channels. A 1x1 convolution with stride 1 reads its input
 * as a plain matrix; any other reads each (pixel, tap) in place in the
 * input, with padding taps reading zeros, so nothing is copied (no im2col).
 * The filter is B as stored, or, for a session of precision fp16, in the
 * fp16 kernel's binary16 panels (filter_fp16, gemm_fp16.h; filter is
 * then unused). The epilogue applies folded batch-norm scale,
 * bias and activation as each output is stored. */
#ifndef TFPI_CONV_GEMM_H
#define TFPI_CONV_GEMM_H

#include "compute/gemm.h"
#include "compute/window_geometry.h"

/* zeros: at least p->in_c zero floats (read where the window leaves the
 * input). false: out of memory (tp_gemm_run). */
bool tp_conv2d_gemm(const tp_window_params *p, const float *input, const float *filter, const uint16_t *filter_fp16, const float *zeros, float *output,
                    const tp_gemm_epilogue *epilogue, tp_threadpool *pool);

/* Whether a convolution of this geometry is worth its filter in fp16 panels:
 * false where the GEMM reads B in place (a one-row product, tp_gemv_run). */
bool tp_conv2d_gemm_wants_panels(const tp_window_params *p);

#endif
