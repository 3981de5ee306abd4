/* strided_copy.c - dense copies of strided views (see strided_copy.h). The
 * view is simplified first: dimensions of count 1 are dropped and
 * neighbours that walk the source contiguously are merged, so a slice of
 * whole rows becomes one memcpy per run and NHWC->NCHW becomes a 3-D walk. */
#include "compute/strided_copy.h"

#include <stdlib.h>
#include <string.h>

void tp_byte_strides(const tfpi_tensor *t, int64_t *strides)
{
    int64_t stride = (int64_t)tfpi_dtype_size(t->dtype);
    for (int d = t->ndims - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= t->dims[d];
    }
}

/* The same view with unit dimensions dropped and mergeable neighbours
 * merged; always at least one dimension. */
static tp_strided_view simplify(const tp_strided_view *view, size_t elem_size)
{
    tp_strided_view s = {.offset = view->offset, .rank = 0};
    for (int d = 0; d < view->rank; d++) {
        if (view->count[d] == 1)
            continue;
        if (s.rank > 0 && s.step[s.rank - 1] == view->count[d] * view->step[d]) {
            s.count[s.rank - 1] *= view->count[d];
            s.step[s.rank - 1] = view->step[d];
            continue;
        }
        s.count[s.rank] = view->count[d];
        s.step[s.rank] = view->step[d];
        s.rank++;
    }
    if (s.rank == 0) {
        s.rank = 1;
        s.count[0] = 1;
        s.step[0] = (int64_t)elem_size;
    }
    return s;
}

/* Inlined with a constant size, the memcpy becomes one load and store. */
static inline __attribute__((always_inline)) void copy_each(char *dst, const char *src, int64_t n,
                                                             int64_t step, size_t size)
{
    for (int64_t i = 0; i < n; i++)
        memcpy(dst + i * (int64_t)size, src + i * step, size);
}

/* One innermost run of n elements. */
static void copy_run(char *dst, const char *src, int64_t n, int64_t step, size_t size)
{
    if (step == (int64_t)size) {
        memcpy(dst, src, (size_t)n * size);
        return;
    }
    switch (size) {
    case 1: copy_each(dst, src, n, step, 1); break;
    case 2: copy_each(dst, src, n, step, 2); break;
    case 4: copy_each(dst, src, n, step, 4); break;
    case 8: copy_each(dst, src, n, step, 8); break;
    default: copy_each(dst, src, n, step, size); break;
    }
}

typedef struct copy_job {
    char *dst;
    const char *src;
    tp_strided_view view; /* simplified */
    size_t elem_size;
} copy_job;

/* Copies rows [begin, end): a row is one run along the innermost dim. */
static void copy_rows(void *arg, int64_t begin, int64_t end)
{
    const copy_job *job = arg;
    const tp_strided_view *v = &job->view;
    int inner = v->rank - 1;
    int64_t run = v->count[inner], index[TP_VIEW_MAX_DIMS];
    int64_t src = v->offset;
    int64_t remaining = begin;
    for (int d = inner - 1; d >= 0; d--) {
        index[d] = remaining % v->count[d];
        remaining /= v->count[d];
        src += index[d] * v->step[d];
    }
    char *dst = job->dst + begin * run * (int64_t)job->elem_size;
    for (int64_t row = begin; row < end; row++) {
        copy_run(dst, job->src + src, run, v->step[inner], job->elem_size);
        dst += run * (int64_t)job->elem_size;
        for (int d = inner - 1; d >= 0; d--) {
            src += v->step[d];
            if (++index[d] < v->count[d])
                break;
            src -= index[d] * v->step[d];
            index[d] = 0;
        }
    }
}

void tp_strided_copy(void *dst, const void *src, const tp_strided_view *view, size_t elem_size,
                     tp_threadpool *pool)
{
    copy_job job = {dst, src, simplify(view, elem_size), elem_size};
    int64_t rows = 1;
    for (int d = 0; d < job.view.rank; d++)
        rows *= job.view.count[d];
    int64_t run = job.view.count[job.view.rank - 1];
    if (rows == 0)
        return;
    rows /= run;
    int64_t row_bytes = run * (int64_t)elem_size;
    int64_t grain = row_bytes >= 16384 ? 1 : 16384 / row_bytes;
    tp_parallel_for(pool, rows, grain, copy_rows, &job);
}

tfpi_code tp_run_strided_view(tp_op_ctx *ctx)
{
    tp_strided_copy(ctx->outputs[0].data, ctx->inputs[0]->data, ctx->state,
                    tfpi_dtype_size(ctx->inputs[0]->dtype), ctx->pool);
    return TFPI_OK;
}

tp_strided_view *tp_new_strided_view(tp_op_ctx *ctx)
{
    tp_strided_view *view = calloc(1, sizeof *view);
    ctx->state = view;
    if (!view)
        tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    return view;
}
