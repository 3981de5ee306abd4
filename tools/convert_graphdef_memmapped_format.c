/* convert_graphdef_memmapped_format - rewrites a frozen graph in
 * TensorFlow's memory-mapped layout, which tfpi (and TensorFlow) load with
 * mmap, using the weights in place:
 *   convert_graphdef_memmapped_format --in_graph=G.pb --out_graph=G_mmap.pb
 *                                     [--min_conversion_tensor_size=10000]
 * Every Const of a numeric type whose value takes at least
 * min_conversion_tensor_size bytes moves into its own 64-byte aligned
 * region "memmapped_package://<name>" and the node becomes an
 * ImmutableConst (attrs dtype, shape, memory_region_name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "graphdef_edit.h"
#include "graphdef_io.h"
#include "graph/name_map.h"
#include "graphdef_inspect.h"
#include "memmapped_writer.h"
#include "model/memmapped.h"
#include "xalloc.h"

/* Region names handed out so far (a name may only be used once). */
typedef struct region_names {
    tp_name_map index;
    char **names;
    int count;
} region_names;

/* "memmapped_package://" + name with characters outside [A-Za-z0-9_.]
 * replaced by '_', and '_' appended until the name is unused. */
static const char *unique_region_name(region_names *used, const char *node_name)
{
    size_t prefix = strlen(TP_MEMMAPPED_PREFIX), len = strlen(node_name);
    char *name = xmalloc(prefix + len + 1);
    memcpy(name, TP_MEMMAPPED_PREFIX, prefix);
    for (size_t i = 0; i < len; i++) {
        char c = node_name[i];
        bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.';
        name[prefix + i] = keep ? c : '_';
    }
    name[prefix + len] = '\0';
    while (tp_name_map_find(&used->index, name, strlen(name)) >= 0) {
        size_t n = strlen(name);
        name = xrealloc(name, n + 2);
        name[n] = '_';
        name[n + 1] = '\0';
    }
    used->names[used->count] = name;
    tp_name_map_insert(&used->index, name, used->count++);
    return name;
}

/* What the conversion may expand a Const to: a 60-byte model can describe
 * a 4 GB tensor of zeros. */
typedef struct conversion {
    int min_bytes;   /* smaller Consts stay in the GraphDef */
    int64_t budget;  /* the largest value expanded, in bytes; < 0: any */
} conversion;

/* Moves a big enough Const's value into a region; *converted_bytes grows
 * by the region's size when it does. */
static tfpi_code convert_const(Tfpi__NodeDef *node, const conversion *cv, region_names *used, mm_writer *out,
                               const char *source, size_t *converted_bytes, tfpi_status *status)
{
    const Tfpi__AttrValue *value = tp_attr(node, "value");
    if (!value || value->value_case != TFPI__ATTR_VALUE__VALUE_TENSOR)
        return TFPI_OK;
    tfpi_tensor t = {0};
    void *owned = NULL;
    char what[300];
    snprintf(what, sizeof what, "%s: node '%.200s' (Const)", source, node->name);
    int64_t elements = gd_shape_elements(value->tensor->tensor_shape);
    size_t element_size = tfpi_dtype_size((tfpi_dtype)value->tensor->dtype);
    if (cv->budget >= 0 && elements > 0 && element_size && (uint64_t)elements > (uint64_t)cv->budget / element_size)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY,
                               "%s: its value of %lld %s elements is over the memory budget of %lld bytes "
                               "(--max_memory)",
                               what, (long long)elements, tfpi_dtype_name((tfpi_dtype)value->tensor->dtype),
                               (long long)cv->budget);
    tfpi_code code = gd_tensor_value(value->tensor, &t, &owned, what, status);
    if (code == TFPI_UNIMPLEMENTED)
        return TFPI_OK; /* a type tfpi cannot hold stays a Const */
    size_t bytes = code == TFPI_OK ? tp_byte_size(&t) : 0;
    if (code == TFPI_OK && t.dtype != TFPI_STRING && bytes >= (size_t)cv->min_bytes) {
        const char *region = unique_region_name(used, node->name);
        code = mm_writer_add(out, region, t.data, bytes, status);
        *converted_bytes += bytes;
        gd_attr_remove_all(node);
        gd_set_string(&node->op, "ImmutableConst");
        gd_attr_set_type(node, "dtype", t.dtype);
        gd_attr_set_shape(node, "shape", t.dims, t.ndims);
        gd_attr_set_string(node, "memory_region_name", region);
    }
    free(owned);
    return code;
}

static tfpi_code convert(Tfpi__GraphDef *graph, const char *in_path, const char *out_path, const conversion *cv,
                         tfpi_status *status)
{
    region_names used = {.names = xcalloc(graph->n_node + 2, sizeof(char *))};
    if (!tp_name_map_init(&used.index, graph->n_node + 1)) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    tp_name_map_insert(&used.index, TP_MEMMAPPED_GRAPH_NAME, 0); /* reserved for the GraphDef */
    mm_writer out;
    tfpi_code code = mm_writer_open(&out, out_path, status);
    size_t converted = 0, bytes = 0;
    for (size_t i = 0; code == TFPI_OK && i < graph->n_node; i++) {
        if (strcmp(graph->node[i]->op, "Const") != 0)
            continue;
        size_t before = bytes;
        code = convert_const(graph->node[i], cv, &used, &out, in_path, &bytes, status);
        converted += bytes != before;
    }
    if (code == TFPI_OK) {
        size_t size = tfpi__graph_def__get_packed_size(graph);
        uint8_t *packed = xmalloc(size);
        tfpi__graph_def__pack(graph, packed);
        code = mm_writer_add(&out, TP_MEMMAPPED_GRAPH_NAME, packed, size, status);
        free(packed);
    }
    if (code == TFPI_OK)
        code = mm_writer_finish(&out, status);
    else
        mm_writer_abandon(&out);
    if (code == TFPI_OK)
        printf("Converted %zu Const nodes (%.1f MB) into memory-mapped regions of %s\n", converted,
               (double)bytes / 1e6, out_path);
    for (int i = 0; i < used.count; i++)
        free(used.names[i]);
    free(used.names);
    tp_name_map_free(&used.index);
    return code;
}

int main(int argc, char **argv)
{
    const char *in_graph = NULL, *out_graph = NULL;
    int min_size = 10000;
    int64_t max_memory = 0;
    const tool_flag flags[] = {
        {"in_graph", FLAG_STRING, &in_graph, "frozen GraphDef to convert (.pb or .pbtxt)"},
        {"out_graph", FLAG_STRING, &out_graph, "memmapped model to write"},
        {"min_conversion_tensor_size", FLAG_INT, &min_size,
         "constants of at least this many bytes are memory-mapped (10000)"},
        {"max_memory", FLAG_INT64, &max_memory,
         "largest constant expanded, in bytes (K/M/G suffixes; 0 = the default memory budget, -1 = none)"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--in_graph=G.pb --out_graph=G_mmap.pb");
    if (rc == 0 && (!in_graph || !out_graph)) {
        fprintf(stderr, "error: --in_graph and --out_graph are required (see --help)\n");
        rc = 1;
    }
    if (rc == 0 && min_size < 0) {
        fprintf(stderr, "error: --min_conversion_tensor_size must not be negative\n");
        rc = 1;
    }
    tfpi_status status = {0};
    Tfpi__GraphDef *graph = rc == 0 ? graphdef_read(in_graph, true, NULL, &status) : NULL;
    conversion cv = {min_size, max_memory ? max_memory : tfpi_default_max_memory()};
    if (rc == 0 && (!graph || convert(graph, in_graph, out_graph, &cv, &status) != TFPI_OK)) {
        fprintf(stderr, "error: %s\n", status.message);
        rc = 1;
    }
    tfpi__graph_def__free_unpacked(graph, NULL);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
