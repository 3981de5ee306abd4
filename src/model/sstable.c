/* sstable.c - reads a LevelDB-format table (sstable.h): footer, block
 * handles, checksummed blocks, prefix-compressed entries and restart
 * points, all bounds-checked against a hostile file. Compressed (snappy)
 * blocks are reported, not decoded: TensorFlow has written checkpoint
 * indexes uncompressed since 1.2. */
#include "model/sstable.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/wire.h"
#include "model/crc32c.h"

enum { BLOCK_TRAILER_SIZE = 5, BLOCK_UNCOMPRESSED = 0, BLOCK_SNAPPY = 1 };
#define MAX_KEY_LEN 65536

typedef struct block_handle {
    uint64_t offset, size;
} block_handle;

typedef struct table_reader {
    const uint8_t *data;
    size_t size;
    const char *source;
    tfpi_status *status;
    tp_sstable *out;
    size_t cap_entries;
    size_t keys_size, keys_cap, keys_limit;
} table_reader;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static tfpi_code fail(table_reader *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tfpi_code fail(table_reader *t, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tfpi_status_set(t->status, TFPI_INVALID_ARGUMENT, "%s: %s", t->source, what);
}

static bool read_handle(tp_wire_reader *r, block_handle *h)
{
    return tp_wire_varint(r, &h->offset) && tp_wire_varint(r, &h->size);
}

/* Checks a block's place, trailer and checksum; *contents points at it. */
static tfpi_code read_block(table_reader *t, block_handle h, const uint8_t **contents)
{
    size_t end_of_blocks = t->size - TP_SSTABLE_FOOTER_SIZE;
    if (h.offset > end_of_blocks || h.size > end_of_blocks - h.offset ||
        BLOCK_TRAILER_SIZE > end_of_blocks - h.offset - h.size)
        return fail(t, "a block handle points outside the file (offset %llu)", (unsigned long long)h.offset);
    const uint8_t *block = t->data + h.offset;
    uint8_t type = block[h.size];
    uint32_t stored = tp_crc32c_unmask(le32(block + h.size + 1));
    uint32_t actual = tp_crc32c_extend(tp_crc32c(block, h.size), &type, 1);
    if (stored != actual)
        return fail(t, "block checksum mismatch at offset %llu", (unsigned long long)h.offset);
    if (type == BLOCK_SNAPPY)
        return fail(t, "the block at offset %llu is snappy-compressed; tfpi reads uncompressed checkpoint "
                       "indexes (TensorFlow >= 1.2 writes them)",
                    (unsigned long long)h.offset);
    if (type != BLOCK_UNCOMPRESSED)
        return fail(t, "bad block type at offset %llu", (unsigned long long)h.offset);
    *contents = block;
    return TFPI_OK;
}

static bool append_entry(table_reader *t, const uint8_t *key, size_t key_len, const uint8_t *value,
                         size_t value_len)
{
    tp_sstable *out = t->out;
    if (out->num_entries == t->cap_entries) {
        size_t cap = t->cap_entries ? 2 * t->cap_entries : 64;
        tp_sstable_entry *grown = realloc(out->entries, cap * sizeof *grown);
        if (!grown)
            return false;
        out->entries = grown;
        t->cap_entries = cap;
    }
    if (!out->keys || key_len > t->keys_cap - t->keys_size) {
        size_t cap = t->keys_cap ? t->keys_cap : 4096;
        while (cap - t->keys_size < key_len)
            cap *= 2;
        uint8_t *grown = realloc(out->keys, cap);
        if (!grown)
            return false;
        out->keys = grown;
        t->keys_cap = cap;
    }
    memcpy(out->keys + t->keys_size, key, key_len);
    /* Keys are stored as offsets until the storage stops moving. */
    out->entries[out->num_entries++] = (tp_sstable_entry){(const uint8_t *)(uintptr_t)t->keys_size, key_len,
                                                          value, value_len};
    t->keys_size += key_len;
    return true;
}

/* The previous entry's key (a block starts with none). */
static const uint8_t *last_key(const table_reader *t, size_t *len)
{
    const tp_sstable *out = t->out;
    if (out->num_entries == 0) {
        *len = 0;
        return NULL;
    }
    const tp_sstable_entry *e = &out->entries[out->num_entries - 1];
    *len = e->key_len;
    return out->keys + (size_t)(uintptr_t)e->key;
}

static int compare_keys(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

/* Walks the entries of a block: a data block's are appended to t->out (keys
 * strictly increasing across the table), an index block's values are block
 * handles, stored in handles[0..max_handles). */
static tfpi_code read_entries(table_reader *t, const uint8_t *block, size_t size, uint64_t offset,
                              bool append, block_handle *handles, size_t *num_handles, size_t max_handles)
{
    if (size < 4)
        return fail(t, "bad entry in block at offset %llu (too short)", (unsigned long long)offset);
    uint32_t num_restarts = le32(block + size - 4);
    if (num_restarts > (size - 4) / 4)
        return fail(t, "bad entry in block at offset %llu (too many restarts)", (unsigned long long)offset);
    size_t limit = size - 4 - 4 * (size_t)num_restarts;
    const uint8_t *restarts = block + limit;
    uint32_t next_restart = 0;
    uint8_t key[MAX_KEY_LEN];
    size_t key_len = 0;
    tp_wire_reader r = {block, limit, 0};
    while (r.pos < limit) {
        size_t at = r.pos;
        uint64_t shared, non_shared, value_len;
        if (!tp_wire_varint(&r, &shared) || !tp_wire_varint(&r, &non_shared) || !tp_wire_varint(&r, &value_len) ||
            shared > key_len || non_shared > limit - r.pos || value_len > limit - r.pos - non_shared ||
            non_shared > MAX_KEY_LEN - shared)
            return fail(t, "bad entry in block at offset %llu", (unsigned long long)offset);
        bool at_restart = next_restart < num_restarts && le32(restarts + 4 * (size_t)next_restart) == at;
        if (at_restart)
            next_restart++;
        if (at_restart ? shared != 0 : at == 0)
            return fail(t, "bad entry in block at offset %llu (restart point)", (unsigned long long)offset);
        memcpy(key + shared, block + r.pos, non_shared);
        key_len = (size_t)(shared + non_shared);
        const uint8_t *value = block + r.pos + non_shared;
        r.pos += (size_t)(non_shared + value_len);
        if (append) {
            size_t prev_len;
            const uint8_t *prev = last_key(t, &prev_len);
            if (prev && compare_keys(prev, prev_len, key, key_len) >= 0)
                return fail(t, "keys out of order in block at offset %llu", (unsigned long long)offset);
            if (key_len > t->keys_limit - t->keys_size)
                return fail(t, "the keys of the block at offset %llu are too long", (unsigned long long)offset);
            if (!append_entry(t, key, key_len, value, (size_t)value_len))
                return tfpi_status_set(t->status, TFPI_OUT_OF_MEMORY, "%s: out of memory", t->source);
        } else {
            tp_wire_reader v = {value, (size_t)value_len, 0};
            if (*num_handles == max_handles || !read_handle(&v, &handles[*num_handles]))
                return fail(t, "bad block handle in the index block at offset %llu", (unsigned long long)offset);
            ++*num_handles;
        }
    }
    if (next_restart != num_restarts)
        return fail(t, "bad entry in block at offset %llu (restart point)", (unsigned long long)offset);
    return TFPI_OK;
}

static tfpi_code read_table(table_reader *t)
{
    if (t->size < TP_SSTABLE_FOOTER_SIZE)
        return fail(t, "not a TF checkpoint index (%llu bytes: too short for the footer; a V1 checkpoint or a "
                       "truncated file?)", (unsigned long long)t->size);
    const uint8_t *footer = t->data + t->size - TP_SSTABLE_FOOTER_SIZE;
    uint64_t magic = (uint64_t)le32(footer + 40) | (uint64_t)le32(footer + 44) << 32;
    if (magic != TP_SSTABLE_MAGIC)
        return fail(t, "not a TF checkpoint index (bad magic; a V1 checkpoint or a truncated file?)");
    tp_wire_reader fr = {footer, 40, 0};
    block_handle metaindex, index;
    if (!read_handle(&fr, &metaindex) || !read_handle(&fr, &index))
        return fail(t, "bad block handle in the footer");
    const uint8_t *meta_block, *index_block;
    tfpi_code code;
    if ((code = read_block(t, metaindex, &meta_block)) != TFPI_OK ||
        (code = read_block(t, index, &index_block)) != TFPI_OK)
        return code;
    /* Each index entry takes at least 3 bytes (+ its restart). */
    size_t max_handles = (size_t)index.size / 3 + 1;
    block_handle *handles = malloc(max_handles * sizeof *handles);
    if (!handles)
        return tfpi_status_set(t->status, TFPI_OUT_OF_MEMORY, "%s: out of memory", t->source);
    size_t n = 0;
    code = read_entries(t, index_block, (size_t)index.size, index.offset, false, handles, &n, max_handles);
    for (size_t i = 0; i < n && code == TFPI_OK; i++) {
        const uint8_t *block;
        if ((code = read_block(t, handles[i], &block)) == TFPI_OK)
            code = read_entries(t, block, (size_t)handles[i].size, handles[i].offset, true, NULL, NULL, 0);
    }
    free(handles);
    return code;
}

tfpi_code tp_sstable_read(const uint8_t *data, size_t size, const char *source, tp_sstable *out,
                          tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    /* Prefix compression lets a small file describe long keys; real indexes
     * stay far below this. */
    size_t keys_limit = size < SIZE_MAX / 64 - 65536 ? 64 * size + 65536 : SIZE_MAX / 2;
    table_reader t = {data, size, source, status, out, 0, 0, 0, keys_limit};
    tfpi_code code = read_table(&t);
    if (code != TFPI_OK) {
        tp_sstable_free(out);
        return code;
    }
    for (size_t i = 0; i < out->num_entries; i++)
        out->entries[i].key = out->keys + (size_t)(uintptr_t)out->entries[i].key;
    return TFPI_OK;
}

void tp_sstable_free(tp_sstable *table)
{
    free(table->entries);
    free(table->keys);
    memset(table, 0, sizeof *table);
}
