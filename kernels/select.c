/* select.c - Select and SelectV2: out = condition ? then : else, per
 * element, for any element type.
 *   SelectV2 broadcasts the three operands together (numpy rules).
 *   Select (v1) needs then and else of one shape; the condition has that
 *   shape, is a scalar, or is a vector that picks whole rows along dim 0. */
#include <stdlib.h>
#include <string.h>

#include "compute/broadcast.h"
#include "kernel/kernel.h"

typedef struct select_state {
    tp_broadcast bc;
} select_state;

/* Select's row-vector condition as a [n, 1, ..., 1] view of the then rank. */
static tfpi_tensor row_condition_view(const tfpi_tensor *cond, const tfpi_tensor *then)
{
    tfpi_tensor view = *cond;
    view.ndims = then->ndims;
    view.dims[0] = cond->dims[0];
    for (int d = 1; d < then->ndims; d++)
        view.dims[d] = 1;
    return view;
}

static tfpi_code select_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 0, TFPI_BOOL);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *cond = ctx->inputs[0], *then = ctx->inputs[1], *other = ctx->inputs[2];
    char sc[128], st[128], se[128];
    tp_shape_string(cond, sc, sizeof sc);
    tp_shape_string(then, st, sizeof st);
    tp_shape_string(other, se, sizeof se);
    if (then->dtype != other->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "then and else have different types: %s and %s",
                       tfpi_dtype_name(then->dtype), tfpi_dtype_name(other->dtype));
    if (then->dtype == TFPI_STRING || tfpi_dtype_size(then->dtype) == 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "no kernel for %s operands", tfpi_dtype_name(then->dtype));
    tfpi_tensor row_view;
    tfpi_tensor *operands[3] = {ctx->inputs[0], ctx->inputs[1], ctx->inputs[2]};
    if (strcmp(ctx->def->op, "Select") == 0) {
        bool rows = cond->ndims == 1 && then->ndims > 1 && cond->dims[0] == then->dims[0];
        if (!tp_same_shape(then, other) || !(tp_same_shape(cond, then) || cond->ndims == 0 || rows))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "condition %s, then %s and else %s: then and else must have one shape, and the "
                           "condition that shape, a scalar, or a vector of its first dim",
                           sc, st, se);
        if (rows) {
            row_view = row_condition_view(cond, then);
            operands[0] = &row_view;
        }
    }
    select_state *state = calloc(1, sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = state;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    if (!tp_broadcast_init(&state->bc, 3, operands, &ndims, dims))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "incompatible shapes for broadcasting: %s, %s and %s", sc,
                       st, se);
    return tp_set_output(ctx, 0, then->dtype, ndims, dims);
}

typedef struct select_job {
    const tp_broadcast *bc;
    const uint8_t *cond;
    const void *then, *other;
    void *out;
    size_t size;                       /* element bytes */
    int64_t cond_step, then_step, other_step; /* along a run: 0 or 1 */
} select_job;

#define SELECT_LOOP(T)                                                                  \
    do {                                                                                \
        const T *t = (const T *)job->then + in_offsets[1];                              \
        const T *e = (const T *)job->other + in_offsets[2];                             \
        T *o = (T *)job->out + out_offset;                                              \
        for (int64_t i = 0; i < length; i++)                                            \
            o[i] = c[i * job->cond_step] ? t[i * job->then_step] : e[i * job->other_step]; \
    } while (0)

static void select_segment(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    const select_job *job = arg;
    const uint8_t *c = job->cond + in_offsets[0];
    switch (job->size) {
    case 1: SELECT_LOOP(uint8_t); break;
    case 2: SELECT_LOOP(uint16_t); break;
    case 4: SELECT_LOOP(uint32_t); break;
    default: SELECT_LOOP(uint64_t); break; /* 8: the largest tfpi element */
    }
}

static void select_range(void *arg, int64_t begin, int64_t end)
{
    const select_job *job = arg;
    tp_broadcast_walk(job->bc, begin, end, select_segment, arg);
}

static tfpi_code select_run(tp_op_ctx *ctx)
{
    const select_state *state = ctx->state;
    const int last = state->bc.ndims - 1;
    select_job job = {
        .bc = &state->bc,
        .cond = ctx->inputs[0]->data,
        .then = ctx->inputs[1]->data,
        .other = ctx->inputs[2]->data,
        .out = ctx->outputs[0].data,
        .size = tfpi_dtype_size(ctx->outputs[0].dtype),
        .cond_step = state->bc.strides[0][last],
        .then_step = state->bc.strides[1][last],
        .other_step = state->bc.strides[2][last],
    };
    tp_parallel_for(ctx->pool, state->bc.num_elements, 16384, select_range, &job);
    return TFPI_OK;
}

static void select_release(void *state) { free(state); }

const tp_kernel tp_kernels_select[] = {
    TP_KERNEL("Select", select_prepare, select_run, select_release, 0),
    TP_KERNEL("SelectV2", select_prepare, select_run, select_release, 0),
    TP_KERNELS_END,
};
