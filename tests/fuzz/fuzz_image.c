/* fuzz_image.c - libFuzzer target for tfpi_image_decode (+ a small
 * tfpi_image_to_input).
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include "tfpi.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfpi_image image;
    tfpi_status status;
    if (tfpi_image_decode(data, size, "fuzz", &image, &status) == TFPI_OK) {
        float input[7 * 5 * 3];
        tfpi_image_to_input(&image, 7, 5, 127.5f, 127.5f, input);
    }
    tfpi_image_free(&image);
    return 0;
}
