/* softmax.c - Softmax and LogSoftmax over the last dimension of a float
 * tensor, numerically stable: each row is shifted by its maximum first.
 *   Softmax:    exp(x - max) / sum(exp(x - max))
 *   LogSoftmax: (x - max) - log(sum(exp(x - max))) */
#include <math.h>
#include <string.h>

#include "kernel/kernel.h"

static tfpi_code softmax_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_FLOAT);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->ndims < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must have rank >= 1, got a scalar");
    return tp_set_output(ctx, 0, TFPI_FLOAT, in->ndims, in->dims);
}

typedef struct softmax_job {
    const float *in;
    float *out;
    int64_t row_length;
    bool log;
} softmax_job;

static void softmax_rows(void *arg, int64_t begin, int64_t end)
{
    const softmax_job *job = arg;
    const int64_t n = job->row_length;
    for (int64_t row = begin; row < end; row++) {
        const float *x = job->in + row * n;
        float *y = job->out + row * n;
        float max = x[0];
        for (int64_t i = 1; i < n; i++)
            if (x[i] > max)
                max = x[i];
        float sum = 0;
        for (int64_t i = 0; i < n; i++) {
            y[i] = expf(x[i] - max);
            sum += y[i];
        }
        if (job->log) {
            const float log_sum = logf(sum);
            for (int64_t i = 0; i < n; i++)
                y[i] = (x[i] - max) - log_sum;
        } else {
            for (int64_t i = 0; i < n; i++)
                y[i] /= sum;
        }
    }
}

static tfpi_code softmax_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    softmax_job job = {
        .in = in->data,
        .out = ctx->outputs[0].data,
        .row_length = in->dims[in->ndims - 1],
        .log = strcmp(ctx->def->op, "LogSoftmax") == 0,
    };
    if (job.row_length == 0)
        return TFPI_OK;
    int64_t rows = tp_num_elements(in) / job.row_length;
    tp_parallel_for(ctx->pool, rows, 4096 / job.row_length + 1, softmax_rows, &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_softmax[] = {
    TP_KERNEL("Softmax", softmax_prepare, softmax_run, NULL, 0),
    TP_KERNEL("LogSoftmax", softmax_prepare, softmax_run, NULL, 0),
    TP_KERNELS_END,
};
