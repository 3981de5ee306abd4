/* checkpoint.c - opens a checkpoint: maps P.index, reads its table (every
 * block checksum verified), checks the header, decodes every entry, and
 * answers look-ups by key. Also finds a checkpoint's prefix from what a user
 * passes (a prefix, P.index, P.meta, or a directory). */
#include "core/file_open.h"
#include "model/checkpoint_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


/* TensorFlow names shards "%05d-of-%05d". */
#define MAX_SHARDS 99999

tfpi_code ckpt_fail(const tp_checkpoint *ckpt, tfpi_status *status, tfpi_code code, const char *fmt, ...)
{
    char what[sizeof status->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tfpi_status_set(status, code, "checkpoint %s: %s", ckpt->prefix, what);
}

tfpi_code ckpt_check_budget(const tp_checkpoint *ckpt, const char *key, int64_t bytes, int64_t max_bytes,
                            tfpi_status *status)
{
    if (bytes < 0 || (uint64_t)bytes > SIZE_MAX / 2)
        return ckpt_fail(ckpt, status, TFPI_OUT_OF_MEMORY, "key '%s' is too large for this machine", key);
    if (max_bytes >= 0 && bytes > max_bytes)
        return ckpt_fail(ckpt, status, TFPI_OUT_OF_MEMORY,
                         "key '%s' needs %lld bytes, over the memory budget of %lld bytes", key,
                         (long long)bytes, (long long)max_bytes);
    return TFPI_OK;
}

static void free_entries(ckpt_entry *entries, int n)
{
    for (int i = 0; i < n; i++)
        if (entries[i].proto)
            tfpi__bundle_entry_proto__free_unpacked(entries[i].proto, NULL);
    free(entries);
}

void tp_checkpoint_close(tp_checkpoint *ckpt)
{
    if (!ckpt)
        return;
    for (ckpt_mapping *m = ckpt->mappings, *next; m; m = next) {
        next = m->next;
        munmap(m->addr, m->length);
        free(m);
    }
    for (int i = 0; ckpt->shards && i < ckpt->num_shards; i++)
        if (ckpt->shards[i].fd >= 0)
            close(ckpt->shards[i].fd);
    free(ckpt->shards);
    for (int i = 0; ckpt->keys && i < ckpt->num_entries; i++)
        free(ckpt->keys[i]);
    free(ckpt->keys);
    free_entries(ckpt->entries, ckpt->num_entries);
    free_entries(ckpt->slice_entries, ckpt->num_slice_entries);
    tp_sstable_free(&ckpt->table);
    if (ckpt->index_bytes)
        munmap(ckpt->index_bytes, ckpt->index_size);
    free(ckpt->prefix);
    free(ckpt);
}

/* Maps P.index. */
static tfpi_code map_index(tp_checkpoint *ckpt, const char *index_path, tfpi_status *status)
{
    int fd;
    struct stat st;
    const tp_open_result opened = tp_open_regular(index_path, &fd, &st);
    if (opened != TP_OPEN_OK)
        return tfpi_status_set(status, opened == TP_OPEN_FAILED ? TFPI_NOT_FOUND : TFPI_IO_ERROR, "%s: %s%s",
                               index_path, opened == TP_OPEN_FAILED ? "cannot open: " : "",
                               tp_open_error(opened));
    tfpi_code code = TFPI_OK;
    if (st.st_size == 0 || (uint64_t)st.st_size > SIZE_MAX / 2)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a TF checkpoint index (%s)", index_path,
                               st.st_size == 0 ? "the file is empty" : "too large");
    if (code == TFPI_OK) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            code = tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot map: %s", index_path, strerror(errno));
        else {
            ckpt->index_bytes = map;
            ckpt->index_size = (size_t)st.st_size;
        }
    }
    close(fd);
    return code;
}

static tfpi_code read_header(tp_checkpoint *ckpt, const tp_sstable_entry *e, const char *index_path,
                             tfpi_status *status)
{
    if (e->key_len != 0)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "%s: the first key is not the bundle header (key \"\")", index_path);
    Tfpi__BundleHeaderProto *h = tfpi__bundle_header_proto__unpack(NULL, e->value_len, e->value);
    if (!h)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the bundle header is not valid", index_path);
    tfpi_code code = TFPI_OK;
    if (h->num_shards < 1 || h->num_shards > MAX_SHARDS)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the header gives %d data shards", index_path,
                               (int)h->num_shards);
    else if (h->endianness != TFPI__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE)
        code = tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "%s: a big-endian checkpoint; tfpi reads little-endian ones only", index_path);
    else if (h->version && h->version->min_consumer > 1)
        code = tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                               "%s: the checkpoint needs a reader of version %d or newer (tfpi reads version 1)",
                               index_path, (int)h->version->min_consumer);
    for (size_t i = 0; code == TFPI_OK && h->version && i < h->version->n_bad_consumers; i++)
        if (h->version->bad_consumers[i] == 1)
            code = tfpi_status_set(status, TFPI_UNIMPLEMENTED,
                                   "%s: the checkpoint rules out readers of version 1", index_path);
    ckpt->num_shards = (int)h->num_shards;
    tfpi__bundle_header_proto__free_unpacked(h, NULL);
    return code;
}

static tfpi_code decode_entry(const tp_sstable_entry *raw, ckpt_entry *e, const char *index_path, size_t at,
                              tfpi_status *status)
{
    e->raw_key = raw->key;
    e->raw_key_len = raw->key_len;
    e->proto = tfpi__bundle_entry_proto__unpack(NULL, raw->value_len, raw->value);
    if (!e->proto)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: entry %zu (key '%.*s') is not a valid BundleEntry",
                               index_path, at, (int)(raw->key_len > 200 ? 200 : raw->key_len), raw->key);
    const Tfpi__BundleEntryProto *p = e->proto;
    int dtype = (int)p->dtype > 100 ? (int)p->dtype - 100 : (int)p->dtype;
    const Tfpi__TensorShapeProto *shape = p->shape;
    bool bad_shape = shape && shape->unknown_rank;
    for (size_t d = 0; shape && d < shape->n_dim && !bad_shape; d++)
        bad_shape = shape->dim[d]->size < 0;
    if (bad_shape || p->shard_id < 0 || p->offset < 0 || p->size < 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: entry %zu (key '%.*s') has a negative %s", index_path,
                        at, (int)(raw->key_len > 200 ? 200 : raw->key_len), raw->key,
                        bad_shape ? "or unknown shape" : p->shard_id < 0 ? "shard" : "offset or size");
        /* Not counted among the entries yet: nothing else would free it. */
        tfpi__bundle_entry_proto__free_unpacked(e->proto, NULL);
        e->proto = NULL;
        return TFPI_INVALID_ARGUMENT;
    }
    e->pub.dtype = dtype;
    e->pub.ndims = shape ? (int)(shape->n_dim > INT_MAX ? INT_MAX : shape->n_dim) : 0;
    for (int d = 0; d < e->pub.ndims && d < TFPI_MAX_DIMS; d++)
        e->pub.dims[d] = shape->dim[d]->size;
    e->pub.num_slices = p->n_slices > INT_MAX ? INT_MAX : (int)p->n_slices;
    return TFPI_OK;
}

/* Splits the table's entries (after the header) into listed and slice ones. */
static tfpi_code read_entries(tp_checkpoint *ckpt, const char *index_path, tfpi_status *status)
{
    size_t n = ckpt->table.num_entries - 1;
    ckpt->entries = calloc(n + 1, sizeof *ckpt->entries);
    ckpt->slice_entries = calloc(n + 1, sizeof *ckpt->slice_entries);
    ckpt->keys = calloc(n + 1, sizeof *ckpt->keys);
    if (!ckpt->entries || !ckpt->slice_entries || !ckpt->keys)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", index_path);
    for (size_t i = 1; i <= n; i++) {
        const tp_sstable_entry *raw = &ckpt->table.entries[i];
        bool slice = raw->key[0] == 0; /* the empty key is the header, so key_len >= 1 */
        if (!slice && memchr(raw->key, 0, raw->key_len))
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: entry %zu has a NUL byte in its key",
                                   index_path, i);
        ckpt_entry *e = slice ? &ckpt->slice_entries[ckpt->num_slice_entries++] : &ckpt->entries[ckpt->num_entries];
        tfpi_code code = decode_entry(raw, e, index_path, i, status);
        if (code != TFPI_OK)
            return code;
        if (slice)
            continue;
        if (!(ckpt->keys[ckpt->num_entries] = strndup((const char *)raw->key, raw->key_len)))
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", index_path);
        e->pub.key = ckpt->keys[ckpt->num_entries++];
    }
    return TFPI_OK;
}

static int by_data(const void *x, const void *y)
{
    const Tfpi__BundleEntryProto *a = (*(ckpt_entry *const *)x)->proto, *b = (*(ckpt_entry *const *)y)->proto;
    if (a->shard_id != b->shard_id)
        return a->shard_id < b->shard_id ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    return (a->crc32c > b->crc32c) - (a->crc32c < b->crc32c);
}

/* Points every entry (listed and slice) at its data twin. */
static tfpi_code find_data_twins(tp_checkpoint *ckpt, const char *index_path, tfpi_status *status)
{
    size_t n = (size_t)ckpt->num_entries + (size_t)ckpt->num_slice_entries;
    ckpt_entry **all = malloc((n + 1) * sizeof *all);
    if (!all)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", index_path);
    for (int i = 0; i < ckpt->num_entries; i++)
        all[i] = &ckpt->entries[i];
    for (int i = 0; i < ckpt->num_slice_entries; i++)
        all[ckpt->num_entries + i] = &ckpt->slice_entries[i];
    qsort(all, n, sizeof *all, by_data);
    for (size_t i = 0; i < n; i++)
        all[i]->data_twin = i > 0 && by_data(&all[i - 1], &all[i]) == 0 ? all[i - 1]->data_twin : all[i];
    free(all);
    return TFPI_OK;
}

tp_checkpoint *tp_checkpoint_open(const char *prefix, tfpi_status *status)
{
    tp_checkpoint *ckpt = calloc(1, sizeof *ckpt);
    size_t len = strlen(prefix);
    char *index_path = malloc(len + sizeof ".index");
    if (!ckpt || !index_path || !(ckpt->prefix = strdup(prefix))) {
        free(index_path);
        tp_checkpoint_close(ckpt);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "checkpoint %s: out of memory", prefix);
        return NULL;
    }
    memcpy(index_path, prefix, len);
    memcpy(index_path + len, ".index", sizeof ".index");
    tfpi_code code = map_index(ckpt, index_path, status);
    if (code == TFPI_OK)
        code = tp_sstable_read(ckpt->index_bytes, ckpt->index_size, index_path, &ckpt->table, status);
    if (code == TFPI_OK && ckpt->table.num_entries == 0)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the index has no header", index_path);
    if (code == TFPI_OK)
        code = read_header(ckpt, &ckpt->table.entries[0], index_path, status);
    if (code == TFPI_OK)
        code = read_entries(ckpt, index_path, status);
    if (code == TFPI_OK)
        code = find_data_twins(ckpt, index_path, status);
    if (code == TFPI_OK && !(ckpt->shards = malloc((size_t)ckpt->num_shards * sizeof *ckpt->shards)))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", index_path);
    for (int i = 0; code == TFPI_OK && i < ckpt->num_shards; i++)
        ckpt->shards[i] = (ckpt_shard){-1, 0};
    free(index_path);
    if (code != TFPI_OK) {
        tp_checkpoint_close(ckpt);
        return NULL;
    }
    return ckpt;
}

const char *tp_checkpoint_prefix(const tp_checkpoint *ckpt) { return ckpt->prefix; }

int tp_checkpoint_num_entries(const tp_checkpoint *ckpt) { return ckpt->num_entries; }

const tp_checkpoint_entry *tp_checkpoint_entry_at(const tp_checkpoint *ckpt, int index)
{
    return index >= 0 && index < ckpt->num_entries ? &ckpt->entries[index].pub : NULL;
}

static int compare_raw(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

/* Binary search over entries sorted by raw key. */
static ckpt_entry *search(ckpt_entry *entries, int n, const uint8_t *key, size_t len)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = compare_raw(entries[mid].raw_key, entries[mid].raw_key_len, key, len);
        if (c == 0)
            return &entries[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const tp_checkpoint_entry *tp_checkpoint_find(const tp_checkpoint *ckpt, const char *key)
{
    ckpt_entry *e = search(ckpt->entries, ckpt->num_entries, (const uint8_t *)key, strlen(key));
    return e ? &e->pub : NULL;
}

ckpt_entry *ckpt_find_slice(tp_checkpoint *ckpt, const uint8_t *key, size_t len)
{
    return search(ckpt->slice_entries, ckpt->num_slice_entries, key, len);
}

tfpi_code tp_checkpoint_read(tp_checkpoint *ckpt, const char *key, bool in_place, int64_t max_bytes,
                             tfpi_tensor *out, tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    ckpt_entry *e = search(ckpt->entries, ckpt->num_entries, (const uint8_t *)key, strlen(key));
    if (!e)
        return ckpt_fail(ckpt, status, TFPI_NOT_FOUND, "key '%s' not found", key);
    if (e->pub.num_slices > 0)
        return ckpt_read_partitioned(ckpt, e, max_bytes, out, status);
    return ckpt_read_entry(ckpt, e, key, in_place, max_bytes, out, status);
}
