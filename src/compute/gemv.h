/* gemv.h - the one-row case of the GEMM (gemm.h), which tp_gemm_run hands
 * to it: B streamed once in place instead of packed, columns split over the
 * pool. */
#ifndef TFPI_GEMV_H
#define TFPI_GEMV_H

#include <stdbool.h>

#include "compute/gemm.h"

/* g->m must be 1. false if out of memory (more than 64 taps). */
bool tp_gemv_run(const tp_gemm *g, tp_threadpool *pool);

#endif
