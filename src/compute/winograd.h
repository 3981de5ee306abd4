/* winograd.h - 3x3 stride-1 convolutions by Winograd's minimal filtering
 * F(4x4, 3x3): each 4x4 block of outputs comes from a 6x6 block of input
 * through 36 products per channel pair instead of 144, so the multiplies
 * fall 4x; the price is a transform of every input and output block and of
 * the filter.
 *
 *   V = B^T d B   (each 6x6 input block d, per input channel)
 *   U = G g G^T   (each 3x3 filter g, per channel pair)
 *   M[pos] = V[pos] x U[pos]   (36 GEMMs over blocks of tiles x channels)
 *   Y = A^T M A   (the 4x4 outputs, then the fused epilogue)
 *
 * The filter is transformed as it is used, a block of output channels at a
 * time, not once at plan time: the transformed filter is 4x the size of the
 * original, which stays in the graph, and keeping both would raise a
 * model's resident memory by up to 4x its 3x3 weights (Inception v3: +60
 * MB). Per block it costs a few percent of the block's GEMMs.
 *
 * The rule for when it pays (tp_winograd_applies) is written down in
 * winograd.c; the tests check the result against the plain C convolution on
 * both sides of it. */
#ifndef TFPI_WINOGRAD_H
#define TFPI_WINOGRAD_H

#include <stdbool.h>

#include "compute/gemm.h"
#include "compute/window_geometry.h"

/* Whether a convolution with this geometry runs faster this way. */
bool tp_winograd_applies(const tp_window_params *p);

/* output (NHWC, p's geometry) = conv(input, HWIO filter [3][3][in_c][out_c])
 * then the epilogue; false if out of memory (output is then incomplete). */
bool tp_winograd_conv(const tp_window_params *p, const float *input, const float *filter, float *output,
                      const tp_gemm_epilogue *epilogue, tp_threadpool *pool);

#endif
