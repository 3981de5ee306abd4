/* graph_memmapped.c - a memory-mapped model as a tfpi_graph: the GraphDef
 * region is parsed like a .pb, the file's bytes stay mapped as the graph's
 * backing, and ImmutableConst nodes are checked against their regions at
 * load (so a bad file fails at load, naming the node) and later point their
 * output straight at the region: the weights are never copied. */
#include "model/graph_memmapped.h"

#include <stdlib.h>
#include <string.h>

#include "graph/node_def.h"
#include "graph/tensor_proto.h"
#include "model/memmapped.h"
#include "tfpi.h"

typedef struct mapped_model {
    tp_model_bytes bytes;
    tp_memmapped_dir dir;
} mapped_model;

static void release_bytes(tp_model_bytes *bytes)
{
    if (bytes->release)
        bytes->release(bytes->data, bytes->size);
}

static void mapped_model_free(void *backing)
{
    mapped_model *m = backing;
    tp_memmapped_dir_free(&m->dir);
    release_bytes(&m->bytes);
    free(m);
}

/* Bytes that dims x element size need, or false if they exceed `limit`. */
static bool bytes_needed(const int64_t *dims, int ndims, size_t element, size_t limit, size_t *out)
{
    size_t total = element;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return false;
        if (dims[i] == 0)
            total = 0;
        else if (total > limit / (uint64_t)dims[i])
            return false;
        else
            total *= (size_t)dims[i];
    }
    *out = total;
    return total <= limit;
}

tfpi_code tp_memmapped_const(const tp_memmapped_dir *dir, const Tfpi__NodeDef *def, tfpi_tensor *out,
                             tfpi_status *status)
{
    const Tfpi__AttrValue *region_name = tp_attr(def, "memory_region_name");
    if (!region_name || region_name->value_case != TFPI__ATTR_VALUE__VALUE_S)
        return tp_node_error(def, status, TFPI_INVALID_ARGUMENT, "has no memory_region_name attribute");
    char name[512];
    tp_attr_string(def, "memory_region_name", name, sizeof name, "");
    const tp_region *region = dir ? tp_memmapped_find(dir, name) : NULL;
    if (!region)
        return tp_node_error(def, status, TFPI_NOT_FOUND,
                       "memory region '%s' is not in the model file (ImmutableConst needs a "
                       "memmapped model, see convert_graphdef_memmapped_format)",
                       name);
    tfpi_dtype dtype = tp_attr_type(def, "dtype", 0);
    const Tfpi__AttrValue *shape = tp_attr(def, "shape");
    int64_t dims[TFPI_MAX_DIMS];
    int ndims;
    if (tfpi_dtype_size(dtype) == 0 || dtype == TFPI_STRING)
        return tp_node_error(def, status, TFPI_UNIMPLEMENTED, "dtype %d cannot be memory-mapped", (int)dtype);
    if (!shape || shape->value_case != TFPI__ATTR_VALUE__VALUE_SHAPE ||
        !tp_shape_from_proto(shape->shape, dims, &ndims))
        return tp_node_error(def, status, TFPI_INVALID_ARGUMENT, "has no usable shape attribute");
    size_t need;
    if (!bytes_needed(dims, ndims, tfpi_dtype_size(dtype), region->size, &need))
        return tp_node_error(def, status, TFPI_INVALID_ARGUMENT,
                       "memory region '%s' has %zu bytes, too few for its %s shape", name,
                       region->size, tfpi_dtype_name(dtype));
    tp_tensor_set_shape(out, dtype, ndims, dims);
    out->data = (void *)region->data; /* read-only mapping: kernels never write inputs */
    out->owns_data = false;
    return TFPI_OK;
}

tfpi_code tp_graph_mapped_const(const tfpi_graph *graph, const Tfpi__NodeDef *def, tfpi_tensor *out,
                                tfpi_status *status)
{
    return tp_memmapped_const(graph->regions, def, out, status);
}

tfpi_code tp_graph_check_mapped_consts(const tfpi_graph *g, const char *source, tfpi_status *status)
{
    for (int i = 0; i < g->num_nodes; i++) {
        if (strcmp(g->nodes[i].def->op, "ImmutableConst") != 0)
            continue;
        tfpi_tensor view = {0};
        if (tp_graph_mapped_const(g, g->nodes[i].def, &view, status) != TFPI_OK) {
            char detail[sizeof status->message];
            memcpy(detail, status->message, sizeof detail);
            return tfpi_status_set(status, status->code, "%s: %s", source, detail);
        }
    }
    return TFPI_OK;
}

tfpi_graph *tp_graph_load_memmapped(tp_model_bytes bytes, const char *source, tfpi_status *status)
{
    mapped_model *m = calloc(1, sizeof *m);
    if (!m) {
        release_bytes(&bytes);
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", source);
        return NULL;
    }
    m->bytes = bytes;
    if (tp_memmapped_read_dir(bytes.data, bytes.size, source, &m->dir, status) != TFPI_OK) {
        mapped_model_free(m);
        return NULL;
    }
    const tp_region *graph_def = m->dir.graph_def;
    tfpi_graph *g = tp_graph_parse_binary(graph_def->data, graph_def->size, source, status);
    if (!g) {
        mapped_model_free(m);
        return NULL;
    }
    g->backing = m;
    g->free_backing = mapped_model_free;
    g->regions = &m->dir;
    if (bytes.file_mapped) {
        g->file_map = bytes.data;
        g->file_map_size = bytes.size;
    }
    if (tp_graph_check_mapped_consts(g, source, status) != TFPI_OK) {
        tfpi_graph_free(g);
        return NULL;
    }
    return g;
}
