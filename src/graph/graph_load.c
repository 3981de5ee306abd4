/* graph_load.c - loads a GraphDef from a file (model_load.c decides that
 * a path is one), a memory buffer, or an encrypted buffer the caller's
 * callback decrypts.
 * Binary GraphDefs are parsed (the only full copy of the weights is the one
 * the parser makes); memmapped models (TensorFlow's
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
#include "graph/graph_memmapped.h"
#include "graph/memmapped.h"
#include "tfpi.h"

static void unmap_bytes(uint8_t *data, size_t size) { munmap(data, size); }

static void free_bytes(uint8_t *data, size_t size)
{
    (void)size;
    free(data);
}

/* A binary GraphDef that fails to parse but carries memmapped region names
 * near its end is most likely a memmapped file cut short. */
static tfpi_graph *parse_binary(const uint8_t *data, size_t size, bool mapped, const char *source,
                                tfpi_status *status)
{
    tfpi_graph *g = tp_graph_parse_binary(data, size, mapped, source, status);
    if (!g && tp_memmapped_looks_damaged(data, size))
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                 "%s: a memmapped model whose directory is truncated or damaged (the last 8 bytes "
                 "must give the directory's offset)",
                 source);
    return g;
}

/* Loads either format from bytes the caller hands over (released here or,
 * for a memmapped model, when the graph is freed). */
static tfpi_graph *load_owned_bytes(tp_model_bytes bytes, const char *source, tfpi_status *status)
{
    if (tp_memmapped_detect(bytes.data, bytes.size))
        return tp_graph_load_memmapped(bytes, source, status);
    tfpi_graph *g = parse_binary(bytes.data, bytes.size, bytes.release == unmap_bytes, source, status);
    bytes.release(bytes.data, bytes.size);
    return g;
}

/* A 64-byte aligned copy (memmapped regions keep their alignment). */
static uint8_t *aligned_copy(const void *data, size_t size)
{
    uint8_t *copy = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (copy)
        memcpy(copy, data, size);
    return copy;
}

tfpi_graph *tfpi_graph_load_buffer(const void *data, size_t size, tfpi_status *status)
{
    const char *source = "model buffer";
    if (!data && size) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "model buffer is NULL");
        return NULL;
    }
    if (!tp_memmapped_detect(data, size))
        return parse_binary(data, size, false, source, status);
    /* The caller may free its buffer: the regions need a copy that lives
     * as long as the graph. */
    uint8_t *copy = aligned_copy(data, size);
    if (!copy) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", source, size);
        return NULL;
    }
    return tp_graph_load_memmapped((tp_model_bytes){copy, size, free_bytes}, source, status);
}

tfpi_graph *tfpi_graph_load_buffer_decrypted(const void *data, size_t size, tfpi_decrypt_fn decrypt,
                                             void *user, tfpi_status *status)
{
    const char *source = "decrypted model buffer";
    if ((!data && size) || !decrypt) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "model buffer or decrypt callback is NULL");
        return NULL;
    }
    if (size == 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the model is empty", source);
        return NULL;
    }
    uint8_t *plain = aligned_copy(data, size);
    if (!plain) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", source, size);
        return NULL;
    }
    int rc = decrypt(user, plain, size);
    if (rc != 0) {
        free(plain);
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the decrypt callback failed (returned %d)", source,
                 rc);
        return NULL;
    }
    return load_owned_bytes((tp_model_bytes){plain, size, free_bytes}, source, status);
}

tfpi_graph *tp_graph_load_path(const char *path, tfpi_status *status)
{
    int fd;
    struct stat st;
    const tp_open_result opened = tp_open_regular(path, &fd, &st);
    if (opened == TP_OPEN_FAILED) {
        tfpi_status_set(status, TFPI_NOT_FOUND, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (opened != TP_OPEN_OK) {
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: not a regular file", path);
        return NULL;
    }
    if (st.st_size == 0) {
        close(fd);
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the file is empty", path);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot map: %s", path, strerror(errno));
        return NULL;
    }
    return load_owned_bytes((tp_model_bytes){map, size, unmap_bytes}, path, status);
}
