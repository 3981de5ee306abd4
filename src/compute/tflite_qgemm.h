/* tflite_qgemm.h - the fast 8-bit GEMM under TFLite's quantized CONV_2D and
 * FULLY_CONNECTED (tflite_qconv.h): C = requantize(A x B^T) where A's rows
 * are depth codes (an output pixel's taps, in place for a 1x1 convolution)
 * and B is the filter [n][depth], packed once per graph into the
 * micro-kernel's panels with its column sums. Each tile's int32 sums of raw
 * code products get the zero-point and bias terms
 *   sum (a - za)(b - zb) + bias = raw - za colsum(b) - zb rowsum(a) + depth za zb + bias
 * (all modulo 2^32, so exactly TFLite's wrapping int32 sum), then the
 * channel's fixed-point rescale, the output zero point and the activation
 * clamp while in registers (vqrdmulh and a fixed-up rounding shift on NEON,
 * the same integers as the scalar rule), and are stored as 8-bit codes.
 *
 * Variants (tp_tfl_qgemm_kernel), chosen per session from its CPU:
 *   dot    aarch64 sdot/udot by lane (Armv8.2 dot product, HWCAP asimddp:
 *          the Pi 5's A76), 8 x 8 tiles
 *   pair   int8 weights in [-127, 127]: two products summed in 16 bits
 *          (smull, smlal2) then pairwise into 32 (sadalp), 4 x 4 tiles on
 *          aarch64 (A53, A72), 2 x 4 on armv7
 *   wide   any codes: one product per 16-bit lane (umull/smull, then
 *          uadalp/sadalp): uint8 models and int8 weights holding -128
 *   avx2   x86 with AVX2 (checked at run time): codes widened to 16 bits,
 *          vpmaddwd
 *   c      plain C, 4 x 4, any machine
 * Every variant gives the bytes of tp_tflite_qconv_ref (tests/unit/
 * test_tflite_qgemm.c checks each one this machine runs). */
#ifndef TFPI_TFLITE_QGEMM_H
#define TFPI_TFLITE_QGEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cpu.h"
#include "tfpi.h"

typedef struct tp_tfl_qgemm_kernel tp_tfl_qgemm_kernel;

/* Every variant this build has; count via *count. */
const tp_tfl_qgemm_kernel *const *tp_tfl_qgemm_kernels(int *count);
const char *tp_tfl_qgemm_kernel_name(const tp_tfl_qgemm_kernel *k);
/* Whether k runs on this machine for codes of this type (int8 or uint8)
 * and weights that hold -128 (int8) or not. */
bool tp_tfl_qgemm_kernel_fits(const tp_tfl_qgemm_kernel *k, bool is_int8, bool weights_hold_min);
/* The variant for a CPU (its family and extensions) and such codes. */
const tp_tfl_qgemm_kernel *tp_tfl_qgemm_kernel_for(tp_cpu cpu, bool is_int8, bool weights_hold_min);

/* Rows of A are read TP_TFL_QGEMM_DEPTH_STEP codes at a time: a row must
 * hold tp_tfl_qgemm_row_bytes(depth) bytes (codes past depth are never
 * used but must be readable). */
enum { TP_TFL_QGEMM_DEPTH_STEP = 16 };
static inline int64_t tp_tfl_qgemm_row_bytes(int64_t depth)
{
    return (depth + TP_TFL_QGEMM_DEPTH_STEP - 1) / TP_TFL_QGEMM_DEPTH_STEP * TP_TFL_QGEMM_DEPTH_STEP;
}

/* The packed weights: bytes, and packing b into dst (64-byte aligned): the
 * panels, then the n column sums. Column j's code d is at
 * b + j * col_stride + d * depth_stride: ([n][depth] codes: depth, 1; a
 * TensorFlow filter [depth][n]: 1, n). */
int64_t tp_tfl_qgemm_packed_bytes(const tp_tfl_qgemm_kernel *k, int64_t depth, int64_t n);
void tp_tfl_qgemm_pack(const tp_tfl_qgemm_kernel *k, const void *b, int64_t depth, int64_t n, int64_t col_stride,
                       int64_t depth_stride, void *dst);
/* b packed for k once per graph (graph/derived.h; owner: the node's
 * NodeDef), shared by its sessions; without a graph (or its memory) into a
 * new buffer returned in *owned for the caller to free. NULL if out of
 * memory. */
const void *tp_tfl_qgemm_pack_for_graph(const tp_tfl_qgemm_kernel *k, const tfpi_graph *graph, const void *owner,
                                        const void *b, int64_t depth, int64_t n, int64_t col_stride,
                                        int64_t depth_stride, void **owned);
/* Column j's sum of codes (what packing stored). */
int32_t tp_tfl_qgemm_col_sum(const tp_tfl_qgemm_kernel *k, const void *packed, int64_t depth, int64_t n,
                             int64_t j);

/* What turns column j's sums into codes: acc = raw + col_term[j] -
 * row_zero * rowsum(a), then TFLite's rescale by (mantissa[j], shift[j]),
 * + out_zero, clamped to [lo, hi]. */
typedef struct tp_tfl_qgemm_out {
    const int32_t *col_term; /* bias[j] - za colsum[j] + depth za zb, wrapping */
    const int32_t *mantissa;
    const int32_t *left;  /* max(shift, 0) */
    const int32_t *right; /* -max(-shift, 0): a shift count, <= 0 */
    int32_t row_zero;     /* zb: 0 when the weights' zero point is 0 */
    int32_t out_zero, lo, hi;
    /* Store the int32 sums with their terms, not rescaled (TensorFlow's
     * QuantizedConv2D and QuantizedMatMul; the rescale fields are unused). */
    bool sums;
} tp_tfl_qgemm_out;

/* C rows [0, m), columns [col_begin, col_end) (col_begin a multiple of 16):
 * row r of A at a + r * lda, c[r][j] at c + r * ldc + j (8-bit codes, or
 * int32 sums). scratch: m int32 values. */
void tp_tfl_qgemm_run(const tp_tfl_qgemm_kernel *k, const void *packed, int64_t depth, const uint8_t *a, int64_t lda,
                      int64_t m, const tp_tfl_qgemm_out *out, void *c, int64_t ldc, int64_t col_begin,
                      int64_t col_end, int32_t *scratch);

#endif
