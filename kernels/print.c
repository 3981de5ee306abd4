/* print.c - Print, the node insert_logging adds: output 0 is input 0
 * unchanged, and each run writes TF's log line to stderr: the message, then
 * "[v0 v1 ...]" per data input (at most `summarize` values each, "..."
 * after a cut), floats printed with %.6g when that reads back exactly,
 * else %.8g, as TF 1.x does. first_n >= 0 limits how many runs print. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

typedef struct print_state {
    atomic_llong calls;
} print_state;

static void print_release(void *state) { free(state); }

static tfpi_code print_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 64);
    if (code != TFPI_OK)
        return code;
    print_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    const tfpi_tensor *in = ctx->inputs[0];
    tp_tensor_set_shape(&ctx->outputs[0], in->dtype, in->ndims, in->dims);
    return TFPI_OK;
}

static void print_value(const tfpi_tensor *t, int64_t i, FILE *f)
{
    char text[32];
    switch (t->dtype) {
    case TFPI_FLOAT: {
        float v = ((const float *)t->data)[i];
        snprintf(text, sizeof text, "%.6g", (double)v);
        if (strtof(text, NULL) != v)
            snprintf(text, sizeof text, "%.8g", (double)v);
        fputs(text, f);
        break;
    }
    case TFPI_DOUBLE: fprintf(f, "%.15g", ((const double *)t->data)[i]); break;
    case TFPI_BOOL: fputs(((const uint8_t *)t->data)[i] ? "1" : "0", f); break;
    case TFPI_STRING: {
        const tfpi_bytes *s = &((const tfpi_bytes *)t->data)[i];
        fwrite(s->data, 1, s->size, f);
        break;
    }
    default: fprintf(f, "%lld", (long long)tp_get_int(t, i)); break;
    }
}

static tfpi_code print_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    if (ctx->outputs[0].data != in->data)
        memcpy(ctx->outputs[0].data, in->data, tp_byte_size(in));
    print_state *s = ctx->state;
    long long first_n = tp_attr_int(ctx->def, "first_n", -1), call = atomic_fetch_add(&s->calls, 1);
    if (first_n >= 0 && call >= first_n)
        return TFPI_OK;
    int64_t summarize = tp_attr_int(ctx->def, "summarize", 3);
    char message[512];
    flockfile(stderr);
    fputs(tp_attr_string(ctx->def, "message", message, sizeof message, ""), stderr);
    for (int k = 1; k < ctx->num_inputs; k++) {
        const tfpi_tensor *t = ctx->inputs[k];
        int64_t n = tp_num_elements(t), shown = summarize >= 0 && summarize < n ? summarize : n;
        fputc('[', stderr);
        for (int64_t i = 0; i < shown; i++) {
            if (i)
                fputc(' ', stderr);
            print_value(t, i, stderr);
        }
        fputs(shown < n ? "...]" : "]", stderr);
    }
    fputc('\n', stderr);
    funlockfile(stderr);
    return TFPI_OK;
}

const tp_kernel tp_kernels_print[] = {
    TP_KERNEL("Print", print_prepare, print_run, print_release, TP_STATEFUL),
    TP_KERNELS_END,
};
