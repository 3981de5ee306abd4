/* src/image/ - pictures in, tensors out: the JPEG and PNG decoders behind
 * tfpi_image_decode (this file), TF1's legacy bilinear resize and the
 * normalised model input. Uses only src/core/.
 *
 * image_codec.h - the JPEG, PNG and BMP decoders behind tfpi_image_decode, and
 * the size check and pixel allocation they share. */
#ifndef TFPI_IMAGE_CODEC_H
#define TFPI_IMAGE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

/* Largest accepted width or height, and largest pixel buffer (TF's own
 * decode_jpeg limit of 2^29 bytes). */
#define TP_IMAGE_MAX_SIDE 32768
#define TP_IMAGE_MAX_BYTES ((uint64_t)1 << 29)

/* Checks the size and allocates out->pixels for an RGB image; on failure
 * sets status and leaves out zeroed. */
tfpi_code tp_image_alloc(tfpi_image *out, uint64_t width, uint64_t height,
                         const char *name, tfpi_status *status);

/* Decode into a zeroed `out`; on failure `out` is left zeroed. */
tfpi_code tp_decode_jpeg(const uint8_t *data, size_t size, const char *name,
                         tfpi_image *out, tfpi_status *status);
tfpi_code tp_decode_png(const uint8_t *data, size_t size, const char *name,
                        tfpi_image *out, tfpi_status *status);
tfpi_code tp_decode_bmp(const uint8_t *data, size_t size, const char *name, tfpi_image *out, tfpi_status *status);

#endif
