/* depthwise_conv2d.c - the DepthwiseConv2dNative kernel: float NHWC input,
 * filter [h, w, in_channels, multiplier], output channel c * multiplier + m;
 * strides, dilations, SAME/VALID/EXPLICIT padding. prepare resolves the
 * geometry (src/compute/window_geometry.c). With multiplier 1 run is the SIMD path
 * (src/compute/window_fast.c), which applies any scale, bias and activation fused
 * into the node as it stores; other multipliers run the plain C reference
 * (src/compute/window_ref.c) and then the fused steps. */
#include "kernel/kernel.h"

#include "compute/window_fast.h"
#include "compute/window_kernel.h"
#include "compute/window_ref.h"

static tfpi_code depthwise_conv2d_prepare(tp_op_ctx *ctx)
{
    tp_window_params p;
    tfpi_code code = tp_conv_window_params(ctx, true, &p);
    return code != TFPI_OK ? code : tp_window_prepare_output(ctx, &p);
}

static tfpi_code depthwise_conv2d_run(tp_op_ctx *ctx)
{
    const tp_window_state *state = ctx->state;
    const tp_window_params *p = &state->params;
    if (p->out_c == p->in_c) {
        const tp_gemm_epilogue epilogue = tp_epilogue_view(&state->epilogue);
        tp_depthwise_conv2d_fast(p, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data,
                                 &epilogue, ctx->pool);
    } else {
        tp_depthwise_conv2d_ref(p, ctx->inputs[0]->data, ctx->inputs[1]->data, ctx->outputs[0].data,
                                ctx->pool);
        tp_window_run_epilogue(ctx);
    }
    return TFPI_OK;
}

const tp_kernel tp_kernels_depthwise_conv2d[] = {
    TP_KERNEL_FUSING("DepthwiseConv2dNative", depthwise_conv2d_prepare, depthwise_conv2d_run,
                     tp_window_release, 0, tp_window_fuse),
    TP_KERNELS_END
};
