/* batch_norm.c - FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and
 * BatchNormWithGlobalNormalization on float tensors:
 *   y = (x - mean[c]) * factor[c] + offset[c],
 *   factor[c] = scale[c] / sqrt(variance[c] + epsilon)   (in float, as TF)
 * over the channel dimension c: the last one for NHWC / NDHWC, dimension 1
 * for NCHW / NCDHW (FusedBatchNorm* only; BatchNormWithGlobalNormalization
 * is NHWC, with scale = gamma only if scale_after_normalization).
 *
 * Inference (is_training false): mean and variance are inputs; when they,
 * scale and offset are constants, prepare computes the factors once.
 * Outputs 1..4 (batch_mean, batch_variance, reserve_space_1/2) repeat the
 * mean and variance inputs; V3's reserve_space_3 is empty.
 * Training (is_training true, TF's default): mean and biased variance come
 * from x per channel and normalise it; batch_variance is the unbiased
 * variance (n / (n - 1)); with exponential_avg_factor f != 1 outputs 1 and 2
 * are (1 - f) * input + f * batch value, as TF's running averages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

/* Where the per-channel operands are among the node's inputs (-1: none). */
typedef struct operand_inputs {
    int mean, variance, scale, offset;
} operand_inputs;

static const operand_inputs fused_inputs = {.mean = 3, .variance = 4, .scale = 1, .offset = 2};

typedef struct batch_norm_state {
    operand_inputs in;
    int64_t outer, channels, inner; /* x viewed as [outer, channels, inner] */
    float epsilon, average_factor;
    bool training;
    bool constant_factors;                    /* mean, factor and offset were set by prepare */
    float *mean, *variance, *factor, *offset; /* [channels] each */
} batch_norm_state;

static void batch_norm_release(void *state)
{
    batch_norm_state *s = state;
    if (s) {
        free(s->mean);
        free(s);
    }
}

/* The channel dimension for data_format, or -1 if unsupported for rank. */
static int channel_dim(const char *format, int rank)
{
    if ((strcmp(format, "NHWC") == 0 && rank == 4) || (strcmp(format, "NDHWC") == 0 && rank == 5))
        return rank - 1;
    if ((strcmp(format, "NCHW") == 0 && rank == 4) || (strcmp(format, "NCDHW") == 0 && rank == 5))
        return 1;
    return -1;
}

/* Checks input `index` is float [channels], or [0] when `may_be_empty`. */
static tfpi_code expect_channel_vector(tp_op_ctx *ctx, int index, int64_t channels, bool may_be_empty)
{
    const tfpi_tensor *t = ctx->inputs[index];
    char shape[96];
    if (t->ndims != 1 || (t->dims[0] != channels && !(may_be_empty && t->dims[0] == 0)))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d must be a vector of %lld channel values, got %s",
                       index, (long long)channels, tp_shape_string(t, shape, sizeof shape));
    return TFPI_OK;
}

/* factor = scale / sqrt(variance + epsilon) from the given per-channel values. */
static void compute_factors(batch_norm_state *s, const float *variance, const float *scale)
{
    for (int64_t c = 0; c < s->channels; c++)
        s->factor[c] = (scale ? scale[c] : 1.0f) / sqrtf(variance[c] + s->epsilon);
}

/* Copies the inference operands out of the inputs and computes the factors. */
static void load_operands(batch_norm_state *s, tfpi_tensor *const *inputs)
{
    const size_t bytes = (size_t)s->channels * sizeof(float);
    memcpy(s->mean, inputs[s->in.mean]->data, bytes);
    memcpy(s->variance, inputs[s->in.variance]->data, bytes);
    memcpy(s->offset, inputs[s->in.offset]->data, bytes);
    compute_factors(s, s->variance, s->in.scale >= 0 ? inputs[s->in.scale]->data : NULL);
}

static tfpi_code prepare_common(tp_op_ctx *ctx, const operand_inputs *in, int channel_axis, bool training)
{
    const tfpi_tensor *x = ctx->inputs[0];
    const int64_t channels = x->dims[channel_axis];
    tfpi_code code = TFPI_OK;
    for (int i = 1; i < 5 && code == TFPI_OK; i++)
        code = expect_channel_vector(ctx, i, channels, training && (i == in->mean || i == in->variance));
    if (code != TFPI_OK)
        return code;
    batch_norm_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->in = *in;
    s->channels = channels;
    s->outer = s->inner = 1;
    for (int d = 0; d < x->ndims; d++)
        if (d != channel_axis)
            *(d < channel_axis ? &s->outer : &s->inner) *= x->dims[d];
    s->training = training;
    s->mean = malloc(4 * ((size_t)channels + 1) * sizeof(float));
    if (!s->mean)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    s->variance = s->mean + channels + 1;
    s->factor = s->variance + channels + 1;
    s->offset = s->factor + channels + 1;
    return tp_set_output(ctx, 0, TFPI_FLOAT, x->ndims, x->dims);
}

/* In inference, computes the factors now if the operands are constants. */
static void fold_known_operands(tp_op_ctx *ctx)
{
    batch_norm_state *s = ctx->state;
    const operand_inputs *in = &s->in;
    if (!s->training && ctx->inputs[in->mean]->data && ctx->inputs[in->variance]->data &&
        ctx->inputs[in->offset]->data && (in->scale < 0 || ctx->inputs[in->scale]->data)) {
        load_operands(s, ctx->inputs);
        s->constant_factors = true;
    }
}

static tfpi_code fused_batch_norm_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 5, 5);
    for (int i = 0; i < 5 && code == TFPI_OK; i++)
        code = tp_expect_dtype(ctx, i, TFPI_FLOAT);
    if (code != TFPI_OK)
        return code;
    char buf[16], shape[96];
    const int rank = ctx->inputs[0]->ndims;
    const char *format = tp_attr_string(ctx->def, "data_format", buf, sizeof buf, "NHWC");
    const int axis = channel_dim(format, rank);
    if (axis < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "x of shape %s does not fit data_format '%s' (expected NHWC or NCHW for 4-D, NDHWC or "
                       "NCDHW for 5-D)",
                       tp_shape_string(ctx->inputs[0], shape, sizeof shape), format);
    const bool training = tp_attr_bool(ctx->def, "is_training", true);
    if ((code = prepare_common(ctx, &fused_inputs, axis, training)) != TFPI_OK)
        return code;
    batch_norm_state *s = ctx->state;
    s->epsilon = tp_attr_float(ctx->def, "epsilon", 1e-4f);
    s->average_factor = tp_attr_float(ctx->def, "exponential_avg_factor", 1.0f);
    if (training && s->average_factor != 1.0f && ctx->inputs[s->in.mean]->dims[0] != s->channels)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "exponential_avg_factor %g needs the running mean and variance as inputs 3 and 4",
                       s->average_factor);
    for (int o = 1; o < ctx->num_outputs; o++) {
        const int64_t length = o == 5 ? 0 : s->channels; /* reserve_space_3 is empty */
        tp_tensor_set_shape(&ctx->outputs[o], TFPI_FLOAT, 1, &length);
    }
    fold_known_operands(ctx);
    return TFPI_OK;
}

static tfpi_code global_norm_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 5, 5);
    for (int i = 0; i < 5 && code == TFPI_OK; i++)
        code = tp_expect_dtype(ctx, i, TFPI_FLOAT);
    if (code != TFPI_OK)
        return code;
    char shape[96];
    if (ctx->inputs[0]->ndims != 4)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input t must be 4-D NHWC, got shape %s",
                       tp_shape_string(ctx->inputs[0], shape, sizeof shape));
    const operand_inputs in = {.mean = 1,
                               .variance = 2,
                               .offset = 3,
                               .scale = tp_attr_bool(ctx->def, "scale_after_normalization", false) ? 4 : -1};
    if ((code = prepare_common(ctx, &in, 3, false)) != TFPI_OK)
        return code;
    ((batch_norm_state *)ctx->state)->epsilon = tp_attr_float(ctx->def, "variance_epsilon", 0.0f);
    fold_known_operands(ctx);
    return TFPI_OK;
}

/* Per-channel mean and biased variance of x (two passes, in double). */
static void batch_statistics(batch_norm_state *s, const float *x)
{
    const int64_t count = s->outer * s->inner;
    for (int64_t c = 0; c < s->channels; c++) {
        double sum = 0, squares = 0;
        for (int64_t o = 0; o < s->outer; o++)
            for (int64_t i = 0; i < s->inner; i++)
                sum += x[(o * s->channels + c) * s->inner + i];
        const double mean = count ? sum / (double)count : 0.0;
        for (int64_t o = 0; o < s->outer; o++)
            for (int64_t i = 0; i < s->inner; i++) {
                const double d = x[(o * s->channels + c) * s->inner + i] - mean;
                squares += d * d;
            }
        s->mean[c] = (float)mean;
        s->variance[c] = count ? (float)(squares / (double)count) : 0.0f;
    }
}

typedef struct normalize_job {
    const batch_norm_state *s;
    const float *x;
    float *y;
} normalize_job;

/* Rows of the [outer, channels, inner] view: channels-last rows hold one
 * value per channel; otherwise each row is one channel's inner values. */
static void normalize_rows(void *arg, int64_t begin, int64_t end)
{
    const normalize_job *job = arg;
    const batch_norm_state *s = job->s;
    if (s->inner == 1) {
        for (int64_t r = begin; r < end; r++) {
            const float *x = job->x + r * s->channels;
            float *y = job->y + r * s->channels;
            for (int64_t c = 0; c < s->channels; c++)
                y[c] = (x[c] - s->mean[c]) * s->factor[c] + s->offset[c];
        }
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        const int64_t c = r % s->channels;
        const float *x = job->x + r * s->inner;
        float *y = job->y + r * s->inner;
        for (int64_t i = 0; i < s->inner; i++)
            y[i] = (x[i] - s->mean[c]) * s->factor[c] + s->offset[c];
    }
}

/* Outputs 1..4 of FusedBatchNorm* (BatchNormWithGlobalNormalization has none). */
static void write_statistics(tp_op_ctx *ctx, const batch_norm_state *s)
{
    const int64_t n = s->outer * s->inner;
    const float bessel = n > 1 ? (float)n / (float)(n - 1) : 1.0f;
    const float f = s->average_factor;
    for (int o = 1; o < ctx->num_outputs && o < 5; o++) {
        float *out = ctx->outputs[o].data;
        const bool is_mean = o % 2 == 1;
        const float *batch = is_mean ? s->mean : s->variance;
        const float *running = ctx->inputs[is_mean ? s->in.mean : s->in.variance]->data;
        for (int64_t c = 0; c < s->channels; c++) {
            float value = batch[c];
            if (s->training && o == 2)
                value *= bessel;
            if (s->training && o <= 2 && f != 1.0f)
                value = (1.0f - f) * running[c] + f * value;
            out[c] = value;
        }
    }
}

static tfpi_code batch_norm_run(tp_op_ctx *ctx)
{
    batch_norm_state *s = ctx->state;
    const float *x = ctx->inputs[0]->data;
    if (s->training) {
        batch_statistics(s, x);
        memcpy(s->offset, ctx->inputs[s->in.offset]->data, (size_t)s->channels * sizeof(float));
        compute_factors(s, s->variance, ctx->inputs[s->in.scale]->data);
    } else if (!s->constant_factors) {
        load_operands(s, ctx->inputs);
    }
    normalize_job job = {s, x, ctx->outputs[0].data};
    const int64_t rows = s->inner == 1 ? s->outer : s->outer * s->channels;
    const int64_t row_length = s->inner == 1 ? s->channels : s->inner;
    tp_parallel_for(ctx->pool, rows, 16384 / (row_length + 1) + 1, normalize_rows, &job);
    write_statistics(ctx, s);
    return TFPI_OK;
}

const tp_kernel tp_kernels_batch_norm[] = {
    TP_KERNEL("FusedBatchNorm", fused_batch_norm_prepare, batch_norm_run, batch_norm_release, TP_OUTPUTS(5)),
    TP_KERNEL("FusedBatchNormV2", fused_batch_norm_prepare, batch_norm_run, batch_norm_release, TP_OUTPUTS(5)),
    TP_KERNEL("FusedBatchNormV3", fused_batch_norm_prepare, batch_norm_run, batch_norm_release, TP_OUTPUTS(6)),
    TP_KERNEL("BatchNormWithGlobalNormalization", global_norm_prepare, batch_norm_run, batch_norm_release, 0),
    TP_KERNELS_END,
};
