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
 * A constant filter is transformed once per graph (tp_winograd_transform_filter,
 * which kernels/conv2d.c keeps in the graph's cache of derived values for all
 * of its sessions): that saves its transform at every run (4.7% of ResNet-50)
 * for memory of 4x its 3x3 weights, as the original stays in the graph
 * (ResNet-50: +68 MB). A filter known only at run time is transformed as it
 * is used, a block of output channels at a time.
 *
 * The rule for when it pays (tp_winograd_applies) is written down in
 * winograd.c; the tests check the result against the plain C convolution on
 * both sides of it. */
#ifndef TFPI_WINOGRAD_H
#define TFPI_WINOGRAD_H

#include <stdbool.h>
#include <stddef.h>

#include "compute/gemm.h"
#include "compute/window_geometry.h"

/* Whether a convolution with this geometry runs faster this way. */
bool tp_winograd_applies(const tp_window_params *p);

/* The size in floats of a filter transformed for p, and the transform of
 * an HWIO filter [3][3][in_c][out_c] into that many floats. */
size_t tp_winograd_filter_floats(const tp_window_params *p);
void tp_winograd_transform_filter(const tp_window_params *p, const float *filter, float *transformed);

/* output (NHWC, p's geometry) = conv(input, filter) then the epilogue;
 * transformed is the filter through tp_winograd_transform_filter, or NULL
 * to transform it here. false if out of memory (output is then incomplete). */
bool tp_winograd_conv(const tp_window_params *p, const float *input, const float *filter, const float *transformed,
                      float *output, const tp_gemm_epilogue *epilogue, tp_threadpool *pool);

#endif
