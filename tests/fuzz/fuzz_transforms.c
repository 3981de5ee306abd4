/* fuzz_transforms.c - libFuzzer target for transform_graph's transforms on
 * hostile GraphDefs: the input is a binary GraphDef; every transform runs
 * on it in turn (errors are fine, crashes, leaks and hangs are not), and
 * the result must serialize.
 * Built and run by `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdlib.h>
#include <string.h>

#include "../../tools/transforms/transform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const specs[] = {
    "remove_nodes(op=Identity, op=CheckNumerics)", "fold_old_batch_norms", "fold_batch_norms",
    "quantize_weights(minimum_size=4)", "round_weights(minimum_size=4)", "merge_duplicate_nodes",
    "obfuscate_names", "backport_concatv2", "fuse_resize_pad_and_conv", "fuse_pad_and_conv",
    "fuse_resize_and_conv", "flatten_atrous_conv", "insert_logging(op=MatMul)", "add_default_attributes",
    "rename_attribute(old_attribute_name=T, new_attribute_name=U)", "remove_control_dependencies",
    "fold_constants", "sort_by_execution_order", "strip_unused_nodes",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Tfpi__GraphDef *graph = tfpi__graph_def__unpack(NULL, size, data);
    if (!graph || graph->n_node == 0 || graph->n_node > 200) {
        tfpi__graph_def__free_unpacked(graph, NULL);
        return 0;
    }
    for (size_t s = 0; s < sizeof specs / sizeof specs[0] && graph->n_node > 0; s++) {
        tfpi_status status = {0};
        transform_list list;
        if (transform_spec_parse(specs[s], &list, &status) != TFPI_OK)
            abort();
        /* --outputs: the last node (a copy: the transform may rename it) */
        char *output = strdup(graph->node[graph->n_node - 1]->name);
        transform_ctx ctx = {.call = &list.calls[0], .num_outputs = 1, .outputs = &output, .status = &status};
        transform_find(list.calls[0].name)->run(graph, &ctx);
        free(output);
        transform_spec_free(&list);
    }
    size_t packed = tfpi__graph_def__get_packed_size(graph);
    uint8_t *bytes = malloc(packed + 1);
    if (bytes)
        tfpi__graph_def__pack(graph, bytes);
    free(bytes);
    tfpi__graph_def__free_unpacked(graph, NULL);
    return 0;
}
