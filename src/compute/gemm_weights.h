/* gemm_weights.h - weights packed for the GEMM once per graph: a convolution
 * filter or MatMul operand known while planning is packed into the GEMM's
 * panels (tp_gemm_pack_panels) the first time any session of the graph plans
 * its node, and kept with the graph (graph/derived.h) for every later plan
 * of every session. ARM builds only: there packing B per task took up to 7%
 * of a model's cycles (B is packed again for every task's rows), while on
 * x86 it is a small share and the panels would add the weights' size to the
 * resident memory (the raw copy stays in the graph). */
#ifndef TFPI_GEMM_WEIGHTS_H
#define TFPI_GEMM_WEIGHTS_H

#include <stdint.h>

#include "compute/gemm.h"
#include "tfpi.h"

/* B (k x n, row stride n), a known input of node `owner` (its NodeDef), in
 * panels owned by graph; NULL without a graph, memory for it, or on other
 * builds than ARM (the GEMM then packs B as it goes). */
const float *tp_gemm_graph_panels(const tfpi_graph *graph, const void *owner, const float *b, int64_t k,
                                  int64_t n);

/* The same in the fp16 kernel's binary16 panels (gemm_fp16.h), for
 * sessions of precision fp16: NULL on builds without the fp16 kernels.
 * Call it only where tp_gemm_fp16_wanted. */
const uint16_t *tp_gemm_graph_panels_fp16(const tfpi_graph *graph, const void *owner, const float *b, int64_t k,
                                          int64_t n);

#endif
