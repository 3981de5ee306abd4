/* flexbuffer.h - reading the FlexBuffer map a TFLite custom operator keeps
 * in its custom_options (TFLite_Detection_PostProcess: max_detections,
 * nms_iou_threshold, ...), checked like the FlatBuffer: every offset,
 * width, length and type is bounds-checked before it is followed.
 *
 * The format: the root is at the end (last byte: the root's byte width,
 * the byte before: its packed type, type << 2 | log2 of the width of what
 * it points at); a value of an offset type (key, string, map, vector...)
 * is an unsigned offset back from its own position; a vector's length sits
 * one element width before its first element, an untyped vector's or a
 * map's element types (one packed byte each) right after its elements; a
 * map is a vector of values with, before its length, the offset to a
 * sorted vector of keys and that vector's element width. */
#ifndef TFPI_FLEXBUFFER_H
#define TFPI_FLEXBUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

typedef enum tp_flex_kind {
    TP_FLEX_INT,    /* int, uint, bool: i */
    TP_FLEX_FLOAT,  /* f */
    TP_FLEX_BOOL,   /* i (0 or 1) */
    TP_FLEX_STRING, /* s (NUL-terminated in the buffer), count bytes */
    TP_FLEX_INTS,   /* a vector of integers: ints[0..count) */
    TP_FLEX_FLOATS, /* a vector of floats: floats[0..count) */
    TP_FLEX_OTHER,  /* null, blob, nested map or vector: skipped */
} tp_flex_kind;

typedef struct tp_flex_entry {
    const char *key; /* NUL-terminated in the buffer */
    tp_flex_kind kind;
    int64_t i;
    double f;
    const char *s;
    size_t count;
    int64_t *ints;
    double *floats;
} tp_flex_entry;

/* Reads the map at the root of data[0..size) into *entries (n of them,
 * freed with tp_flex_free); an error ("WHERE: custom_options: ...")
 * for anything out of bounds or not a map. */
tfpi_code tp_flex_read_map(const uint8_t *data, size_t size, const char *where, tp_flex_entry **entries, int *n,
                           tfpi_status *status);
void tp_flex_free(tp_flex_entry *entries, int n);

#endif
