/* conv2d.c - the Conv2D kernel: float NHWC input, HWIO filter, strides,
 * dilations, SAME/VALID/EXPLICIT padding. prepare resolves the geometry
 * (src/compute/window_geometry.c) and, for a constant filter that runs by
 * Winograd, gets it transformed once for every session of the graph
 * (src/graph/derived.h). run is Winograd F(4x4, 3x3)
 * (src/compute/winograd.c) where its rule says that pays, else one GEMM
 * over the input in place (src/compute/conv_gemm.c), whose filter, for a
 * session of precision fp16 and when known while planning, is converted to
 * binary16 panels once per graph (src/compute/gemm_weights.c,
 * src/compute/gemm_fp16.h); both apply any scale,
 * bias and activation fused into the node as they store the outputs. The plain C reference, which the tests
 * compare it with, is tp_conv2d_ref in src/compute/window_ref.c. */
#include "kernel/kernel.h"

#include <stdlib.h>

#include "compute/conv_gemm.h"
#include "compute/gemm_fp16.h"
#include "compute/gemm_weights.h"
#include "compute/window_kernel.h"
#include "compute/winograd.h"
#include "graph/derived.h"

typedef struct filter_transform {
    const tp_window_params *p;
    const float *filter;
} filter_transform;

static bool transform_filter(void *arg, void *buffer)
{
    const filter_transform *t = arg;
    tp_winograd_transform_filter(t->p, t->filter, buffer);
    return true;
}

/* The constant filter transformed for Winograd, once for every session of
 * the graph (the node and its channel counts find it); NULL if it does not
 * fit the memory budget or memory, and run transforms it as it goes. */
static const float *winograd_filter(tp_op_ctx *ctx, const tp_window_params *p)
{
    const size_t bytes = tp_winograd_filter_floats(p) * sizeof(float);
    if (!ctx->graph || (ctx->max_bytes && bytes > ctx->max_bytes))
        return NULL;
    filter_transform t = {p, ctx->inputs[1]->data};
    return tp_graph_derived(ctx->graph, ctx->def, "winograd", p->in_c << 32 | p->out_c, bytes, transform_filter, &t);
}

static tfpi_code conv2d_prepare(tp_op_ctx *ctx)
{
    tp_window_params p;
    tfpi_code code = tp_conv_window_params(ctx, false, &p);
    if (code == TFPI_OK)
        code = tp_window_prepare_output(ctx, &p);
    if (code != TFPI_OK)
        return code;
    tp_window_state *state = ctx->state;
    state->zeros = calloc((size_t)p.in_c + 1, sizeof *state->zeros);
    if (!state->zeros)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    const float *filter = ctx->inputs[1]->data;
    if (filter && tp_winograd_applies(&p))
        state->winograd_filter = winograd_filter(ctx, &p);
    else if (filter && tp_conv2d_gemm_wants_panels(&p) && tp_gemm_fp16_wanted(ctx->pool))
        state->filter_fp16 =
            tp_gemm_graph_panels_fp16(ctx->graph, ctx->def, filter, p.window_h * p.window_w * p.in_c, p.out_c);
    return TFPI_OK;
}

static tfpi_code conv2d_run(tp_op_ctx *ctx)
{
    const tp_window_state *state = ctx->state;
    const tp_gemm_epilogue epilogue = tp_epilogue_view(&state->epilogue);
    const float *input = ctx->inputs[0]->data, *filter = ctx->inputs[1]->data;
    float *output = ctx->outputs[0].data;
    const bool done = tp_winograd_applies(&state->params)
                          ? tp_winograd_conv(&state->params, input, filter, state->winograd_filter, output, &epilogue,
                                             ctx->pool)
                          : tp_conv2d_gemm(&state->params, input, filter, state->filter_fp16, state->zeros, output,
                                           &epilogue, ctx->pool);
    return done ? TFPI_OK : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
}

const tp_kernel tp_kernels_conv2d[] = {
    TP_KERNEL_FUSING("Conv2D", conv2d_prepare, conv2d_run, tp_window_release, 0, tp_window_fuse),
    TP_KERNELS_END
};
