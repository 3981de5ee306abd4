/* checkpoint_internal.h - what the checkpoint reader's files share
 * (checkpoint.c: the index and its entries; checkpoint_data.c: data shards
 * and tensor bytes; checkpoint_slices.c: partitioned tensors). */
#ifndef TFPI_CHECKPOINT_INTERNAL_H
#define TFPI_CHECKPOINT_INTERNAL_H

#include <stdio.h>

#include "model/checkpoint.h"
#include "model/sstable.h"
#include "tensor_bundle.pb-c.h"

typedef struct ckpt_entry {
    tp_checkpoint_entry pub;
    Tfpi__BundleEntryProto *proto;
    const uint8_t *raw_key; /* the index's key bytes (slice keys hold NULs) */
    size_t raw_key_len;
    /* The entry whose data checksum stands for this one's: the first of
     * those with the same shard, offset, size and checksum (itself if it
     * is). Its `verified` says the bytes matched once already, so entries
     * that share one region check it once, not once each. */
    struct ckpt_entry *data_twin;
    bool verified;
} ckpt_entry;

typedef struct ckpt_shard {
    int fd; /* -1 until opened */
    int64_t size;
} ckpt_shard;

typedef struct ckpt_mapping {
    struct ckpt_mapping *next;
    void *addr;
    size_t length;
} ckpt_mapping;

struct tp_checkpoint {
    char *prefix;
    uint8_t *index_bytes; /* the .index file, mapped */
    size_t index_size;
    tp_sstable table;
    int num_entries; /* listed entries (slices excluded), in key order */
    ckpt_entry *entries;
    int num_slice_entries; /* entries whose key starts with a 0 byte, in key order */
    ckpt_entry *slice_entries;
    char **keys; /* NUL-terminated copies of the listed keys */
    int num_shards;
    ckpt_shard *shards;
    ckpt_mapping *mappings; /* data views handed out by in-place reads */
};

/* "checkpoint P: <fmt...>" into status; returns code. */
tfpi_code ckpt_fail(const tp_checkpoint *ckpt, tfpi_status *status, tfpi_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Element size of a TensorFlow dtype in a bundle (0: strings, variants and unknown types). */
size_t ckpt_element_size(int dtype);
/* Error unless `bytes` fits max_bytes (< 0: no budget). */
tfpi_code ckpt_check_budget(const tp_checkpoint *ckpt, const char *key, int64_t bytes, int64_t max_bytes,
                            tfpi_status *status);

/* Reads an unpartitioned entry's data into *out (see tp_checkpoint_read). */
tfpi_code ckpt_read_entry(tp_checkpoint *ckpt, ckpt_entry *e, const char *key, bool in_place, int64_t max_bytes,
                          tfpi_tensor *out, tfpi_status *status);
/* Reassembles a partitioned entry from its slices into an owned tensor. */
tfpi_code ckpt_read_partitioned(tp_checkpoint *ckpt, ckpt_entry *e, int64_t max_bytes, tfpi_tensor *out,
                                tfpi_status *status);
/* The slice entry with these raw key bytes, or NULL. */
ckpt_entry *ckpt_find_slice(tp_checkpoint *ckpt, const uint8_t *key, size_t len);

#endif
