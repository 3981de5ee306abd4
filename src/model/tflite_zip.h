/* tflite_zip.h - reading a file of the zip archive appended to a .tflite
 * (Model Maker's and the TFLite Metadata writer's labels.txt and other
 * associated files), with minizip, from the bytes in memory. */
#ifndef TFPI_TFLITE_ZIP_H
#define TFPI_TFLITE_ZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

/* A packed file larger than this (uncompressed) is refused. */
#define TP_TFL_MAX_ASSOCIATED_FILE (16 << 20)

/* The file called `want` (NULL: the labels: labels.txt, else the first
 * .txt) of the archive at the end of data[0..size): *out (malloc'd, the
 * caller frees) and *out_size. TFPI_NOT_FOUND if there is no archive or no
 * such file; other errors for damaged archives. */
tfpi_code tp_tfl_zip_read(const uint8_t *data, size_t size, const char *want, uint8_t **out, size_t *out_size,
                          const char *source, tfpi_status *status);

#endif
