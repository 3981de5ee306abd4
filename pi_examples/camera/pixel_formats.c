/* pixel_formats.c - camera buffers to RGB: packed RGB in any byte order,
 * packed YUV 4:2:2 (BT.601 limited range, what webcams send as YUYV) and
 * Motion-JPEG through the library's JPEG decoder. */
#include "pixel_formats.h"

#include <stdlib.h>

#include "tfpi.h"

typedef enum layout_kind { PACKED_RGB, PACKED_YUV422, COMPRESSED } layout_kind;

/* Where each component sits. Packed RGB: within one pixel of
 * bytes_per_pixel bytes. YUV 4:2:2: within one 4-byte pair of pixels. */
typedef struct pixel_layout {
    const char *name;
    layout_kind kind;
    int bytes_per_pixel;
    int red, green, blue;
    int y0, u, y1, v;
} pixel_layout;

static const pixel_layout layouts[] = {
    [PIXEL_RGB24] = {"RGB24", PACKED_RGB, 3, .red = 0, .green = 1, .blue = 2},
    [PIXEL_BGR24] = {"BGR24", PACKED_RGB, 3, .red = 2, .green = 1, .blue = 0},
    [PIXEL_RGBX32] = {"RGBX32", PACKED_RGB, 4, .red = 0, .green = 1, .blue = 2},
    [PIXEL_BGRX32] = {"BGRX32", PACKED_RGB, 4, .red = 2, .green = 1, .blue = 0},
    [PIXEL_YUYV] = {"YUYV", PACKED_YUV422, 2, .y0 = 0, .u = 1, .y1 = 2, .v = 3},
    [PIXEL_UYVY] = {"UYVY", PACKED_YUV422, 2, .u = 0, .y0 = 1, .v = 2, .y1 = 3},
    [PIXEL_MJPEG] = {.name = "MJPEG", .kind = COMPRESSED},
};

const char *pixel_format_name(pixel_format format)
{
    return layouts[format].name;
}

tfpi_code rgb_image_reserve(tfpi_image *image, int width, int height, const char *name,
                            tfpi_status *status)
{
    if (image->pixels && image->width == width && image->height == height)
        return TFPI_OK;
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: unsupported frame size %dx%d",
                        name, width, height);
    uint8_t *pixels = realloc(image->pixels, (size_t)width * (size_t)height * 3);
    if (!pixels)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for a %dx%d frame",
                        name, width, height);
    image->pixels = pixels;
    image->width = width;
    image->height = height;
    image->channels = 3;
    return TFPI_OK;
}

/* (value + 128) / 256 clamped to 0..255, for 8.8 fixed point sums. */
static uint8_t fixed_to_byte(int value)
{
    value += 128;
    return value <= 0 ? 0 : value >= 255 << 8 ? 255 : (uint8_t)(value >> 8);
}

/* BT.601 limited range (Y 16..235, U/V 16..240) to full-range RGB. */
static void yuv_to_rgb(int y, int u, int v, uint8_t *rgb)
{
    int luma = 298 * (y - 16), cb = u - 128, cr = v - 128;
    rgb[0] = fixed_to_byte(luma + 409 * cr);
    rgb[1] = fixed_to_byte(luma - 100 * cb - 208 * cr);
    rgb[2] = fixed_to_byte(luma + 516 * cb);
}

static void packed_rgb_row(const pixel_layout *l, const uint8_t *src, int width, uint8_t *rgb)
{
    for (int x = 0; x < width; x++, src += l->bytes_per_pixel, rgb += 3) {
        rgb[0] = src[l->red];
        rgb[1] = src[l->green];
        rgb[2] = src[l->blue];
    }
}

static void yuv422_row(const pixel_layout *l, const uint8_t *src, int width, uint8_t *rgb)
{
    for (int x = 0; x < width; x += 2, src += 4, rgb += 6) {
        yuv_to_rgb(src[l->y0], src[l->u], src[l->v], rgb);
        if (x + 1 < width)
            yuv_to_rgb(src[l->y1], src[l->u], src[l->v], rgb + 3);
    }
}

tfpi_code encoded_image_to_rgb(const uint8_t *data, size_t size, const char *name,
                               tfpi_image *rgb, tfpi_status *status)
{
    tfpi_image decoded;
    if (tfpi_image_decode(data, size, name, &decoded, status) != TFPI_OK)
        return status->code;
    tfpi_image_free(rgb);
    *rgb = decoded;
    return TFPI_OK;
}

tfpi_code camera_buffer_to_rgb(const camera_buffer *b, const char *name, tfpi_image *rgb,
                               tfpi_status *status)
{
    const pixel_layout *l = &layouts[b->format];
    if (l->kind == COMPRESSED)
        return encoded_image_to_rgb(b->data, b->size, name, rgb, status);
    /* A YUV 4:2:2 row holds whole pairs: round odd widths up. */
    size_t row_bytes = l->kind == PACKED_YUV422 ? (size_t)(b->width + 1) / 2 * 4
                                                 : (size_t)b->width * (size_t)l->bytes_per_pixel;
    size_t stride = b->stride ? b->stride : row_bytes;
    if (b->width <= 0 || b->height <= 0 || stride < row_bytes ||
        b->size < stride * (size_t)(b->height - 1) + row_bytes)
        return tfpi_status_set(status, TFPI_IO_ERROR,
                        "%s: short %s frame: %zu bytes for %dx%d (stride %zu)", name, l->name,
                        b->size, b->width, b->height, stride);
    if (rgb_image_reserve(rgb, b->width, b->height, name, status) != TFPI_OK)
        return status->code;
    for (int y = 0; y < b->height; y++) {
        const uint8_t *src = b->data + (size_t)y * stride;
        uint8_t *dst = rgb->pixels + (size_t)y * (size_t)b->width * 3;
        if (l->kind == PACKED_RGB)
            packed_rgb_row(l, src, b->width, dst);
        else
            yuv422_row(l, src, b->width, dst);
    }
    return TFPI_OK;
}
