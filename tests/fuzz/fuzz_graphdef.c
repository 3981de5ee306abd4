/* fuzz_graphdef.c - libFuzzer target for a model end to end: the binary
 * GraphDef loader, planning (pruning, validation, shape inference, constant
 * folding, the arena) and two runs of the same session, with every
 * Placeholder fed a small tensor of its dtype and shape (unknown dims 2)
 * and the last node fetched. Nothing may crash, leak or trip a sanitizer;
 * a memory budget of 64 MB keeps hostile shapes from exhausting memory (and
 * the fuzzer fast).
 * Build and run with `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/node_def.h"
#include "tfpi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_FEEDS = 4, MAX_FEED_ELEMENTS = 4096 };

/* A small tensor for a Placeholder, or NULL if its dtype or shape will not do. */
static tfpi_tensor *feed_for(const Tfpi__NodeDef *def)
{
    tfpi_dtype dtype = tp_attr_type(def, "dtype", TFPI_FLOAT);
    const Tfpi__AttrValue *shape = tp_attr(def, "shape");
    int64_t dims[TFPI_MAX_DIMS], elements = 1;
    int ndims = 0;
    if (shape && shape->value_case == TFPI__ATTR_VALUE__VALUE_SHAPE && !shape->shape->unknown_rank) {
        if (shape->shape->n_dim > TFPI_MAX_DIMS)
            return NULL;
        for (size_t i = 0; i < shape->shape->n_dim; i++) {
            int64_t d = shape->shape->dim[i]->size;
            dims[ndims++] = d < 0 ? 2 : d;
            if (d > MAX_FEED_ELEMENTS || (elements *= dims[ndims - 1]) > MAX_FEED_ELEMENTS)
                return NULL;
        }
    }
    tfpi_status status;
    tfpi_tensor *t = tfpi_tensor_new(dtype, dims, ndims, &status);
    if (t && dtype != TFPI_STRING)
        memset(tfpi_tensor_data(t), 1, tfpi_tensor_byte_size(t));
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tfpi_status status;
    tfpi_graph *graph = tfpi_graph_load_buffer(data, size, &status);
    if (!graph)
        return 0;
    const char *feed_names[MAX_FEEDS];
    tfpi_tensor *feeds[MAX_FEEDS];
    int num_feeds = 0;
    for (int i = 0; i < graph->num_nodes && num_feeds < MAX_FEEDS; i++) {
        const Tfpi__NodeDef *def = graph->nodes[i].def;
        if (strcmp(def->op, "Placeholder") == 0 && (feeds[num_feeds] = feed_for(def)))
            feed_names[num_feeds++] = def->name;
    }
    tfpi_image_set_max_pixels(1 << 20);
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = 64 << 20};
    tfpi_session *session = tfpi_session_new(graph, &options, &status);
    /* Loops, nested ones too (each level runs to the limit), stop in well
     * under a second; the default limit, 10^6, is tested by the suite. */
    if (session)
        tfpi_session_set_max_loop_iterations(session, 100);
    const char *fetch = graph->nodes[graph->num_nodes - 1].def->name;
    for (int run = 0; session && run < 2; run++) {
        tfpi_tensor *out = NULL;
        if (tfpi_session_run(session, feed_names, feeds, num_feeds, &fetch, &out, 1, &status) != TFPI_OK)
            break;
        tfpi_tensor_free(out);
    }
    tfpi_session_free(session);
    for (int i = 0; i < num_feeds; i++)
        tfpi_tensor_free(feeds[i]);
    tfpi_graph_free(graph);
    return 0;
}
