/* qepilogue.c - the chain of nodes an 8-bit product takes over (see
 * qepilogue.h). */
#include "compute/qepilogue.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK_ELEMENTS = 2048 }; /* rows go through the steps in blocks of about this many values */

/* The dtype of the chain's current tensor: the last node's output 0. */
static tfpi_dtype current_type(const tp_qepilogue *e) { return e->last->outputs[0].dtype; }

/* next reads the last node's range (outputs 1, 2) as its inputs r, r + 1. */
static bool reads_last_range(const tp_qepilogue *e, const tp_op_ctx *next, int r)
{
    return e->last->num_outputs >= 3 && next->num_inputs > r + 1 && next->inputs[r] == &e->last->outputs[1] &&
           next->inputs[r + 1] == &e->last->outputs[2];
}

/* next's inputs [first, first + count) were known while planning (Consts):
 * the producer reads them when it runs, which may be before the steps
 * that would compute them. */
static bool known(const tp_op_ctx *next, int first, int count)
{
    for (int i = first; i < first + count; i++)
        if (i >= next->num_inputs || !next->inputs[i]->data)
            return false;
    return true;
}

/* Which step next would be, or false. */
static bool classify(const tp_qepilogue *e, const tp_op_ctx *next, tp_qstep *step)
{
    const char *op = next->def->op;
    const tfpi_dtype in = current_type(e), out = next->outputs[0].dtype;
    *step = (tp_qstep){.node = (tp_op_ctx *)next, .top = NAN};
    if (!strcmp(op, "Requantize")) {
        step->kind = TP_QSTEP_REQUANTIZE;
        return in == TFPI_QINT32 && out == TFPI_QUINT8 && next->num_inputs == 5 && reads_last_range(e, next, 1) &&
               known(next, 3, 2);
    }
    if (!strcmp(op, "QuantizedBiasAdd")) {
        const tfpi_tensor *bias = next->inputs[1];
        const tp_qtype *t_bias = tp_qtype_of(bias->dtype);
        step->kind = TP_QSTEP_BIAS_ADD;
        return in == TFPI_QUINT8 && out == TFPI_QINT32 && t_bias && t_bias->bits == 8 && bias->ndims == 1 &&
               bias->dims[0] == e->channels && next->num_inputs == 6 && reads_last_range(e, next, 2) &&
               known(next, 1, 1) && known(next, 4, 2);
    }
    if (!strcmp(op, "QuantizedRelu") || !strcmp(op, "QuantizedRelu6")) {
        step->kind = TP_QSTEP_RELU;
        step->top = op[13] == '6' ? 6.0f : NAN;
        return in == TFPI_QUINT8 && out == TFPI_QUINT8 && next->num_inputs == 3 && reads_last_range(e, next, 1);
    }
    if (!strcmp(op, "Dequantize")) {
        char mode[16];
        step->kind = TP_QSTEP_DEQUANTIZE;
        return in == TFPI_QUINT8 && out == TFPI_FLOAT && next->num_inputs == 3 &&
               !strcmp(tp_attr_string(next->def, "mode", mode, sizeof mode, "MIN_COMBINED"), "MIN_FIRST") &&
               reads_last_range(e, next, 1);
    }
    return false;
}

tfpi_code tp_qepilogue_absorb(tp_qepilogue *e, tp_op_ctx *ctx, tp_op_ctx *next)
{
    const tfpi_tensor *product = &ctx->outputs[0];
    if (!e->last) {
        e->last = ctx;
        e->channels = product->ndims ? product->dims[product->ndims - 1] : 1;
        e->in_size = tfpi_dtype_size(product->dtype);
    }
    tp_qstep step;
    if (e->num_steps == TP_QEPILOGUE_MAX_STEPS || e->channels < 1 || !tp_same_shape(&next->outputs[0], product) ||
        !classify(e, next, &step))
        return TFPI_UNIMPLEMENTED;
    if (step.kind == TP_QSTEP_BIAS_ADD) {
        step.bias.channels = e->channels;
        if (!(step.bias.biases = malloc(sizeof *step.bias.biases * (size_t)e->channels)))
            return TFPI_OUT_OF_MEMORY;
    }
    e->steps[e->num_steps++] = step;
    e->last = next;
    return TFPI_OK;
}

/* Where a BiasAdd of quint8 codes, a Requantize and maybe a Relu follow
 * one another: their first step, and how many (0: nowhere). */
static int table_steps(const tp_qepilogue *e, int *first)
{
    for (int i = 0; i + 1 < e->num_steps; i++)
        if (e->steps[i].kind == TP_QSTEP_BIAS_ADD && e->steps[i + 1].kind == TP_QSTEP_REQUANTIZE) {
            *first = i;
            return i + 2 < e->num_steps && e->steps[i + 2].kind == TP_QSTEP_RELU ? 3 : 2;
        }
    return 0;
}

/* The table of steps [first, first + count) for this run's parameters,
 * made again only when they changed. false if out of memory. */
static bool make_table(tp_qepilogue *e, int first, int count)
{
    const tp_qstep *bias = &e->steps[first], *requant = &e->steps[first + 1];
    const tp_qstep *relu = count == 3 ? &e->steps[first + 2] : NULL;
    uint8_t key[64] = {0};
    size_t at = 0;
    memcpy(key + at, bias->bias.ranges, sizeof bias->bias.ranges), at += sizeof bias->bias.ranges;
    memcpy(key + at, &requant->requantizer, sizeof requant->requantizer), at += sizeof requant->requantizer;
    if (relu)
        key[at] = relu->low, key[at + 1] = relu->high;
    tp_qtable *t = &e->table;
    if (t->made && t->first == first && t->count == count && memcmp(key, t->key, sizeof key) == 0)
        return true;
    if (!t->codes && !(t->codes = malloc((size_t)(256 * e->channels))))
        return false;
    for (int64_t c = 0; c < e->channels; c++)
        for (int x = 0; x < 256; x++) {
            uint8_t q = tp_q_requantize(&requant->requantizer, (int32_t)(bias->bias.codes[x] + bias->bias.biases[c]));
            if (relu)
                q = q < relu->low ? relu->low : q > relu->high ? relu->high : q;
            t->codes[c * 256 + x] = q;
        }
    *t = (tp_qtable){.first = first, .count = count, .codes = t->codes, .made = true};
    memcpy(t->key, key, sizeof key);
    return true;
}

tfpi_code tp_qepilogue_begin(tp_qepilogue *e)
{
    tfpi_code code = TFPI_OK;
    for (int i = 0; i < e->num_steps && code == TFPI_OK; i++) {
        tp_qstep *s = &e->steps[i];
        float in_min, in_max, out_min, out_max;
        int64_t low, high;
        switch (s->kind) {
        case TP_QSTEP_REQUANTIZE:
            if ((code = tp_q_requantize_ranges(s->node, &in_min, &in_max, &out_min, &out_max)) == TFPI_OK) {
                s->requantizer = tp_q_requantizer_make(in_min, in_max, out_min, out_max);
                tp_q_write_range(s->node, 1, out_min, out_max);
            }
            break;
        case TP_QSTEP_BIAS_ADD:
            code = tp_q_bias_add_begin(s->node, &s->bias);
            break;
        case TP_QSTEP_RELU:
            if ((code = tp_q_relu_begin(s->node, 1, s->top, &low, &high)) == TFPI_OK) {
                s->low = (uint8_t)low;
                s->high = (uint8_t)high;
            }
            break;
        case TP_QSTEP_DEQUANTIZE:
            if ((code = tp_q_read_range(s->node, 1, 2, "the input", &in_min, &in_max)) == TFPI_OK)
                s->dequantizer = tp_q_dequantizer_make(in_min, in_max, tp_qtype_of(TFPI_QUINT8));
            break;
        }
    }
    int first, count = code == TFPI_OK ? table_steps(e, &first) : 0;
    if (count && !make_table(e, first, count))
        return tp_node_error(e->steps[first].node->def, e->steps[first].node->status, TFPI_OUT_OF_MEMORY,
                             "out of memory");
    if (!count)
        e->table.count = 0;
    return code;
}

static int64_t block_rows(const tp_qepilogue *e)
{
    return e->channels >= BLOCK_ELEMENTS ? 1 : BLOCK_ELEMENTS / e->channels;
}

int64_t tp_qepilogue_scratch_bytes(const tp_qepilogue *e)
{
    return 6 * block_rows(e) * e->channels; /* one 4-byte and two 1-byte buffers */
}

/* codes[i] through the table of its channel (n a multiple of channels),
 * four channels a step. */
static void table_rows(const tp_qtable *t, int64_t channels, const uint8_t *restrict x, uint8_t *restrict out,
                       int64_t n)
{
    for (int64_t i = 0; i < n; i += channels) {
        const uint8_t *codes = t->codes;
        int64_t c = 0;
        for (; c + 4 <= channels; c += 4, codes += 1024) {
            const uint8_t a = codes[x[i + c]], b = codes[256 + x[i + c + 1]];
            const uint8_t d = codes[512 + x[i + c + 2]], e = codes[768 + x[i + c + 3]];
            out[i + c] = a, out[i + c + 1] = b, out[i + c + 2] = d, out[i + c + 3] = e;
        }
        for (; c < channels; c++, codes += 256)
            out[i + c] = codes[x[i + c]];
    }
}

/* Runs the steps over n values at in into out (the last node's type). */
static void run_block(const tp_qepilogue *e, const void *in, int64_t n, void *out, uint8_t *scratch)
{
    void *wide = scratch;
    uint8_t *narrow[2] = {scratch + 4 * n, scratch + 5 * n};
    const void *cur = in;
    for (int i = 0; i < e->num_steps; i++) {
        const tp_qstep *s = &e->steps[i];
        const bool in_table = e->table.count && i == e->table.first;
        const int last_step = in_table ? i + e->table.count - 1 : i;
        const bool last = last_step == e->num_steps - 1;
        const tp_qstep_kind kind = in_table ? TP_QSTEP_RELU : s->kind; /* a table's output: codes, like Relu's */
        void *dst = last ? out : kind == TP_QSTEP_BIAS_ADD || kind == TP_QSTEP_DEQUANTIZE ? wide
                            : narrow[cur == narrow[0]];
        if (in_table) {
            table_rows(&e->table, e->channels, cur, dst, n);
            i = last_step;
            cur = dst;
            continue;
        }
        switch (s->kind) {
        case TP_QSTEP_REQUANTIZE: tp_q_requantize_many(&s->requantizer, cur, dst, n); break;
        case TP_QSTEP_BIAS_ADD: tp_q_bias_add_rows(&s->bias, cur, dst, n); break;
        case TP_QSTEP_RELU: tp_q_clamp_u8(cur, s->low, s->high, dst, n); break;
        case TP_QSTEP_DEQUANTIZE: tp_q_dequantize_many_u8(&s->dequantizer, cur, dst, n); break;
        }
        cur = dst;
    }
}

void tp_qepilogue_rows(const tp_qepilogue *e, const void *in, int64_t first_row, int64_t rows, void *scratch)
{
    const tfpi_tensor *out = &e->last->outputs[0];
    const size_t size = tfpi_dtype_size(out->dtype);
    const int64_t step = block_rows(e);
    for (int64_t r = 0; r < rows; r += step) {
        const int64_t n = (rows - r < step ? rows - r : step) * e->channels;
        const char *from = (const char *)in + (size_t)(r * e->channels) * e->in_size;
        run_block(e, from, n, (char *)out->data + (size_t)((first_row + r) * e->channels) * size, scratch);
    }
}

void tp_qepilogue_free(tp_qepilogue *e)
{
    for (int i = 0; i < e->num_steps; i++)
        free(e->steps[i].bias.biases);
    free(e->table.codes);
}
