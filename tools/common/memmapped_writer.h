/* memmapped_writer.h - writes TensorFlow's memory-mapped model layout:
 * regions each padded to a 64-byte boundary, then the directory
 * (MemmappedFileSystemDirectory) and its offset as the last 8 bytes. */
#ifndef TFPI_MEMMAPPED_WRITER_H
#define TFPI_MEMMAPPED_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "memmapped.pb-c.h"
#include "tfpi.h"

typedef struct mm_writer {
    FILE *file;
    const char *path;
    uint64_t offset; /* bytes written so far */
    Tfpi__MemmappedFileSystemDirectory dir;
} mm_writer;

tfpi_code mm_writer_open(mm_writer *w, const char *path, tfpi_status *status);
/* Appends region `name` (names must be unique; the caller sees to it). */
tfpi_code mm_writer_add(mm_writer *w, const char *name, const void *data, size_t size,
                        tfpi_status *status);
/* Writes the directory and its offset and closes the file. */
tfpi_code mm_writer_finish(mm_writer *w, tfpi_status *status);
/* Closes and frees after an error, removing the incomplete file. */
void mm_writer_abandon(mm_writer *w);

#endif
