/* image_png.c - PNG to 8-bit RGB with libpng from memory, with the same
 * conversions as TensorFlow's decode_png(channels=3): palette expanded,
 * grey replicated to RGB, alpha and tRNS dropped, 16-bit samples cut to
 * their high byte. libpng errors come back through setjmp/longjmp. */
#include "image/image_codec.h"
#include "tfpi.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct png_context {
    png_structp png;
    png_infop info;
    const uint8_t *data; /* unread input */
    size_t left;
    char message[200];
} png_context;

static void on_error(png_structp png, png_const_charp message)
{
    png_context *ctx = png_get_error_ptr(png);
    snprintf(ctx->message, sizeof ctx->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static void on_read(png_structp png, png_bytep dst, size_t length)
{
    png_context *ctx = png_get_io_ptr(png);
    if (length > ctx->left) png_error(png, "unexpected end of data");
    memcpy(dst, ctx->data, length);
    ctx->data += length;
    ctx->left -= length;
}

/* TF's CommonInitDecode transformations for 3 channels of 8 bits. */
static void request_rgb8(png_structp png, png_infop info)
{
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    if ((color_type & PNG_COLOR_MASK_ALPHA) ||
        png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_strip_alpha(png);
    if (bit_depth > 8) png_set_strip_16(png);
    png_set_packing(png);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_COLOR)) {
        if (bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
        png_set_gray_to_rgb(png);
    }
}

/* Everything that may longjmp; returns an error code or TFPI_OK. */
static tfpi_code decode_body(png_context *ctx, const char *name,
                             tfpi_image *out, tfpi_status *status)
{
    png_structp png = ctx->png;
    png_infop info = ctx->info;
    png_set_read_fn(png, ctx, on_read);
    png_read_info(png, info);
    request_rgb8(png, info);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8)
        return tfpi_status_set(status, TFPI_IO_ERROR,
                        "%s: PNG did not convert to 8-bit RGB", name);
    tfpi_code code = tp_image_alloc(out, png_get_image_width(png, info),
                                    png_get_image_height(png, info), name,
                                    status);
    if (code != TFPI_OK) return code;
    size_t stride = (size_t)out->width * 3;
    for (int pass = 0; pass < passes; pass++)
        for (int y = 0; y < out->height; y++)
            png_read_row(png, out->pixels + (size_t)y * stride, NULL);
    png_read_end(png, NULL);
    return TFPI_OK;
}

static tfpi_code decode_guarded(png_context *ctx, const char *name,
                                tfpi_image *out, tfpi_status *status)
{
    if (setjmp(png_jmpbuf(ctx->png)))
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: bad PNG: %s", name,
                        ctx->message);
    return decode_body(ctx, name, out, status);
}

tfpi_code tp_decode_png(const uint8_t *data, size_t size, const char *name,
                        tfpi_image *out, tfpi_status *status)
{
    png_context ctx = {.data = data, .left = size};
    ctx.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error,
                                     on_warning);
    if (ctx.png) ctx.info = png_create_info_struct(ctx.png);
    if (!ctx.info) {
        png_destroy_read_struct(&ctx.png, NULL, NULL);
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                        "%s: out of memory decoding PNG", name);
    }
    tfpi_code code = decode_guarded(&ctx, name, out, status);
    png_destroy_read_struct(&ctx.png, &ctx.info, NULL);
    if (code != TFPI_OK) tfpi_image_free(out);
    return code;
}
