/* pbtxt_parse.c - reads protobuf text format into protobuf-c messages using
 * only the generated descriptors, so one parser serves every message type.
 * Accepted: `name: value`, `name { ... }` / `name: { ... }` / `name < ... >`,
 * repeated fields given once per value or as `[a, b]`, enum names or
 * numbers, C-escaped strings (adjacent strings join), `#` comments, and
 * optional `,` or `;` after a field. Every piece is malloc'd and linked into
 * the message as soon as it exists, so freeing the root frees a message
 * left half-built by an error. */
#include "model/pbtxt_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEPTH 100

typedef struct parser {
    const char *text, *p, *end;
    const char *source;
    const char *const *ignored;
    tfpi_status *status;
    bool failed;
    int depth;
} parser;

static bool fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return false;
    int line = 1, column = 1;
    for (const char *c = ps->text; c < ps->p; c++) {
        column = *c == '\n' ? 1 : column + 1;
        line += *c == '\n';
    }
    char detail[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(ps->status->message, sizeof ps->status->message, "%s:%d:%d: %s", ps->source, line, column,
             detail);
    ps->status->code = TFPI_INVALID_ARGUMENT;
    ps->failed = true;
    return false;
}

static void skip_space(parser *ps)
{
    while (ps->p < ps->end) {
        if (*ps->p == '#')
            while (ps->p < ps->end && *ps->p != '\n')
                ps->p++;
        else if (isspace((unsigned char)*ps->p))
            ps->p++;
        else
            break;
    }
}

static bool at(parser *ps, char c)
{
    skip_space(ps);
    return ps->p < ps->end && *ps->p == c;
}

static bool accept(parser *ps, char c)
{
    if (!at(ps, c))
        return false;
    ps->p++;
    return true;
}

static bool expect(parser *ps, char c, const char *after)
{
    return accept(ps, c) || fail(ps, "expected '%c' %s", c, after);
}

/* A bare token: identifier, number, enum name, true/false, inf, nan. */
static bool read_word(parser *ps, char *buf, size_t size)
{
    skip_space(ps);
    size_t n = 0;
    while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || strchr("_.+-", *ps->p))) {
        if (n + 1 >= size)
            return fail(ps, "token too long");
        buf[n++] = *ps->p++;
    }
    buf[n] = '\0';
    return n > 0 || fail(ps, "expected a value or a field name");
}

static bool is_octal(char c) { return c >= '0' && c <= '7'; }

/* One escape after the backslash; stores the byte in *out. */
static bool read_escape(parser *ps, uint8_t *out)
{
    if (ps->p >= ps->end)
        return fail(ps, "unterminated string");
    char c = *ps->p++;
    switch (c) {
    case 'n': *out = '\n'; return true;
    case 'r': *out = '\r'; return true;
    case 't': *out = '\t'; return true;
    case 'a': *out = '\a'; return true;
    case 'b': *out = '\b'; return true;
    case 'f': *out = '\f'; return true;
    case 'v': *out = '\v'; return true;
    case '\\': case '\'': case '"': case '?': *out = (uint8_t)c; return true;
    default: break;
    }
    if (is_octal(c)) {
        unsigned v = (unsigned)(c - '0');
        for (int i = 0; i < 2 && ps->p < ps->end && is_octal(*ps->p); i++)
            v = v * 8 + (unsigned)(*ps->p++ - '0');
        if (v > 255)
            return fail(ps, "octal escape out of range");
        *out = (uint8_t)v;
        return true;
    }
    if (c != 'x' && c != 'X')
        return fail(ps, "unknown escape '\\%c'", isprint((unsigned char)c) ? c : '?');
    unsigned v = 0;
    int digits = 0;
    for (; digits < 2 && ps->p < ps->end && isxdigit((unsigned char)*ps->p); digits++) {
        char h = *ps->p++;
        v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : tolower((unsigned char)h) - 'a' + 10);
    }
    if (digits == 0)
        return fail(ps, "\\x needs hex digits");
    *out = (uint8_t)v;
    return true;
}

/* One or more adjacent quoted strings, joined and NUL-terminated. */
static bool read_string(parser *ps, ProtobufCBinaryData *out)
{
    size_t cap = 64, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return fail(ps, "out of memory");
    while (at(ps, '"') || at(ps, '\'')) {
        char quote = *ps->p++;
        while (ps->p < ps->end && *ps->p != quote && *ps->p != '\n') {
            if (n + 2 >= cap) {
                uint8_t *grown = realloc(buf, cap *= 2);
                if (!grown) {
                    free(buf);
                    return fail(ps, "out of memory");
                }
                buf = grown;
            }
            char c = *ps->p++;
            if (c != '\\')
                buf[n++] = (uint8_t)c;
            else if (!read_escape(ps, &buf[n++])) {
                free(buf);
                return false;
            }
        }
        if (ps->p >= ps->end || *ps->p != quote) {
            free(buf);
            return fail(ps, "unterminated string");
        }
        ps->p++;
    }
    buf[n] = '\0';
    out->data = buf;
    out->len = n;
    return true;
}

static bool parse_float_word(const char *word, double *out)
{
    const char *w = word;
    bool negative = *w == '-';
    w += negative || *w == '+';
    if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity") || !strcasecmp(w, "inff")) {
        *out = negative ? -INFINITY : INFINITY;
        return true;
    }
    if (!strcasecmp(w, "nan")) {
        *out = NAN;
        return true;
    }
    char *end;
    errno = 0;
    *out = strtod(word, &end);
    if (end != word && (*end == 'f' || *end == 'F'))
        end++;
    return end != word && *end == '\0';
}

static bool parse_int_word(parser *ps, const char *word, bool is_signed, int64_t lo, uint64_t hi,
                           uint64_t *out)
{
    char *end;
    errno = 0;
    if (word[0] == '-') {
        long long v = strtoll(word, &end, 0);
        if (!is_signed || errno || *end || end == word || v < lo)
            return fail(ps, "integer '%s' out of range", word);
        *out = (uint64_t)v;
        return true;
    }
    unsigned long long v = strtoull(word, &end, 0);
    if (errno || *end || end == word || v > hi)
        return fail(ps, "'%s' is not a valid integer here", word);
    *out = v;
    return true;
}

/* Reads a scalar of the field's type into slot. */
static bool parse_scalar(parser *ps, const ProtobufCFieldDescriptor *f, void *slot)
{
    if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES) {
        if (!at(ps, '"') && !at(ps, '\''))
            return fail(ps, "field '%s' needs a quoted string", f->name);
        ProtobufCBinaryData s;
        if (!read_string(ps, &s))
            return false;
        if (f->type == PROTOBUF_C_TYPE_BYTES) {
            *(ProtobufCBinaryData *)slot = s;
            return true;
        }
        if (memchr(s.data, 0, s.len)) { /* a C string would end there: a name would silently lose its tail */
            free(s.data);
            return fail(ps, "field '%s' holds a NUL byte", f->name);
        }
        *(char **)slot = (char *)s.data;
        return true;
    }
    char word[80];
    if (!read_word(ps, word, sizeof word))
        return false;
    uint64_t u;
    double d;
    switch (f->type) {
    case PROTOBUF_C_TYPE_FLOAT: case PROTOBUF_C_TYPE_DOUBLE:
        if (!parse_float_word(word, &d))
            return fail(ps, "'%s' is not a number (field '%s')", word, f->name);
        if (f->type == PROTOBUF_C_TYPE_FLOAT)
            *(float *)slot = (float)d;
        else
            *(double *)slot = d;
        return true;
    case PROTOBUF_C_TYPE_BOOL:
        if (!strcmp(word, "true") || !strcmp(word, "True") || !strcmp(word, "t") || !strcmp(word, "1"))
            *(protobuf_c_boolean *)slot = 1;
        else if (!strcmp(word, "false") || !strcmp(word, "False") || !strcmp(word, "f") ||
                 !strcmp(word, "0"))
            *(protobuf_c_boolean *)slot = 0;
        else
            return fail(ps, "'%s' is not a bool (field '%s')", word, f->name);
        return true;
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(f->descriptor, word);
        if (v) {
            *(int *)slot = v->value;
            return true;
        }
        if (!parse_int_word(ps, word, true, INT32_MIN, INT32_MAX, &u))
            return false;
        *(int *)slot = (int)(int64_t)u;
        return true;
    }
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
        if (!parse_int_word(ps, word, true, INT64_MIN, INT64_MAX, &u))
            return false;
        *(int64_t *)slot = (int64_t)u;
        return true;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
        if (!parse_int_word(ps, word, false, 0, UINT64_MAX, &u))
            return false;
        *(uint64_t *)slot = u;
        return true;
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
        if (!parse_int_word(ps, word, false, 0, UINT32_MAX, &u))
            return false;
        *(uint32_t *)slot = (uint32_t)u;
        return true;
    default: /* int32, sint32, sfixed32 */
        if (!parse_int_word(ps, word, true, INT32_MIN, INT32_MAX, &u))
            return false;
        *(int32_t *)slot = (int32_t)(int64_t)u;
        return true;
    }
}

static bool parse_body(parser *ps, ProtobufCMessage *msg, char close);

/* A new message of the field's type, initialised, stored into slot. */
static bool parse_submessage(parser *ps, const ProtobufCFieldDescriptor *f, void *slot)
{
    const ProtobufCMessageDescriptor *desc = f->descriptor;
    accept(ps, ':');
    char close = accept(ps, '{') ? '}' : accept(ps, '<') ? '>' : 0;
    if (!close)
        return fail(ps, "expected '{' after field '%s'", f->name);
    ProtobufCMessage *sub = malloc(desc->sizeof_message);
    if (!sub)
        return fail(ps, "out of memory");
    desc->message_init(sub);
    *(ProtobufCMessage **)slot = sub;
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "messages nested more than %d deep", MAX_DEPTH);
    bool ok = parse_body(ps, sub, close);
    ps->depth--;
    return ok;
}

/* Room for one more element of a repeated field; returns its slot. The
 * array's capacity is the power of two at or above its count, doubled when
 * the count reaches it, so a 100,000-node graph is not copied 100,000 times. */
static void *grow_repeated(parser *ps, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
    size_t *count = (size_t *)((char *)msg + f->quantifier_offset);
    void **array = (void **)((char *)msg + f->offset);
    size_t size = pbtxt_value_size(f->type);
    if ((*count & (*count - 1)) == 0) { /* 0, or full at a power of two */
        size_t cap = *count ? 2 * *count : 1, bytes;
        char *grown = __builtin_mul_overflow(cap, size, &bytes) ? NULL : realloc(*array, bytes);
        if (!grown) {
            fail(ps, "out of memory");
            return NULL;
        }
        *array = grown;
    }
    char *slot = (char *)*array + (*count)++ * size;
    memset(slot, 0, size);
    return slot;
}

static bool parse_value(parser *ps, const ProtobufCFieldDescriptor *f, void *slot)
{
    return f->type == PROTOBUF_C_TYPE_MESSAGE ? parse_submessage(ps, f, slot) : parse_scalar(ps, f, slot);
}

static bool parse_repeated(parser *ps, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
    bool is_message = f->type == PROTOBUF_C_TYPE_MESSAGE;
    bool colon = accept(ps, ':');
    if (!colon && !is_message)
        return fail(ps, "expected ':' after field '%s'", f->name);
    if (!accept(ps, '[')) {
        void *slot = grow_repeated(ps, msg, f);
        return slot && parse_value(ps, f, slot);
    }
    if (accept(ps, ']'))
        return true;
    do {
        void *slot = grow_repeated(ps, msg, f);
        if (!slot || !parse_value(ps, f, slot))
            return false;
    } while (accept(ps, ','));
    return expect(ps, ']', "to close the list");
}

static bool parse_singular(parser *ps, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
    void *slot = (char *)msg + f->offset;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
        uint32_t *which = (uint32_t *)((char *)msg + f->quantifier_offset);
        if (*which != 0)
            return fail(ps, "field '%s' and another field of its oneof are both set", f->name);
        *which = f->id;
        memset(slot, 0, pbtxt_value_size(f->type)); /* the union held nothing before */
    } else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset &&
               f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE) {
        *(protobuf_c_boolean *)((char *)msg + f->quantifier_offset) = 1;
    }
    if (f->type != PROTOBUF_C_TYPE_MESSAGE && !expect(ps, ':', "after the field name"))
        return false;
    return parse_value(ps, f, slot);
}

static bool skip_string(parser *ps)
{
    ProtobufCBinaryData ignored;
    if (!read_string(ps, &ignored))
        return false;
    free(ignored.data);
    return true;
}

/* The closing bracket for an opening one at the cursor (consumed), or 0. */
static char open_bracket(parser *ps)
{
    return accept(ps, '{') ? '}' : accept(ps, '<') ? '>' : accept(ps, '[') ? ']' : 0;
}

size_t pbtxt_value_size(ProtobufCType type)
{
    switch (type) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_ENUM: return sizeof(int);
    case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
    default: return 4;
    }
}

/* Skips everything up to the matching `close`, strings and nesting included. */
static bool skip_balanced(parser *ps, char close)
{
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "messages nested more than %d deep", MAX_DEPTH);
    while (!accept(ps, close)) {
        char inner;
        if (ps->p >= ps->end)
            return fail(ps, "missing '%c'", close);
        if (at(ps, '"') || at(ps, '\'')) {
            if (!skip_string(ps))
                return false;
        } else if ((inner = open_bracket(ps))) {
            if (!skip_balanced(ps, inner))
                return false;
        } else {
            ps->p++;
        }
    }
    ps->depth--;
    return true;
}

/* Skips a field's value of any shape: scalar, string, list or message. */
static bool skip_value(parser *ps)
{
    char word[80];
    bool colon = accept(ps, ':');
    char close = open_bracket(ps);
    if (close)
        return skip_balanced(ps, close);
    if (!colon)
        return fail(ps, "expected ':' or '{'");
    return at(ps, '"') || at(ps, '\'') ? skip_string(ps) : read_word(ps, word, sizeof word);
}

static bool is_ignored(const parser *ps, const char *name)
{
    for (int i = 0; ps->ignored && ps->ignored[i]; i++)
        if (!strcmp(ps->ignored[i], name))
            return true;
    return false;
}

/* Fields until `close` (or the end of the text when close is 0). */
static bool parse_body(parser *ps, ProtobufCMessage *msg, char close)
{
    const ProtobufCMessageDescriptor *desc = msg->descriptor;
    bool *seen = calloc(desc->n_fields + 1, sizeof *seen);
    if (!seen)
        return fail(ps, "out of memory");
    bool ok = true;
    while (ok) {
        skip_space(ps);
        if (close ? accept(ps, close) : ps->p >= ps->end)
            break;
        if (ps->p >= ps->end) {
            ok = fail(ps, "missing '%c' at the end of the text", close);
            break;
        }
        char name[128];
        const char *name_at = ps->p;
        if (!(ok = read_word(ps, name, sizeof name)))
            break;
        const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(desc, name);
        if (is_ignored(ps, name))
            ok = skip_value(ps);
        else if (!f) {
            ps->p = name_at; /* the error points at the name */
            ok = fail(ps, "%s has no field '%s'", desc->name, name);
        }
        else if (f->label == PROTOBUF_C_LABEL_REPEATED)
            ok = parse_repeated(ps, msg, f);
        else if (seen[f - desc->fields])
            ok = fail(ps, "field '%s' is given twice", name);
        else {
            seen[f - desc->fields] = true;
            ok = parse_singular(ps, msg, f);
        }
        if (ok && !accept(ps, ','))
            accept(ps, ';');
    }
    free(seen);
    return ok;
}

ProtobufCMessage *pbtxt_parse(const ProtobufCMessageDescriptor *desc, const char *text, size_t size,
                              const char *source, const char *const *ignored, tfpi_status *status)
{
    parser ps = {.text = text, .p = text, .end = text + size, .source = source, .ignored = ignored,
                 .status = status};
    ProtobufCMessage *msg = malloc(desc->sizeof_message);
    if (!msg) {
        fail(&ps, "out of memory");
        return NULL;
    }
    desc->message_init(msg);
    if (!parse_body(&ps, msg, 0)) {
        protobuf_c_message_free_unpacked(msg, NULL);
        return NULL;
    }
    return msg;
}
