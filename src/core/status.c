/* status.c - formatted error messages into a tfpi_status. */
#include "tfpi.h"

#include <stdarg.h>
#include <stdio.h>

tfpi_code tfpi_status_set(tfpi_status *status, tfpi_code code, const char *fmt, ...)
{
    if (status) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(status->message, sizeof status->message, fmt, ap);
        va_end(ap);
        status->code = code;
    }
    return code;
}

void tfpi_status_clear(tfpi_status *status)
{
    if (status) {
        status->code = TFPI_OK;
        status->message[0] = '\0';
    }
}
