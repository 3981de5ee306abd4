/* fuzz_image.c - libFuzzer target for tfpi_image_decode (+ a small
 * tfpi_image_to_input). Build and run from the repo root:
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_image.c src/image/*.c src/core/status.c -ljpeg -lpng -lz -lm -o /tmp/fuzz_image && mkdir -p /tmp/fuzz_corpus && /tmp/fuzz_image -max_total_time=120 -rss_limit_mb=2048 /tmp/fuzz_corpus ../shared/testdata/images ../shared/testdata/tf_reference/mobilenet_v1_0.25_128_plates */
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
