/* checkpoint_data.c - a checkpoint's tensor bytes: opens the data shards
 * when a key needs them, checks each entry's range, size and checksum, and
 * turns the bytes into a tensor: numeric data copied or viewed in place
 * through a mapping of the shard, string tensors decoded from their
 * varint-lengths layout (whose lengths carry a checksum of their own). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/checked_math.h"
#include "core/file_open.h"
#include "graph/wire.h"
#include "model/checkpoint_internal.h"
#include "model/crc32c.h"

enum { DT_STRING = 7, DT_RESOURCE = 20, DT_VARIANT = 21 };

size_t ckpt_element_size(int dtype)
{
    /* Indexed by TensorFlow's DataType: the bytes of one element. */
    static const unsigned char sizes[] = {0, 4, 8, 4, 1, 2, 1, 0, 8, 8, 1, 1, 1, 4, 2, 2, 2, 2, 16, 2, 0, 0, 4, 8};
    return dtype > 0 && dtype < (int)sizeof sizes ? sizes[dtype] : 0;
}

static const char *type_name(int dtype)
{
    static const char *const names[] = {"invalid", "float", "double", "int32", "uint8", "int16", "int8",
                                        "string", "complex64", "int64", "bool", "qint8", "quint8", "qint32",
                                        "bfloat16", "qint16", "quint16", "uint16", "complex128", "half",
                                        "resource", "variant", "uint32", "uint64"};
    return dtype >= 0 && dtype < (int)(sizeof names / sizeof names[0]) ? names[dtype] : "unknown type";
}

static void shard_name(const tp_checkpoint *ckpt, int shard, char *buf, size_t size)
{
    snprintf(buf, size, "%s.data-%05d-of-%05d", ckpt->prefix, shard, ckpt->num_shards);
}

static tfpi_code open_shard(tp_checkpoint *ckpt, int shard, const char *key, tfpi_status *status)
{
    ckpt_shard *s = &ckpt->shards[shard];
    if (s->fd >= 0)
        return TFPI_OK;
    char path[4200];
    shard_name(ckpt, shard, path, sizeof path);
    int fd;
    struct stat st;
    const tp_open_result opened = tp_open_regular(path, &fd, &st);
    if (opened == TP_OPEN_FAILED)
        return ckpt_fail(ckpt, status, errno == ENOENT ? TFPI_NOT_FOUND : TFPI_IO_ERROR,
                         "%s %s (%d shard%s; needed for key '%s')", path,
                         errno == ENOENT ? "not found" : strerror(errno), ckpt->num_shards,
                         ckpt->num_shards == 1 ? "" : "s", key);
    if (opened != TP_OPEN_OK)
        return ckpt_fail(ckpt, status, TFPI_IO_ERROR, "%s is not a regular file", path);
    s->fd = fd;
    s->size = (int64_t)st.st_size;
    return TFPI_OK;
}

/* Reads bytes [offset, offset + size) of a shard into buf. */
static tfpi_code read_bytes(tp_checkpoint *ckpt, int shard, int64_t offset, size_t size, uint8_t *buf,
                            tfpi_status *status)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(ckpt->shards[shard].fd, buf + done, size - done, (off_t)(offset + (int64_t)done));
        if (n <= 0) {
            char path[4200];
            shard_name(ckpt, shard, path, sizeof path);
            return ckpt_fail(ckpt, status, TFPI_IO_ERROR, "%s: read failed: %s", path,
                             n == 0 ? "unexpected end of file" : strerror(errno));
        }
        done += (size_t)n;
    }
    return TFPI_OK;
}

static tfpi_code checksum_error(const tp_checkpoint *ckpt, const ckpt_entry *e, const char *key, uint32_t actual,
                                tfpi_status *status)
{
    char path[4200];
    shard_name(ckpt, e->proto->shard_id, path, sizeof path);
    return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                     "checksum mismatch for key '%s' (%s, offset %lld, %lld bytes): stored %08x, computed %08x",
                     key, path, (long long)e->proto->offset, (long long)e->proto->size,
                     tp_crc32c_unmask(e->proto->crc32c), actual);
}

/* Checks everything about the entry that does not need its bytes, opens
 * its shard, and gives its element count. */
static tfpi_code check_entry(tp_checkpoint *ckpt, const ckpt_entry *e, const char *key, int64_t *elements,
                             tfpi_status *status)
{
    const tp_checkpoint_entry *pub = &e->pub;
    if (pub->dtype == DT_VARIANT)
        return ckpt_fail(ckpt, status, TFPI_UNIMPLEMENTED,
                         "key '%s' holds a variant tensor (TensorList or dataset state); tfpi cannot read those", key);
    if (pub->dtype == DT_RESOURCE || pub->dtype == 0 ||
        (pub->dtype != DT_STRING && tfpi_dtype_size((tfpi_dtype)pub->dtype) == 0))
        return ckpt_fail(ckpt, status, TFPI_UNIMPLEMENTED, "key '%s' is a %s tensor, a type tfpi does not support",
                         key, type_name(pub->dtype));
    if (pub->ndims > TFPI_MAX_DIMS)
        return ckpt_fail(ckpt, status, TFPI_UNIMPLEMENTED, "key '%s' has %d dims; tfpi tensors have at most %d", key,
                         pub->ndims, TFPI_MAX_DIMS);
    if (!tp_checked_product(pub->dims, pub->ndims, elements) || !tp_shape_fits(pub->dtype, pub->ndims, pub->dims))
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s' has a shape too large to hold", key);
    const Tfpi__BundleEntryProto *p = e->proto;
    if (p->shard_id >= ckpt->num_shards)
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s' is in shard %d, but there are %d shards",
                         key, (int)p->shard_id, ckpt->num_shards);
    tfpi_code code = open_shard(ckpt, p->shard_id, key, status);
    if (code != TFPI_OK)
        return code;
    int64_t end;
    if (!tp_checked_add(p->offset, p->size, &end) || end > ckpt->shards[p->shard_id].size) {
        char path[4200];
        shard_name(ckpt, p->shard_id, path, sizeof path);
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                         "key '%s' lies past the end of %s (offset %lld + %lld bytes > file size %lld)", key, path,
                         (long long)p->offset, (long long)p->size, (long long)ckpt->shards[p->shard_id].size);
    }
    if (pub->dtype == DT_STRING)
        return TFPI_OK;
    int64_t expected = tp_sat_mul(*elements, (int64_t)ckpt_element_size(pub->dtype));
    if (p->size != expected)
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                         "invalid size in bundle entry: key '%s'; stored size %lld; expected size %lld", key,
                         (long long)p->size, (long long)expected);
    return TFPI_OK;
}

/* A view of a numeric entry in a private read-only mapping of its shard. */
static tfpi_code map_entry(tp_checkpoint *ckpt, ckpt_entry *e, const char *key, tfpi_tensor *out,
                           tfpi_status *status)
{
    const Tfpi__BundleEntryProto *p = e->proto;
    int64_t page = (int64_t)sysconf(_SC_PAGESIZE);
    int64_t start = p->offset / page * page;
    size_t skip = (size_t)(p->offset - start), length = skip + (size_t)p->size;
    ckpt_mapping *m = malloc(sizeof *m);
    void *addr = m ? mmap(NULL, length, PROT_READ, MAP_PRIVATE, ckpt->shards[p->shard_id].fd, (off_t)start)
                   : MAP_FAILED;
    if (addr == MAP_FAILED) {
        free(m);
        return ckpt_fail(ckpt, status, TFPI_IO_ERROR, "cannot map the data of key '%s': %s", key, strerror(errno));
    }
    const uint8_t *data = (const uint8_t *)addr + skip;
    const bool verified = e->data_twin->verified;
    uint32_t actual = verified ? 0 : tp_crc32c(data, (size_t)p->size);
    if (!verified && actual != tp_crc32c_unmask(p->crc32c)) {
        munmap(addr, length);
        free(m);
        return checksum_error(ckpt, e, key, actual, status);
    }
    e->data_twin->verified = true;
    *m = (ckpt_mapping){ckpt->mappings, addr, length};
    ckpt->mappings = m;
    tp_tensor_set_shape(out, (tfpi_dtype)e->pub.dtype, e->pub.ndims, e->pub.dims);
    out->data = (void *)(uintptr_t)data; /* read-only: kernels never write their inputs */
    out->owns_data = false;
    return TFPI_OK;
}

static tfpi_code copy_entry(tp_checkpoint *ckpt, ckpt_entry *e, const char *key, int64_t max_bytes,
                            tfpi_tensor *out, tfpi_status *status)
{
    const Tfpi__BundleEntryProto *p = e->proto;
    tfpi_code code = ckpt_check_budget(ckpt, key, p->size, max_bytes, status);
    if (code != TFPI_OK)
        return code;
    tp_tensor_set_shape(out, (tfpi_dtype)e->pub.dtype, e->pub.ndims, e->pub.dims);
    if ((code = tp_tensor_alloc(out, status)) != TFPI_OK ||
        (code = read_bytes(ckpt, p->shard_id, p->offset, (size_t)p->size, out->data, status)) != TFPI_OK) {
        tp_tensor_release(out);
        return code;
    }
    const bool verified = e->data_twin->verified;
    uint32_t actual = verified ? 0 : tp_crc32c(out->data, (size_t)p->size);
    if (!verified && actual != tp_crc32c_unmask(p->crc32c)) {
        tp_tensor_release(out);
        return checksum_error(ckpt, e, key, actual, status);
    }
    e->data_twin->verified = true;
    return TFPI_OK;
}

void tp_checkpoint_release(tp_checkpoint *ckpt, tfpi_tensor *t)
{
    if (t->owns_data) {
        tp_tensor_release(t);
        return;
    }
    const uint8_t *data = t->data;
    for (ckpt_mapping **at = &ckpt->mappings; *at; at = &(*at)->next) {
        const uint8_t *base = (*at)->addr;
        if (data >= base && data < base + (*at)->length) {
            ckpt_mapping *m = *at;
            *at = m->next;
            munmap(m->addr, m->length);
            free(m);
            break;
        }
    }
    t->data = NULL;
}

/* Appends a length to the lengths checksum as TensorFlow does: 4 bytes
 * little-endian, or 8 when it does not fit 32 bits. */
static uint32_t extend_length(uint32_t crc, uint64_t len)
{
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(len >> (8 * i));
    return tp_crc32c_extend(crc, le, len > UINT32_MAX ? 8 : 4);
}

/* Decodes `n` strings from bytes (varint64 lengths, the masked checksum of
 * the lengths, then the bytes) into out's tfpi_bytes (already allocated). */
static tfpi_code decode_strings(const tp_checkpoint *ckpt, const ckpt_entry *e, const char *key,
                                const uint8_t *bytes, size_t size, int64_t n, tfpi_tensor *out,
                                tfpi_status *status)
{
    tp_wire_reader r = {bytes, size, 0};
    tfpi_bytes *s = out->data;
    uint32_t lengths_crc = 0;
    uint64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t len;
        if (!tp_wire_varint(&r, &len) || len > size || total + len > size)
            return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s': string %lld has a bad length", key,
                             (long long)i);
        s[i].size = (size_t)len;
        total += len;
        lengths_crc = extend_length(lengths_crc, len);
    }
    if (n > 0 && (size - r.pos < 4 || total != size - r.pos - 4))
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT,
                         "key '%s': the string lengths do not add up to the entry's %zu bytes", key, size);
    if (n == 0 && size != 0)
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s': an empty string tensor holds %zu bytes",
                         key, size);
    if (n == 0)
        return TFPI_OK;
    const uint8_t *stored = bytes + r.pos;
    uint32_t masked = (uint32_t)stored[0] | (uint32_t)stored[1] << 8 | (uint32_t)stored[2] << 16 |
                      (uint32_t)stored[3] << 24;
    if (tp_crc32c_unmask(masked) != lengths_crc)
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s': the length checksum does not match", key);
    const uint8_t *p = stored + 4;
    uint32_t entry_crc = tp_crc32c_extend(lengths_crc, stored, 4);
    entry_crc = tp_crc32c_extend(entry_crc, p, (size_t)total);
    if (entry_crc != tp_crc32c_unmask(e->proto->crc32c))
        return checksum_error(ckpt, e, key, entry_crc, status);
    for (int64_t i = 0; i < n; i++) {
        uint8_t *copy = malloc(s[i].size ? s[i].size : 1);
        if (!copy)
            return ckpt_fail(ckpt, status, TFPI_OUT_OF_MEMORY, "out of memory for key '%s'", key);
        memcpy(copy, p, s[i].size);
        s[i].data = copy;
        p += s[i].size;
    }
    return TFPI_OK;
}

static tfpi_code read_strings(tp_checkpoint *ckpt, ckpt_entry *e, const char *key, int64_t elements,
                              int64_t max_bytes, tfpi_tensor *out, tfpi_status *status)
{
    const Tfpi__BundleEntryProto *p = e->proto;
    /* Every string takes at least its 1-byte length. */
    if (elements > p->size)
        return ckpt_fail(ckpt, status, TFPI_INVALID_ARGUMENT, "key '%s': %lld strings cannot fit in %lld bytes", key,
                         (long long)elements, (long long)p->size);
    int64_t need = tp_sat_add(tp_sat_mul(2, p->size), tp_sat_mul(elements, (int64_t)sizeof(tfpi_bytes)));
    tfpi_code code = ckpt_check_budget(ckpt, key, need, max_bytes, status);
    if (code != TFPI_OK)
        return code;
    uint8_t *bytes = malloc(p->size ? (size_t)p->size : 1);
    if (!bytes)
        return ckpt_fail(ckpt, status, TFPI_OUT_OF_MEMORY, "out of memory for key '%s'", key);
    tp_tensor_set_shape(out, TFPI_STRING, e->pub.ndims, e->pub.dims);
    if ((code = read_bytes(ckpt, p->shard_id, p->offset, (size_t)p->size, bytes, status)) == TFPI_OK &&
        (code = tp_tensor_alloc(out, status)) == TFPI_OK)
        code = decode_strings(ckpt, e, key, bytes, (size_t)p->size, elements, out, status);
    free(bytes);
    if (code != TFPI_OK)
        tp_tensor_release(out);
    return code;
}

tfpi_code ckpt_read_entry(tp_checkpoint *ckpt, ckpt_entry *e, const char *key, bool in_place, int64_t max_bytes,
                          tfpi_tensor *out, tfpi_status *status)
{
    int64_t elements;
    tfpi_code code = check_entry(ckpt, e, key, &elements, status);
    if (code != TFPI_OK)
        return code;
    if (e->pub.dtype == DT_STRING)
        return read_strings(ckpt, e, key, elements, max_bytes, out, status);
    size_t element = ckpt_element_size(e->pub.dtype);
    if (in_place && elements > 0 && e->proto->offset % (int64_t)element == 0)
        return map_entry(ckpt, e, key, out, status);
    return copy_entry(ckpt, e, key, max_bytes, out, status);
}
