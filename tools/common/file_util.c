/* file_util.c - whole-file reads with errors that name the file, and the
 * string tensor of a file. */
#include "file_util.h"
#include "core/file_open.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfpi.h"

uint8_t *read_file(const char *path, size_t *size, tfpi_status *status)
{
    tp_open_result opened;
    FILE *f = tp_fopen_regular(path, &opened);
    uint8_t *data = NULL;
    size_t used = 0, cap = 0;
    bool out_of_memory = false;
    if (!f) {
        tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", path, tp_open_error(opened));
        return NULL;
    }
    for (;;) {
        if (used + 1 >= cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *grown = realloc(data, cap);
            if (!grown) {
                out_of_memory = true;
                break;
            }
            data = grown;
        }
        size_t n = fread(data + used, 1, cap - used - 1, f);
        used += n;
        if (n == 0)
            break;
    }
    bool failed = ferror(f) || out_of_memory;
    fclose(f);
    if (failed) {
        free(data);
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: read failed", path);
        return NULL;
    }
    data[used] = 0;
    *size = used;
    return data;
}

tfpi_tensor *read_file_tensor(const char *path, tfpi_status *status)
{
    size_t size;
    uint8_t *bytes = read_file(path, &size, status);
    tfpi_tensor *t = bytes ? tfpi_tensor_new(TFPI_STRING, NULL, 0, status) : NULL;
    if (t && tfpi_tensor_set_string(t, 0, bytes, size, status) != TFPI_OK) {
        tfpi_tensor_free(t);
        t = NULL;
    }
    free(bytes);
    return t;
}
