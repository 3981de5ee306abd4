/* npy.h - reading and writing NumPy .npy files (version 1/2, C order,
 * little-endian float32, float64, int32, int64, int8, uint8, bool, and
 * strings: 'S', 'U' and object arrays) as tfpi tensors. */
#ifndef TFPI_NPY_H
#define TFPI_NPY_H

#include "tfpi.h"

tfpi_tensor *npy_read(const char *path, tfpi_status *status);
tfpi_code npy_write(const char *path, const tfpi_tensor *t, tfpi_status *status);

#endif
