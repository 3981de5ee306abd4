/* string_output.c - one growing byte buffer and the end of each element
 * (string_output.h). */
#include "kernel/string_output.h"

#include <stdlib.h>
#include <string.h>

tfpi_code tp_string_out_begin(tp_op_ctx *ctx, tp_string_out *s, int64_t count)
{
    tfpi_code code = tp_expect_within_budget(ctx, count, sizeof(size_t), "strings");
    if (code != TFPI_OK)
        return code;
    size_t *ends = realloc(s->ends, ((size_t)count + 1) * sizeof *ends);
    if (!ends)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld strings", (long long)count);
    s->ends = ends;
    s->count = count;
    s->made = 0;
    s->used = 0;
    return TFPI_OK;
}

uint8_t *tp_string_out_reserve(tp_op_ctx *ctx, tp_string_out *s, size_t n)
{
    if (n > (size_t)INT64_MAX - s->used) {
        tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the strings made are too long");
        return NULL;
    }
    size_t need = s->used + n;
    if (ctx->max_bytes && need > ctx->max_bytes) {
        tp_fail(ctx, TFPI_OUT_OF_MEMORY,
                "the strings made need %zu bytes, over the memory budget of %llu bytes (max_memory)", need,
                (unsigned long long)ctx->max_bytes);
        return NULL;
    }
    if (need > s->cap || !s->bytes) {
        size_t cap = s->cap > need / 2 ? 2 * s->cap : need;
        if (ctx->max_bytes && cap > ctx->max_bytes)
            cap = (size_t)ctx->max_bytes;
        uint8_t *bytes = realloc(s->bytes, cap ? cap : 1);
        if (!bytes) {
            tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %zu bytes of strings", need);
            return NULL;
        }
        s->bytes = bytes;
        s->cap = cap;
    }
    return s->bytes + s->used;
}

tfpi_code tp_string_out_append(tp_op_ctx *ctx, tp_string_out *s, const void *data, size_t n)
{
    uint8_t *at = tp_string_out_reserve(ctx, s, n);
    if (!at)
        return ctx->status->code;
    if (n)
        memcpy(at, data, n);
    s->used += n;
    return TFPI_OK;
}

void tp_string_out_end_element(tp_string_out *s)
{
    if (s->made < s->count)
        s->ends[s->made++] = s->used;
}

void tp_string_out_finish(const tp_string_out *s, tfpi_tensor *out)
{
    tfpi_bytes *e = out->data;
    size_t start = 0;
    for (int64_t i = 0; i < s->made; i++) {
        e[i] = (tfpi_bytes){s->ends[i] - start, s->bytes ? s->bytes + start : (const uint8_t *)""};
        start = s->ends[i];
    }
}

void tp_string_out_free(tp_string_out *s)
{
    free(s->bytes);
    free(s->ends);
    memset(s, 0, sizeof *s);
}
