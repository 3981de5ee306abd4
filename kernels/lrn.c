/* lrn.c - LRN, local response normalisation across channels of a float
 * NHWC tensor, as TensorFlow computes it in float:
 *   sqr_sum[c] = sum of x[k]^2 for k in [c - depth_radius, c + depth_radius]
 *                (clipped to the channels that exist)
 *   y[c] = x[c] * (bias + alpha * sqr_sum[c]) ^ -beta
 * with TF's shortcuts for beta 1 (a reciprocal) and 0.5 (a reciprocal
 * square root); other betas use exp(-beta * log(.)). Pixels are split over
 * the thread pool. */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel.h"

typedef struct lrn_params {
    int64_t pixels, channels, radius;
    float bias, alpha, beta;
} lrn_params;

static tfpi_code lrn_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_FLOAT);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    char shape[96];
    if (in->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must be 4-D NHWC, got shape %s",
                       tp_shape_string(in, shape, sizeof shape));
    lrn_params *p = malloc(sizeof *p);
    if (!p)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = p;
    *p = (lrn_params){
        .channels = in->dims[3],
        .pixels = in->dims[3] ? tp_num_elements(in) / in->dims[3] : 0,
        .radius = tp_attr_int(ctx->def, "depth_radius", 5),
        .bias = tp_attr_float(ctx->def, "bias", 1.0f),
        .alpha = tp_attr_float(ctx->def, "alpha", 1.0f),
        .beta = tp_attr_float(ctx->def, "beta", 0.5f),
    };
    if (p->radius < 0 || p->radius > INT32_MAX)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "depth_radius must be in 0..%d, got %lld", INT32_MAX,
                       (long long)p->radius);
    if (p->radius > p->channels)
        p->radius = p->channels; /* a wider window sees no more channels */
    return tp_set_output(ctx, 0, TFPI_FLOAT, 4, in->dims);
}

typedef struct lrn_job {
    const lrn_params *p;
    const float *x;
    float *y;
} lrn_job;

static void lrn_pixels(void *arg, int64_t begin, int64_t end)
{
    const lrn_job *job = arg;
    const lrn_params *p = job->p;
    for (int64_t pixel = begin; pixel < end; pixel++) {
        const float *x = job->x + pixel * p->channels;
        float *y = job->y + pixel * p->channels;
        for (int64_t c = 0; c < p->channels; c++) {
            const int64_t first = c > p->radius ? c - p->radius : 0;
            const int64_t last = c + p->radius < p->channels ? c + p->radius : p->channels - 1;
            float sqr_sum = 0.0f;
            for (int64_t k = first; k <= last; k++)
                sqr_sum += x[k] * x[k];
            const float base = p->bias + p->alpha * sqr_sum;
            float multiplier;
            if (p->beta == 1.0f)
                multiplier = 1.0f / base;
            else if (p->beta == 0.5f)
                multiplier = 1.0f / sqrtf(base);
            else
                multiplier = expf(-p->beta * logf(base));
            y[c] = x[c] * multiplier;
        }
    }
}

static tfpi_code lrn_run(tp_op_ctx *ctx)
{
    const lrn_params *p = ctx->state;
    lrn_job job = {p, ctx->inputs[0]->data, ctx->outputs[0].data};
    tp_parallel_for(ctx->pool, p->pixels, 4096 / (p->channels * (2 * p->radius + 1) + 1) + 1, lrn_pixels,
                    &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_lrn[] = {
    TP_KERNEL("LRN", lrn_prepare, lrn_run, free, 0),
    TP_KERNELS_END,
};
