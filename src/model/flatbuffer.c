/* flatbuffer.c - checked reads of a FlatBuffer (flatbuffer.h): positions
 * are size_t, every sum and product is checked before it is compared with
 * the buffer's size, and scalars are read byte by byte (little-endian,
 * unaligned-safe). */
#include "model/flatbuffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tp_fb_init(tp_fb *fb, const uint8_t *data, size_t size, const char *source, tfpi_status *status)
{
    *fb = (tp_fb){.data = data, .size = size, .source = source, .status = status};
}

tfpi_code tp_fb_fail(tp_fb *fb, const tp_fb_table *t, const char *field, tfpi_code code, const char *fmt, ...)
{
    char message[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    const char *type = t && t->type ? t->type : "";
    return tfpi_status_set(fb->status, code, "%s: %s%s%s%s%s%s%s%s", fb->source, type, *type && field ? "." : "",
                           field ? field : "", *type || field ? ": " : "", message, fb->where[0] ? " (" : "",
                           fb->where, fb->where[0] ? ")" : "");
}

static uint64_t read_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* True if [pos, pos + len) lies in the buffer. */
static bool in_buffer(const tp_fb *fb, size_t pos, uint64_t len)
{
    return pos <= fb->size && len <= fb->size - pos;
}

tfpi_code tp_fb_table_at(tp_fb *fb, size_t pos, int depth, const tp_fb_table *parent, const char *name,
                         const char *type, tp_fb_table *out)
{
    *out = (tp_fb_table){.type = type, .depth = depth};
    if (depth > TP_FB_MAX_DEPTH)
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT, "tables nest deeper than %d", TP_FB_MAX_DEPTH);
    if (!in_buffer(fb, pos, 4))
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT,
                          "the %s table at offset %zu lies outside the file (%zu bytes)", type, pos, fb->size);
    int64_t back = (int32_t)read_le(fb->data + pos, 4);
    int64_t vtable = (int64_t)pos - back; /* both within 2^63: no overflow */
    if (vtable < 0 || !in_buffer(fb, (size_t)vtable, 4))
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT,
                          "the vtable of the %s table at offset %zu (offset %lld) lies outside the file", type, pos,
                          (long long)vtable);
    out->pos = pos;
    out->vtable = (size_t)vtable;
    out->vtable_size = (uint16_t)read_le(fb->data + vtable, 2);
    out->inline_size = (uint16_t)read_le(fb->data + vtable + 2, 2);
    if (out->vtable_size < 4 || out->vtable_size % 2 || !in_buffer(fb, out->vtable, out->vtable_size))
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT,
                          "the vtable of the %s table at offset %zu has size %u, which does not fit the file", type,
                          pos, out->vtable_size);
    if (out->inline_size < 4 || !in_buffer(fb, pos, out->inline_size))
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT,
                          "the %s table at offset %zu claims %u bytes, past the end of the file", type, pos,
                          out->inline_size);
    return TFPI_OK;
}

tfpi_code tp_fb_root(tp_fb *fb, const char *identifier, const char *type, tp_fb_table *root)
{
    if (fb->size < 8)
        return tfpi_status_set(fb->status, TFPI_INVALID_ARGUMENT,
                               "%s: %zu bytes, too short for a FlatBuffer (truncated?)", fb->source, fb->size);
    if (identifier && memcmp(fb->data + 4, identifier, 4) != 0)
        return tfpi_status_set(fb->status, TFPI_INVALID_ARGUMENT, "%s: the file identifier is not %s", fb->source,
                               identifier);
    size_t pos = (size_t)read_le(fb->data, 4);
    if (pos < 4)
        return tfpi_status_set(fb->status, TFPI_INVALID_ARGUMENT, "%s: the root offset %zu points into the header",
                               fb->source, pos);
    return tp_fb_table_at(fb, pos, 0, NULL, NULL, type, root);
}

/* The field's offset in the table (0: absent). */
static uint16_t slot(const tp_fb *fb, const tp_fb_table *t, int field)
{
    size_t at = 4 + 2 * (size_t)field;
    if (field < 0 || at + 2 > t->vtable_size)
        return 0;
    return (uint16_t)read_le(fb->data + t->vtable + at, 2);
}

bool tp_fb_has(const tp_fb *fb, const tp_fb_table *t, int field) { return slot(fb, t, field) != 0; }

/* The position of field n's `width` bytes, 0 when absent. */
static tfpi_code field_pos(tp_fb *fb, const tp_fb_table *t, int field, const char *name, size_t width, size_t *pos)
{
    uint16_t off = slot(fb, t, field);
    *pos = 0;
    if (!off)
        return TFPI_OK;
    if ((size_t)off + width > t->inline_size)
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT,
                          "the field's %zu bytes at %u lie outside the table's %u bytes", width, off, t->inline_size);
    *pos = t->pos + off;
    return TFPI_OK;
}

static tfpi_code scalar(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int width, uint64_t fallback,
                        uint64_t *out)
{
    size_t pos;
    tfpi_code code = field_pos(fb, t, field, name, (size_t)width, &pos);
    *out = code == TFPI_OK && pos ? read_le(fb->data + pos, width) : fallback;
    return code;
}

#define SCALAR_READER(fn, ctype, width)                                                                        \
    tfpi_code fn(tp_fb *fb, const tp_fb_table *t, int field, const char *name, ctype fallback, ctype *out)    \
    {                                                                                                          \
        uint64_t v;                                                                                            \
        tfpi_code code = scalar(fb, t, field, name, width, 0, &v);                                             \
        if (code == TFPI_OK && !tp_fb_has(fb, t, field))                                                  \
            *out = fallback;                                                                                   \
        else                                                                                                   \
            *out = (ctype)v;                                                                                   \
        return code;                                                                                           \
    }


SCALAR_READER(tp_fb_u8, uint8_t, 1)
SCALAR_READER(tp_fb_i8, int8_t, 1)
SCALAR_READER(tp_fb_i16, int16_t, 2)
SCALAR_READER(tp_fb_i32, int32_t, 4)
SCALAR_READER(tp_fb_u32, uint32_t, 4)
SCALAR_READER(tp_fb_i64, int64_t, 8)
SCALAR_READER(tp_fb_u64, uint64_t, 8)

tfpi_code tp_fb_f32(tp_fb *fb, const tp_fb_table *t, int field, const char *name, float fallback, float *out)
{
    uint32_t bits;
    tfpi_code code = tp_fb_u32(fb, t, field, name, 0, &bits);
    if (code == TFPI_OK && tp_fb_has(fb, t, field))
        memcpy(out, &bits, sizeof *out);
    else
        *out = fallback;
    return code;
}

tfpi_code tp_fb_bool(tp_fb *fb, const tp_fb_table *t, int field, const char *name, bool fallback, bool *out)
{
    uint8_t v;
    tfpi_code code = tp_fb_u8(fb, t, field, name, fallback, &v);
    *out = v != 0;
    return code;
}

/* The position an offset field refers to (0 when the field is absent). */
static tfpi_code target(tp_fb *fb, const tp_fb_table *t, int field, const char *name, size_t *to)
{
    size_t pos;
    tfpi_code code = field_pos(fb, t, field, name, 4, &pos);
    *to = 0;
    if (code != TFPI_OK || !pos)
        return code;
    uint64_t off = read_le(fb->data + pos, 4);
    if (off == 0)
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT, "the offset points at itself");
    if (off > fb->size - pos)
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT,
                          "the offset %llu from %zu points outside the file (%zu bytes)", (unsigned long long)off, pos,
                          fb->size);
    *to = pos + (size_t)off;
    return TFPI_OK;
}

tfpi_code tp_fb_table_field(tp_fb *fb, const tp_fb_table *t, int field, const char *name, const char *type,
                            tp_fb_table *child, bool *present)
{
    size_t to;
    tfpi_code code = target(fb, t, field, name, &to);
    *child = (tp_fb_table){.type = type};
    *present = code == TFPI_OK && to;
    if (!*present)
        return code;
    return tp_fb_table_at(fb, to, t->depth + 1, t, name, type, child);
}

static tfpi_code vector_at(tp_fb *fb, const tp_fb_table *t, const char *name, size_t pos, size_t elem_size,
                           tp_fb_vector *v)
{
    if (!in_buffer(fb, pos, 4))
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT, "the vector's length at %zu lies outside the file",
                          pos);
    uint32_t count = (uint32_t)read_le(fb->data + pos, 4);
    uint64_t bytes = (uint64_t)count * elem_size; /* < 2^32 * 8: no overflow */
    if (!in_buffer(fb, pos + 4, bytes))
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT,
                          "a vector of %u elements of %zu bytes at %zu runs past the end of the file (%zu bytes)",
                          count, elem_size, pos, fb->size);
    *v = (tp_fb_vector){pos + 4, count, elem_size};
    return TFPI_OK;
}

tfpi_code tp_fb_vector_field(tp_fb *fb, const tp_fb_table *t, int field, const char *name, size_t elem_size,
                             tp_fb_vector *v)
{
    size_t to;
    tfpi_code code = target(fb, t, field, name, &to);
    *v = (tp_fb_vector){0, 0, elem_size};
    if (code != TFPI_OK || !to)
        return code;
    return vector_at(fb, t, name, to, elem_size, v);
}

tfpi_code tp_fb_vector_table(tp_fb *fb, const tp_fb_vector *v, uint32_t i, const tp_fb_table *parent,
                             const char *name, const char *type, tp_fb_table *child)
{
    size_t pos = v->pos + 4 * (size_t)i; /* inside the checked vector */
    uint64_t off = read_le(fb->data + pos, 4);
    if (off == 0)
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT, "element %u points at itself", i);
    if (off > fb->size - pos)
        return tp_fb_fail(fb, parent, name, TFPI_INVALID_ARGUMENT, "element %u points outside the file", i);
    return tp_fb_table_at(fb, pos + (size_t)off, parent->depth + 1, parent, name, type, child);
}

int32_t tp_fb_vector_i32(const tp_fb *fb, const tp_fb_vector *v, uint32_t i)
{
    return (int32_t)read_le(fb->data + v->pos + 4 * (size_t)i, 4);
}

int64_t tp_fb_vector_i64(const tp_fb *fb, const tp_fb_vector *v, uint32_t i)
{
    return (int64_t)read_le(fb->data + v->pos + 8 * (size_t)i, 8);
}

float tp_fb_vector_f32(const tp_fb *fb, const tp_fb_vector *v, uint32_t i)
{
    uint32_t bits = (uint32_t)read_le(fb->data + v->pos + 4 * (size_t)i, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint8_t tp_fb_vector_u8(const tp_fb *fb, const tp_fb_vector *v, uint32_t i) { return fb->data[v->pos + i]; }

tfpi_code tp_fb_string(tp_fb *fb, const tp_fb_table *t, int field, const char *name, const char **s, size_t *len)
{
    tp_fb_vector v;
    tfpi_code code = tp_fb_vector_field(fb, t, field, name, 1, &v);
    *s = "";
    if (len)
        *len = 0;
    if (code != TFPI_OK || !v.pos)
        return code;
    if (!in_buffer(fb, v.pos + v.count, 1) || fb->data[v.pos + v.count] != 0)
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT, "the string of %u bytes has no NUL after it", v.count);
    *s = (const char *)fb->data + v.pos;
    if (len)
        *len = v.count;
    return TFPI_OK;
}

tfpi_code tp_fb_union(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int max_type,
                      const char *table_type, uint8_t *type, tp_fb_table *child)
{
    bool present;
    *child = (tp_fb_table){.type = table_type};
    tfpi_code code = tp_fb_u8(fb, t, field, name, 0, type);
    if (code != TFPI_OK)
        return code;
    if (*type > max_type)
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT, "union type %u is past the schema's last, %d", *type,
                          max_type);
    code = tp_fb_table_field(fb, t, field + 1, name, table_type, child, &present);
    if (code == TFPI_OK && *type && !present)
        return tp_fb_fail(fb, t, name, TFPI_INVALID_ARGUMENT, "union type %u without its table", *type);
    if (code == TFPI_OK && !*type && present)
        *child = (tp_fb_table){.type = table_type};
    return code;
}
