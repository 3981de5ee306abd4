/* gemm_weights.h - weights converted for the fp16 GEMM once per graph: a
 * convolution filter or MatMul operand known while planning is converted to
 * the fp16 kernel's binary16 panels the first time a session of precision
 * fp16 plans its node, and kept with the graph (graph/derived.h) for every
 * later plan of every session. fp32 products pack B as they go (gemm.c, a
 * block of B once per task): a float copy of the panels kept beside the
 * graph's own weights added 10 MB of the 17 MB of MobileNet v1's to the
 * resident memory, to save 0.5-1% of its cycles. */
#ifndef TFPI_GEMM_WEIGHTS_H
#define TFPI_GEMM_WEIGHTS_H

#include <stdint.h>

#include "compute/gemm.h"
#include "tfpi.h"

/* B (k x n, row stride n), a known input of node `owner` (its NodeDef), in
 * the fp16 kernel's binary16 panels (gemm_fp16.h) owned by graph, for
 * sessions of precision fp16: NULL without a graph or memory for it. Call
 * it only where tp_gemm_fp16_wanted. */
const uint16_t *tp_gemm_graph_panels_fp16(const tfpi_graph *graph, const void *owner, const float *b, int64_t k,
                                          int64_t n);

#endif
