/* limit_flags.h - the flags every tool that runs a model takes to bound
 * what a model from an untrusted source may make it allocate:
 * --max_memory (the session's memory budget) and --max_image_pixels (the
 * image decoders' limit), and --cpu, the ARM core family whose kernels to
 * run (the session option `cpu`), and --precision, fp32 or fp16 arithmetic
 * (the session option `precision`). */
#ifndef TFPI_LIMIT_FLAGS_H
#define TFPI_LIMIT_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

#include "flags.h"
#include "tfpi.h"

typedef struct limit_flags {
    int64_t max_memory;       /* bytes; 0: the default budget (tfpi_default_max_memory), < 0: none */
    int64_t max_image_pixels; /* 0: TFPI_DEFAULT_MAX_IMAGE_PIXELS */
    const char *cpu;          /* NULL: TFPI_CPU or the core detected */
    const char *precision;    /* NULL: fp32 */
} limit_flags;

#define LIMIT_FLAGS(l)                                                                                       \
    {"max_memory", FLAG_INT64, &(l).max_memory,                                                              \
     "memory budget of a run in bytes (K/M/G; 0 = TFPI_MAX_MEMORY or half the RAM or limits, -1 = none)"},   \
        {"max_image_pixels", FLAG_COUNT, &(l).max_image_pixels,                                              \
         "largest image the decoders accept, in pixels (0 = the default, 8192x4096)"},                       \
        {"cpu", FLAG_STRING, &(l).cpu, "ARM kernels to run: a53, a72, a76 or generic (default: detected)"},    \
        {"precision", FLAG_STRING, &(l).precision,                                                           \
         "fp32, or fp16: half-precision convolutions and matrix products where the CPU has them (a Pi 5) "   \
         "(default: fp32)"}

/* Applies the image limit and returns session options with the budget,
 * CPU and precision. */
tfpi_session_options limit_flags_apply(const limit_flags *l, int num_threads);

/* True if --precision is fp32, fp16 or not given; otherwise prints the
 * error. */
bool limit_flags_valid(const limit_flags *l);

/* After the session is made: one warning line on stderr if --precision=fp16
 * was asked for and the session runs in fp32 (a CPU without fp16
 * arithmetic); printed once per program. */
void limit_flags_check_session(const limit_flags *l, const tfpi_session *session);

#endif
