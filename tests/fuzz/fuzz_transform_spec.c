/* fuzz_transform_spec.c - libFuzzer target for the --transforms grammar
 * parser of transform_graph (tools/transforms/transform_spec.c): any text
 * either parses into calls whose names and values are non-empty, or fails
 * with a message. Build and run from the repo root:
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc -Itools/common tests/fuzz/fuzz_transform_spec.c tools/transforms/transform_spec.c tools/common/xalloc.c src/core/status.c -o /tmp/fuzz_transform_spec
 *   mkdir -p /tmp/fuzz_spec_corpus && echo 'a b(c=1, d="x,y") e( f = g )' > /tmp/fuzz_spec_corpus/seed
 *   /tmp/fuzz_transform_spec -max_total_time=120 /tmp/fuzz_spec_corpus */
#include <stdlib.h>
#include <string.h>

#include "../../tools/transforms/transform_spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    tfpi_status status = {0};
    transform_list list;
    if (transform_spec_parse(text, &list, &status) == TFPI_OK) {
        for (int i = 0; i < list.count; i++) {
            if (!list.calls[i].name[0])
                abort();
            for (int p = 0; p < list.calls[i].num_params; p++)
                if (!list.calls[i].params[p].name[0] || list.calls[i].params[p].num_values < 1)
                    abort();
        }
        transform_spec_free(&list);
    } else if (!status.message[0]) {
        abort();
    }
    free(text);
    return 0;
}
