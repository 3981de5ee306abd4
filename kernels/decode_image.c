/* decode_image.c - DecodeJpeg and DecodePng: an encoded image (string
 * scalar) to uint8 [height, width, channels], decoded by tfpi_image_decode
 * (libjpeg-turbo with the fast integer IDCT, libpng). As in TensorFlow 1.x,
 * either op reads either format, recognised by its first bytes.
 *
 * channels: 3 is RGB; 0 is the file's own count (1 for a greyscale JPEG or
 * PNG, 3 for colour); 1 is grey. The decoder always gives RGB, so grey is
 * computed from it with the conversion of the library TensorFlow asks:
 *  - PNG: libpng's rgb_to_gray with TF's weights 0.299, 0.587, i.e.
 *    (9797 R + 19234 G + 3737 B) >> 15, exact for files without gAMA, sRGB
 *    or cHRM chunks (with them libpng converts in linear light);
 *  - JPEG: libjpeg's RGB to Y, (19595 R + 38470 G + 7471 B + 32768) >> 16.
 *    TF takes libjpeg's Y plane directly; recomputed from RGB it matches for
 *    about 99% of the pixels of photos and differs (by up to several levels)
 *    where RGB clipped. Greyscale files are exact.
 * Alpha (channels 2 or 4, or 0 on a PNG with alpha) is not supported.
 * DecodeJpeg: ratio must be 1 and fancy_upscaling true; dct_method
 * INTEGER_ACCURATE also uses the fast IDCT (the decoder has no other);
 * truncated files always fail (try_recover_truncated is not honoured).
 * DecodePng: dtype must be uint8.
 *
 * The output shape is the image's, so the bytes must be known while
 * planning (tfpi plans string feeds with their contents): prepare decodes
 * and the output points at the pixels kept in the node's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

/* grey = (r * red + g * green + b * blue + rounding) >> shift */
typedef struct grey_weights {
    uint32_t red, green, blue, rounding;
    int shift;
} grey_weights;

static const grey_weights libjpeg_grey = {19595, 38470, 7471, 32768, 16};
static const grey_weights libpng_grey = {9797, 19234, 3737, 0, 15};

/* The decoder's own test: anything else it decodes is a PNG. */
static bool is_jpeg(const tfpi_bytes *bytes)
{
    return bytes->size >= 2 && bytes->data[0] == 0xFF && bytes->data[1] == 0xD8;
}

static uint32_t big_endian_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The component count in a JPEG's frame header (SOFn); 0 if none is found
 * before the first scan. */
static int jpeg_components(const uint8_t *data, size_t size)
{
    size_t i = 2; /* after SOI */
    while (i + 4 <= size && data[i] == 0xFF) {
        const uint8_t marker = data[i + 1];
        if (marker == 0xFF) { /* fill byte */
            i++;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) { /* no length */
            i += 2;
            continue;
        }
        if (marker == 0xDA || marker == 0xD9) /* SOS or EOI */
            return 0;
        const bool frame_header =
            marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (frame_header) /* FF Cn, length (2), precision, height (2), width (2), components */
            return i + 9 < size ? data[i + 9] : 0;
        i += 2 + (size_t)(data[i + 2] << 8 | data[i + 3]);
    }
    return 0;
}

/* Whether a PNG has a tRNS chunk before its image data. */
static bool png_has_transparency(const uint8_t *data, size_t size)
{
    size_t i = 8; /* after the signature */
    while (i + 8 <= size) {
        const uint32_t length = big_endian_u32(data + i);
        if (memcmp(data + i + 4, "tRNS", 4) == 0)
            return true;
        if (memcmp(data + i + 4, "IDAT", 4) == 0 || length > size - i - 8)
            return false;
        i += 12 + (size_t)length; /* length, type, data, CRC */
    }
    return false;
}

/* TF's channel count for channels=0: the PNG's colour type decides
 * (palette: 4 with tRNS, else 3); 0 if the header cannot be read. */
static int png_channels(const uint8_t *data, size_t size)
{
    if (size < 26 || memcmp(data + 12, "IHDR", 4) != 0)
        return 0;
    const int colour_type = data[25];
    switch (colour_type) {
    case 0: return 1; /* grey */
    case 2: return 3; /* RGB */
    case 3: return png_has_transparency(data, size) ? 4 : 3; /* palette */
    case 4: return 2; /* grey + alpha */
    case 6: return 4; /* RGBA */
    }
    return 0;
}

/* Checks the op's attributes; returns the requested channel count (0, 1 or 3). */
static tfpi_code read_attrs(tp_op_ctx *ctx, int *channels)
{
    const int64_t wanted = tp_attr_int(ctx->def, "channels", 0);
    if (wanted == 2 || wanted == 4)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "channels=%lld (with alpha) is not supported: tfpi decodes images to RGB or grey",
                       (long long)wanted);
    if (wanted != 0 && wanted != 1 && wanted != 3)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "channels must be 0, 1 or 3, got %lld", (long long)wanted);
    *channels = (int)wanted;
    if (strcmp(ctx->def->op, "DecodePng") == 0) {
        const tfpi_dtype dtype = tp_attr_type(ctx->def, "dtype", TFPI_UINT8);
        if (dtype != TFPI_UINT8)
            return tp_fail(ctx, TFPI_UNIMPLEMENTED, "dtype %s is not supported, only uint8",
                           tfpi_dtype_name(dtype));
        return TFPI_OK;
    }
    const int64_t ratio = tp_attr_int(ctx->def, "ratio", 1);
    if (ratio != 1)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "ratio %lld is not supported, only 1", (long long)ratio);
    if (!tp_attr_bool(ctx->def, "fancy_upscaling", true))
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "fancy_upscaling=false is not supported");
    char buf[32];
    const char *dct = tp_attr_string(ctx->def, "dct_method", buf, sizeof buf, "");
    if (*dct && strcmp(dct, "INTEGER_FAST") != 0 && strcmp(dct, "INTEGER_ACCURATE") != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "dct_method must be empty, INTEGER_FAST or INTEGER_ACCURATE, got '%s'", dct);
    return TFPI_OK;
}

/* The channel count the output gets, for the request and the file. */
static tfpi_code output_channels(tp_op_ctx *ctx, int wanted, const tfpi_bytes *bytes, int *channels)
{
    *channels = wanted;
    if (wanted != 0)
        return TFPI_OK;
    const int natural = is_jpeg(bytes) ? (jpeg_components(bytes->data, bytes->size) == 1 ? 1 : 3)
                                       : png_channels(bytes->data, bytes->size);
    if (natural == 2 || natural == 4)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "the PNG has an alpha channel (%d channels), which tfpi does not decode: set "
                       "channels to 1 or 3",
                       natural);
    *channels = natural == 1 ? 1 : 3;
    return TFPI_OK;
}

/* RGB pixels to grey in place (the first third of the buffer). */
static void rgb_to_grey(uint8_t *pixels, size_t count, const grey_weights *w)
{
    for (size_t i = 0; i < count; i++) {
        const uint8_t *rgb = pixels + 3 * i;
        const uint32_t sum = w->red * rgb[0] + w->green * rgb[1] + w->blue * rgb[2] + w->rounding;
        pixels[i] = (uint8_t)(sum >> w->shift);
    }
}

static tfpi_code decode_image_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_STRING);
    int wanted = 0;
    if (code == TFPI_OK)
        code = read_attrs(ctx, &wanted);
    if (code != TFPI_OK)
        return code;
    char shape[96];
    if (ctx->inputs[0]->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "contents must be a scalar string, got shape %s",
                       tp_shape_string(ctx->inputs[0], shape, sizeof shape));
    if (!ctx->inputs[0]->data)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                       "the image bytes are not known while planning, and the output shape depends on them");
    const tfpi_bytes *bytes = ctx->inputs[0]->data;
    char name[300];
    snprintf(name, sizeof name, "node '%s' (%s)", ctx->def->name, ctx->def->op);
    tfpi_image image;
    if ((code = tfpi_image_decode(bytes->data, bytes->size, name, &image, ctx->status)) != TFPI_OK)
        return code;
    ctx->state = image.pixels;
    int channels;
    if ((code = output_channels(ctx, wanted, bytes, &channels)) != TFPI_OK)
        return code;
    if (channels == 1)
        rgb_to_grey(image.pixels, (size_t)image.width * (size_t)image.height,
                    is_jpeg(bytes) ? &libjpeg_grey : &libpng_grey);
    const int64_t dims[3] = {image.height, image.width, channels};
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_UINT8, 3, dims);
    ctx->outputs[0].data = image.pixels;
    return TFPI_OK;
}

/* The output already holds the pixels unless the runtime gave it a buffer. */
static tfpi_code decode_image_run(tp_op_ctx *ctx)
{
    if (ctx->outputs[0].data != ctx->state)
        memcpy(ctx->outputs[0].data, ctx->state, tp_byte_size(&ctx->outputs[0]));
    return TFPI_OK;
}

const tp_kernel tp_kernels_decode_image[] = {
    TP_KERNEL("DecodeJpeg", decode_image_prepare, decode_image_run, free, 0),
    TP_KERNEL("DecodePng", decode_image_prepare, decode_image_run, free, 0),
    TP_KERNELS_END,
};
