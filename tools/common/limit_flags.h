/* limit_flags.h - the flags every tool that runs a model takes to bound
 * what a model from an untrusted source may make it allocate:
 * --max_memory (the session's memory budget) and --max_image_pixels (the
 * image decoders' limit), and --cpu, the ARM core family whose kernels to
 * run (the session option `cpu`). */
#ifndef TFPI_LIMIT_FLAGS_H
#define TFPI_LIMIT_FLAGS_H

#include <stdint.h>

#include "flags.h"
#include "tfpi.h"

typedef struct limit_flags {
    int64_t max_memory;       /* bytes; 0: the default budget (tfpi_default_max_memory), < 0: none */
    int64_t max_image_pixels; /* 0: TFPI_DEFAULT_MAX_IMAGE_PIXELS */
    const char *cpu;          /* NULL: TFPI_CPU or the core detected */
} limit_flags;

#define LIMIT_FLAGS(l)                                                                                       \
    {"max_memory", FLAG_INT64, &(l).max_memory,                                                              \
     "memory budget of a run in bytes (K/M/G; 0 = TFPI_MAX_MEMORY or half the RAM or limits, -1 = none)"},   \
        {"max_image_pixels", FLAG_COUNT, &(l).max_image_pixels,                                              \
         "largest image the decoders accept, in pixels (0 = the default, 8192x4096)"},                       \
        {"cpu", FLAG_STRING, &(l).cpu, "ARM kernels to run: a53, a72, a76 or generic (default: detected)"}

/* Applies the image limit and returns session options with the budget
 * and CPU. */
tfpi_session_options limit_flags_apply(const limit_flags *l, int num_threads);

#endif
