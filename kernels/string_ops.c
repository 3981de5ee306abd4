/* string_ops.c - TensorFlow's elementwise string ops that text exports
 * carry in their preprocessing:
 *   StringJoin: the inputs (scalars, or tensors of one shape) joined
 *     element by element with `separator` between them;
 *   StringLower: lowercase, ASCII only (encoding "") or Unicode over UTF-8
 *     (encoding "utf-8": src/compute/unicode_lower.h);
 *   Substr: input[pos : pos + len] per element, pos and len scalars or
 *     broadcast against input; unit "BYTE" or "UTF8_CHAR"; a negative pos
 *     counts from the end, a pos past either end is an error naming the
 *     element; the length is cut at the end of the string (in bytes a
 *     negative len takes the rest, in characters nothing, as TensorFlow).
 * The strings made live in the kernel's state (kernel/string_output.h),
 * within the memory budget. */
#include <stdlib.h>
#include <string.h>

#include "compute/broadcast.h"
#include "compute/unicode_lower.h"
#include "core/checked_math.h"
#include "kernel/kernel.h"
#include "kernel/string_output.h"

static void free_strings(void *state)
{
    if (state)
        tp_string_out_free(state);
    free(state);
}

/* The kernel's string buffer (made on first use). */
static tp_string_out *strings_of(tp_op_ctx *ctx)
{
    if (!ctx->state)
        ctx->state = calloc(1, sizeof(tp_string_out));
    return ctx->state;
}

static const tfpi_bytes *string_at(const tfpi_tensor *t, int64_t i) { return &((const tfpi_bytes *)t->data)[i]; }

/* ---- StringJoin ---- */

static tfpi_code join_prepare(tp_op_ctx *ctx)
{
    if (ctx->num_inputs < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "needs at least one input");
    const tfpi_tensor *shape = NULL;
    for (int i = 0; i < ctx->num_inputs; i++) {
        const tfpi_tensor *t = ctx->inputs[i];
        if (t->dtype != TFPI_STRING)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d is %s, not string", i, tfpi_dtype_name(t->dtype));
        if (t->ndims == 0)
            continue;
        if (shape && !tp_same_shape(shape, t)) {
            char a[160], b[160];
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Input shapes do not match: %s vs. %s",
                           tp_shape_string(shape, a, sizeof a), tp_shape_string(t, b, sizeof b));
        }
        shape = t;
    }
    return tp_set_output(ctx, 0, TFPI_STRING, shape ? shape->ndims : 0, shape ? shape->dims : NULL);
}

static tfpi_code join_run(tp_op_ctx *ctx)
{
    tp_string_out *s = strings_of(ctx);
    tfpi_bytes sep = tp_attr_bytes(ctx->def, "separator", "");
    int64_t n = tp_num_elements(&ctx->outputs[0]);
    tfpi_code code = s ? tp_string_out_begin(ctx, s, n) : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int64_t e = 0; e < n && code == TFPI_OK; e++) {
        for (int i = 0; i < ctx->num_inputs && code == TFPI_OK; i++) {
            const tfpi_tensor *t = ctx->inputs[i];
            const tfpi_bytes *part = string_at(t, t->ndims == 0 ? 0 : e);
            if (i > 0)
                code = tp_string_out_append(ctx, s, sep.data, sep.size);
            if (code == TFPI_OK)
                code = tp_string_out_append(ctx, s, part->data, part->size);
        }
        tp_string_out_end_element(s);
    }
    if (code == TFPI_OK)
        tp_string_out_finish(s, &ctx->outputs[0]);
    return code;
}

/* ---- StringLower ---- */

static tfpi_code lower_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_STRING);
    if (code != TFPI_OK)
        return code;
    tfpi_bytes encoding = tp_attr_bytes(ctx->def, "encoding", "");
    if (encoding.size && !(encoding.size == 5 && memcmp(encoding.data, "utf-8", 5) == 0))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "encoding '%.*s' is not supported: use \"\" (ASCII) or utf-8",
                       (int)(encoding.size > 40 ? 40 : encoding.size), (const char *)encoding.data);
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_set_output(ctx, 0, TFPI_STRING, in->ndims, in->dims);
}

static tfpi_code lower_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    bool utf8 = tp_attr_bytes(ctx->def, "encoding", "").size > 0;
    int64_t n = tp_num_elements(in);
    tp_string_out *s = strings_of(ctx);
    tfpi_code code = s ? tp_string_out_begin(ctx, s, n) : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int64_t i = 0; i < n && code == TFPI_OK; i++) {
        const tfpi_bytes *e = string_at(in, i);
        /* room for the longest result: 3 bytes per input byte (an invalid byte becomes U+FFFD) */
        uint8_t *out = e->size <= SIZE_MAX / 4 ? tp_string_out_reserve(ctx, s, utf8 ? 3 * e->size : e->size) : NULL;
        if (!out) {
            code = e->size <= SIZE_MAX / 4 ? ctx->status->code
                                           : tp_fail(ctx, TFPI_INVALID_ARGUMENT, "string %lld is too long", (long long)i);
            break;
        }
        if (utf8) {
            s->used += tp_utf8_lower(e->data, e->size, out);
        } else {
            for (size_t k = 0; k < e->size; k++)
                out[k] = e->data[k] >= 'A' && e->data[k] <= 'Z' ? (uint8_t)(e->data[k] + ('a' - 'A')) : e->data[k];
            s->used += e->size;
        }
        tp_string_out_end_element(s);
    }
    if (code == TFPI_OK)
        tp_string_out_finish(s, &ctx->outputs[0]);
    return code;
}

/* ---- Substr ---- */

static tfpi_code substr_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *pos = ctx->inputs[1], *len = ctx->inputs[2];
    char unit[16];
    tp_attr_string(ctx->def, "unit", unit, sizeof unit, "BYTE");
    if (strcmp(unit, "BYTE") != 0 && strcmp(unit, "UTF8_CHAR") != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "unit '%s' is not BYTE or UTF8_CHAR", unit);
    if (in->dtype != TFPI_STRING || (pos->dtype != TFPI_INT32 && pos->dtype != TFPI_INT64) ||
        len->dtype != pos->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "takes a string, then pos and len of one integer type; given %s, "
                       "%s, %s", tfpi_dtype_name(in->dtype), tfpi_dtype_name(pos->dtype), tfpi_dtype_name(len->dtype));
    if (!tp_same_shape(pos, len)) {
        char a[160], b[160];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "pos and len should have the same shape, got: %s vs. %s",
                       tp_shape_string(pos, a, sizeof a), tp_shape_string(len, b, sizeof b));
    }
    if (tp_num_elements(pos) == 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "pos and len are empty");
    tp_broadcast bc;
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    tfpi_tensor *operands[2] = {ctx->inputs[0], ctx->inputs[1]};
    if (!tp_broadcast_init(&bc, 2, operands, &ndims, dims)) {
        char a[160], b[160];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", tp_shape_string(in, a, sizeof a),
                       tp_shape_string(pos, b, sizeof b));
    }
    return tp_set_output(ctx, 0, TFPI_STRING, ndims, dims);
}

static bool is_trail_byte(uint8_t b) { return (b & 0xC0) == 0x80; }

/* Moves *at forward over up to n characters of s; true if it moved n. */
static bool forward_chars(const tfpi_bytes *s, int64_t n, size_t *at)
{
    int64_t moved = 0;
    while (*at < s->size && moved < n) {
        do
            ++*at;
        while (*at < s->size && is_trail_byte(s->data[*at]));
        moved++;
    }
    return moved == n;
}

/* Moves *at back over up to n characters of s; true if it moved n. */
static bool back_chars(const tfpi_bytes *s, int64_t n, size_t *at)
{
    int64_t moved = 0;
    while (*at > 0 && moved < n) {
        do
            --*at;
        while (*at > 0 && is_trail_byte(s->data[*at]));
        moved++;
    }
    return moved == n;
}

/* The byte range [*start, *end) of s that (pos, len) selects; false if pos is out of range. */
static bool select_range(const tfpi_bytes *s, int64_t pos, int64_t len, bool utf8, size_t *start, size_t *end)
{
    if (!utf8) {
        int64_t p = pos < 0 ? tp_sat_add((int64_t)s->size, pos) : pos;
        if (p < 0 || (uint64_t)p > s->size)
            return false;
        *start = (size_t)p;
        *end = len < 0 || (uint64_t)len > s->size - *start ? s->size : *start + (size_t)len;
        return true;
    }
    if (pos >= 0) {
        *start = 0;
        if (!forward_chars(s, pos, start))
            return false;
        *end = *start;
        forward_chars(s, len, end);
        return true;
    }
    int64_t skip = tp_sat_sub(tp_sat_sub(0, pos), len); /* characters after the substring */
    *end = s->size;
    if (!back_chars(s, skip < 0 ? 0 : skip, end))
        return false;
    *start = *end;
    return back_chars(s, tp_sat_sub(tp_sat_sub(0, pos), skip < 0 ? 0 : skip), start);
}

typedef struct substr_walk {
    tp_op_ctx *ctx;
    const tp_broadcast *bc;
    tp_string_out *s;
    bool utf8;
    tfpi_code code;
} substr_walk;

static void substr_run_of(void *arg, int64_t out_offset, const int64_t *in_offsets, int64_t length)
{
    substr_walk *w = arg;
    tp_op_ctx *ctx = w->ctx;
    int inner = w->bc->ndims - 1;
    for (int64_t k = 0; k < length && w->code == TFPI_OK; k++) {
        int64_t si = in_offsets[0] + k * w->bc->strides[0][inner], pi = in_offsets[1] + k * w->bc->strides[1][inner];
        const tfpi_bytes *str = string_at(ctx->inputs[0], si);
        int64_t pos = tp_get_int(ctx->inputs[1], pi), len = tp_get_int(ctx->inputs[2], pi);
        size_t start, end;
        if (!select_range(str, pos, len, w->utf8, &start, &end)) {
            w->code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "pos %lld out of range for string at index %lld",
                              (long long)pos, (long long)(out_offset + k));
            return;
        }
        w->code = tp_string_out_append(ctx, w->s, str->data + start, end - start);
        tp_string_out_end_element(w->s);
    }
}

static tfpi_code substr_run(tp_op_ctx *ctx)
{
    char unit[16];
    tp_attr_string(ctx->def, "unit", unit, sizeof unit, "BYTE");
    tp_broadcast bc;
    substr_walk w = {ctx, &bc, strings_of(ctx), strcmp(unit, "UTF8_CHAR") == 0, TFPI_OK};
    int64_t n = tp_num_elements(&ctx->outputs[0]);
    w.code = w.s ? tp_string_out_begin(ctx, w.s, n) : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    tfpi_tensor *operands[2] = {ctx->inputs[0], ctx->inputs[1]};
    if (w.code == TFPI_OK && tp_broadcast_init(&bc, 2, operands, &ndims, dims))
        tp_broadcast_walk(&bc, 0, n, substr_run_of, &w);
    if (w.code == TFPI_OK)
        tp_string_out_finish(w.s, &ctx->outputs[0]);
    return w.code;
}

const tp_kernel tp_kernels_string_ops[] = {
    TP_KERNEL("StringJoin", join_prepare, join_run, free_strings, 0),
    TP_KERNEL("StringLower", lower_prepare, lower_run, free_strings, 0),
    TP_KERNEL("Substr", substr_prepare, substr_run, free_strings, 0),
    TP_KERNELS_END,
};
