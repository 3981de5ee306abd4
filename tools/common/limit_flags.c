/* limit_flags.c - turns --max_memory, --max_image_pixels and --cpu into the
 * session options and the image decoders' limit. */
#include "limit_flags.h"

tfpi_session_options limit_flags_apply(const limit_flags *l, int num_threads)
{
    tfpi_image_set_max_pixels(l->max_image_pixels);
    return (tfpi_session_options){.num_threads = num_threads, .max_memory_bytes = l->max_memory,
                                    .cpu = l->cpu};
}
