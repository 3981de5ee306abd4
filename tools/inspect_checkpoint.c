/* inspect_checkpoint - lists or prints the tensors of a TensorFlow
 * checkpoint, as TensorFlow's inspect_checkpoint does:
 *   inspect_checkpoint --file_name=P             every key with dtype and shape
 *   inspect_checkpoint --file_name=P --tensor_name=K [--output=k.npy]
 *   inspect_checkpoint --file_name=P --all_tensors
 * P is a checkpoint prefix (model.ckpt), one of its files, a SavedModel
 * directory or a training directory with a `checkpoint` file. Every
 * checksum of the tensors read is verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
#include "flags.h"
#include "limit_flags.h"
#include "model/checkpoint.h"
#include "npy.h"

static const char *dtype_name(int dtype)
{
    static const char *const names[] = {"DT_INVALID", "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8",
                                        "DT_INT16", "DT_INT8", "DT_STRING", "DT_COMPLEX64", "DT_INT64",
                                        "DT_BOOL", "DT_QINT8", "DT_QUINT8", "DT_QINT32", "DT_BFLOAT16",
                                        "DT_QINT16", "DT_QUINT16", "DT_UINT16", "DT_COMPLEX128", "DT_HALF",
                                        "DT_RESOURCE", "DT_VARIANT", "DT_UINT32", "DT_UINT64"};
    return dtype >= 0 && dtype < (int)(sizeof names / sizeof names[0]) ? names[dtype] : "DT_UNKNOWN";
}

static void print_entry(const tp_checkpoint_entry *e)
{
    printf("%s (%s) [", e->key, dtype_name(e->dtype));
    for (int d = 0; d < e->ndims && d < TFPI_MAX_DIMS; d++)
        printf("%s%lld", d ? "," : "", (long long)e->dims[d]);
    printf("]%s\n", e->num_slices > 0 ? " partitioned" : "");
}

static void print_values(const tfpi_tensor *t)
{
    int64_t n = tp_num_elements(t);
    for (int64_t i = 0; i < n; i++) {
        const void *data = t->data;
        switch (t->dtype) {
        case TFPI_FLOAT: printf("%.9g", (double)((const float *)data)[i]); break;
        case TFPI_DOUBLE: printf("%.17g", ((const double *)data)[i]); break;
        case TFPI_STRING: {
            const tfpi_bytes *s = &((const tfpi_bytes *)data)[i];
            putchar('"');
            for (size_t k = 0; k < s->size; k++)
                printf(s->data[k] >= 0x20 && s->data[k] < 0x7f && s->data[k] != '"' && s->data[k] != '\\'
                           ? "%c" : "\\x%02x", s->data[k]);
            putchar('"');
            break;
        }
        default: printf("%lld", (long long)tp_get_int(t, i)); break;
        }
        putchar(i + 1 < n ? ' ' : '\n');
    }
    if (n == 0)
        putchar('\n');
}

/* Prints (or writes to output) one tensor; 0 on success. */
static int show_tensor(tp_checkpoint *ckpt, const char *key, const char *output, int64_t budget)
{
    tfpi_status status = {0};
    tfpi_tensor t;
    /* In place where it can: entries that share one region of the data
     * file are neither copied nor checksummed once each. */
    if (tp_checkpoint_read(ckpt, key, true, budget, &t, &status) != TFPI_OK) {
        fprintf(stderr, "error: %s\n", status.message);
        return 1;
    }
    int rc = 0;
    if (output) {
        if (npy_write(output, &t, &status) != TFPI_OK) {
            fprintf(stderr, "error: %s\n", status.message);
            rc = 1;
        }
    } else {
        printf("tensor_name:  %s\n", key);
        print_values(&t);
    }
    tp_checkpoint_release(ckpt, &t);
    return rc;
}

int main(int argc, char **argv)
{
    const char *file_name = NULL, *tensor_name = NULL, *output = NULL;
    bool all_tensors = false;
    limit_flags limits = {0};
    const tool_flag flags[] = {
        {"file_name", FLAG_STRING, &file_name, "checkpoint prefix, one of its files, or a directory"},
        {"tensor_name", FLAG_STRING, &tensor_name, "print (or write) only this tensor"},
        {"all_tensors", FLAG_BOOL, &all_tensors, "print every tensor's values"},
        {"output", FLAG_STRING, &output, "with --tensor_name: write it to this .npy file"},
        LIMIT_FLAGS(limits),
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--file_name=model.ckpt [--tensor_name=K] [--all_tensors]");
    if (rc == 0 && !file_name) {
        fprintf(stderr, "error: --file_name is required (see --help)\n");
        rc = 1;
    }
    if (rc == 0 && output && !tensor_name) {
        fprintf(stderr, "error: --output needs --tensor_name\n");
        rc = 1;
    }
    tfpi_status status = {0};
    char prefix[4096];
    tp_checkpoint *ckpt = NULL;
    if (rc == 0 && (tp_checkpoint_find_prefix(file_name, prefix, sizeof prefix, &status) != TFPI_OK ||
                    !(ckpt = tp_checkpoint_open(prefix, &status)))) {
        fprintf(stderr, "error: %s\n", status.message);
        rc = 1;
    }
    int64_t budget = limit_flags_apply(&limits, 1).max_memory_bytes;
    if (budget == 0)
        budget = tfpi_default_max_memory();
    if (rc == 0 && tensor_name) {
        rc = show_tensor(ckpt, tensor_name, output, budget);
    } else if (rc == 0) {
        for (int i = 0; i < tp_checkpoint_num_entries(ckpt); i++) {
            const tp_checkpoint_entry *e = tp_checkpoint_entry_at(ckpt, i);
            if (!all_tensors)
                print_entry(e);
            else if (show_tensor(ckpt, e->key, NULL, budget) != 0)
                rc = 1;
        }
    }
    tp_checkpoint_close(ckpt);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
