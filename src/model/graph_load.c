/* graph_load.c - loads a GraphDef from a file (model_load.c decides that
 * a path is one), a memory buffer, or bytes handed over (model_open.c's
 * decrypted buffers).
 * Binary GraphDefs are parsed (the only full copy of the weights is the one
 * the parser makes, but for 8-bit constants of a mapped file, which are
 * read from the file: mapped_constants.h); memmapped models (TensorFlow's
 * convert_graphdef_memmapped_format layout) keep their bytes, mapped from
 * the file when there is one, and use the weights in place. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file_open.h"
#include "model/graph_memmapped.h"
#include "model/memmapped.h"
#include "tfpi.h"

static void unmap_bytes(uint8_t *data, size_t size) { munmap(data, size); }

/* A binary GraphDef that fails to parse but carries memmapped region names
 * near its end is most likely a memmapped file cut short. */
static tfpi_graph *parse_binary(const uint8_t *data, size_t size, tp_model_bytes *mapped, const char *source,
                                tfpi_status *status)
{
    tfpi_graph *g = mapped ? tp_graph_parse_mapped(mapped, source, status)
                           : tp_graph_parse_binary(data, size, source, status);
    if (!g && tp_memmapped_looks_damaged(data, size))
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                 "%s: a memmapped model whose directory is truncated or damaged (the last 8 bytes "
                 "must give the directory's offset)",
                 source);
    return g;
}

tfpi_graph *tp_graph_load_bytes(tp_model_bytes bytes, const char *source, tfpi_status *status)
{
    if (tp_memmapped_detect(bytes.data, bytes.size))
        return tp_graph_load_memmapped(bytes, source, status);
    tfpi_graph *g = parse_binary(bytes.data, bytes.size, bytes.file_mapped ? &bytes : NULL, source, status);
    if (bytes.release) /* not kept by the graph */
        bytes.release(bytes.data, bytes.size);
    return g;
}

uint8_t *tp_aligned_copy(const void *data, size_t size)
{
    uint8_t *copy = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (copy && size)
        memcpy(copy, data, size);
    return copy;
}

void tp_free_model_bytes(uint8_t *data, size_t size)
{
    (void)size;
    free(data);
}

tfpi_graph *tp_graph_load_buffer(const void *data, size_t size, tfpi_status *status)
{
    const char *source = "model buffer";
    if (!data && size) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "model buffer is NULL");
        return NULL;
    }
    if (!tp_memmapped_detect(data, size))
        return parse_binary(data, size, NULL, source, status);
    /* The caller may free its buffer: the regions need a copy that lives
     * as long as the graph. */
    uint8_t *copy = tp_aligned_copy(data, size);
    if (!copy) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", source, size);
        return NULL;
    }
    return tp_graph_load_memmapped((tp_model_bytes){copy, size, tp_free_model_bytes, false}, source, status);
}

tfpi_code tp_map_model_file(const char *path, tp_model_bytes *out, tfpi_status *status)
{
    int fd;
    struct stat st;
    const tp_open_result opened = tp_open_regular(path, &fd, &st);
    if (opened == TP_OPEN_FAILED)
        return tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", path, strerror(errno));
    if (opened != TP_OPEN_OK)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: not a regular file", path);
    if (st.st_size == 0) {
        close(fd);
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the file is empty", path);
    }
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot map: %s", path, strerror(errno));
    *out = (tp_model_bytes){map, size, unmap_bytes, true};
    return TFPI_OK;
}

tfpi_graph *tp_graph_load_path(const char *path, tfpi_status *status)
{
    tp_model_bytes bytes;
    if (tp_map_model_file(path, &bytes, status) != TFPI_OK)
        return NULL;
    return tp_graph_load_bytes(bytes, path, status);
}
