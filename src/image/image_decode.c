/* image_decode.c - the public image entry points: format detection by magic
 * bytes, reading a whole file, freeing, and the shared pixel allocation. */
#include "image/image_codec.h"
#include "core/file_open.h"
#include "tfpi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most pixels a decoder may produce (tfpi_image_set_max_pixels). */
static int64_t max_pixels = TFPI_DEFAULT_MAX_IMAGE_PIXELS;

void tfpi_image_set_max_pixels(int64_t pixels) { max_pixels = pixels > 0 ? pixels : TFPI_DEFAULT_MAX_IMAGE_PIXELS; }

tfpi_code tp_image_alloc(tfpi_image *out, uint64_t width, uint64_t height,
                         const char *name, tfpi_status *status)
{
    memset(out, 0, sizeof *out);
    if (width <= UINT32_MAX && height <= UINT32_MAX && width * height > (uint64_t)max_pixels)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                               "%s: image of %llux%llu pixels is over the limit of %lld pixels (max_image_pixels)",
                               name, (unsigned long long)width, (unsigned long long)height, (long long)max_pixels);
    if (width == 0 || height == 0 || width > TP_IMAGE_MAX_SIDE ||
        height > TP_IMAGE_MAX_SIDE || width * height * 3 > TP_IMAGE_MAX_BYTES)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "%s: unsupported image size %llux%llu", name,
                        (unsigned long long)width, (unsigned long long)height);
    out->pixels = malloc((size_t)(width * height * 3));
    if (!out->pixels)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                        "%s: out of memory for %llux%llu pixels", name,
                        (unsigned long long)width, (unsigned long long)height);
    out->width = (int)width;
    out->height = (int)height;
    out->channels = 3;
    return TFPI_OK;
}

tfpi_code tfpi_image_decode(const void *data, size_t size, const char *name,
                            tfpi_image *out, tfpi_status *status)
{
    static const uint8_t jpeg_magic[2] = {0xFF, 0xD8};
    static const uint8_t png_magic[4] = {0x89, 0x50, 0x4E, 0x47};
    const uint8_t *bytes = data;
    if (!name) name = "image";
    if (!out)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "%s: no output image given", name);
    memset(out, 0, sizeof *out);
    if (bytes && size >= sizeof jpeg_magic &&
        memcmp(bytes, jpeg_magic, sizeof jpeg_magic) == 0)
        return tp_decode_jpeg(bytes, size, name, out, status);
    if (bytes && size >= sizeof png_magic &&
        memcmp(bytes, png_magic, sizeof png_magic) == 0)
        return tp_decode_png(bytes, size, name, out, status);
    return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                    "%s: not a JPEG or PNG image", name);
}

/* Reads all of `file` into a new buffer; returns 0 or an errno value. */
static int read_all(FILE *file, uint8_t **data, size_t *size)
{
    size_t capacity = 1 << 16, used = 0;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) return ENOMEM;
    errno = 0;
    for (;;) {
        used += fread(buffer + used, 1, capacity - used, file);
        if (ferror(file)) {
            free(buffer);
            return errno ? errno : EIO;
        }
        if (used < capacity) break;
        uint8_t *bigger = capacity <= SIZE_MAX / 2 ? realloc(buffer, capacity * 2)
                                                   : NULL;
        if (!bigger) {
            free(buffer);
            return ENOMEM;
        }
        buffer = bigger;
        capacity *= 2;
    }
    *data = buffer;
    *size = used;
    return 0;
}

tfpi_code tfpi_image_load(const char *path, tfpi_image *out, tfpi_status *status)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                        "tfpi_image_load: no path or output image given");
    tp_open_result opened;
    FILE *file = tp_fopen_regular(path, &opened);
    if (!file)
        return tfpi_status_set(status, opened == TP_OPEN_FAILED && errno == ENOENT ? TFPI_NOT_FOUND : TFPI_IO_ERROR,
                        "%s: cannot open: %s", path, tp_open_error(opened));
    uint8_t *data = NULL;
    size_t size = 0;
    int err = read_all(file, &data, &size);
    fclose(file);
    if (err)
        return tfpi_status_set(status,
                        err == ENOMEM ? TFPI_OUT_OF_MEMORY : TFPI_IO_ERROR,
                        "%s: cannot read: %s", path, strerror(err));
    tfpi_code code = size == 0 ? tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                          "%s: empty file", path)
                               : tfpi_image_decode(data, size, path, out, status);
    free(data);
    return code;
}

void tfpi_image_free(tfpi_image *image)
{
    if (!image) return;
    free(image->pixels);
    memset(image, 0, sizeof *image);
}
