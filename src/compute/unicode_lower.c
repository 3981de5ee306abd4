/* unicode_lower.c - ASCII and Unicode lowercasing (unicode_lower.h): UTF-8
 * decoded strictly (no overlong forms, surrogates or code points past
 * U+10FFFF; each byte of an invalid sequence becomes U+FFFD), each code
 * point mapped through the generated ranges, and the two context rules of
 * Unicode's default lowercasing: U+0130 and the final sigma. */
#include "compute/unicode_lower.h"

#include <stdbool.h>

static const tp_lower_range *range_of(uint32_t c)
{
    int lo = 0, hi = tp_num_lower_ranges - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c < tp_lower_ranges[mid].first)
            hi = mid - 1;
        else if (c > tp_lower_ranges[mid].last)
            lo = mid + 1;
        else
            return &tp_lower_ranges[mid];
    }
    return NULL;
}

uint32_t tp_unicode_lower(uint32_t c)
{
    const tp_lower_range *r = range_of(c);
    return r && (c - r->first) % r->stride == 0 ? (uint32_t)((int32_t)c + r->delta) : c;
}

/* A letter with case: one that lowercases, or the lowercase of one. */
static bool is_cased(uint32_t c)
{
    if (tp_unicode_lower(c) != c)
        return true;
    for (int i = 0; i < tp_num_lower_ranges; i++) {
        const tp_lower_range *r = &tp_lower_ranges[i];
        int64_t k = (int64_t)c - r->delta - r->first;
        if (k >= 0 && (uint64_t)k <= r->last - r->first && k % r->stride == 0)
            return true;
    }
    return false;
}

/* Marks and punctuation a word's letters may be interleaved with
 * (Unicode's Case_Ignorable, its common part). */
static bool is_case_ignorable(uint32_t c)
{
    return c == 0x27 || c == 0xAD || c == 0xB7 || c == 0x2019 || (c >= 0x300 && c <= 0x36F) ||
           (c >= 0x2B0 && c <= 0x2FF);
}

/* Decodes one code point at s[i..n); *len gets its bytes (1 for an invalid
 * byte, which decodes to U+FFFD). */
static uint32_t decode(const uint8_t *s, size_t i, size_t n, size_t *len)
{
    uint8_t b = s[i];
    int extra = b < 0x80 ? 0 : (b & 0xE0) == 0xC0 ? 1 : (b & 0xF0) == 0xE0 ? 2 : (b & 0xF8) == 0xF0 ? 3 : -1;
    *len = 1;
    if (extra == 0)
        return b;
    if (extra < 0 || i + (size_t)extra >= n)
        return 0xFFFD;
    uint32_t c = b & (0x3Fu >> extra);
    for (int k = 1; k <= extra; k++) {
        if ((s[i + (size_t)k] & 0xC0) != 0x80)
            return 0xFFFD;
        c = c << 6 | (s[i + (size_t)k] & 0x3F);
    }
    static const uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
    if (c < smallest[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0xFFFD;
    *len = (size_t)extra + 1;
    return c;
}

static size_t encode(uint32_t c, uint8_t *out)
{
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xC0 | c >> 6);
        out[1] = (uint8_t)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | c >> 12);
        out[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | c >> 18);
    out[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (c & 0x3F));
    return 4;
}

/* The first code point before s[i] that is not case-ignorable is cased. */
static bool cased_before(const uint8_t *s, size_t i)
{
    while (i > 0) {
        size_t start = i - 1, len;
        while (start > 0 && i - start < 4 && (s[start] & 0xC0) == 0x80)
            start--;
        uint32_t c = decode(s, start, i, &len);
        if (start + len != i)
            c = 0xFFFD, start = i - 1;
        if (!is_case_ignorable(c))
            return is_cased(c);
        i = start;
    }
    return false;
}

/* The first code point from s[i] on that is not case-ignorable is cased. */
static bool cased_after(const uint8_t *s, size_t i, size_t n)
{
    while (i < n) {
        size_t len;
        uint32_t c = decode(s, i, n, &len);
        if (!is_case_ignorable(c))
            return is_cased(c);
        i += len;
    }
    return false;
}

size_t tp_utf8_lower(const uint8_t *s, size_t n, uint8_t *out)
{
    size_t o = 0;
    for (size_t i = 0, len; i < n; i += len) {
        uint32_t c = decode(s, i, n, &len);
        if (c == 0x130) { /* capital I with dot above: i + combining dot above */
            out[o++] = 'i';
            c = 0x307;
        } else if (c == 0x3A3 && cased_before(s, i) && !cased_after(s, i + len, n)) {
            c = 0x3C2; /* final sigma */
        } else {
            c = tp_unicode_lower(c);
        }
        o += encode(c, out + o);
    }
    return o;
}
