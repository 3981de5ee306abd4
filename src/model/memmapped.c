/* memmapped.c - finds and checks the directory of a memory-mapped model:
 * the last 8 bytes give the directory's offset (little-endian), the
 * directory lists (offset, name, length) for every region. Hostile files
 * must not get past here with a region outside the file or overlapping
 * another, so every number is checked before it is used. */
#include "model/memmapped.h"

#include <stdlib.h>
#include <string.h>

#include "tfpi.h"

/* The directory's offset from the last 8 bytes, or false if it cannot be one. */
static bool directory_offset(const uint8_t *data, size_t size, uint64_t *offset)
{
    if (size < 8)
        return false;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | data[size - 8 + (size_t)i];
    *offset = v;
    return v <= size - 8;
}

static Tfpi__MemmappedFileSystemDirectory *unpack_directory(const uint8_t *data, size_t size,
                                                            uint64_t offset)
{
    return tfpi__memmapped_file_system_directory__unpack(NULL, size - 8 - (size_t)offset,
                                                         data + offset);
}

bool tp_memmapped_detect(const uint8_t *data, size_t size)
{
    uint64_t offset;
    if (!directory_offset(data, size, &offset))
        return false;
    Tfpi__MemmappedFileSystemDirectory *dir = unpack_directory(data, size, offset);
    bool named = false;
    for (size_t i = 0; dir && i < dir->n_element && !named; i++)
        named = strncmp(dir->element[i]->name, TP_MEMMAPPED_PREFIX, strlen(TP_MEMMAPPED_PREFIX)) == 0;
    tfpi__memmapped_file_system_directory__free_unpacked(dir, NULL);
    return named;
}

bool tp_memmapped_looks_damaged(const uint8_t *data, size_t size)
{
    const size_t tail = 64 * 1024;
    const uint8_t *start = size > tail ? data + size - tail : data;
    return size > 0 && memmem(start, (size_t)(data + size - start), TP_MEMMAPPED_PREFIX,
                              strlen(TP_MEMMAPPED_PREFIX)) != NULL;
}

void tp_memmapped_dir_free(tp_memmapped_dir *dir)
{
    free(dir->regions);
    tp_name_map_free(&dir->index);
    tfpi__memmapped_file_system_directory__free_unpacked(dir->proto, NULL);
    memset(dir, 0, sizeof *dir);
}

const tp_region *tp_memmapped_find(const tp_memmapped_dir *dir, const char *name)
{
    int i = tp_name_map_find(&dir->index, name, strlen(name));
    return i >= 0 ? &dir->regions[i] : NULL;
}

/* Offsets must increase and stay before the directory; names must be
 * present and unique (indexed into *names). */
static tfpi_code check_offsets_and_names(const Tfpi__MemmappedFileSystemDirectory *proto,
                                         uint64_t dir_offset, tp_name_map *names, const char *source,
                                         tfpi_status *status)
{
    if (!tp_name_map_init(names, proto->n_element))
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    tfpi_code code = TFPI_OK;
    for (size_t i = 0; i < proto->n_element && code == TFPI_OK; i++) {
        const Tfpi__MemmappedFileSystemDirectoryElement *e = proto->element[i];
        if (!e->name[0])
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: memmapped directory entry %zu has no name", source, i);
        else if (e->offset > dir_offset)
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: memmapped region '%.200s' starts at offset %llu, past the end of the "
                            "data (the directory is at offset %llu)",
                            source, e->name, (unsigned long long)e->offset,
                            (unsigned long long)dir_offset);
        else if (i > 0 && e->offset <= proto->element[i - 1]->offset)
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: memmapped region '%.200s' at offset %llu overlaps region '%.200s' at "
                            "offset %llu (offsets must increase)",
                            source, e->name, (unsigned long long)e->offset, proto->element[i - 1]->name,
                            (unsigned long long)proto->element[i - 1]->offset);
        else if (!tp_name_map_insert(names, e->name, (int)i))
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: two memmapped regions are named '%.200s'",
                            source, e->name);
    }
    return code;
}

/* Sizes: an explicit length must end before the next region (or the
 * directory); old writers leave it 0, meaning "up to the next region". */
static tfpi_code place_regions(const uint8_t *data, const Tfpi__MemmappedFileSystemDirectory *proto,
                               uint64_t dir_offset, tp_region *regions, const char *source,
                               tfpi_status *status)
{
    for (size_t i = 0; i < proto->n_element; i++) {
        const Tfpi__MemmappedFileSystemDirectoryElement *e = proto->element[i];
        bool last = i + 1 == proto->n_element;
        uint64_t limit = last ? dir_offset : proto->element[i + 1]->offset;
        if (e->length > limit - e->offset)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: memmapped region '%.200s' (offset %llu, %llu bytes) %s%.200s%s", source,
                            e->name, (unsigned long long)e->offset, (unsigned long long)e->length,
                            last ? "runs into the directory" : "overlaps region '",
                            last ? "" : proto->element[i + 1]->name, last ? "" : "'");
        regions[i].name = e->name;
        regions[i].data = data + e->offset;
        regions[i].size = (size_t)(e->length ? e->length : limit - e->offset);
    }
    return TFPI_OK;
}

tfpi_code tp_memmapped_read_dir(const uint8_t *data, size_t size, const char *source,
                                tp_memmapped_dir *out, tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    uint64_t offset;
    if (!directory_offset(data, size, &offset))
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "%s: not a memmapped model: the last 8 bytes do not give a directory offset "
                        "inside the file (truncated?)",
                        source);
    out->proto = unpack_directory(data, size, offset);
    if (!out->proto)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "%s: the memmapped directory at offset %llu is truncated or damaged", source,
                        (unsigned long long)offset);
    const Tfpi__MemmappedFileSystemDirectory *proto = out->proto;
    tfpi_code code = TFPI_OK;
    if (proto->n_element == 0 || proto->n_element > (size_t)INT32_MAX)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the memmapped directory is empty", source);
    if (code == TFPI_OK)
        code = check_offsets_and_names(proto, offset, &out->index, source, status);
    if (code == TFPI_OK && !(out->regions = calloc(proto->n_element, sizeof *out->regions)))
        code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
    if (code == TFPI_OK)
        code = place_regions(data, proto, offset, out->regions, source, status);
    if (code == TFPI_OK) {
        out->num_regions = (int)proto->n_element;
        out->graph_def = tp_memmapped_find(out, TP_MEMMAPPED_GRAPH_NAME);
        if (!out->graph_def)
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: the memmapped directory has no GraphDef region '%s'", source,
                            TP_MEMMAPPED_GRAPH_NAME);
    }
    if (code != TFPI_OK)
        tp_memmapped_dir_free(out);
    return code;
}
