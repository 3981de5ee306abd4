/* limit_flags.c - turns --max_memory, --max_image_pixels, --cpu and
 * --precision into the session options and the image decoders' limit. */
#include "limit_flags.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

tfpi_session_options limit_flags_apply(const limit_flags *l, int num_threads)
{
    tfpi_image_set_max_pixels(l->max_image_pixels);
    return (tfpi_session_options){.num_threads = num_threads, .max_memory_bytes = l->max_memory,
                                    .cpu = l->cpu, .precision = l->precision};
}

bool limit_flags_valid(const limit_flags *l)
{
    if (!l->precision || strcmp(l->precision, "fp32") == 0 || strcmp(l->precision, "fp16") == 0)
        return true;
    fprintf(stderr, "error: --precision=%s: use fp32 or fp16\n", l->precision);
    return false;
}

void limit_flags_check_session(const limit_flags *l, const tfpi_session *session)
{
    static bool warned;
    if (!warned && session && l->precision && strcmp(l->precision, "fp16") == 0 &&
        strcmp(tfpi_session_precision(session), "fp16") != 0) {
        fprintf(stderr, "warning: --precision=fp16: this CPU has no fp16 arithmetic (it needs the aarch64 build on "
                        "an armv8.2-a core with FP16, such as a Pi 5's); running in fp32\n");
        warned = true;
    }
}
