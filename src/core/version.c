/* version.c - tfpi_version(). The number itself is set in one place, the
 * Makefile's VERSION, which also makes the soname, the .pc file and the
 * package versions from it. */
#include "tfpi.h"

#ifndef TFPI_VERSION
#error "TFPI_VERSION is passed by the Makefile (VERSION)"
#endif

const char *tfpi_version(void) { return TFPI_VERSION; }
