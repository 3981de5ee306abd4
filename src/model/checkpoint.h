/* checkpoint.h - TensorFlow checkpoints (the "V2" tensor bundle that
 * tf.train.Saver, tf.train.Checkpoint and SavedModel's variables/ write):
 * a prefix P names P.index (an sstable: key -> BundleEntryProto, key "" ->
 * BundleHeaderProto) and the data shards P.data-00000-of-0000N.
 *
 * Opening reads the whole index and verifies every block checksum; reading
 * a tensor verifies its data checksum. Numeric and string tensors, several
 * shards and partitioned tensors (stored as slices, reassembled on read)
 * are supported. Every size from the files goes through checked arithmetic
 * and the caller's memory budget. Errors name the file and the key:
 *   "checkpoint P: checksum mismatch for key K (P.data-00000-of-00001, ...)".
 * A checkpoint is not thread-safe: one caller at a time. */
#ifndef TFPI_CHECKPOINT_H
#define TFPI_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"
#include "tfpi.h"

typedef struct tp_checkpoint tp_checkpoint;

/* One tensor of the checkpoint as the index describes it. */
typedef struct tp_checkpoint_entry {
    const char *key;  /* the variable's name (slice entries are not listed) */
    int dtype;        /* TensorFlow DataType number (_REF forms mapped to the base type);
                         tfpi_dtype_size(dtype) == 0 for types tfpi cannot hold */
    int ndims;        /* > TFPI_MAX_DIMS: listed, but cannot be read */
    int64_t dims[TFPI_MAX_DIMS];
    int num_slices;   /* > 0: a partitioned tensor, stored as that many slices */
} tp_checkpoint_entry;

/* Opens the checkpoint with this prefix (P, not P.index). The data shards
 * are opened when a tensor needs them. */
tp_checkpoint *tp_checkpoint_open(const char *prefix, tfpi_status *status);
void tp_checkpoint_close(tp_checkpoint *ckpt);
const char *tp_checkpoint_prefix(const tp_checkpoint *ckpt);

/* Entries in key order (bytewise), slices left out. */
int tp_checkpoint_num_entries(const tp_checkpoint *ckpt);
const tp_checkpoint_entry *tp_checkpoint_entry_at(const tp_checkpoint *ckpt, int index);
/* The entry stored under key, or NULL. */
const tp_checkpoint_entry *tp_checkpoint_find(const tp_checkpoint *ckpt, const char *key);

/* Reads the tensor stored under key into *out (whose previous contents are
 * ignored): dtype, shape and data. The bytes are checked against the
 * entry's checksum.
 *   in_place: a numeric tensor stored whole at an offset aligned for its
 *     type is returned as a view of the mapped data file (out->owns_data
 *     false), valid until tp_checkpoint_close; anything else is a copy.
 *   otherwise: always an owned copy (free with tp_tensor_release).
 * max_bytes: the memory budget for what the read allocates (< 0: none). */
tfpi_code tp_checkpoint_read(tp_checkpoint *ckpt, const char *key, bool in_place, int64_t max_bytes,
                             tfpi_tensor *out, tfpi_status *status);
/* Lets go of a tensor tp_checkpoint_read gave before the checkpoint is
 * closed: a copy is freed, a view of the data file unmapped (a tool that
 * reads every tensor once then holds one mapping at a time). */
void tp_checkpoint_release(tp_checkpoint *ckpt, tfpi_tensor *t);

/* Reads part of the tensor under key as RestoreV2's shape_and_slices
 * string gives it: "" for the whole tensor, or the full shape then one
 * "start,length" or "-" (whole dim) per dim, ':'-joined, such as
 * "1000 64 0,500:-". Always an owned copy. */
tfpi_code tp_checkpoint_read_slice(tp_checkpoint *ckpt, const char *key, const char *shape_and_slice,
                                   int64_t max_bytes, tfpi_tensor *out, tfpi_status *status);

/* Where the prefix of a checkpoint named by `path` is: path itself when
 * path.index exists; P for path "P.index", "P.meta" or "P.data-*"; for a
 * directory, the model_checkpoint_path of its `checkpoint` file (relative
 * to the directory). Writes it to prefix[0..size). */
tfpi_code tp_checkpoint_find_prefix(const char *path, char *prefix, size_t size, tfpi_status *status);

#endif
