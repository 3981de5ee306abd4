/* epilogue.c - composes absorbed scale, bias and activation steps into one
 * per-channel affine map and a clamp, and applies it to a kernel's output
 * when the kernel could not apply it while storing. */
#include "compute/epilogue.h"

#include <math.h>
#include <stdlib.h>

/* Gives e its scale (all 1) and bias (all 0) arrays if it has none. */
static tfpi_code make_affine(tp_epilogue *e, int64_t channels)
{
    if (e->scale)
        return TFPI_OK;
    e->scale = malloc(2 * sizeof(float) * (size_t)channels + 1);
    if (!e->scale)
        return TFPI_OUT_OF_MEMORY;
    e->bias = e->scale + channels;
    for (int64_t c = 0; c < channels; c++) {
        e->scale[c] = 1.0f;
        e->bias[c] = 0.0f;
    }
    return TFPI_OK;
}

tfpi_code tp_epilogue_add(tp_epilogue *e, tp_fuse_op op, const float *values, int64_t count,
                          int64_t channels)
{
    if (op == TP_FUSE_RELU || op == TP_FUSE_RELU6) {
        const float max = op == TP_FUSE_RELU6 ? 6.0f : INFINITY;
        e->min = e->clamped ? fmaxf(e->min, 0.0f) : 0.0f;
        e->max = e->clamped ? fminf(e->max, max) : max;
        e->clamped = true;
        return TFPI_OK;
    }
    if ((count != 1 && count != channels) || e->clamped)
        return TFPI_UNIMPLEMENTED;
    tfpi_code code = make_affine(e, channels);
    if (code != TFPI_OK)
        return code;
    for (int64_t c = 0; c < channels; c++) {
        const float v = values[count == 1 ? 0 : c];
        if (op == TP_FUSE_SCALE) {
            e->scale[c] *= v;
            e->bias[c] *= v;
        } else {
            e->bias[c] += v;
        }
    }
    return TFPI_OK;
}

tp_gemm_epilogue tp_epilogue_view(const tp_epilogue *e)
{
    return (tp_gemm_epilogue){e->scale, e->bias, e->clamped ? e->min : -INFINITY, e->clamped ? e->max : INFINITY};
}

typedef struct epilogue_job {
    tp_gemm_epilogue map;
    float *data;
    int64_t channels;
} epilogue_job;

static void epilogue_pixels(void *arg, int64_t begin, int64_t end)
{
    const epilogue_job *job = arg;
    const tp_gemm_epilogue *m = &job->map;
    for (int64_t pixel = begin; pixel < end; pixel++) {
        float *restrict x = job->data + pixel * job->channels;
        for (int64_t c = 0; c < job->channels; c++) {
            const float y = m->scale ? x[c] * m->scale[c] + m->bias[c] : x[c];
            x[c] = fminf(fmaxf(y, m->min), m->max);
        }
    }
}

void tp_epilogue_run(const tp_epilogue *e, float *data, int64_t pixels, int64_t channels,
                     tp_threadpool *pool)
{
    if (!e->scale && !e->clamped)
        return;
    epilogue_job job = {tp_epilogue_view(e), data, channels};
    tp_parallel_for(pool, pixels, 1 + 4096 / (channels + 1), epilogue_pixels, &job);
}

void tp_epilogue_free(tp_epilogue *e)
{
    free(e->scale);
    e->scale = e->bias = NULL;
}
