/* ctc_greedy_decoder.c - CTCGreedyDecoder (CTC OCR and speech models): per
 * batch entry, the arg-max class of each time step up to its sequence
 * length (first index among equal maxima), blanks (the last class, or the
 * blank_index attr) dropped and, with merge_repeated, repeats merged; a
 * blank also ends a repeat, so "A _ A" gives "A A". Outputs the sparse
 * result (int64 indices [total,2], values [total], dense shape [2]) and
 * log_probability [batch,1] = -sum of the chosen logits. The number of
 * results depends on the values: graphs using it run on the dynamic
 * executor. */
#include <stdlib.h>

#include "kernel/kernel.h"

typedef struct decoded {
    int64_t total, longest;
    int64_t *batch, *position, *value; /* one entry per decoded label */
    float *log_prob;                   /* per batch entry */
} decoded;

static void free_decoded(void *state)
{
    decoded *d = state;
    if (d) {
        free(d->batch);
        free(d->log_prob);
        free(d);
    }
}

static tfpi_code decode(tp_op_ctx *ctx, decoded *d)
{
    const tfpi_tensor *in = ctx->inputs[0], *len = ctx->inputs[1];
    const int64_t steps = in->dims[0], batch = in->dims[1], classes = in->dims[2];
    int64_t blank = tp_attr_int(ctx->def, "blank_index", -1);
    bool merge = tp_attr_bool(ctx->def, "merge_repeated", false);
    const float *logits = in->data;
    if (blank < 0)
        blank += classes;
    for (int64_t b = 0; b < batch; b++) {
        int64_t n = tp_get_int(len, b), count = 0, previous = -1;
        if (n < 0 || n > steps)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "sequence_length(%lld) = %lld is not in [0, max_time %lld]",
                           (long long)b, (long long)n, (long long)steps);
        d->log_prob[b] = 0;
        for (int64_t t = 0; t < n; t++) {
            const float *row = &logits[(t * batch + b) * classes];
            int64_t k = 0;
            for (int64_t c = 1; c < classes; c++)
                if (row[c] > row[k])
                    k = c;
            d->log_prob[b] -= row[k];
            if (k != blank && !(merge && k == previous)) {
                d->batch[d->total] = b;
                d->position[d->total] = count++;
                d->value[d->total++] = k;
            }
            previous = k;
        }
        if (count > d->longest)
            d->longest = count;
    }
    return TFPI_OK;
}

static tfpi_code ctc_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *len = ctx->inputs[1];
    if (in->dtype != TFPI_FLOAT || in->ndims != 3 || in->dims[2] < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs must be float logits [max_time,batch,num_classes]");
    if (len->ndims != 1 || len->dims[0] != in->dims[1])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "sequence_length must be a vector of batch (%lld) lengths",
                       (long long)in->dims[1]);
    int64_t classes = in->dims[2], blank = tp_attr_int(ctx->def, "blank_index", -1);
    if (blank < -classes || blank >= classes)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "blank_index expected to be between %lld and %lld, is %lld",
                       (long long)-classes, (long long)(classes - 1), (long long)blank);
    if (!in->data || !len->data)
        return tp_fail(ctx, TFPI_INTERNAL, "CTCGreedyDecoder runs only on the dynamic executor");
    size_t most = (size_t)(in->dims[0] * in->dims[1]) + 1;
    decoded *d = calloc(1, sizeof *d);
    ctx->state = d;
    if (!d || !(d->batch = malloc(3 * most * sizeof(int64_t))) ||
        !(d->log_prob = malloc(((size_t)in->dims[1] + 1) * sizeof(float))))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    d->position = d->batch + most;
    d->value = d->position + most;
    if ((code = decode(ctx, d)) != TFPI_OK)
        return code;
    const int64_t shapes[4][2] = {{d->total, 2}, {d->total, 0}, {2, 0}, {in->dims[1], 1}};
    const int ranks[4] = {2, 1, 1, 2};
    for (int o = 0; o < ctx->num_outputs && o < 4; o++)
        tp_tensor_set_shape(&ctx->outputs[o], o == 3 ? TFPI_FLOAT : TFPI_INT64, ranks[o], shapes[o]);
    return ctx->num_outputs <= 4 ? TFPI_OK : tp_fail(ctx, TFPI_INVALID_ARGUMENT, "has only 4 outputs");
}

static tfpi_code ctc_run(tp_op_ctx *ctx)
{
    const decoded *d = ctx->state;
    for (int64_t i = 0; i < d->total; i++) {
        if (ctx->num_outputs > 0) {
            ((int64_t *)ctx->outputs[0].data)[2 * i] = d->batch[i];
            ((int64_t *)ctx->outputs[0].data)[2 * i + 1] = d->position[i];
        }
        if (ctx->num_outputs > 1)
            ((int64_t *)ctx->outputs[1].data)[i] = d->value[i];
    }
    if (ctx->num_outputs > 2) {
        ((int64_t *)ctx->outputs[2].data)[0] = ctx->inputs[0]->dims[1];
        ((int64_t *)ctx->outputs[2].data)[1] = d->longest;
    }
    for (int64_t b = 0; ctx->num_outputs > 3 && b < ctx->inputs[0]->dims[1]; b++)
        ((float *)ctx->outputs[3].data)[b] = d->log_prob[b];
    return TFPI_OK;
}

const tp_kernel tp_kernels_ctc_greedy_decoder[] = {
    TP_KERNEL("CTCGreedyDecoder", ctc_prepare, ctc_run, free_decoded, TP_DYNAMIC | TP_OUTPUTS(4)),
    TP_KERNELS_END,
};
