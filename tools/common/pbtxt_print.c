/* pbtxt_print.c - writes any protobuf-c message in protobuf text format, as
 * TensorFlow does for GraphDefs: one `name: value` line per value (repeated
 * fields repeat the name), `name {` ... `}` blocks for messages, C-escaped
 * strings, the shortest float that reads back exactly, and proto3 fields
 * at their default left out (a set oneof member is always written). */
#include "pbtxt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void print_escaped(FILE *out, const uint8_t *data, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        uint8_t c = data[i];
        switch (c) {
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        case '"': fputs("\\\"", out); break;
        case '\'': fputs("\\'", out); break;
        case '\\': fputs("\\\\", out); break;
        default:
            if (c < 0x20 || c >= 0x7f)
                fprintf(out, "\\%03o", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

/* The shortest %g form with at least min_digits that parses back to v. */
static void print_real(FILE *out, double v, bool single)
{
    if (isnan(v)) {
        fputs("nan", out);
        return;
    }
    if (isinf(v)) {
        fputs(v < 0 ? "-inf" : "inf", out);
        return;
    }
    char buf[40];
    for (int digits = single ? 6 : 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, out);
}

static void print_scalar(FILE *out, const ProtobufCFieldDescriptor *f, const void *slot)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
        fprintf(out, "%" PRId64, *(const int64_t *)slot);
        break;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
        fprintf(out, "%" PRIu64, *(const uint64_t *)slot);
        break;
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
        fprintf(out, "%" PRIu32, *(const uint32_t *)slot);
        break;
    case PROTOBUF_C_TYPE_FLOAT: print_real(out, *(const float *)slot, true); break;
    case PROTOBUF_C_TYPE_DOUBLE: print_real(out, *(const double *)slot, false); break;
    case PROTOBUF_C_TYPE_BOOL: fputs(*(const protobuf_c_boolean *)slot ? "true" : "false", out); break;
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(f->descriptor, *(const int *)slot);
        if (v)
            fputs(v->name, out);
        else
            fprintf(out, "%d", *(const int *)slot);
        break;
    }
    case PROTOBUF_C_TYPE_STRING: {
        const char *s = *(char *const *)slot;
        print_escaped(out, (const uint8_t *)s, strlen(s));
        break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *b = slot;
        print_escaped(out, b->data, b->len);
        break;
    }
    default: /* int32, sint32, sfixed32 */
        fprintf(out, "%" PRId32, *(const int32_t *)slot);
    }
}

/* True if a singular proto3 field holds its default (and is left out). */
static bool is_default(const ProtobufCFieldDescriptor *f, const void *slot)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: return !*(char *const *)slot || !**(char *const *)slot;
    case PROTOBUF_C_TYPE_BYTES: return ((const ProtobufCBinaryData *)slot)->len == 0;
    case PROTOBUF_C_TYPE_MESSAGE: return *(ProtobufCMessage *const *)slot == NULL;
    case PROTOBUF_C_TYPE_FLOAT: return *(const float *)slot == 0 && !signbit(*(const float *)slot);
    case PROTOBUF_C_TYPE_DOUBLE: return *(const double *)slot == 0 && !signbit(*(const double *)slot);
    case PROTOBUF_C_TYPE_BOOL: return !*(const protobuf_c_boolean *)slot;
    case PROTOBUF_C_TYPE_ENUM: return *(const int *)slot == 0;
    default: {
        static const uint8_t zero[8];
        return memcmp(slot, zero, pbtxt_value_size(f->type)) == 0;
    }
    }
}

static void print_message(FILE *out, const ProtobufCMessage *msg, int indent);

static void print_value(FILE *out, const ProtobufCFieldDescriptor *f, const void *slot, int indent)
{
    fprintf(out, "%*s%s", indent, "", f->name);
    if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
        fputs(" {\n", out);
        const ProtobufCMessage *sub = *(ProtobufCMessage *const *)slot;
        if (sub)
            print_message(out, sub, indent + 2);
        fprintf(out, "%*s}\n", indent, "");
        return;
    }
    fputs(": ", out);
    print_scalar(out, f, slot);
    fputc('\n', out);
}

static void print_message(FILE *out, const ProtobufCMessage *msg, int indent)
{
    const ProtobufCMessageDescriptor *desc = msg->descriptor;
    for (unsigned i = 0; i < desc->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &desc->fields[i];
        const char *slot = (const char *)msg + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)((const char *)msg + f->quantifier_offset);
            const char *array = *(char *const *)slot;
            for (size_t k = 0; k < n; k++)
                print_value(out, f, array + k * pbtxt_value_size(f->type), indent);
        } else if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
            if (*(const uint32_t *)((const char *)msg + f->quantifier_offset) == f->id)
                print_value(out, f, slot, indent);
        } else if (!is_default(f, slot)) {
            print_value(out, f, slot, indent);
        }
    }
}

bool pbtxt_print(FILE *out, const ProtobufCMessage *msg)
{
    print_message(out, msg, 0);
    return !ferror(out);
}
