/* window_kernel.c - creates, extends and frees the state the window
 * kernels keep per node (see window_kernel.h). */
#include "compute/window_kernel.h"

#include <stdlib.h>

tfpi_code tp_window_prepare_output(tp_op_ctx *ctx, const tp_window_params *p)
{
    tp_window_state *state = calloc(1, sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    state->params = *p;
    ctx->state = state;
    const int64_t dims[4] = {p->batch, p->out_h, p->out_w, p->out_c};
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_FLOAT, 4, dims);
    return TFPI_OK;
}

tfpi_code tp_window_fuse(tp_op_ctx *ctx, tp_fuse_op op, const float *values, int64_t count)
{
    tp_window_state *state = ctx->state;
    return tp_epilogue_add(&state->epilogue, op, values, count, state->params.out_c);
}

void tp_window_run_epilogue(tp_op_ctx *ctx)
{
    const tp_window_state *state = ctx->state;
    const tp_window_params *p = &state->params;
    tp_epilogue_run(&state->epilogue, ctx->outputs[0].data, p->batch * p->out_h * p->out_w, p->out_c,
                    ctx->pool);
}

void tp_window_release(void *state)
{
    tp_window_state *s = state;
    if (s) {
        tp_epilogue_free(&s->epilogue);
        free(s->zeros);
    }
    free(s);
}
