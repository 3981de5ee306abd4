/* assert.c - Assert: fails the run when its condition is false, with
 * TensorFlow's message "assertion failed: [d0] [d1] ...", each data tensor
 * shown as its first `summarize` values (strings as their text). Graphs
 * hang Asserts on control edges (the Object Detection API checks the image
 * size this way); one in an untaken branch does not run. */
#include <stdio.h>
#include <string.h>

#include "kernel/kernel.h"

static tfpi_code assert_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1 << 20);
    if (code == TFPI_OK && (ctx->inputs[0]->dtype != TFPI_BOOL || tp_num_elements(ctx->inputs[0]) != 1))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the condition must be a bool scalar");
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_FLOAT, 1, (int64_t[]){0}); /* no outputs: an empty stand-in */
    return code;
}

/* Appends one element of t to buf. */
static void append_element(char *buf, size_t size, const tfpi_tensor *t, int64_t i)
{
    size_t len = strlen(buf);
    switch (t->dtype) {
    case TFPI_STRING: {
        const tfpi_bytes *s = &((const tfpi_bytes *)t->data)[i];
        snprintf(buf + len, size - len, "%.*s", (int)(s->size < 200 ? s->size : 200), (const char *)s->data);
        break;
    }
    case TFPI_FLOAT: snprintf(buf + len, size - len, "%g", ((const float *)t->data)[i]); break;
    case TFPI_DOUBLE: snprintf(buf + len, size - len, "%g", ((const double *)t->data)[i]); break;
    default: snprintf(buf + len, size - len, "%lld", (long long)tp_get_int(t, i)); break;
    }
}

static tfpi_code assert_run(tp_op_ctx *ctx)
{
    if (*(const uint8_t *)ctx->inputs[0]->data)
        return TFPI_OK;
    int64_t summarize = tp_attr_int(ctx->def, "summarize", 3);
    char message[400] = "assertion failed:";
    for (int d = 1; d < ctx->num_inputs; d++) {
        const tfpi_tensor *t = ctx->inputs[d];
        int64_t n = tp_num_elements(t);
        strncat(message, " [", sizeof message - strlen(message) - 1);
        for (int64_t i = 0; i < n && i < summarize; i++) {
            if (i)
                strncat(message, " ", sizeof message - strlen(message) - 1);
            append_element(message, sizeof message, t, i);
        }
        strncat(message, n > summarize ? "...]" : "]", sizeof message - strlen(message) - 1);
    }
    return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s", message);
}

const tp_kernel tp_kernels_assert[] = {
    /* stateful, as in TF: never folded, and run even though it outputs nothing */
    TP_KERNEL("Assert", assert_prepare, assert_run, NULL, TP_STATEFUL),
    TP_KERNELS_END,
};
