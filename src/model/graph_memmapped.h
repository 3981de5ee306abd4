/* graph_memmapped.h - loading a memory-mapped model into a tfpi_graph whose
 * ImmutableConst nodes read their weights in place from the file's regions,
 * and the look-up the ImmutableConst kernel uses. */
#ifndef TFPI_GRAPH_MEMMAPPED_H
#define TFPI_GRAPH_MEMMAPPED_H

#include "core/tensor.h"
#include "graph/graph.h"
#include "model/memmapped.h"

/* Model bytes and how to give them back (munmap for a mapped file, free
 * for a buffer the library copied or decrypted). */
typedef struct tp_model_bytes {
    uint8_t *data;
    size_t size;
    void (*release)(uint8_t *data, size_t size);
    bool file_mapped; /* a private read-only mapping of a file */
} tp_model_bytes;

/* Maps a whole non-empty regular file, read-only (released by munmap). */
tfpi_code tp_map_model_file(const char *path, tp_model_bytes *out, tfpi_status *status);
/* A 64-byte aligned copy of data (NULL if out of memory), and the release
 * function of such copies. */
uint8_t *tp_aligned_copy(const void *data, size_t size);
void tp_free_model_bytes(uint8_t *data, size_t size);
/* Loads a binary or memmapped GraphDef from bytes handed over (released
 * here, or for a memmapped model when the graph is freed). */
tfpi_graph *tp_graph_load_bytes(tp_model_bytes bytes, const char *source, tfpi_status *status);

/* Parses the binary GraphDef of a mapped file (bytes->file_mapped),
 * dropping the pages parsed as it goes; its large 8-bit constants are read
 * from the file in place (mapped_constants.h), and then the graph keeps the
 * mapping and bytes->release is set to NULL. */
tfpi_graph *tp_graph_parse_mapped(tp_model_bytes *bytes, const char *source, tfpi_status *status);

/* Loads a memmapped model (tp_memmapped_detect said yes). Takes ownership
 * of bytes whatever the outcome: the graph keeps them until it is freed. */
tfpi_graph *tp_graph_load_memmapped(tp_model_bytes bytes, const char *source, tfpi_status *status);

/* Points out's dtype, shape and data at the region an ImmutableConst node
 * names (attrs dtype, shape, memory_region_name). Fails, naming the node,
 * if the graph was not loaded from a memmapped file or the region does not
 * fit the node. */
tfpi_code tp_graph_mapped_const(const tfpi_graph *graph, const Tfpi__NodeDef *def, tfpi_tensor *out,
                                tfpi_status *status);
/* Every ImmutableConst node of g must fit its region: checked once at
 * load, so a bad file fails there, naming the node. */
tfpi_code tp_graph_check_mapped_consts(const tfpi_graph *g, const char *source, tfpi_status *status);
/* The same against a directory read with tp_memmapped_read_dir (dir may be
 * NULL: no regions). */
tfpi_code tp_memmapped_const(const tp_memmapped_dir *dir, const Tfpi__NodeDef *def, tfpi_tensor *out,
                             tfpi_status *status);

#endif
