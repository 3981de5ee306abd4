/* fuzz_memmapped.c - libFuzzer target for the memmapped model reader: the
 * directory checks on their own (tp_memmapped_read_dir), and the whole load
 * path (detection, directory, GraphDef region, ImmutableConst checks)
 * through tfpi_graph_load_buffer.
 *
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stddef.h>
#include <stdint.h>

#include "model/memmapped.h"
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
