/* epilogue.h - the elementwise steps a convolution or matmul kernel absorbs
 * from the nodes after it (src/plan/fuse.c): scales and biases by one value or
 * one per output channel, then Relu or Relu6. They compose, as they are
 * absorbed, into one map per output channel c,
 *   y = clamp(x * scale[c] + bias[c], min, max),
 * which the fast kernels apply as they store each output (tp_epilogue_view)
 * and the others in a pass over their output (tp_epilogue_run). A
 * zero-initialised tp_epilogue is the identity. */
#ifndef TFPI_EPILOGUE_H
#define TFPI_EPILOGUE_H

#include "compute/gemm.h"
#include "kernel/kernel.h"

typedef struct tp_epilogue {
    float *scale, *bias; /* [channels] each, one allocation; NULL until a scale or bias */
    bool clamped;        /* an activation was absorbed: clamp to [min, max] */
    float min, max;
} tp_epilogue;

/* A tp_fuse_fn's work for a node with `channels` output channels. Anything
 * but TFPI_OK leaves e unchanged: a count other than 1 or channels, a scale
 * or bias after an activation, or no memory. Once e holds a scale or bias,
 * absorbing another one cannot fail. */
tfpi_code tp_epilogue_add(tp_epilogue *e, tp_fuse_op op, const float *values, int64_t count,
                          int64_t channels);

/* The map as the GEMM and the SIMD window kernels take it (pointers into e). */
tp_gemm_epilogue tp_epilogue_view(const tp_epilogue *e);

/* Applies the map to data[pixels][channels], split over pool. */
void tp_epilogue_run(const tp_epilogue *e, float *data, int64_t pixels, int64_t channels,
                     tp_threadpool *pool);

void tp_epilogue_free(tp_epilogue *e);

#endif
