/* npy_strings.c - string arrays in .npy files: fixed-width bytes ('|S5':
 * trailing NULs dropped, as numpy does), fixed-width UTF-32 ('<U5': each
 * element turned into UTF-8) and object arrays ('|O'), whose elements numpy
 * stores as a pickle: the pickle's opcodes are walked (never executed) and
 * the str/bytes objects of the array's element list, in order, are taken. */
#include "npy_strings.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Sets element i of string tensor t to bytes[0..n), copied. */
static tfpi_code set(tfpi_tensor *t, int64_t i, const uint8_t *bytes, size_t n, tfpi_status *status)
{
    return tfpi_tensor_set_string(t, (size_t)i, bytes, n, status);
}

tfpi_code npy_fixed_bytes(tfpi_tensor *t, const uint8_t *data, size_t width, tfpi_status *status)
{
    int64_t n = tfpi_tensor_num_elements(t);
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *e = data + (size_t)i * width;
        size_t len = width;
        while (len > 0 && e[len - 1] == 0)
            len--;
        tfpi_code code = set(t, i, e, len, status);
        if (code != TFPI_OK)
            return code;
    }
    return TFPI_OK;
}

/* UTF-8 of code point c into out (4 bytes at most); 0 if c is not one. */
static size_t utf8(uint32_t c, uint8_t *out)
{
    if (c < 0x80) {
        out[0] = (uint8_t)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (uint8_t)(0xc0 | c >> 6);
        out[1] = (uint8_t)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c >= 0xd800 && c < 0xe000)
        return 0;
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xe0 | c >> 12);
        out[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
        out[2] = (uint8_t)(0x80 | (c & 0x3f));
        return 3;
    }
    if (c > 0x10ffff)
        return 0;
    out[0] = (uint8_t)(0xf0 | c >> 18);
    out[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
    out[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
    out[3] = (uint8_t)(0x80 | (c & 0x3f));
    return 4;
}

tfpi_code npy_fixed_unicode(tfpi_tensor *t, const uint8_t *data, size_t chars, const char *path,
                            tfpi_status *status)
{
    int64_t n = tfpi_tensor_num_elements(t);
    uint8_t *text = malloc(chars * 4 + 1);
    if (!text)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", path);
    tfpi_code code = TFPI_OK;
    for (int64_t i = 0; i < n && code == TFPI_OK; i++) {
        const uint8_t *e = data + (size_t)i * chars * 4;
        size_t len = chars, out = 0;
        while (len > 0 && !(e[4 * len - 4] | e[4 * len - 3] | e[4 * len - 2] | e[4 * len - 1]))
            len--;
        for (size_t k = 0; k < len && code == TFPI_OK; k++) {
            uint32_t c = (uint32_t)e[4 * k] | (uint32_t)e[4 * k + 1] << 8 | (uint32_t)e[4 * k + 2] << 16 |
                         (uint32_t)e[4 * k + 3] << 24;
            size_t wrote = utf8(c, text + out);
            if (!wrote)
                code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: element %lld holds code point 0x%x",
                                       path, (long long)i, (unsigned)c);
            out += wrote;
        }
        if (code == TFPI_OK)
            code = set(t, i, text, out, status);
    }
    free(text);
    return code;
}

/* ---- object arrays: the pickle numpy writes ---- */

typedef struct pickle_reader {
    const uint8_t *data;
    size_t size, pos;
    /* The memo's strings (a memo slot of another object has data NULL). */
    size_t memo_size;
    tfpi_bytes *memo;
    tfpi_bytes top; /* the object on top of the stack, if a string (data NULL otherwise) */
    /* Strings pushed since the last EMPTY_LIST: the array's elements. */
    size_t count, cap;
    tfpi_bytes *items;
} pickle_reader;

static bool take(pickle_reader *r, size_t n, const uint8_t **out)
{
    if (n > r->size - r->pos)
        return false;
    *out = r->data + r->pos;
    r->pos += n;
    return true;
}

static bool take_uint(pickle_reader *r, size_t n, uint64_t *v)
{
    const uint8_t *p;
    if (!take(r, n, &p))
        return false;
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v |= (uint64_t)p[i] << (8 * i);
    return true;
}

static bool push_item(pickle_reader *r, tfpi_bytes s)
{
    if (r->count == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        tfpi_bytes *grown = realloc(r->items, cap * sizeof *grown);
        if (!grown)
            return false;
        r->items = grown;
        r->cap = cap;
    }
    r->items[r->count++] = s;
    r->top = s;
    return true;
}

static bool memo_put(pickle_reader *r, uint64_t slot)
{
    if (slot > r->size) /* each memo slot takes at least one opcode */
        return false;
    if (slot >= r->memo_size) {
        tfpi_bytes *grown = realloc(r->memo, (size_t)(slot + 1) * sizeof *grown);
        if (!grown)
            return false;
        memset(grown + r->memo_size, 0, (size_t)(slot + 1 - r->memo_size) * sizeof *grown);
        r->memo = grown;
        r->memo_size = (size_t)slot + 1;
    }
    r->memo[slot] = r->top;
    return true;
}

/* Bytes of the length that precedes a string opcode's data (0: not a string). */
static size_t string_length_bytes(uint8_t op)
{
    switch (op) {
    case 'X': case 'B': case 'T': return 4;     /* BINUNICODE, BINBYTES, BINSTRING */
    case 0x8c: case 'C': case 'U': return 1;    /* SHORT_BINUNICODE, SHORT_BINBYTES, SHORT_BINSTRING */
    case 0x8d: case 0x8e: return 8;             /* BINUNICODE8, BINBYTES8 */
    default: return 0;
    }
}

/* One opcode; false on anything malformed or unexpected. *stop at '.'. */
static bool step(pickle_reader *r, bool *stop)
{
    const uint8_t *op, *arg;
    uint64_t n;
    if (!take(r, 1, &op))
        return false;
    size_t length_bytes = string_length_bytes(*op);
    if (length_bytes)
        return take_uint(r, length_bytes, &n) && n <= r->size - r->pos && take(r, (size_t)n, &arg) &&
               push_item(r, (tfpi_bytes){(size_t)n, arg});
    switch (*op) { /* the memo ops store the top of the stack; every other op replaces it */
    case 'q': return take_uint(r, 1, &n) && memo_put(r, n);  /* BINPUT */
    case 'r': return take_uint(r, 4, &n) && memo_put(r, n);  /* LONG_BINPUT */
    case 0x94: return memo_put(r, r->memo_size);             /* MEMOIZE */
    default: break;
    }
    r->top.data = NULL;
    switch (*op) {
    case 0x80: return take(r, 1, &arg);                      /* PROTO */
    case 0x95: return take(r, 8, &arg);                      /* FRAME */
    case 'c': /* GLOBAL module\nname\n */
        for (int lines = 0; lines < 2; lines++) {
            const uint8_t *end = memchr(r->data + r->pos, '\n', r->size - r->pos);
            if (!end)
                return false;
            r->pos = (size_t)(end - r->data) + 1;
        }
        return true;
    case 'h': case 'j':                                      /* BINGET, LONG_BINGET */
        if (!take_uint(r, *op == 'h' ? 1 : 4, &n) || n >= r->memo_size)
            return false;
        return !r->memo[n].data || push_item(r, r->memo[n]);
    case 'K': return take(r, 1, &arg);                       /* BININT1 */
    case 'M': return take(r, 2, &arg);                       /* BININT2 */
    case 'J': return take(r, 4, &arg);                       /* BININT */
    case ']': r->count = 0; return true;                     /* EMPTY_LIST: the elements follow */
    case '.': *stop = true; return true;                     /* STOP */
    case 'N': case 0x88: case 0x89: case 0x85: case 0x86: case 0x87: case 't': case '(': case ')':
    case 'e': case 'a': case 'R': case 'b': case 0x93: case '}': case 's': case 'u':
        return true; /* NONE, bools, tuples, MARK, lists, REDUCE, BUILD, STACK_GLOBAL, dicts */
    default: return false;
    }
}

tfpi_code npy_object_strings(tfpi_tensor *t, const uint8_t *pickle, size_t size, const char *path,
                             tfpi_status *status)
{
    pickle_reader r = {pickle, size, 0, 0, NULL, {0, NULL}, 0, 0, NULL};
    bool stop = false, ok = true;
    while (ok && !stop)
        ok = step(&r, &stop);
    int64_t n = tfpi_tensor_num_elements(t);
    tfpi_code code = TFPI_OK;
    if (!ok)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "%s: an object .npy whose pickle tfpi cannot read (at byte %zu); save strings with "
                               "dtype 'S' or 'U'", path, r.pos);
    else if ((int64_t)r.count != n)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "%s: an object .npy with %zu str/bytes elements for %lld places (only strings are "
                               "supported)", path, r.count, (long long)n);
    for (int64_t i = 0; code == TFPI_OK && i < n; i++)
        code = set(t, i, r.items[i].data, r.items[i].size, status);
    free(r.items);
    free(r.memo);
    return code;
}
