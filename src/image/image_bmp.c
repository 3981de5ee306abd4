/* image_bmp.c - Windows BMP pictures (what TensorFlow Lite's label_image
 * reads: grace_hopper.bmp): uncompressed (BI_RGB) 8-bit grey, 24-bit BGR
 * and 32-bit BGRA, rows bottom-up (positive height) or top-down (negative),
 * each padded to 4 bytes. Every size and offset from the header is checked
 * against the file before a pixel is read. */
#include <stdbool.h>
#include <string.h>

#include "image/image_codec.h"

static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

tfpi_code tp_decode_bmp(const uint8_t *data, size_t size, const char *name, tfpi_image *out, tfpi_status *status)
{
    /* BITMAPFILEHEADER (14 bytes): "BM", size, reserved, pixel offset; then
     * BITMAPINFOHEADER: header size, width, height, planes, bits, compression. */
    if (size < 14 + 20 || u32(data + 14) < 40)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a BMP too short for its headers", name);
    uint32_t offset = u32(data + 10), compression = u32(data + 30);
    int32_t width = (int32_t)u32(data + 18), height = (int32_t)u32(data + 22);
    unsigned bits = u16(data + 28);
    if (compression != 0 || (bits != 8 && bits != 24 && bits != 32))
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED, "%s: a BMP of %u bits per pixel, compression %u (tfpi reads "
                               "uncompressed 8-, 24- and 32-bit BMPs)", name, bits, compression);
    if (width <= 0 || height == 0 || height == INT32_MIN)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a BMP of %dx%d pixels", name, width, height);
    bool top_down = height < 0;
    uint64_t rows = top_down ? (uint64_t)-(int64_t)height : (uint64_t)height;
    uint64_t row_bytes = ((uint64_t)width * bits / 8 + 3) & ~(uint64_t)3;
    if (offset > size || row_bytes * rows > size - offset)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: a BMP whose %llu rows of %llu bytes do not fit the "
                               "file (truncated?)", name, (unsigned long long)rows, (unsigned long long)row_bytes);
    tfpi_code code = tp_image_alloc(out, (uint64_t)width, rows, name, status);
    if (code != TFPI_OK)
        return code;
    unsigned step = bits / 8;
    for (uint64_t y = 0; y < rows; y++) {
        const uint8_t *src = data + offset + (top_down ? y : rows - 1 - y) * row_bytes;
        uint8_t *dst = out->pixels + y * (uint64_t)width * 3;
        for (int32_t x = 0; x < width; x++, src += step, dst += 3) {
            dst[0] = src[step == 1 ? 0 : 2]; /* stored B, G, R */
            dst[1] = src[step == 1 ? 0 : 1];
            dst[2] = src[0];
        }
    }
    return TFPI_OK;
}
