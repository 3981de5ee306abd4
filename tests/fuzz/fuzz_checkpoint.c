/* fuzz_checkpoint.c - libFuzzer target for the checkpoint reader
 * (src/model/checkpoint*.c, sstable.c): the input is a checkpoint in one
 * piece, the first 4 bytes (little-endian) giving the length of the .index
 * part, the rest being the data shard. Both are written to a temporary
 * directory; the harness opens the checkpoint, lists it and reads every
 * tensor in place and as a copy, whole and through a RestoreV2 slice.
 * Seeds: tests/fuzz/seed_checkpoints.py packs real and synthetic ones.
 * Reads are capped at 64 KB: every path (the budget refusal included) is
 * reached as well, while a 16 MB cap spent the campaign zeroing and
 * unmapping big tensors (140 executions a second at a 1 MB max_len; 1,270
 * with this cap and FUZZ_MAX_LEN=16384).
 *
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tensor.h"
#include "model/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char prefix[256];

static void write_file(const char *suffix, const uint8_t *data, size_t size)
{
    char path[300];
    snprintf(path, sizeof path, "%s%s", prefix, suffix);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}

/* A RestoreV2 slice of the first half of dim 0 ("4 2 0,2:-"), if it has one. */
static void read_half(tp_checkpoint *ckpt, const tp_checkpoint_entry *e)
{
    char spec[300];
    int n = 0;
    if (e->ndims < 1 || e->ndims > 4)
        return;
    for (int d = 0; d < e->ndims; d++)
        n += snprintf(spec + n, sizeof spec - (size_t)n, "%lld ", (long long)e->dims[d]);
    n += snprintf(spec + n, sizeof spec - (size_t)n, "0,%lld", (long long)(e->dims[0] / 2));
    for (int d = 1; d < e->ndims; d++)
        n += snprintf(spec + n, sizeof spec - (size_t)n, ":-");
    tfpi_status status;
    tfpi_tensor t;
    if (tp_checkpoint_read_slice(ckpt, e->key, spec, 1 << 16, &t, &status) == TFPI_OK)
        tp_tensor_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!prefix[0]) {
        snprintf(prefix, sizeof prefix, "%s/tfpi-fuzz-checkpoint-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (int)getpid());
    }
    if (size < 4)
        return 0;
    size_t index = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
    if (index > size - 4)
        index = size - 4;
    write_file(".index", data + 4, index);
    write_file(".data-00000-of-00001", data + 4 + index, size - 4 - index);
    tfpi_status status;
    tp_checkpoint *ckpt = tp_checkpoint_open(prefix, &status);
    for (int i = 0; ckpt && i < tp_checkpoint_num_entries(ckpt); i++) {
        const tp_checkpoint_entry *e = tp_checkpoint_entry_at(ckpt, i);
        tfpi_tensor t;
        for (int in_place = 0; in_place < 2; in_place++)
            if (tp_checkpoint_read(ckpt, e->key, in_place, 1 << 16, &t, &status) == TFPI_OK)
                tp_tensor_release(&t);
        read_half(ckpt, e);
    }
    tp_checkpoint_close(ckpt);
    return 0;
}
