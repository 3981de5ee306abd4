/* unicode_lower.h - lowercasing text: ASCII only (TensorFlow's StringLower
 * with no encoding), or UTF-8 with Unicode's full lowercase mapping (with
 * encoding "utf-8", as ICU does it: U+0130 becomes "i" + U+0307, a capital
 * sigma at the end of a word the final sigma U+03C2, an invalid byte
 * U+FFFD). */
#ifndef TFPI_UNICODE_LOWER_H
#define TFPI_UNICODE_LOWER_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_lower_range {
    uint32_t first, last;
    int32_t delta;
    uint8_t stride;
} tp_lower_range;

/* The generated table (unicode_lower_table.c), sorted by first. */
extern const tp_lower_range tp_lower_ranges[];
extern const int tp_num_lower_ranges;

/* The lowercase of code point c under the one-to-one mappings. */
uint32_t tp_unicode_lower(uint32_t c);

/* Writes the lowercase of the UTF-8 text s[0..n) to out (at least
 * 3 * n bytes: no code point grows past three bytes per input byte) and
 * returns its length. */
size_t tp_utf8_lower(const uint8_t *s, size_t n, uint8_t *out);

#endif
