/* bias_add.c - BiasAdd and BiasAddV1: adds a bias vector along the channel
 * dimension of a float tensor of rank >= 2. The channels are the last
 * dimension (data_format NHWC, the default, and always for BiasAddV1) or
 * dimension 1 (NCHW). */
#include <string.h>

#include "kernel/kernel.h"

/* The channel dimension of input 0, or -1 for an unknown data_format. */
static int channel_dim(const tp_op_ctx *ctx)
{
    char buf[16];
    const char *format = tp_attr_string(ctx->def, "data_format", buf, sizeof buf, "NHWC");
    if (strcmp(format, "NHWC") == 0 || strcmp(ctx->def->op, "BiasAddV1") == 0)
        return ctx->inputs[0]->ndims - 1;
    return strcmp(format, "NCHW") == 0 ? 1 : -1;
}

static tfpi_code bias_add_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 0, TFPI_FLOAT);
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 1, TFPI_FLOAT);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *value = ctx->inputs[0], *bias = ctx->inputs[1];
    char vs[128], bs[128];
    if (value->ndims < 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must be at least 2-D, got %s",
                       tp_shape_string(value, vs, sizeof vs));
    int channels = channel_dim(ctx);
    if (channels < 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "data_format must be NHWC or NCHW");
    if (bias->ndims != 1 || bias->dims[0] != value->dims[channels])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "bias %s must be a vector of the %lld channels (dim %d) of input %s",
                       tp_shape_string(bias, bs, sizeof bs), (long long)value->dims[channels], channels,
                       tp_shape_string(value, vs, sizeof vs));
    return tp_set_output(ctx, 0, TFPI_FLOAT, value->ndims, value->dims);
}

/* The input as [outer][channels][inner]; work items are rows of `inner`
 * elements that share one bias value, or, when inner is 1, rows of
 * `channels` elements that take the whole bias vector. */
typedef struct bias_job {
    const float *in, *bias;
    float *out;
    int64_t channels, inner;
} bias_job;

static void add_bias_rows(void *arg, int64_t begin, int64_t end)
{
    const bias_job *job = arg;
    if (job->inner == 1) {
        for (int64_t row = begin; row < end; row++) {
            const float *in = job->in + row * job->channels;
            float *out = job->out + row * job->channels;
            for (int64_t c = 0; c < job->channels; c++)
                out[c] = in[c] + job->bias[c];
        }
        return;
    }
    for (int64_t row = begin; row < end; row++) {
        const float *in = job->in + row * job->inner;
        float *out = job->out + row * job->inner;
        const float b = job->bias[row % job->channels];
        for (int64_t i = 0; i < job->inner; i++)
            out[i] = in[i] + b;
    }
}

static tfpi_code bias_add_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *value = ctx->inputs[0];
    int channels = channel_dim(ctx);
    bias_job job = {
        .in = value->data,
        .bias = ctx->inputs[1]->data,
        .out = ctx->outputs[0].data,
        .channels = value->dims[channels],
        .inner = 1,
    };
    for (int d = channels + 1; d < value->ndims; d++)
        job.inner *= value->dims[d];
    int64_t row_length = job.inner == 1 ? job.channels : job.inner;
    if (row_length == 0)
        return TFPI_OK;
    int64_t rows = tp_num_elements(value) / row_length;
    int64_t grain = 16384 / row_length + 1;
    tp_parallel_for(ctx->pool, rows, grain, add_bias_rows, &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_bias_add[] = {
    TP_KERNEL("BiasAdd", bias_add_prepare, bias_add_run, NULL, 0),
    TP_KERNEL("BiasAddV1", bias_add_prepare, bias_add_run, NULL, 0),
    TP_KERNELS_END,
};
