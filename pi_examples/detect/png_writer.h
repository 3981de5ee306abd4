/* png_writer.h - writes an 8-bit RGB image as a PNG file (libpng). */
#ifndef TFPI_PNG_WRITER_H
#define TFPI_PNG_WRITER_H

#include "tfpi.h"

tfpi_code png_write_rgb(const char *path, const tfpi_image *image, tfpi_status *status);

#endif
