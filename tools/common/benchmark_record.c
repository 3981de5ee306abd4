/* benchmark_record.c - writes TensorFlow's BenchmarkEntries record (see
 * benchmark_record.h) with a few lines of protobuf wire format. */
#include "benchmark_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct buffer {
    uint8_t *data;
    size_t size, capacity;
} buffer;

static void put(buffer *b, const void *bytes, size_t n)
{
    if (b->size + n > b->capacity) {
        size_t capacity = 2 * (b->size + n) + 64;
        uint8_t *grown = realloc(b->data, capacity);
        if (!grown) {
            b->capacity = (size_t)-1; /* marks the failure; nothing more is written */
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    if (b->capacity != (size_t)-1) {
        memcpy(b->data + b->size, bytes, n);
        b->size += n;
    }
}

static void put_varint(buffer *b, uint64_t v)
{
    uint8_t bytes[10];
    size_t n = 0;
    do {
        bytes[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(b, bytes, n);
}

static void put_double(buffer *b, int field, double v)
{
    if (v == 0)
        return; /* proto3 leaves defaults out */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (uint8_t)(bits >> (8 * i));
    put_varint(b, (uint64_t)field << 3 | 1);
    put(b, bytes, 8);
}

/* A file name: PREFIX + NAME, each '/' of NAME as "__"; malloc'd. */
static char *record_path(const char *prefix, const char *name)
{
    size_t n = strlen(prefix) + 2 * strlen(name) + 1;
    char *path = malloc(n), *p = path;
    if (!path)
        return NULL;
    p += sprintf(p, "%s", prefix);
    for (const char *c = name; *c; c++)
        p += *c == '/' ? sprintf(p, "__") : sprintf(p, "%c", *c);
    return path;
}

tfpi_code benchmark_record_write(const char *prefix, const benchmark_entry *entry, tfpi_status *status)
{
    buffer e = {0}, file = {0};
    put_varint(&e, 1 << 3 | 2);
    put_varint(&e, strlen(entry->name));
    put(&e, entry->name, strlen(entry->name));
    if (entry->iters) {
        put_varint(&e, 2 << 3);
        put_varint(&e, (uint64_t)entry->iters);
    }
    put_double(&e, 3, entry->cpu_time);
    put_double(&e, 4, entry->wall_time);
    put_double(&e, 5, entry->throughput);
    put_varint(&file, 1 << 3 | 2); /* BenchmarkEntries.entry */
    put_varint(&file, e.size);
    put(&file, e.data, e.size);
    char *path = record_path(prefix, entry->name);
    tfpi_code code = TFPI_OK;
    int fd = -1;
    if (!path || e.capacity == (size_t)-1 || file.capacity == (size_t)-1)
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "--output_prefix: out of memory");
    else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
        code = tfpi_status_set(status, TFPI_IO_ERROR, "--output_prefix: cannot create the benchmark record %s: %s",
                               path, errno == EEXIST ? "the file exists" : strerror(errno));
    else if (write(fd, file.data, file.size) != (ssize_t)file.size)
        code = tfpi_status_set(status, TFPI_IO_ERROR, "--output_prefix: %s: write failed", path);
    if (fd >= 0)
        close(fd);
    free(path);
    free(e.data);
    free(file.data);
    return code;
}
