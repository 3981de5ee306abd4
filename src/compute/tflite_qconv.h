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

#include "core/threadpool.h"
#include "compute/tflite_fixed_point.h"
#include "compute/tflite_qgemm.h"
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
    const tp_tfl_multiplier *rescale; /* out_c multipliers (unused with sums) */
    /* The GEMM path stores each output's int32 sum (zero-point and bias
     * terms in) instead of its code: TRANSPOSE_CONV's columns. */
    bool sums;
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

/* A convolution (not depthwise) or FULLY_CONNECTED made ready for the fast
 * GEMM while planning: the variant for the session's CPU, the weights
 * packed (kept by the graph and shared by its sessions when it has one and
 * they are known), the per-channel rescale as the epilogue reads it, and
 * the column terms when the bias is known too. */
typedef struct tp_tflite_qconv_gemm {
    const tp_tfl_qgemm_kernel *kernel;
    const void *packed; /* NULL: the weights are packed at each run */
    void *owned;        /* packed here when no graph keeps them */
    int64_t depth;      /* window_h x window_w x in_c */
    int32_t *mantissa, *left, *right; /* out_c rounded up to 16 */
    int32_t *col_term;  /* NULL: made at each run */
} tp_tflite_qconv_gemm;

/* Fills g for q (not depthwise; q->bias as known while planning, or NULL
 * with bias_known false); filter may be NULL (unknown). graph and owner
 * (the node) keep the packed weights; graph may be NULL. false if out of
 * memory. */
bool tp_tflite_qconv_gemm_plan(tp_tflite_qconv_gemm *g, const tp_tflite_qconv *q, const void *filter,
                               bool bias_known, tp_cpu cpu, const tfpi_graph *graph, const void *owner);
void tp_tflite_qconv_gemm_free(tp_tflite_qconv_gemm *g);

/* Runs q by the GEMM over the pool; false if out of memory. */
bool tp_tflite_qconv_gemm_run(const tp_tflite_qconv *q, const tp_tflite_qconv_gemm *g, const void *input,
                              const void *filter, void *output, tp_threadpool *pool);

/* A DEPTHWISE_CONV_2D made ready for its NEON path while planning
 * (tflite_qdepthwise.c): that path runs depth multiplier 1 with known
 * weights and at least 16 channels on NEON builds; fast is false
 * otherwise, and the reference runs. */
typedef struct tp_tflite_qdepthwise {
    bool fast;
    bool pairs;        /* int8 weights in [-127, 127]: two products per 16-bit lane */
    bool bias_known;   /* col_term made while planning */
    bool shift_left;   /* some channel's rescale shifts left */
    void *weights;     /* [taps][channels]: int8 codes, or uint8's w - zf as int16 */
    int32_t *col_term; /* int8: bias - zi sum(w); uint8: bias (channels rounded up to 16) */
    int32_t *mantissa, *left, *right;
    uint8_t *pad_row;  /* the input zero point, for taps outside the image */
    uint8_t *blocks;   /* the NEON 3 x 3 int8 path: weights and epilogue per 16 channels, or NULL */
    bool dot;          /* blocks are the dot product path's (aarch64 with sdot, a named core family) */
} tp_tflite_qdepthwise;

/* Fills d for q (q->bias as known while planning; filter may be NULL) and
 * the kernels' CPU; false if out of memory. */
bool tp_tflite_qdepthwise_plan(tp_tflite_qdepthwise *d, const tp_tflite_qconv *q, const void *filter, bool bias_known,
                               tp_cpu cpu);
/* The column terms of q's bias and filter into col_term (channels rounded up to 16). */
void tp_tflite_qdepthwise_col_terms(const tp_tflite_qdepthwise *d, const tp_tflite_qconv *q, const void *filter,
                                    int32_t *col_term);
void tp_tflite_qdepthwise_free(tp_tflite_qdepthwise *d);
/* Runs q by the NEON path (d->fast) over the pool; false if out of memory. */
bool tp_tflite_qdepthwise_run(const tp_tflite_qconv *q, const tp_tflite_qdepthwise *d, const void *input,
                              const void *filter, void *output, tp_threadpool *pool);

#endif
