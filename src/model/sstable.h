/* sstable.h - the LevelDB table format, as TensorFlow writes a checkpoint's
 * .index file: data blocks of prefix-compressed key/value entries with
 * restart points, an index block of block handles, a metaindex block, each
 * block followed by a type byte and a masked CRC-32C, and a 48-byte footer
 * ending in a magic number. The whole table is read at once and every
 * block's checksum is verified; values are borrowed from the file's bytes. */
#ifndef TFPI_SSTABLE_H
#define TFPI_SSTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

typedef struct tp_sstable_entry {
    const uint8_t *key; /* points into the table's key storage */
    size_t key_len;
    const uint8_t *value; /* points into the file's bytes */
    size_t value_len;
} tp_sstable_entry;

typedef struct tp_sstable {
    size_t num_entries;
    tp_sstable_entry *entries; /* in key order (bytewise, strictly increasing) */
    uint8_t *keys;             /* every key's bytes, back to back */
} tp_sstable;

/* The footer's last 8 bytes: 0xdb4775248b80fb57, low 32 bits first. */
#define TP_SSTABLE_MAGIC 0xdb4775248b80fb57ull
#define TP_SSTABLE_FOOTER_SIZE 48

/* Reads every entry of the table in data[0..size). `source` (the file)
 * starts every error message. On success *out borrows data for the values. */
tfpi_code tp_sstable_read(const uint8_t *data, size_t size, const char *source, tp_sstable *out,
                          tfpi_status *status);
void tp_sstable_free(tp_sstable *table);

#endif
