/* memmapped_writer.c - the writing side of the memmapped layout (the reader
 * is src/model/memmapped.c). Offsets and lengths are recorded as each region is
 * written; the directory goes last, then its offset, little-endian. */
#include "memmapped_writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tfpi.h"
#include "xalloc.h"

#define REGION_ALIGNMENT 64

static tfpi_code write_bytes(mm_writer *w, const void *data, size_t size, tfpi_status *status)
{
    if (size > 0 && fwrite(data, 1, size, w->file) != size)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: write failed: %s", w->path, strerror(errno));
    w->offset += size;
    return TFPI_OK;
}

tfpi_code mm_writer_open(mm_writer *w, const char *path, tfpi_status *status)
{
    memset(w, 0, sizeof *w);
    tfpi__memmapped_file_system_directory__init(&w->dir);
    w->path = path;
    w->file = fopen(path, "wb");
    if (!w->file)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot create: %s", path, strerror(errno));
    return TFPI_OK;
}

tfpi_code mm_writer_add(mm_writer *w, const char *name, const void *data, size_t size,
                        tfpi_status *status)
{
    static const uint8_t zeros[REGION_ALIGNMENT];
    size_t pad = (size_t)((REGION_ALIGNMENT - w->offset % REGION_ALIGNMENT) % REGION_ALIGNMENT);
    tfpi_code code = write_bytes(w, zeros, pad, status);
    Tfpi__MemmappedFileSystemDirectoryElement *e = xmalloc(sizeof *e);
    tfpi__memmapped_file_system_directory_element__init(e);
    e->name = xstrdup(name);
    e->offset = w->offset;
    e->length = size;
    w->dir.element = xrealloc(w->dir.element, (w->dir.n_element + 1) * sizeof *w->dir.element);
    w->dir.element[w->dir.n_element++] = e;
    return code == TFPI_OK ? write_bytes(w, data, size, status) : code;
}

static void free_directory(mm_writer *w)
{
    for (size_t i = 0; i < w->dir.n_element; i++)
        tfpi__memmapped_file_system_directory_element__free_unpacked(w->dir.element[i], NULL);
    free(w->dir.element);
    w->dir.element = NULL;
    w->dir.n_element = 0;
}

tfpi_code mm_writer_finish(mm_writer *w, tfpi_status *status)
{
    uint64_t dir_offset = w->offset;
    size_t size = tfpi__memmapped_file_system_directory__get_packed_size(&w->dir);
    uint8_t *packed = xmalloc(size);
    tfpi__memmapped_file_system_directory__pack(&w->dir, packed);
    uint8_t tail[8];
    for (int i = 0; i < 8; i++)
        tail[i] = (uint8_t)(dir_offset >> (8 * i));
    tfpi_code code = write_bytes(w, packed, size, status);
    if (code == TFPI_OK)
        code = write_bytes(w, tail, sizeof tail, status);
    free(packed);
    free_directory(w);
    if (fclose(w->file) != 0 && code == TFPI_OK)
        code = tfpi_status_set(status, TFPI_IO_ERROR, "%s: write failed: %s", w->path, strerror(errno));
    w->file = NULL;
    return code;
}

void mm_writer_abandon(mm_writer *w)
{
    free_directory(w);
    if (w->file) {
        fclose(w->file);
        remove(w->path); /* no half-written model is left behind */
    }
    w->file = NULL;
}
