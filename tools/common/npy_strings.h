/* npy_strings.h - the string arrays of .npy files (npy.c reads the header):
 * each fills a string tensor of the header's shape from the file's data. */
#ifndef TFPI_NPY_STRINGS_H
#define TFPI_NPY_STRINGS_H

#include <stddef.h>
#include <stdint.h>

#include "tfpi.h"

/* '|S<width>': width bytes per element, trailing NULs dropped. */
tfpi_code npy_fixed_bytes(tfpi_tensor *t, const uint8_t *data, size_t width, tfpi_status *status);
/* '<U<chars>': chars UTF-32LE code points per element, as UTF-8. */
tfpi_code npy_fixed_unicode(tfpi_tensor *t, const uint8_t *data, size_t chars, const char *path,
                            tfpi_status *status);
/* '|O': numpy's pickle of the array; its elements must be str or bytes. */
tfpi_code npy_object_strings(tfpi_tensor *t, const uint8_t *pickle, size_t size, const char *path,
                             tfpi_status *status);

#endif
