/* fuzz_memmapped.c - libFuzzer target for the memmapped model reader: the
 * directory checks on their own (tp_memmapped_read_dir), and the whole load
 * path (detection, directory, GraphDef region, ImmutableConst checks)
 * through tfpi_graph_load_buffer. Build and run from the repo root after
 * `make` (for gen/proto and the op registry):
 *   clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Isrc -Igen/proto tests/fuzz/fuzz_memmapped.c $(find src kernels gen/proto -name '*.c') gen/linux/op_registry.c -lprotobuf-c -lpng -ljpeg -lz -lm -lpthread -o /tmp/fuzz_memmapped
 *   mkdir -p /tmp/fuzz_mm_corpus && gen/linux/bin/convert_graphdef_memmapped_format --in_graph=../shared/testdata/mnist/mnist.pb --out_graph=/tmp/fuzz_mm_corpus/mnist --min_conversion_tensor_size=64
 *   /tmp/fuzz_memmapped -max_total_time=300 -rss_limit_mb=2048 /tmp/fuzz_mm_corpus */
#include <stddef.h>
#include <stdint.h>

#include "graph/memmapped.h"
#include "tfpi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfpi_status status;
    tp_memmapped_dir dir;
    if (tp_memmapped_read_dir(data, size, "fuzz", &dir, &status) == TFPI_OK) {
        for (int i = 0; i < dir.num_regions; i++)
            if (dir.regions[i].size > 0 && (dir.regions[i].data[0] ^ dir.regions[i].data[dir.regions[i].size - 1]) == 0xff)
                status.code = TFPI_OK; /* touch both ends of every region */
        tp_memmapped_dir_free(&dir);
    }
    tfpi_graph_free(tfpi_graph_load_buffer(data, size, &status));
    return 0;
}
