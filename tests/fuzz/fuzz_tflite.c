/* fuzz_tflite.c - libFuzzer target for the .tflite reader: the FlexBuffer
 * reader on the raw bytes, then the whole load (FlatBuffer checks, schema,
 * subgraph calls, translation, ImmutableConst regions) through
 * tfpi_graph_load_buffer, and for a model that loads one run of its first
 * subgraph on zero inputs under a small memory budget and loop limit.
 *
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flexbuffer.h"
#include "tfpi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs graph once: every input zeros of its declared shape (unknown sizes 1). */
static void run_once(tfpi_graph *graph)
{
    enum { MAX_IO = 8 };
    int num_inputs = tfpi_tflite_num_inputs(graph), num_outputs = tfpi_tflite_num_outputs(graph);
    if (num_inputs > MAX_IO || num_outputs > MAX_IO || num_outputs < 1)
        return;
    const char *feeds[MAX_IO], *fetches[MAX_IO];
    tfpi_tensor *inputs[MAX_IO] = {0}, *outputs[MAX_IO] = {0};
    tfpi_status status;
    bool ok = true;
    for (int i = 0; i < num_inputs && ok; i++) {
        tfpi_tflite_tensor t;
        int64_t dims[TFPI_MAX_DIMS];
        ok = tfpi_tflite_get_tensor(graph, tfpi_tflite_input(graph, i), &t, &status) == TFPI_OK && t.graph_name &&
             t.dtype;
        int64_t elements = 1; /* the harness's feeds: at most 2^20 elements, whatever the file says */
        for (int d = 0; ok && d < t.ndims; d++) {
            dims[d] = t.dims[d] < 1 ? (t.dims[d] == 0 ? 0 : 1) : t.dims[d] > 4096 ? 4096 : t.dims[d];
            if (dims[d] > 1 && elements * dims[d] > (1 << 20))
                dims[d] = 1;
            elements *= dims[d] ? dims[d] : 1;
        }
        feeds[i] = ok ? t.graph_name : NULL;
        ok = ok && (inputs[i] = tfpi_tensor_new(t.dtype, dims, t.ndims, &status)) != NULL;
    }
    for (int i = 0; i < num_outputs && ok; i++) {
        tfpi_tflite_tensor t;
        ok = tfpi_tflite_get_tensor(graph, tfpi_tflite_output(graph, i), &t, &status) == TFPI_OK && t.graph_name;
        fetches[i] = ok ? t.graph_name : NULL;
    }
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = 64 << 20};
    tfpi_session *session = ok ? tfpi_session_new(graph, &options, &status) : NULL;
    if (session) {
        tfpi_session_set_max_loop_iterations(session, 1000);
        if (tfpi_session_run(session, feeds, inputs, num_inputs, fetches, outputs, num_outputs, &status) == TFPI_OK)
            for (int i = 0; i < num_outputs; i++)
                tfpi_tensor_free(outputs[i]);
    }
    tfpi_session_free(session);
    for (int i = 0; i < num_inputs; i++)
        tfpi_tensor_free(inputs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfpi_status status;
    tp_flex_entry *entries;
    int n;
    if (tp_flex_read_map(data, size, "fuzz", &entries, &n, &status) == TFPI_OK)
        tp_flex_free(entries, n);
    tfpi_graph *graph = tfpi_graph_load_buffer(data, size, &status);
    if (graph)
        run_once(graph);
    tfpi_graph_free(graph);
    return 0;
}
