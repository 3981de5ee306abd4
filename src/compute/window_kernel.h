/* window_kernel.h - the per-node state of the window kernels (conv2d.c,
 * depthwise_conv2d.c, pooling.c): the geometry resolved while planning and,
 * for the convolutions, the scale, bias and activation steps fused into
 * them (src/plan/fuse.c) and the zeros that padding taps read. */
#ifndef TFPI_WINDOW_KERNEL_H
#define TFPI_WINDOW_KERNEL_H

#include "compute/epilogue.h"
#include "compute/window_geometry.h"

typedef struct tp_window_state {
    tp_window_params params;
    tp_epilogue epilogue;
    float *zeros; /* Conv2D: in_c zeros (tp_conv2d_gemm), else NULL */
    const float *winograd_filter; /* Conv2D by Winograd: its filter transformed, kept by the graph */
    const uint16_t *filter_fp16; /* the same in binary16 for a session of precision fp16, or NULL */
} tp_window_state;

/* Sets output 0 to float [batch, out_h, out_w, out_c] and keeps p in a new
 * tp_window_state in ctx->state, freed by tp_window_release. */
tfpi_code tp_window_prepare_output(tp_op_ctx *ctx, const tp_window_params *p);

/* The tp_fuse_fn of the convolutions: appends a step to the epilogue. */
tfpi_code tp_window_fuse(tp_op_ctx *ctx, tp_fuse_op op, const float *values, int64_t count);

/* Applies the fused steps to output 0, for a computation that did not
 * apply them as it stored its outputs. */
void tp_window_run_epilogue(tp_op_ctx *ctx);

void tp_window_release(void *state);

#endif
