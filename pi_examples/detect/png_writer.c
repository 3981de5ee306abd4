/* png_writer.c - an RGB image to a PNG file with libpng (png_writer.h).
 * libpng reports errors by longjmp; every failure becomes one status line
 * naming the file. */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "png_writer.h"

static tfpi_code write_rows(png_structp png, png_infop info, FILE *f, const tfpi_image *image)
{
    if (setjmp(png_jmpbuf(png)))
        return TFPI_IO_ERROR;
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)image->width, (png_uint_32)image->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < image->height; y++)
        png_write_row(png, image->pixels + (size_t)y * (size_t)image->width * 3);
    png_write_end(png, info);
    return TFPI_OK;
}

tfpi_code png_write_rgb(const char *path, const tfpi_image *image, tfpi_status *status)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: %s", path, strerror(errno));
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    tfpi_code code = info ? write_rows(png, info, f, image) : TFPI_OUT_OF_MEMORY;
    png_destroy_write_struct(&png, &info);
    if (fclose(f) != 0 && code == TFPI_OK)
        code = TFPI_IO_ERROR;
    if (code != TFPI_OK)
        return tfpi_status_set(status, code, "%s: cannot write the PNG file", path);
    return TFPI_OK;
}
