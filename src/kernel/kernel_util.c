/* kernel_util.c - what every kernel uses: attribute lookup on the node's
 * NodeDef, input checks, and errors that name the node and its op. */
#include "kernel/kernel.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

tfpi_code tp_fail(tp_op_ctx *ctx, tfpi_code code, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return tp_error(ctx->status, code, "node '%s' (%s): %s", ctx->def->name, ctx->def->op, detail);
}

tfpi_code tp_expect_inputs(tp_op_ctx *ctx, int min, int max)
{
    if (ctx->num_inputs < min || ctx->num_inputs > max) {
        if (min == max)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects %d inputs, has %d", min, ctx->num_inputs);
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects %d to %d inputs, has %d", min, max,
                       ctx->num_inputs);
    }
    return TFPI_OK;
}

tfpi_code tp_expect_dtype(tp_op_ctx *ctx, int input, tfpi_dtype dtype)
{
    if (ctx->inputs[input]->dtype != dtype)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input %d is %s; this kernel handles %s", input,
                       tfpi_dtype_name(ctx->inputs[input]->dtype), tfpi_dtype_name(dtype));
    return TFPI_OK;
}

tfpi_code tp_expect_one_input(tp_op_ctx *ctx, tfpi_dtype dtype)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    return code == TFPI_OK ? tp_expect_dtype(ctx, 0, dtype) : code;
}

tfpi_code tp_expect_known(tp_op_ctx *ctx, int input)
{
    if (!ctx->inputs[input]->data)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "input %d must be computable from constants and input shapes", input);
    return TFPI_OK;
}

const Tfpi__AttrValue *tp_attr(const tp_op_ctx *ctx, const char *name)
{
    for (size_t i = 0; i < ctx->def->n_attr; i++)
        if (ctx->def->attr[i]->key && strcmp(ctx->def->attr[i]->key, name) == 0)
            return ctx->def->attr[i]->value;
    return NULL;
}

int64_t tp_attr_int(const tp_op_ctx *ctx, const char *name, int64_t fallback)
{
    const Tfpi__AttrValue *a = tp_attr(ctx, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_I ? a->i : fallback;
}

float tp_attr_float(const tp_op_ctx *ctx, const char *name, float fallback)
{
    const Tfpi__AttrValue *a = tp_attr(ctx, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_F ? a->f : fallback;
}

bool tp_attr_bool(const tp_op_ctx *ctx, const char *name, bool fallback)
{
    const Tfpi__AttrValue *a = tp_attr(ctx, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_B ? a->b : fallback;
}

tfpi_dtype tp_attr_type(const tp_op_ctx *ctx, const char *name, tfpi_dtype fallback)
{
    const Tfpi__AttrValue *a = tp_attr(ctx, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_TYPE ? (tfpi_dtype)a->type : fallback;
}

const char *tp_attr_string(const tp_op_ctx *ctx, const char *name, char *buf, size_t size,
                           const char *fallback)
{
    const Tfpi__AttrValue *a = tp_attr(ctx, name);
    bool present = a && a->value_case == TFPI__ATTR_VALUE__VALUE_S;
    buf[0] = '\0';
    if (!present && !fallback)
        return NULL;
    const void *text = present ? (const void *)a->s.data : fallback;
    size_t len = present ? a->s.len : strlen(fallback);
    size_t n = len < size - 1 ? len : size - 1;
    if (n)
        memcpy(buf, text, n);
    buf[n] = '\0';
    return buf;
}

int tp_attr_int_list(const tp_op_ctx *ctx, const char *name, int64_t *out, int max)
{
    const Tfpi__AttrValue *a = tp_attr(ctx, name);
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_LIST)
        return -1;
    int n = (int)a->list->n_i;
    for (int i = 0; i < n && i < max; i++)
        out[i] = a->list->i[i];
    return n;
}
