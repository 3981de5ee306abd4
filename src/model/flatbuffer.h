/* flatbuffer.h - reading a FlatBuffer that nothing vouches for: every
 * table, vtable, field, vector, string and union is checked against the
 * buffer's bounds (in overflow-checked arithmetic) as it is reached, and a
 * failure is one line naming the table and field ("Tensor.shape: ...").
 * The schema layers (tflite_schema.c, tflite_metadata.c) walk everything a
 * runtime reads through these functions once, at load, and keep what they
 * found; nothing reads the raw bytes after that.
 *
 * The format: little-endian; a root uoffset at byte 0 (then a 4-byte file
 * identifier); a table starts with a soffset back to its vtable (vtable =
 * table - soffset), which holds its own size, the table's inline size and
 * one u16 per field (the field's offset in the table, 0 = absent); a field
 * that refers to an object holds a uoffset counted from the field itself;
 * a vector is a u32 count and its elements; a string a byte vector with a
 * NUL after it; a union two fields, a u8 type then the table. */
#ifndef TFPI_FLATBUFFER_H
#define TFPI_FLATBUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

/* Tables nest no deeper than this below the root. */
#define TP_FB_MAX_DEPTH 64

/* A buffer being read, and where errors go. */
typedef struct tp_fb {
    const uint8_t *data;
    size_t size;
    const char *source; /* names the file in errors */
    char where[96];     /* what is being read ("subgraph 0, tensor 7"), added to errors */
    tfpi_status *status;
} tp_fb;

/* A checked table: its position, its vtable's and their sizes. */
typedef struct tp_fb_table {
    size_t pos, vtable;
    uint16_t vtable_size, inline_size;
    int depth;
    const char *type; /* the schema's name of the table, for errors */
} tp_fb_table;

/* A checked vector: count elements of elem_size bytes from `pos`. */
typedef struct tp_fb_vector {
    size_t pos;
    uint32_t count;
    size_t elem_size;
} tp_fb_vector;

/* Sets up fb over data[0..size). */
void tp_fb_init(tp_fb *fb, const uint8_t *data, size_t size, const char *source, tfpi_status *status);

/* "SOURCE: Type.field: message (where)" into fb's status; returns the code. */
tfpi_code tp_fb_fail(tp_fb *fb, const tp_fb_table *t, const char *field, tfpi_code code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The root table, after checking the identifier at bytes 4..8 (NULL: none). */
tfpi_code tp_fb_root(tp_fb *fb, const char *identifier, const char *type, tp_fb_table *root);

/* True if field n is present (its vtable slot is non-zero). */
bool tp_fb_has(const tp_fb *fb, const tp_fb_table *t, int field);

/* Scalars: the field's value, or `fallback` when it is absent; an error if
 * its bytes lie outside the table. */
tfpi_code tp_fb_u8(tp_fb *fb, const tp_fb_table *t, int field, const char *name, uint8_t fallback, uint8_t *out);
tfpi_code tp_fb_i8(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int8_t fallback, int8_t *out);
tfpi_code tp_fb_i16(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int16_t fallback, int16_t *out);
tfpi_code tp_fb_i32(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int32_t fallback, int32_t *out);
tfpi_code tp_fb_u32(tp_fb *fb, const tp_fb_table *t, int field, const char *name, uint32_t fallback, uint32_t *out);
tfpi_code tp_fb_i64(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int64_t fallback, int64_t *out);
tfpi_code tp_fb_u64(tp_fb *fb, const tp_fb_table *t, int field, const char *name, uint64_t fallback, uint64_t *out);
tfpi_code tp_fb_f32(tp_fb *fb, const tp_fb_table *t, int field, const char *name, float fallback, float *out);
tfpi_code tp_fb_bool(tp_fb *fb, const tp_fb_table *t, int field, const char *name, bool fallback, bool *out);

/* The table field n refers to (*present false, and *child zeroed, when the
 * field is absent). `type` names the child's table. */
tfpi_code tp_fb_table_field(tp_fb *fb, const tp_fb_table *t, int field, const char *name, const char *type,
                            tp_fb_table *child, bool *present);

/* The vector field n refers to (count 0 when absent); every element's
 * bytes are checked to lie in the buffer. */
tfpi_code tp_fb_vector_field(tp_fb *fb, const tp_fb_table *t, int field, const char *name, size_t elem_size,
                             tp_fb_vector *v);

/* Element i (< v->count) of a vector of tables. */
tfpi_code tp_fb_vector_table(tp_fb *fb, const tp_fb_vector *v, uint32_t i, const tp_fb_table *parent,
                             const char *name, const char *type, tp_fb_table *child);

/* Element i of a vector of scalars (no check: the vector's bounds were). */
int32_t tp_fb_vector_i32(const tp_fb *fb, const tp_fb_vector *v, uint32_t i);
int64_t tp_fb_vector_i64(const tp_fb *fb, const tp_fb_vector *v, uint32_t i);
float tp_fb_vector_f32(const tp_fb *fb, const tp_fb_vector *v, uint32_t i);
uint8_t tp_fb_vector_u8(const tp_fb *fb, const tp_fb_vector *v, uint32_t i);

/* The string field n refers to ("" when absent): NUL-terminated in the
 * buffer, its length in *len (may be NULL). */
tfpi_code tp_fb_string(tp_fb *fb, const tp_fb_table *t, int field, const char *name, const char **s, size_t *len);

/* A union in fields n (type) and n + 1 (table): *type 0 means none; a type
 * above max_type is an error, and so is a type without its table. */
tfpi_code tp_fb_union(tp_fb *fb, const tp_fb_table *t, int field, const char *name, int max_type,
                      const char *table_type, uint8_t *type, tp_fb_table *child);

/* A table at an absolute position (a table nested in a byte vector is read
 * with its own tp_fb instead). */
tfpi_code tp_fb_table_at(tp_fb *fb, size_t pos, int depth, const tp_fb_table *parent, const char *name,
                         const char *type, tp_fb_table *out);

#endif
