/* status.h - filling a tfpi_status with a formatted one-line message. */
#ifndef TFPI_STATUS_H
#define TFPI_STATUS_H

#include "tfpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets status (which may be NULL) and returns code, for `return tp_error(...)`. */
tfpi_code tp_error(tfpi_status *status, tfpi_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif
