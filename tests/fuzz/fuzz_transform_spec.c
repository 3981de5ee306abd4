/* fuzz_transform_spec.c - libFuzzer target for the --transforms grammar
 * parser of transform_graph (tools/transforms/transform_spec.c): any text
 * either parses into calls whose names and values are non-empty, or fails
 * with a message.
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
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
