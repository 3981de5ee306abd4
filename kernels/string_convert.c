/* string_convert.c - TensorFlow's conversions between strings and numbers
 * that text and feature-column exports carry:
 *   StringToHashBucketFast: FarmHash Fingerprint64 of each string
 *     (src/compute/fingerprint.h) modulo num_buckets, as int64;
 *   StringToNumber: float, double, int32 or int64 (out_type) parsed from
 *     each string as TensorFlow does: spaces around the number allowed,
 *     integers in decimal with a sign and no overflow, reals as decimals,
 *     exponents, hexadecimal integers, "inf" or "nan" in any case, under 32
 *     bytes; anything else is an error naming the string;
 *   AsString: each number (integers, reals, bool) or string formatted as
 *     TensorFlow's printf formats do (precision, scientific, shortest,
 *     width, fill: one of the printf flags "0", " ", "-", "+", "#"); bool
 *     as "true" or "false" whatever the width, as TensorFlow. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compute/fingerprint.h"
#include "core/checked_math.h"
#include "kernel/kernel.h"
#include "kernel/string_output.h"

static const tfpi_bytes *string_at(const tfpi_tensor *t, int64_t i) { return &((const tfpi_bytes *)t->data)[i]; }

/* ---- StringToHashBucketFast ---- */

static tfpi_code hash_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_STRING);
    if (code != TFPI_OK)
        return code;
    int64_t buckets = tp_attr_int(ctx->def, "num_buckets", 0);
    if (buckets < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "num_buckets is %lld; it must be at least 1", (long long)buckets);
    return tp_set_output(ctx, 0, TFPI_INT64, ctx->inputs[0]->ndims, ctx->inputs[0]->dims);
}

static tfpi_code hash_run(tp_op_ctx *ctx)
{
    uint64_t buckets = (uint64_t)tp_attr_int(ctx->def, "num_buckets", 1);
    int64_t *out = ctx->outputs[0].data;
    for (int64_t i = 0, n = tp_num_elements(ctx->inputs[0]); i < n; i++) {
        const tfpi_bytes *s = string_at(ctx->inputs[0], i);
        out[i] = (int64_t)(tp_fingerprint64(s->data, s->size) % buckets);
    }
    return TFPI_OK;
}

/* ---- StringToNumber ---- */

static tfpi_code to_number_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_STRING);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype t = tp_attr_type(ctx->def, "out_type", TFPI_FLOAT);
    if (t != TFPI_FLOAT && t != TFPI_DOUBLE && t != TFPI_INT32 && t != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "out_type %s is not float, double, int32 or int64",
                       tfpi_dtype_name(t));
    return tp_set_output(ctx, 0, t, ctx->inputs[0]->ndims, ctx->inputs[0]->dims);
}

static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* An integer in decimal with spaces around it, within [min, max]. */
static bool parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
    while (is_space(*s))
        s++;
    bool negative = *s == '-';
    s += *s == '-' || *s == '+';
    if (!isdigit((unsigned char)*s))
        return false;
    int64_t v = 0;
    for (; isdigit((unsigned char)*s); s++)
        if (!tp_checked_mul(v, 10, &v) || !(negative ? tp_checked_sub(v, *s - '0', &v)
                                                      : tp_checked_add(v, *s - '0', &v)) || v < min || v > max)
            return false;
    while (is_space(*s))
        s++;
    *out = v;
    return *s == '\0';
}

/* A real as TensorFlow's converter reads it (see the top of the file). */
static bool parse_real(const char *s, bool as_float, double *out)
{
    while (is_space(*s))
        s++;
    const char *body = s + (*s == '-' || *s == '+');
    bool hex = body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
    if (hex ? strpbrk(body, ".pP") != NULL : strncasecmp(body, "infinity", 8) == 0 || strncasecmp(body, "nan(", 4) == 0)
        return false; /* hexadecimal reals, "infinity" and "nan(...)" are strtod's, not TensorFlow's */
    char *end;
    *out = as_float ? (double)strtof(s, &end) : strtod(s, &end);
    if (end == s)
        return false;
    while (is_space(*end))
        end++;
    return *end == '\0';
}

static tfpi_code to_number_run(tp_op_ctx *ctx)
{
    tfpi_tensor *out = &ctx->outputs[0];
    for (int64_t i = 0, n = tp_num_elements(out); i < n; i++) {
        const tfpi_bytes *s = string_at(ctx->inputs[0], i);
        char text[32];
        bool ok = s->size < sizeof text && !memchr(s->data, 0, s->size);
        double real = 0;
        int64_t integer = 0;
        if (ok) {
            memcpy(text, s->data, s->size);
            text[s->size] = '\0';
        }
        switch (out->dtype) {
        case TFPI_FLOAT:
            ok = ok && parse_real(text, true, &real);
            ((float *)out->data)[i] = (float)real;
            break;
        case TFPI_DOUBLE:
            ok = ok && parse_real(text, false, &real);
            ((double *)out->data)[i] = real;
            break;
        case TFPI_INT32:
            ok = ok && parse_int(text, INT32_MIN, INT32_MAX, &integer);
            ((int32_t *)out->data)[i] = (int32_t)integer;
            break;
        default:
            ok = ok && parse_int(text, INT64_MIN, INT64_MAX, &integer);
            ((int64_t *)out->data)[i] = integer;
            break;
        }
        if (!ok)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "StringToNumberOp could not correctly convert string %lld: "
                           "'%.*s'%s", (long long)i, (int)(s->size > 40 ? 40 : s->size), (const char *)s->data,
                           s->size > 40 ? "..." : "");
    }
    return TFPI_OK;
}

/* ---- AsString ---- */

typedef struct as_string_state {
    tp_string_out strings;
    char format[48];
} as_string_state;

static void free_as_string(void *state)
{
    as_string_state *s = state;
    if (s)
        tp_string_out_free(&s->strings);
    free(s);
}

static bool is_real(tfpi_dtype t) { return t == TFPI_FLOAT || t == TFPI_DOUBLE; }

/* TensorFlow's printf format for the node's attributes, into s->format. */
static tfpi_code make_format(tp_op_ctx *ctx, as_string_state *s)
{
    tfpi_dtype t = ctx->inputs[0]->dtype;
    int64_t precision = tp_attr_int(ctx->def, "precision", -1), width = tp_attr_int(ctx->def, "width", -1);
    bool scientific = tp_attr_bool(ctx->def, "scientific", false), shortest = tp_attr_bool(ctx->def, "shortest", false);
    tfpi_bytes fill = tp_attr_bytes(ctx->def, "fill", "");
    if (!is_real(t) && (scientific || shortest || precision >= 0))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "precision, scientific and shortest are for reals, not %s",
                       tfpi_dtype_name(t));
    if (scientific && shortest)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Cannot select both scientific and shortest notation");
    if (fill.size > 1 || (fill.size == 1 && !strchr("0 -+#", fill.data[0])))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "fill must be empty or one of the printf flags 0, space, -, +, #");
    if (width > 1000 || precision > 1000)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "width %lld or precision %lld is past 1000", (long long)width,
                       (long long)precision);
    int n = snprintf(s->format, sizeof s->format, "%%%.*s", (int)fill.size, fill.size ? (const char *)fill.data : "");
    if (width > -1)
        n += snprintf(s->format + n, sizeof s->format - (size_t)n, "%d", (int)width);
    if (precision > -1)
        n += snprintf(s->format + n, sizeof s->format - (size_t)n, ".%d", (int)precision);
    const char *conversion = is_real(t) ? (shortest ? "g" : scientific ? "e" : "f")
                             : t == TFPI_STRING ? "s"
                             : t == TFPI_UINT8 || t == TFPI_UINT16 ? "llu"
                                                                   : "lld";
    snprintf(s->format + n, sizeof s->format - (size_t)n, "%s", conversion);
    return TFPI_OK;
}

static tfpi_code as_string_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    switch (ctx->inputs[0]->dtype) {
    case TFPI_FLOAT: case TFPI_DOUBLE: case TFPI_INT8: case TFPI_INT16: case TFPI_INT32: case TFPI_INT64:
    case TFPI_UINT8: case TFPI_UINT16: case TFPI_BOOL: case TFPI_STRING:
        break;
    default:
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "Cannot encode input of type %s", tfpi_dtype_name(ctx->inputs[0]->dtype));
    }
    as_string_state *s = ctx->state ? ctx->state : calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if ((code = make_format(ctx, s)) != TFPI_OK)
        return code;
    return tp_set_output(ctx, 0, TFPI_STRING, ctx->inputs[0]->ndims, ctx->inputs[0]->dims);
}

/* Element i of t formatted into buf (size bytes); the length it needs. */
static int format_element(const char *format, const tfpi_tensor *t, int64_t i, char *buf, size_t size)
{
    switch (t->dtype) {
    case TFPI_FLOAT:
        return snprintf(buf, size, format, (double)((const float *)t->data)[i]);
    case TFPI_DOUBLE:
        return snprintf(buf, size, format, ((const double *)t->data)[i]);
    case TFPI_BOOL:
        return snprintf(buf, size, "%s", ((const uint8_t *)t->data)[i] ? "true" : "false");
    case TFPI_UINT8: case TFPI_UINT16:
        return snprintf(buf, size, format, (unsigned long long)tp_get_int(t, i));
    default:
        return snprintf(buf, size, format, (long long)tp_get_int(t, i));
    }
}

static tfpi_code as_string_run(tp_op_ctx *ctx)
{
    as_string_state *s = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t n = tp_num_elements(in);
    tfpi_code code = tp_string_out_begin(ctx, &s->strings, n);
    for (int64_t i = 0; i < n && code == TFPI_OK; i++) {
        if (in->dtype == TFPI_STRING) { /* "%*s" of the bytes, which may hold NULs: pad by hand */
            const tfpi_bytes *e = string_at(in, i);
            int64_t width = tp_attr_int(ctx->def, "width", -1), pad = width > (int64_t)e->size ? width - (int64_t)e->size : 0;
            bool left = strchr(s->format, '-') != NULL;
            for (int64_t k = 0; k < pad && !left && code == TFPI_OK; k++)
                code = tp_string_out_append(ctx, &s->strings, " ", 1);
            if (code == TFPI_OK)
                code = tp_string_out_append(ctx, &s->strings, e->data, e->size);
            for (int64_t k = 0; k < pad && left && code == TFPI_OK; k++)
                code = tp_string_out_append(ctx, &s->strings, " ", 1);
        } else {
            char small[64];
            int len = format_element(s->format, in, i, small, sizeof small);
            uint8_t *at = len >= 0 ? tp_string_out_reserve(ctx, &s->strings, (size_t)len + 1) : NULL;
            if (!at) {
                code = len >= 0 ? ctx->status->code : tp_fail(ctx, TFPI_INTERNAL, "cannot format element %lld", (long long)i);
                break;
            }
            if ((size_t)len < sizeof small)
                memcpy(at, small, (size_t)len);
            else
                format_element(s->format, in, i, (char *)at, (size_t)len + 1);
            s->strings.used += (size_t)len;
        }
        tp_string_out_end_element(&s->strings);
    }
    if (code == TFPI_OK)
        tp_string_out_finish(&s->strings, &ctx->outputs[0]);
    return code;
}

const tp_kernel tp_kernels_string_convert[] = {
    TP_KERNEL("StringToHashBucketFast", hash_prepare, hash_run, NULL, 0),
    TP_KERNEL("StringToNumber", to_number_prepare, to_number_run, NULL, 0),
    TP_KERNEL("AsString", as_string_prepare, as_string_run, free_as_string, 0),
    TP_KERNELS_END,
};
