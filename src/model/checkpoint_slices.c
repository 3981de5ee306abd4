/* checkpoint_slices.c - partitioned tensors. A partitioned variable's full
 * entry lists its slices; each slice is an ordinary entry under a key made
 * with TensorFlow's OrderedCode (a 0 byte, the escaped name, the rank, then
 * start and length of every dim). Reading one reassembles the full tensor,
 * checking that the slices cover it exactly once. Also reads the part of a
 * tensor that a RestoreV2 shape_and_slices string asks for. */
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "model/checkpoint_internal.h"

/* A hyper-rectangle of a tensor: [start, start + length) in every dim. */
typedef struct box {
    int ndims;
    int64_t start[TFPI_MAX_DIMS], length[TFPI_MAX_DIMS];
} box;

typedef struct key_buf {
    uint8_t bytes[4096];
    size_t len;
    bool overflow;
} key_buf;

static void put(key_buf *k, const uint8_t *bytes, size_t n)
{
    if (n > sizeof k->bytes - k->len) {
        k->overflow = true;
        return;
    }
    memcpy(k->bytes + k->len, bytes, n);
    k->len += n;
}

/* OrderedCode's increasing unsigned number: a length byte, then the value
 * big-endian in that many bytes (0 is the single byte 0). */
static void put_unsigned(key_buf *k, uint64_t v)
{
    uint8_t buf[9];
    int n = 0;
    for (uint64_t x = v; x; x >>= 8)
        n++;
    buf[0] = (uint8_t)n;
    for (int i = 0; i < n; i++)
        buf[n - i] = (uint8_t)(v >> (8 * i));
    put(k, buf, (size_t)n + 1);
}

/* OrderedCode's increasing signed number: values in [-64, 64) take one byte
 * 0x80 ^ v; longer ones are v big-endian, sign-extended, in len bytes whose
 * first two carry a length header. */
static void put_signed(key_buf *k, int64_t v)
{
    static const uint8_t header[11][2] = {{0, 0},       {0x80, 0}, {0xc0, 0}, {0xe0, 0},    {0xf0, 0},   {0xf8, 0},
                                          {0xfc, 0},    {0xfe, 0}, {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
    uint64_t x = v < 0 ? ~(uint64_t)v : (uint64_t)v;
    if (x < 64) {
        uint8_t b = (uint8_t)(0x80 ^ (uint8_t)v);
        put(k, &b, 1);
        return;
    }
    int bits = 0;
    for (uint64_t y = x; y; y >>= 1)
        bits++;
    int len = bits / 7 + 1;
    uint8_t buf[10];
    buf[0] = buf[1] = v < 0 ? 0xff : 0;
    for (int i = 0; i < 8; i++)
        buf[2 + i] = (uint8_t)((uint64_t)v >> (56 - 8 * i));
    uint8_t *begin = buf + 10 - len;
    begin[0] ^= header[len][0];
    begin[1] ^= header[len][1];
    put(k, begin, (size_t)len);
}

/* The key of slice (starts, lengths; length -1 = the whole dim) of name. */
static void slice_key(key_buf *k, const char *name, const Tfpi__TensorSliceProto *slice)
{
    /* Names hold no 0 byte (they are C strings), so only 0xff needs escaping. */
    static const uint8_t zero = 0, escaped_ff[2] = {0xff, 0}, end[2] = {0, 1};
    k->len = 0;
    k->overflow = false;
    put(k, &zero, 1);
    for (const char *p = name; *p; p++) {
        uint8_t c = (uint8_t)*p;
        if (c == 0xff)
            put(k, escaped_ff, 2);
        else
            put(k, &c, 1);
    }
    put(k, end, 2);
    put_unsigned(k, slice->n_extent);
    for (size_t d = 0; d < slice->n_extent; d++) {
        const Tfpi__TensorSliceProto__Extent *x = slice->extent[d];
        bool full = x->has_length_case != TFPI__TENSOR_SLICE_PROTO__EXTENT__HAS_LENGTH_LENGTH;
        put_signed(k, full ? 0 : x->start);
        put_signed(k, full ? -1 : x->length);
    }
}

/* Copies box `b` from src (whose box `src_box` it lies in) to dst (box
 * `dst_box`); both are dense row-major over their boxes' lengths. */
static void copy_box(uint8_t *dst, const box *dst_box, const uint8_t *src, const box *src_box, const box *b,
                     size_t element)
{
    int n = b->ndims;
    int64_t count = 1;
    for (int d = 0; d < n; d++)
        count *= b->length[d];
    if (count == 0)
        return;
    size_t run = element * (size_t)(n ? b->length[n - 1] : 1);
    int64_t at[TFPI_MAX_DIMS] = {0};
    for (;;) {
        int64_t so = 0, doff = 0;
        for (int d = 0; d < n; d++) {
            so = so * src_box->length[d] + (b->start[d] + at[d] - src_box->start[d]);
            doff = doff * dst_box->length[d] + (b->start[d] + at[d] - dst_box->start[d]);
        }
        memcpy(dst + (size_t)doff * element, src + (size_t)so * element, run);
        int d = n - 2;
        while (d >= 0 && ++at[d] == b->length[d])
            at[d--] = 0;
        if (d < 0)
            return;
    }
}

static box whole(const tp_checkpoint_entry *e)
{
    box b = {e->ndims, {0}, {0}};
    for (int d = 0; d < e->ndims; d++)
        b.length[d] = e->dims[d];
    return b;
}

/* The box a TensorSliceProto describes within the entry's shape. */
static bool slice_box(const tp_checkpoint_entry *e, const Tfpi__TensorSliceProto *slice, box *b)
{
    if ((int)slice->n_extent != e->ndims)
        return false;
    *b = whole(e);
    for (int d = 0; d < e->ndims; d++) {
        const Tfpi__TensorSliceProto__Extent *x = slice->extent[d];
        if (x->has_length_case != TFPI__TENSOR_SLICE_PROTO__EXTENT__HAS_LENGTH_LENGTH)
            continue;
        if (x->start < 0 || x->length < 0 || x->start > e->dims[d] || x->length > e->dims[d] - x->start)
            return false;
        b->start[d] = x->start;
        b->length[d] = x->length;
    }
    return true;
}

/* Marks the box's elements in the coverage bitmap; false if one was already set. */
static bool mark_covered(uint8_t *bits, const box *full, const box *b)
{
    int n = b->ndims;
    int64_t count = 1;
    for (int d = 0; d < n; d++)
        count *= b->length[d];
    int64_t at[TFPI_MAX_DIMS] = {0};
    for (int64_t i = 0; i < count; i++) {
        int64_t flat = 0;
        for (int d = 0; d < n; d++)
            flat = flat * full->length[d] + b->start[d] + at[d];
        if (bits[flat / 8] & (1u << (flat % 8)))
            return false;
        bits[flat / 8] |= (uint8_t)(1u << (flat % 8));
        for (int d = n - 1; d >= 0 && ++at[d] == b->length[d]; d--)
            at[d] = 0;
    }
    return true;
}

/* Reads one slice of e into its place in full. */
static tfpi_code read_slice_into(tp_checkpoint *ckpt, ckpt_entry *e, const Tfpi__TensorSliceProto *slice,
                                 const box *full_box, uint8_t *covered, int64_t max_bytes, tfpi_tensor *full,
                                 tfpi_status *status)
{
    const char *key = e->pub.key;
    box b;
    if (!slice_box(&e->pub, slice, &b))
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s' lists a slice outside its shape", key);
    key_buf k;
    slice_key(&k, key, slice);
    ckpt_entry *part = k.overflow ? NULL : ckpt_find_slice(ckpt, k.bytes, k.len);
    if (!part)
        return ckpt_fail(ckpt, status, TFPI_NOT_FOUND, "the data of a slice of partitioned key '%s' is missing", key);
    bool same = part->pub.dtype == e->pub.dtype && part->pub.ndims == b.ndims;
    for (int d = 0; same && d < b.ndims; d++)
        same = part->pub.dims[d] == b.length[d];
    if (!same || part->pub.num_slices > 0)
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                         "a slice of partitioned key '%s' does not have the type and shape its entry gives", key);
    if (!mark_covered(covered, full_box, &b))
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "the slices of partitioned key '%s' overlap", key);
    tfpi_tensor piece;
    memset(&piece, 0, sizeof piece);
    tfpi_code code = ckpt_read_entry(ckpt, part, key, false, max_bytes, &piece, status);
    if (code == TFPI_OK) {
        box piece_box = b;
        copy_box(full->data, full_box, piece.data, &piece_box, &b, ckpt_element_size(e->pub.dtype));
    }
    tp_tensor_release(&piece);
    return code;
}

tfpi_code ckpt_read_partitioned(tp_checkpoint *ckpt, ckpt_entry *e, int64_t max_bytes, tfpi_tensor *out,
                                tfpi_status *status)
{
    const char *key = e->pub.key;
    size_t element = ckpt_element_size(e->pub.dtype);
    int64_t elements;
    if (e->pub.dtype == TFPI_STRING || element == 0 || tfpi_dtype_size((tfpi_dtype)e->pub.dtype) == 0)
        return ckpt_fail(ckpt, status, TFPI_UNIMPLEMENTED,
                         "key '%s' is a partitioned tensor of a type tfpi cannot reassemble (numeric types only)",
                         key);
    if (e->pub.ndims > TFPI_MAX_DIMS || !tp_checked_product(e->pub.dims, e->pub.ndims, &elements) ||
        !tp_shape_fits((tfpi_dtype)e->pub.dtype, e->pub.ndims, e->pub.dims))
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s' has a shape tfpi cannot hold", key);
    int64_t bytes = tp_sat_mul(elements, (int64_t)element), bitmap = elements / 8 + 1;
    int64_t used = tp_sat_add(bytes, bitmap);
    tfpi_code code = ckpt_check_budget(ckpt, key, used, max_bytes, status);
    if (code != TFPI_OK)
        return code;
    uint8_t *covered = calloc((size_t)bitmap, 1);
    tp_tensor_set_shape(out, (tfpi_dtype)e->pub.dtype, e->pub.ndims, e->pub.dims);
    code = covered ? tp_tensor_alloc(out, status)
                   : ckpt_fail(ckpt, status, TFPI_OUT_OF_MEMORY, "out of memory for key '%s'", key);
    box full_box = whole(&e->pub);
    int64_t left = max_bytes < 0 ? -1 : max_bytes - used;
    for (size_t i = 0; code == TFPI_OK && i < e->proto->n_slices; i++)
        code = read_slice_into(ckpt, e, e->proto->slices[i], &full_box, covered, left, out, status);
    for (int64_t i = 0; code == TFPI_OK && i < elements; i++)
        if (!(covered[i / 8] & (1u << (i % 8))))
            code = ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                             "does not have sufficient slices for partitioned tensor '%s'", key);
    free(covered);
    if (code != TFPI_OK)
        tp_tensor_release(out);
    return code;
}

/* Parses "d0 d1 ... start,len:-:..." against the entry's shape into *b. */
static bool parse_shape_and_slice(const tp_checkpoint_entry *e, const char *spec, box *b)
{
    *b = whole(e);
    const char *p = spec;
    for (int d = 0; d < e->ndims; d++) {
        char *end;
        long long dim = strtoll(p, &end, 10);
        if (end == p || *end != ' ' || dim != e->dims[d])
            return false;
        p = end + 1;
    }
    for (int d = 0; d < e->ndims; d++) {
        if (d > 0 && *p++ != ':')
            return false;
        if (*p == '-') {
            p++;
            continue;
        }
        char *end;
        long long start = strtoll(p, &end, 10);
        if (end == p || *end != ',')
            return false;
        p = end + 1;
        long long length = strtoll(p, &end, 10);
        if (end == p || start < 0 || length < 0 || start > e->dims[d] || length > e->dims[d] - start)
            return false;
        p = end;
        b->start[d] = start;
        b->length[d] = length;
    }
    return *p == '\0' && e->ndims > 0;
}

tfpi_code tp_checkpoint_read_slice(tp_checkpoint *ckpt, const char *key, const char *shape_and_slice,
                                   int64_t max_bytes, tfpi_tensor *out, tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    if (!shape_and_slice || !*shape_and_slice)
        return tp_checkpoint_read(ckpt, key, false, max_bytes, out, status);
    const tp_checkpoint_entry *e = tp_checkpoint_find(ckpt, key);
    if (!e)
        return ckpt_fail(ckpt, status, TFPI_NOT_FOUND, "key '%s' not found", key);
    box b;
    if (e->ndims > TFPI_MAX_DIMS || !parse_shape_and_slice(e, shape_and_slice, &b))
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                         "key '%s': the slice \"%.100s\" does not fit its shape", key, shape_and_slice);
    tfpi_tensor full;
    tfpi_code code = tp_checkpoint_read(ckpt, key, false, max_bytes, &full, status);
    if (code != TFPI_OK)
        return code;
    int64_t elements = 1;
    for (int d = 0; d < b.ndims; d++)
        elements *= b.length[d];
    size_t element = tfpi_dtype_size(full.dtype);
    int64_t left = max_bytes < 0 ? max_bytes : max_bytes - (int64_t)tp_byte_size(&full);
    if (full.dtype == TFPI_STRING)
        code = ckpt_fail(ckpt, status, TFPI_UNIMPLEMENTED, "key '%s': slices of string tensors are not supported",
                         key);
    else
        code = ckpt_check_budget(ckpt, key, tp_sat_mul(elements, (int64_t)element), left, status);
    tp_tensor_set_shape(out, full.dtype, b.ndims, b.length);
    if (code == TFPI_OK && (code = tp_tensor_alloc(out, status)) == TFPI_OK) {
        box out_box = b, full_box = whole(e);
        copy_box(out->data, &out_box, full.data, &full_box, &b, element);
    }
    tp_tensor_release(&full);
    return code;
}
