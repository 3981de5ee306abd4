/* graph_inputs.c - checking feeds against the graph's Placeholders (see
 * graph_inputs.h). */
#include "graph_inputs.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* "[1,?,?,3]" into buf (? = unknown size); "of any shape" when the graph
 * declares none. */
static const char *shape_text(const tfpi_graph *graph, const char *name, char *buf, size_t size)
{
    int64_t dims[TFPI_MAX_DIMS];
    int rank = tfpi_graph_node_shape(graph, name, dims, TFPI_MAX_DIMS);
    if (rank < 0)
        return "of any shape";
    size_t n = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && n < size; i++) {
        if (dims[i] < 0)
            n += (size_t)snprintf(buf + n, size - n, "%s?", i ? "," : "");
        else
            n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? "," : "", (long long)dims[i]);
    }
    if (n < size)
        snprintf(buf + n, size - n, "]");
    return buf;
}

/* The tensor a signature input key names (a SavedModel's), or name itself. */
static const char *signature_tensor(const tfpi_graph *graph, const char *name)
{
    for (int i = 0; i < tfpi_graph_signature_num_inputs(graph); i++) {
        const char *tensor = NULL, *key = tfpi_graph_signature_input(graph, i, &tensor);
        if (key && tensor && strcmp(key, name) == 0)
            return tensor;
    }
    return name;
}

const char *graph_inputs_describe(const tfpi_graph *graph, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < tfpi_graph_signature_num_inputs(graph) && n < size; i++) { /* a SavedModel's keys */
        const char *tensor = NULL, *key = tfpi_graph_signature_input(graph, i, &tensor);
        char shape[160];
        n += (size_t)snprintf(buf + n, size - n, "%s%s = %s (%s %s)", n ? ", " : "", key, tensor,
                              tfpi_dtype_name(tfpi_graph_node_dtype(graph, tensor)),
                              shape_text(graph, tensor, shape, sizeof shape));
    }
    for (int i = 0; n == 0 && i < tfpi_graph_num_nodes(graph) && n < size; i++) {
        if (strcmp(tfpi_graph_node_op(graph, i), "Placeholder") != 0)
            continue;
        const char *name = tfpi_graph_node_name(graph, i);
        char shape[160];
        n += (size_t)snprintf(buf + n, size - n, "%s%s (%s %s)", n ? ", " : "", name,
                              tfpi_dtype_name(tfpi_graph_node_dtype(graph, name)),
                              shape_text(graph, name, shape, sizeof shape));
    }
    if (n == 0)
        snprintf(buf, size, "none (the graph has no Placeholder)");
    return buf;
}

bool graph_inputs_has_node(const tfpi_graph *graph, const char *tensor_name)
{
    size_t len = strcspn(tensor_name, ":");
    for (int i = 0; i < tfpi_graph_num_nodes(graph); i++) {
        const char *node = tfpi_graph_node_name(graph, i);
        if (strlen(node) == len && strncmp(node, tensor_name, len) == 0)
            return true;
    }
    return false;
}

int graph_inputs_check(const tfpi_graph *graph, const char *name, const int64_t *dims, int ndims,
                       const char *name_flag, const char *shape_flag)
{
    char text[1024];
    const char *user_name = name;
    name = signature_tensor(graph, name);
    if (!graph_inputs_has_node(graph, name)) {
        fprintf(stderr, "error: %s: the graph has no node named '%s'; its inputs: %s\n", name_flag, user_name,
                graph_inputs_describe(graph, text, sizeof text));
        return 1;
    }
    int64_t declared[TFPI_MAX_DIMS];
    int rank = dims ? tfpi_graph_node_shape(graph, name, declared, TFPI_MAX_DIMS) : -1;
    bool fits = rank < 0 || rank == ndims;
    for (int i = 0; fits && i < rank; i++)
        fits = declared[i] < 0 || declared[i] == dims[i];
    if (fits)
        return 0;
    char given[160];
    size_t n = 0;
    for (int i = 0; i < ndims && n < sizeof given; i++)
        n += (size_t)snprintf(given + n, sizeof given - n, "%s%lld", i ? "," : "", (long long)dims[i]);
    if (ndims == 0)
        snprintf(given, sizeof given, "a scalar");
    fprintf(stderr, "error: %s: [%s] does not fit input '%s', which the graph declares as %s %s\n", shape_flag,
            given, user_name, tfpi_dtype_name(tfpi_graph_node_dtype(graph, name)),
            shape_text(graph, name, text, sizeof text));
    return 1;
}

int graph_inputs_check_feed(const tfpi_graph *graph, const char *name, const tfpi_tensor *feed, const char *name_flag,
                            const char *shape_flag)
{
    tfpi_dtype declared = tfpi_graph_node_dtype(graph, signature_tensor(graph, name));
    if (declared && declared != tfpi_tensor_dtype(feed))
        return 0; /* the wrong type: the session says so, naming both */
    int64_t dims[TFPI_MAX_DIMS];
    int rank = tfpi_tensor_ndims(feed);
    for (int d = 0; d < rank; d++)
        dims[d] = tfpi_tensor_dim(feed, d);
    return graph_inputs_check(graph, name, dims, rank, name_flag, shape_flag);
}
