/* fuse.c - folds the cheap elementwise steps that follow a convolution or
 * matmul into it: a per-channel Mul (scale), Add/BiasAdd/Sub of a
 * per-channel constant (bias), an inference batch norm whose statistics are
 * constants (FusedBatchNorm*, BatchNormWithGlobalNormalization: a scale and
 * a bias), then Relu or Relu6. The producer's kernel absorbs each step
 * through its fuse hook; the absorbed node is no longer run and its output
 * shares the producer's buffer. Producers with an absorb hook (the 8-bit
 * products) are offered the chain of single readers after them node by
 * node instead, whatever the nodes' outputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

/* What one consumer amounts to: one or two steps (a batch norm is a scale
 * then a bias), each with `count` values. */
typedef struct fusion {
    int num_steps;
    tp_fuse_op op[2];
    const float *values[2];
    int64_t count;
    float *owned; /* values computed here (negated Sub operand, batch-norm factors) */
    int input;    /* which input of the consumer is the producer's output */
} fusion;

static void set_step(fusion *f, tp_fuse_op op, const float *values)
{
    f->op[f->num_steps] = op;
    f->values[f->num_steps++] = values;
}

/* The constant operand of a binary consumer, if it is a usable
 * per-channel vector or scalar for a producer with `channels` channels. */
static const tfpi_tensor *channel_constant(const tp_op_ctx *c, int other, int64_t channels)
{
    const tfpi_tensor *k = c->inputs[other];
    if (!k->data || k->dtype != TFPI_FLOAT)
        return NULL;
    int64_t n = tp_num_elements(k);
    if (n == 1 || (n == channels && k->ndims >= 1 && k->dims[k->ndims - 1] == channels))
        return k;
    return NULL;
}

/* Input i of c as a known float vector of `channels` values, or NULL. */
static const float *channel_vector(const tp_op_ctx *c, int i, int64_t channels)
{
    const tfpi_tensor *t = c->inputs[i];
    return t->data && t->dtype == TFPI_FLOAT && t->ndims == 1 && t->dims[0] == channels ? t->data : NULL;
}

/* An inference batch norm y = (x - mean) * factor + offset with known
 * operands, factor = scale / sqrt(variance + epsilon) as TensorFlow computes
 * it, becomes the steps x * factor and + (offset - mean * factor). */
static bool classify_batch_norm(const tp_op_ctx *c, int64_t channels, fusion *f)
{
    const char *op = c->def->op;
    int scale_input;
    float epsilon;
    char format[16];
    if (!strcmp(op, "FusedBatchNorm") || !strcmp(op, "FusedBatchNormV2") || !strcmp(op, "FusedBatchNormV3")) {
        if (tp_attr_bool(c->def, "is_training", true) ||
            strcmp(tp_attr_string(c->def, "data_format", format, sizeof format, "NHWC"), "NHWC") != 0)
            return false;
        scale_input = 1;
        epsilon = tp_attr_float(c->def, "epsilon", 1e-4f);
    } else if (!strcmp(op, "BatchNormWithGlobalNormalization")) {
        scale_input = tp_attr_bool(c->def, "scale_after_normalization", false) ? 4 : -1;
        epsilon = tp_attr_float(c->def, "variance_epsilon", 0.0f);
    } else {
        return false;
    }
    const bool fused = scale_input == 1;
    const float *mean = channel_vector(c, fused ? 3 : 1, channels);
    const float *variance = channel_vector(c, fused ? 4 : 2, channels);
    const float *offset = channel_vector(c, fused ? 2 : 3, channels);
    const float *scale = scale_input > 0 ? channel_vector(c, scale_input, channels) : NULL;
    if (c->num_inputs != 5 || !mean || !variance || !offset || (scale_input > 0 && !scale) ||
        !(f->owned = malloc(2 * sizeof(float) * (size_t)channels + 1)))
        return false;
    float *factor = f->owned, *shift = f->owned + channels;
    for (int64_t ch = 0; ch < channels; ch++) {
        factor[ch] = (scale ? scale[ch] : 1.0f) / sqrtf(variance[ch] + epsilon);
        shift[ch] = offset[ch] - mean[ch] * factor[ch];
    }
    f->count = channels;
    set_step(f, TP_FUSE_SCALE, factor);
    set_step(f, TP_FUSE_BIAS, shift);
    return true;
}

/* What consumer c would fold into a producer whose output it reads as
 * input `from`; false if nothing. f->owned is the caller's to free. */
static bool classify(const tp_op_ctx *c, int from, int64_t channels, fusion *f)
{
    const char *op = c->def->op;
    *f = (fusion){.input = from};
    if (!strcmp(op, "Relu") || !strcmp(op, "Relu6")) {
        set_step(f, op[4] ? TP_FUSE_RELU6 : TP_FUSE_RELU, NULL);
        return c->num_inputs == 1;
    }
    if (from == 0 && classify_batch_norm(c, channels, f))
        return true;
    if (c->num_inputs != 2)
        return false;
    const tfpi_tensor *k = channel_constant(c, 1 - from, channels);
    if (!k)
        return false;
    f->count = tp_num_elements(k);
    if (!strcmp(op, "Mul")) {
        set_step(f, TP_FUSE_SCALE, k->data);
        return true;
    }
    if (!strcmp(op, "Add") || !strcmp(op, "AddV2") || (!strcmp(op, "BiasAdd") && from == 0)) {
        set_step(f, TP_FUSE_BIAS, k->data);
        return true;
    }
    if (strcmp(op, "Sub") != 0 || from != 0 || !(f->owned = malloc(sizeof(float) * (size_t)f->count)))
        return false;
    for (int64_t i = 0; i < f->count; i++)
        f->owned[i] = -((const float *)k->data)[i];
    set_step(f, TP_FUSE_BIAS, f->owned);
    return true;
}

/* Hands the steps to the producer's kernel. A kernel that absorbed a scale
 * must absorb the bias after it (tp_epilogue cannot refuse it), so a batch
 * norm is absorbed whole or not at all. */
static tfpi_code absorb(tp_plan_node *producer, const fusion *f)
{
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < f->num_steps && code == TFPI_OK; i++)
        code = producer->kernel->fuse(&producer->ctx, f->op[i], f->values[i], f->count);
    return code;
}

/* Counts the readers of each node's output 0 (fetches count too) and
 * remembers the last one. */
static void count_readers(const tp_plan *plan, int *readers, int *reader)
{
    const tfpi_graph *g = plan->graph;
    for (int s = 0; s < plan->num_steps; s++) {
        const tp_node *gn = &g->nodes[plan->steps[s]];
        for (int i = 0; i < gn->num_inputs; i++) {
            if (gn->inputs[i].index == 0) {
                readers[gn->inputs[i].node]++;
                reader[gn->inputs[i].node] = plan->steps[s];
            }
        }
    }
    for (int f = 0; f < plan->num_fetches; f++)
        readers[plan->fetches[f].node] += 2;
}

static int input_index_of(const tp_node *consumer, int producer)
{
    for (int i = 0; i < consumer->num_inputs; i++)
        if (consumer->inputs[i].node == producer && consumer->inputs[i].index == 0)
            return i;
    return -1;
}

/* Offers the chain of single readers of output 0 after `producer` to its
 * absorb hook until it declines one. */
static void absorb_chain(tp_plan *plan, int producer, const int *readers, const int *reader)
{
    const tfpi_graph *g = plan->graph;
    tp_plan_node *p = &plan->nodes[producer];
    for (int cur = producer; readers[cur] == 1;) {
        int next = reader[cur];
        tp_plan_node *consumer = &plan->nodes[next];
        if (input_index_of(&g->nodes[next], cur) != 0 || p->kernel->absorb(&p->ctx, &consumer->ctx) != TFPI_OK)
            return;
        consumer->fused = true;
        consumer->runner = producer;
        consumer->alias_input = 0;
        cur = next;
    }
}

void tp_plan_fuse(tp_plan *plan)
{
    const tfpi_graph *g = plan->graph;
    int *readers = calloc((size_t)g->num_nodes + 1, sizeof *readers);
    int *reader = calloc((size_t)g->num_nodes + 1, sizeof *reader);
    for (int s = 0; readers && reader && s < plan->num_steps; s++) {
        if (s == 0)
            count_readers(plan, readers, reader);
        tp_plan_node *producer = &plan->nodes[plan->steps[s]];
        if (producer->kernel->absorb && !producer->fused)
            absorb_chain(plan, plan->steps[s], readers, reader);
        if (!producer->kernel->fuse || producer->fused || producer->ctx.num_outputs != 1)
            continue;
        const tfpi_tensor *out = &producer->ctx.outputs[0];
        int64_t channels = out->ndims ? out->dims[out->ndims - 1] : 1;
        bool activated = false;
        for (int cur = plan->steps[s]; !activated && readers[cur] == 1;) {
            int next = reader[cur];
            tp_plan_node *consumer = &plan->nodes[next];
            fusion f = {0};
            int from = input_index_of(&g->nodes[next], cur);
            bool fused = from >= 0 && consumer->ctx.num_outputs == 1 &&
                         tp_same_shape(&consumer->ctx.outputs[0], out) &&
                         classify(&consumer->ctx, from, channels, &f) && absorb(producer, &f) == TFPI_OK;
            free(f.owned);
            if (!fused)
                break;
            consumer->fused = true;
            consumer->runner = plan->steps[s];
            consumer->alias_input = from;
            activated = f.op[0] == TP_FUSE_RELU || f.op[0] == TP_FUSE_RELU6;
            cur = next;
        }
    }
    free(readers);
    free(reader);
}
