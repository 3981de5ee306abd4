/* load_flags.c - opens a tool's model with --saved_model_tags,
 * --signature_def and --checkpoint (see load_flags.h). */
#include "load_flags.h"

#include <string.h>

#include "graph/graph.h"
#include "graphdef_io.h"

tfpi_graph *load_flags_graph(const load_flags *l, const char *path, tfpi_status *status)
{
    tfpi_load_options options = {l->saved_model_tags, l->signature_def, l->checkpoint};
    return graphdef_load_model(path, &options, status);
}

const char *load_flags_signature_default(const tfpi_graph *graph, const char *value, const char *tool_default,
                                         int input)
{
    int n = input ? tfpi_graph_signature_num_inputs(graph) : tfpi_graph_signature_num_outputs(graph);
    tp_edge named;
    if (!value || !tool_default || strcmp(value, tool_default) != 0 ||
        tp_graph_resolve(graph, value, input ? "feed" : "fetch", &named, NULL) == TFPI_OK)
        return value;
    if (n == 1)
        return input ? tfpi_graph_signature_input(graph, 0, NULL) : tfpi_graph_signature_output(graph, 0, NULL);
    /* a .tflite without a signature: its first input or output */
    tfpi_tflite_tensor t;
    int index = input ? tfpi_tflite_input(graph, 0) : tfpi_tflite_output(graph, 0);
    if (index >= 0 && tfpi_tflite_get_tensor(graph, index, &t, NULL) == TFPI_OK && t.graph_name)
        return t.graph_name;
    return value;
}
