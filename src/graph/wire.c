/* wire.c - protobuf wire-format field walking (varints, fixed and
 * length-delimited fields), bounds-checked against hostile input. */
#include "graph/wire.h"

#include <string.h>

bool tp_wire_varint(tp_wire_reader *r, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->pos >= r->size)
            return false;
        uint8_t b = r->data[r->pos++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

bool tp_wire_next(tp_wire_reader *r, tp_wire_field *f)
{
    uint64_t key;
    if (!tp_wire_varint(r, &key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff)
        return false;
    f->number = (uint32_t)(key >> 3);
    f->wire_type = (int)(key & 7);
    f->bytes = NULL;
    f->length = 0;
    f->value = 0;
    switch (f->wire_type) {
    case TP_WIRE_VARINT:
        return tp_wire_varint(r, &f->value);
    case TP_WIRE_FIXED64:
    case TP_WIRE_FIXED32: {
        size_t n = f->wire_type == TP_WIRE_FIXED64 ? 8 : 4;
        if (r->size - r->pos < n)
            return false;
        for (size_t i = 0; i < n; i++)
            f->value |= (uint64_t)r->data[r->pos + i] << (8 * i);
        r->pos += n;
        return true;
    }
    case TP_WIRE_LEN: {
        uint64_t len;
        if (!tp_wire_varint(r, &len) || len > r->size - r->pos)
            return false;
        f->bytes = r->data + r->pos;
        f->length = (size_t)len;
        r->pos += (size_t)len;
        return true;
    }
    default:
        return false;
    }
}

bool tp_wire_nul_at(const uint8_t *data, size_t size, const uint32_t *path, int depth)
{
    tp_wire_reader r = {data, size, 0};
    tp_wire_field f;
    while (r.pos < r.size && tp_wire_next(&r, &f)) {
        if (f.number != path[0] || f.wire_type != TP_WIRE_LEN)
            continue;
        if (depth == 1 ? memchr(f.bytes, 0, f.length) != NULL : tp_wire_nul_at(f.bytes, f.length, path + 1, depth - 1))
            return true;
    }
    return false;
}
