/* image_jpeg.c - JPEG to RGB with libjpeg-turbo, set up as TensorFlow's
 * decode_jpeg(channels=3): fast integer IDCT, fancy upsampling, CMYK/YCCK
 * converted to RGB as TF does, truncated data rejected. libjpeg errors come
 * back through setjmp/longjmp and never print or exit. */
#include "image/image_codec.h"
#include "tfpi.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* Corrupt progressive files can hold endless scans; libjpeg-turbo's own
 * fuzzers stop at this many. */
enum { MAX_SCANS = 500 };

typedef struct jpeg_context {
    struct jpeg_error_mgr err; /* first, so cinfo->err leads back here */
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    uint8_t *cmyk_row; /* scanline buffer for CMYK output, or NULL */
} jpeg_context;

static void fail(j_common_ptr cinfo)
{
    jpeg_context *ctx = (jpeg_context *)cinfo->err;
    cinfo->err->format_message(cinfo, ctx->message);
    longjmp(ctx->jump, 1);
}

/* Warnings stay silent, except "premature end of data": TF fails on a
 * truncated JPEG, and libjpeg would otherwise pad it with grey. */
static void on_message(j_common_ptr cinfo, int level)
{
    if (level >= 0) return;
    cinfo->err->num_warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) fail(cinfo);
}

static void on_progress(j_common_ptr cinfo)
{
    jpeg_context *ctx = (jpeg_context *)cinfo->err;
    if (ctx->cinfo.input_scan_number > MAX_SCANS) {
        snprintf(ctx->message, sizeof ctx->message, "more than %d scans",
                 MAX_SCANS);
        longjmp(ctx->jump, 1);
    }
}

/* TF's CMYK to RGB: Adobe files store inverted CMYK. */
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, int width,
                        bool adobe)
{
    for (int i = 0; i < width; i++, cmyk += 4, rgb += 3) {
        int k = adobe ? cmyk[3] : 255 - cmyk[3];
        for (int c = 0; c < 3; c++)
            rgb[c] = (uint8_t)((adobe ? cmyk[c] : 255 - cmyk[c]) * k / 255);
    }
}

/* Everything that may longjmp; returns an error code or TFPI_OK. */
static tfpi_code decode_body(jpeg_context *ctx, const uint8_t *data,
                             size_t size, const char *name, tfpi_image *out,
                             tfpi_status *status)
{
    struct jpeg_decompress_struct *cinfo = &ctx->cinfo;
    jpeg_create_decompress(cinfo);
    cinfo->progress = &ctx->progress;
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_read_header(cinfo, TRUE);
    bool cmyk = cinfo->jpeg_color_space == JCS_CMYK ||
                cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    cinfo->dct_method = JDCT_IFAST;
    cinfo->do_fancy_upsampling = TRUE;
    jpeg_calc_output_dimensions(cinfo);
    tfpi_code code = tp_image_alloc(out, cinfo->output_width,
                                    cinfo->output_height, name, status);
    if (code != TFPI_OK) return code;
    if (cmyk) {
        ctx->cmyk_row = malloc((size_t)out->width * 4);
        if (!ctx->cmyk_row)
            return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                            "%s: out of memory decoding JPEG", name);
    }
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != (cmyk ? 4 : 3))
        return tfpi_status_set(status, TFPI_IO_ERROR,
                        "%s: JPEG decoded to %d components", name,
                        cinfo->output_components);
    size_t stride = (size_t)out->width * 3;
    while (cinfo->output_scanline < cinfo->output_height) {
        uint8_t *row = out->pixels + cinfo->output_scanline * stride;
        JSAMPROW target = cmyk ? ctx->cmyk_row : row;
        if (jpeg_read_scanlines(cinfo, &target, 1) != 1)
            return tfpi_status_set(status, TFPI_IO_ERROR, "%s: truncated JPEG", name);
        if (cmyk)
            cmyk_to_rgb(ctx->cmyk_row, row, out->width, cinfo->saw_Adobe_marker);
    }
    /* No jpeg_finish_decompress: nothing after the image data is needed.
     * (A missing end marker still fails above: the last scan reads ahead
     * for it, and TF fails such files too.) */
    return TFPI_OK;
}

static tfpi_code decode_guarded(jpeg_context *ctx, const uint8_t *data,
                                size_t size, const char *name, tfpi_image *out,
                                tfpi_status *status)
{
    if (setjmp(ctx->jump))
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: bad JPEG: %s", name,
                        ctx->message);
    return decode_body(ctx, data, size, name, out, status);
}

tfpi_code tp_decode_jpeg(const uint8_t *data, size_t size, const char *name,
                         tfpi_image *out, tfpi_status *status)
{
    jpeg_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                        "%s: out of memory decoding JPEG", name);
    ctx->cinfo.err = jpeg_std_error(&ctx->err);
    ctx->err.error_exit = fail;
    ctx->err.emit_message = on_message;
    ctx->progress.progress_monitor = on_progress;
    tfpi_code code = decode_guarded(ctx, data, size, name, out, status);
    jpeg_destroy_decompress(&ctx->cinfo);
    free(ctx->cmyk_row);
    free(ctx);
    if (code != TFPI_OK) tfpi_image_free(out);
    return code;
}
