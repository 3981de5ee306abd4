/* tflite_zip.c - the files Model Maker and the TFLite Metadata writer
 * append to a .tflite as a zip archive (labels.txt...), read with minizip
 * from the model's bytes in memory: minizip finds the archive's central
 * directory from the end of the file and allows the FlatBuffer before it.
 * A file is read in full only up to TP_TFL_MAX_ASSOCIATED_FILE bytes. */
#include "model/tflite_zip.h"

#include <minizip/unzip.h>
#include <stdlib.h>
#include <string.h>

/* The archive's bytes as a minizip stream. */
typedef struct memory_file {
    const uint8_t *data;
    size_t size, pos;
} memory_file;

static voidpf ZCALLBACK mem_open(voidpf opaque, const void *name, int mode)
{
    (void)name;
    return mode & ZLIB_FILEFUNC_MODE_WRITE ? NULL : opaque;
}

static uLong ZCALLBACK mem_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
    (void)opaque;
    memory_file *f = stream;
    size_t n = f->pos < f->size ? f->size - f->pos : 0;
    if (n > size)
        n = size;
    memcpy(buf, f->data + f->pos, n);
    f->pos += n;
    return (uLong)n;
}

static uLong ZCALLBACK mem_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
    (void)opaque, (void)stream, (void)buf, (void)size;
    return 0;
}

static ZPOS64_T ZCALLBACK mem_tell(voidpf opaque, voidpf stream)
{
    (void)opaque;
    return ((memory_file *)stream)->pos;
}

static long ZCALLBACK mem_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin)
{
    (void)opaque;
    memory_file *f = stream;
    ZPOS64_T base = origin == ZLIB_FILEFUNC_SEEK_CUR ? f->pos : origin == ZLIB_FILEFUNC_SEEK_END ? f->size : 0;
    if (offset > f->size || base > f->size - offset) /* never past the end */
        return -1;
    f->pos = (size_t)(base + offset);
    return 0;
}

static int ZCALLBACK mem_close(voidpf opaque, voidpf stream)
{
    (void)opaque, (void)stream;
    return 0;
}

static int ZCALLBACK mem_error(voidpf opaque, voidpf stream)
{
    (void)opaque, (void)stream;
    return 0;
}

/* True if name is the file wanted: `want`, or with want NULL a labels file
 * (labels.txt first, else any .txt). */
static bool wanted(const char *name, const char *want, bool any_txt)
{
    if (want)
        return strcmp(name, want) == 0;
    size_t n = strlen(name);
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    return any_txt ? n > 4 && strcmp(name + n - 4, ".txt") == 0 : strcmp(base, "labels.txt") == 0;
}

/* Positions the archive on the wanted file; false if it has none. */
static bool find(unzFile zip, const char *want, char *name, size_t name_size, unz_file_info64 *info)
{
    for (int pass = 0; pass < (want ? 1 : 2); pass++)
        for (int rc = unzGoToFirstFile(zip); rc == UNZ_OK; rc = unzGoToNextFile(zip))
            if (unzGetCurrentFileInfo64(zip, info, name, (uLong)name_size, NULL, 0, NULL, 0) == UNZ_OK &&
                wanted(name, want, pass == 1))
                return true;
    return false;
}

tfpi_code tp_tfl_zip_read(const uint8_t *data, size_t size, const char *want, uint8_t **out, size_t *out_size,
                          const char *source, tfpi_status *status)
{
    memory_file file = {data, size, 0};
    zlib_filefunc64_def io = {mem_open, mem_read, mem_write, mem_tell, mem_seek, mem_close, mem_error, &file};
    *out = NULL;
    *out_size = 0;
    unzFile zip = unzOpen2_64(source, &io);
    if (!zip)
        return tfpi_status_set(status, TFPI_NOT_FOUND, "%s: no files are packed with the model (no zip archive "
                               "after it)", source);
    char name[256];
    unz_file_info64 info;
    tfpi_code code = TFPI_OK;
    if (!find(zip, want, name, sizeof name, &info))
        code = tfpi_status_set(status, TFPI_NOT_FOUND, "%s: the files packed with the model have no %s", source,
                               want ? want : "labels file (labels.txt or another .txt)");
    else if (info.uncompressed_size > TP_TFL_MAX_ASSOCIATED_FILE)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: packed file %s claims %llu bytes, over the %d "
                               "allowed", source, name, (unsigned long long)info.uncompressed_size,
                               TP_TFL_MAX_ASSOCIATED_FILE);
    else if (unzOpenCurrentFile(zip) != UNZ_OK)
        code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: packed file %s cannot be opened (damaged, or "
                               "a compression minizip lacks)", source, name);
    else {
        size_t cap = (size_t)info.uncompressed_size;
        uint8_t *buf = malloc(cap + 1);
        int n = buf ? unzReadCurrentFile(zip, buf, (unsigned)cap + 1) : 0;
        if (!buf)
            code = tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %s", source, name);
        else if (n < 0 || (size_t)n != cap || unzCloseCurrentFile(zip) != UNZ_OK) /* CRC checked at close */
            code = tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: packed file %s is damaged (its size or "
                                   "CRC-32 does not match)", source, name);
        if (code == TFPI_OK) {
            *out = buf;
            *out_size = cap;
        } else {
            free(buf);
        }
    }
    unzClose(zip);
    return code;
}
