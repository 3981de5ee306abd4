/* memmapped.h - TensorFlow's memory-mapped model layout (what
 * convert_graphdef_memmapped_format writes): tensor regions, the GraphDef,
 * a MemmappedFileSystemDirectory naming them, and the directory's offset in
 * the last 8 bytes. This reads and checks the directory of such a file held
 * in memory; it never copies the regions. */
#ifndef TFPI_MEMMAPPED_H
#define TFPI_MEMMAPPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memmapped.pb-c.h"
#include "graph/name_map.h"
#include "tfpi.h"

/* Every region name starts with this; the GraphDef is the region
 * TP_MEMMAPPED_GRAPH_NAME. */
#define TP_MEMMAPPED_PREFIX "memmapped_package://"
#define TP_MEMMAPPED_GRAPH_NAME "memmapped_package://."

typedef struct tp_region {
    const char *name;
    const uint8_t *data; /* points into the file's bytes */
    size_t size;
} tp_region;

typedef struct tp_memmapped_dir {
    int num_regions;
    tp_region *regions; /* in file order, offsets increasing */
    const tp_region *graph_def;
    Tfpi__MemmappedFileSystemDirectory *proto; /* owns the names */
    tp_name_map index;                         /* name -> region */
} tp_memmapped_dir;

/* True if data ends the way a memmapped file does: a directory offset in the
 * last 8 bytes pointing at a directory that parses and names a
 * memmapped_package:// region. Cheap: reads only the tail. */
bool tp_memmapped_detect(const uint8_t *data, size_t size);

/* True if region names appear near the end of data: a memmapped file
 * whose directory was cut off or damaged (for a better error message). */
bool tp_memmapped_looks_damaged(const uint8_t *data, size_t size);

/* Reads and checks the directory (offsets in range and increasing, no
 * overlap, unique names, a GraphDef region). On success *out borrows data.
 * `source` names the file in errors. */
tfpi_code tp_memmapped_read_dir(const uint8_t *data, size_t size, const char *source,
                                tp_memmapped_dir *out, tfpi_status *status);
void tp_memmapped_dir_free(tp_memmapped_dir *dir);

/* The region called name, or NULL. */
const tp_region *tp_memmapped_find(const tp_memmapped_dir *dir, const char *name);

#endif
