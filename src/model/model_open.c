/* model_open.c - the public loaders (tfpi_graph_load, _load_file,
 * _load_buffer, _load_buffer_decrypted): a .tflite (identifier TFL3) goes
 * to the TFLite reader, everything else to graph/'s TensorFlow readers. */
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "model/graph_memmapped.h"
#include "model/tflite.h"

tfpi_graph *tfpi_graph_load(const char *path, const tfpi_load_options *options, tfpi_status *status)
{
    if (!path || !*path || !tp_tfl_detect_file(path))
        return tp_graph_load_model(path, options, status);
    tp_model_bytes bytes;
    if (tp_map_model_file(path, &bytes, status) != TFPI_OK)
        return NULL;
    return tp_tfl_load(bytes, options ? options->signature : NULL, path, status);
}

tfpi_graph *tfpi_graph_load_file(const char *path, tfpi_status *status)
{
    return tfpi_graph_load(path, NULL, status);
}

/* Loads bytes the caller hands over, whichever format they are. */
static tfpi_graph *load_bytes(tp_model_bytes bytes, const char *source, tfpi_status *status)
{
    if (tp_tfl_detect(bytes.data, bytes.size))
        return tp_tfl_load(bytes, NULL, source, status);
    return tp_graph_load_bytes(bytes, source, status);
}

tfpi_graph *tfpi_graph_load_buffer(const void *data, size_t size, tfpi_status *status)
{
    const char *source = "model buffer";
    if (!data && size) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "model buffer is NULL");
        return NULL;
    }
    if (!tp_tfl_detect(data, size))
        return tp_graph_load_buffer(data, size, status);
    /* The caller may free its buffer: the weights need a copy that lives
     * as long as the graph, aligned as the file would be when mapped. */
    uint8_t *copy = tp_aligned_copy(data, size);
    if (!copy) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", source, size);
        return NULL;
    }
    return tp_tfl_load((tp_model_bytes){copy, size, tp_free_model_bytes, false}, NULL, source, status);
}

tfpi_graph *tfpi_graph_load_buffer_decrypted(const void *data, size_t size, tfpi_decrypt_fn decrypt, void *user,
                                             tfpi_status *status)
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
    uint8_t *plain = tp_aligned_copy(data, size);
    if (!plain) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", source, size);
        return NULL;
    }
    int rc = decrypt(user, plain, size);
    if (rc != 0) {
        free(plain);
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the decrypt callback failed (returned %d)", source, rc);
        return NULL;
    }
    return load_bytes((tp_model_bytes){plain, size, tp_free_model_bytes, false}, source, status);
}
