/* limit_flags.h - the flags every tool that runs a model takes to bound
 * what a model from an untrusted source may make it allocate:
 * --max_memory (the session's memory budget) and --max_image_pixels (the
 * image decoders' limit). */
#ifndef TFPI_LIMIT_FLAGS_H
#define TFPI_LIMIT_FLAGS_H

#include <stdint.h>

#include "flags.h"
#include "tfpi.h"

typedef struct limit_flags {
    int64_t max_memory;       /* bytes; 0: half the physical RAM, < 0: no budget */
    int64_t max_image_pixels; /* 0: TFPI_DEFAULT_MAX_IMAGE_PIXELS */
} limit_flags;

#define LIMIT_FLAGS(l)                                                                                       \
    {"max_memory", FLAG_INT64, &(l).max_memory,                                                              \
     "memory budget of a run in bytes (K/M/G suffixes; 0 = half the RAM, -1 = none)"},                       \
        {"max_image_pixels", FLAG_COUNT, &(l).max_image_pixels,                                              \
         "largest image the decoders accept, in pixels (0 = the default, 8192x4096)"}

/* Applies the image limit and returns session options with the budget. */
tfpi_session_options limit_flags_apply(const limit_flags *l, int num_threads);

#endif
