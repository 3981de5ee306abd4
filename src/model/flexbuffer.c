/* flexbuffer.c - the checked FlexBuffer map reader (flexbuffer.h). Type
 * numbers from the FlexBuffers format: 0 null, 1 int, 2 uint, 3 float,
 * 4 key, 5 string, 6-8 indirect int/uint/float, 9 map, 10 vector, 11-13
 * typed int/uint/float vectors, 14 key vector, 16-24 fixed-length typed
 * vectors of 2, 3 and 4, 25 blob, 26 bool, 36 bool vector. */
#include "model/flexbuffer.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLEX_NULL, FLEX_INT, FLEX_UINT, FLEX_FLOAT, FLEX_KEY, FLEX_STRING, FLEX_INDIRECT_INT, FLEX_INDIRECT_UINT,
       FLEX_INDIRECT_FLOAT, FLEX_MAP, FLEX_VECTOR, FLEX_VECTOR_INT, FLEX_VECTOR_UINT, FLEX_VECTOR_FLOAT,
       FLEX_VECTOR_KEY, FLEX_BLOB = 25, FLEX_BOOL = 26, FLEX_VECTOR_BOOL = 36 };

/* A map nobody needs has more entries than this. */
#define MAX_ENTRIES 4096

typedef struct reader {
    const uint8_t *data;
    size_t size;
    const char *where;
    tfpi_status *status;
} reader;

static tfpi_code fail(const reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tfpi_code fail(const reader *r, const char *fmt, ...)
{
    char message[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return tfpi_status_set(r->status, TFPI_INVALID_ARGUMENT, "%s: custom_options (FlexBuffer): %s", r->where, message);
}

static bool in_buffer(const reader *r, size_t pos, uint64_t len)
{
    return pos <= r->size && len <= r->size - pos;
}

static uint64_t read_uint(const uint8_t *p, size_t width)
{
    uint64_t v = 0;
    for (size_t i = width; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static int64_t read_int(const uint8_t *p, size_t width)
{
    uint64_t v = read_uint(p, width);
    if (width < 8 && (v >> (8 * width - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * width); /* sign-extend */
    return (int64_t)v;
}

static double read_float(const uint8_t *p, size_t width)
{
    if (width == 4) {
        float f;
        uint32_t bits = (uint32_t)read_uint(p, 4);
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    if (width == 8) {
        double d;
        uint64_t bits = read_uint(p, 8);
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    return 0; /* 1- and 2-byte floats are not written by FlexBuffers */
}

/* The position an offset value at `pos` (of `width` bytes) refers back to.
 * 0 is the offset's own position: FlexBuffers writes an empty map or vector
 * there (TFLite Micro's signal operators' options); nothing is read past a
 * length, so no offset can lead the reader round in a loop. */
static tfpi_code follow(const reader *r, size_t pos, size_t width, size_t *to)
{
    uint64_t off = read_uint(r->data + pos, width);
    *to = pos;
    if (off > pos)
        return fail(r, "an offset of %llu at byte %zu points before the buffer", (unsigned long long)off, pos);
    *to = pos - (size_t)off;
    return TFPI_OK;
}

/* A vector at `at` with elements of `width` bytes: its length (stored just
 * before it), checked so that count elements (+ trailing types) fit. */
static tfpi_code vector_length(const reader *r, size_t at, size_t width, bool types, uint64_t *count)
{
    if (at < width)
        return fail(r, "a vector at byte %zu has no room for its length", at);
    *count = read_uint(r->data + at - width, width);
    uint64_t bytes;
    if (*count > r->size || __builtin_mul_overflow(*count, (uint64_t)width + types, &bytes) ||
        !in_buffer(r, at, bytes))
        return fail(r, "a vector of %llu elements at byte %zu runs past the end of the %zu bytes",
                    (unsigned long long)*count, at, r->size);
    return TFPI_OK;
}

/* A NUL-terminated string at `at` (a key): it must end inside the buffer. */
static tfpi_code key_at(const reader *r, size_t at, const char **key)
{
    if (at >= r->size || !memchr(r->data + at, 0, r->size - at))
        return fail(r, "a key at byte %zu has no NUL before the end", at);
    *key = (const char *)r->data + at;
    return TFPI_OK;
}

/* A typed numeric vector (of ints or floats) into e. */
static tfpi_code numbers(const reader *r, size_t at, size_t width, int type, uint64_t fixed, tp_flex_entry *e)
{
    uint64_t count = fixed;
    bool floats = type == FLEX_VECTOR_FLOAT || (type >= 16 && type <= 24 && (type - 16) % 3 == 2);
    bool unsigned_ = type == FLEX_VECTOR_UINT || type == FLEX_VECTOR_BOOL || (type >= 16 && type <= 24 && (type - 16) % 3 == 1);
    tfpi_code code = fixed ? (in_buffer(r, at, fixed * width) ? TFPI_OK : fail(r, "a fixed vector runs past the end"))
                           : vector_length(r, at, width, false, &count);
    if (code != TFPI_OK)
        return code;
    e->kind = floats ? TP_FLEX_FLOATS : TP_FLEX_INTS;
    e->count = (size_t)count;
    if (floats ? !(e->floats = calloc(count + 1, sizeof *e->floats)) : !(e->ints = calloc(count + 1, sizeof *e->ints)))
        return tfpi_status_set(r->status, TFPI_OUT_OF_MEMORY, "%s: out of memory", r->where);
    for (uint64_t k = 0; k < count; k++) {
        const uint8_t *p = r->data + at + k * width;
        if (floats)
            e->floats[k] = read_float(p, width);
        else
            e->ints[k] = unsigned_ ? (int64_t)read_uint(p, width) : read_int(p, width);
    }
    return TFPI_OK;
}

/* The value of a map slot at `pos` (parent width `width`, packed type `packed`). */
static tfpi_code value(const reader *r, size_t pos, size_t width, uint8_t packed, tp_flex_entry *e)
{
    int type = packed >> 2;
    size_t own = (size_t)1 << (packed & 3); /* the width of what an offset points at */
    const uint8_t *p = r->data + pos;
    size_t at;
    tfpi_code code;
    e->kind = TP_FLEX_OTHER;
    switch (type) {
    case FLEX_INT: e->kind = TP_FLEX_INT; e->i = read_int(p, width); return TFPI_OK;
    case FLEX_UINT: e->kind = TP_FLEX_INT; e->i = (int64_t)read_uint(p, width); return TFPI_OK;
    case FLEX_BOOL: e->kind = TP_FLEX_BOOL; e->i = read_uint(p, width) != 0; return TFPI_OK;
    case FLEX_FLOAT:
        if (width < 4)
            return fail(r, "a float of %zu bytes", width);
        e->kind = TP_FLEX_FLOAT;
        e->f = read_float(p, width);
        return TFPI_OK;
    case FLEX_NULL: return TFPI_OK;
    default: break;
    }
    if ((code = follow(r, pos, width, &at)) != TFPI_OK)
        return code;
    switch (type) {
    case FLEX_INDIRECT_INT:
    case FLEX_INDIRECT_UINT:
    case FLEX_INDIRECT_FLOAT:
        if (!in_buffer(r, at, own))
            return fail(r, "an indirect value at byte %zu runs past the end", at);
        if (type == FLEX_INDIRECT_FLOAT) {
            if (own < 4)
                return fail(r, "a float of %zu bytes", own);
            e->kind = TP_FLEX_FLOAT;
            e->f = read_float(r->data + at, own);
        } else {
            e->kind = TP_FLEX_INT;
            e->i = type == FLEX_INDIRECT_INT ? read_int(r->data + at, own) : (int64_t)read_uint(r->data + at, own);
        }
        return TFPI_OK;
    case FLEX_STRING: {
        uint64_t len;
        if ((code = vector_length(r, at, own, false, &len)) != TFPI_OK)
            return code;
        if (!in_buffer(r, at + (size_t)len, 1) || r->data[at + len] != 0)
            return fail(r, "a string of %llu bytes has no NUL after it", (unsigned long long)len);
        e->kind = TP_FLEX_STRING;
        e->s = (const char *)r->data + at;
        e->count = (size_t)len;
        return TFPI_OK;
    }
    case FLEX_VECTOR_INT:
    case FLEX_VECTOR_UINT:
    case FLEX_VECTOR_FLOAT:
    case FLEX_VECTOR_BOOL:
        return numbers(r, at, own, type, 0, e);
    default:
        if (type >= 16 && type <= 24)
            return numbers(r, at, own, type, (uint64_t)(type - 16) / 3 + 2, e);
        if (type == FLEX_KEY || type == FLEX_MAP || type == FLEX_VECTOR || type == FLEX_VECTOR_KEY || type == FLEX_BLOB)
            return TFPI_OK; /* not an option a kernel reads: skipped, its offset checked */
        return fail(r, "unknown value type %d", type);
    }
}

tfpi_code tp_flex_read_map(const uint8_t *data, size_t size, const char *where, tp_flex_entry **entries, int *n,
                           tfpi_status *status)
{
    reader r = {data, size, where, status};
    *entries = NULL;
    *n = 0;
    if (size < 3)
        return fail(&r, "%zu bytes, too short for a root", size);
    size_t root_width = data[size - 1];
    uint8_t root_type = data[size - 2];
    if (root_width != 1 && root_width != 2 && root_width != 4 && root_width != 8)
        return fail(&r, "the root's width is %zu bytes (1, 2, 4 or 8)", root_width);
    if (size - 2 < root_width)
        return fail(&r, "the root's %zu bytes do not fit", root_width);
    if (root_type >> 2 != FLEX_MAP)
        return fail(&r, "the root is of type %d, not a map", root_type >> 2);
    size_t width = (size_t)1 << (root_type & 3), values, keys_at;
    uint64_t count, keys_count;
    tfpi_code code = follow(&r, size - 2 - root_width, root_width, &values);
    if (code == TFPI_OK && values < 3 * width)
        code = fail(&r, "a map at byte %zu has no room for its keys", values);
    if (code == TFPI_OK)
        code = vector_length(&r, values, width, true, &count);
    if (code == TFPI_OK && count > MAX_ENTRIES)
        code = fail(&r, "%llu entries", (unsigned long long)count);
    if (code == TFPI_OK)
        code = follow(&r, values - 3 * width, width, &keys_at);
    size_t keys_width = code == TFPI_OK ? (size_t)read_uint(data + values - 2 * width, width) : 0;
    if (code == TFPI_OK && keys_width != 1 && keys_width != 2 && keys_width != 4 && keys_width != 8)
        code = fail(&r, "the keys' width is %zu bytes", keys_width);
    if (code == TFPI_OK)
        code = vector_length(&r, keys_at, keys_width, false, &keys_count);
    if (code == TFPI_OK && keys_count != count)
        code = fail(&r, "%llu keys for %llu values", (unsigned long long)keys_count, (unsigned long long)count);
    if (code != TFPI_OK)
        return code;
    if (!(*entries = calloc(count + 1, sizeof **entries)))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", where);
    for (uint64_t k = 0; k < count && code == TFPI_OK; k++) {
        tp_flex_entry *e = &(*entries)[k];
        size_t key;
        *n = (int)k + 1;
        code = follow(&r, keys_at + k * keys_width, keys_width, &key);
        if (code == TFPI_OK)
            code = key_at(&r, key, &e->key);
        if (code == TFPI_OK)
            code = value(&r, values + k * width, width, data[values + count * width + k], e);
    }
    if (code != TFPI_OK) {
        tp_flex_free(*entries, *n);
        *entries = NULL;
        *n = 0;
    }
    return code;
}

void tp_flex_free(tp_flex_entry *entries, int n)
{
    for (int i = 0; entries && i < n; i++) {
        free(entries[i].ints);
        free(entries[i].floats);
    }
    free(entries);
}
