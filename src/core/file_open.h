/* file_open.h - opening a file that a user or a model names, for reading:
 * the open never blocks (a FIFO or a device named as a model, a
 * checkpoint shard or an image would wait forever for a writer), and
 * anything but a regular file is refused. Every reader of such files
 * opens them here. */
#ifndef TFPI_FILE_OPEN_H
#define TFPI_FILE_OPEN_H

#include <stdio.h>
#include <sys/stat.h>

typedef enum tp_open_result {
    TP_OPEN_OK,
    TP_OPEN_FAILED,      /* errno says why (ENOENT, EACCES, ...) */
    TP_OPEN_NOT_REGULAR, /* a directory, FIFO, socket or device */
} tp_open_result;

/* Opens path read-only into *fd and fills *st; on anything but TP_OPEN_OK
 * nothing is left open. */
tp_open_result tp_open_regular(const char *path, int *fd, struct stat *st);

/* The same as a stdio stream ("rb"); NULL with *result saying why. */
FILE *tp_fopen_regular(const char *path, tp_open_result *result);

/* Reads up to size first bytes of a regular file into buf; the count read
 * (0 for a file that cannot be opened or is not a regular file). */
size_t tp_read_head(const char *path, void *buf, size_t size);

/* "not a regular file" or strerror(errno), for a message. */
const char *tp_open_error(tp_open_result result);

#endif
