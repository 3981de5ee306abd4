/* graph_builder.c - hand-built GraphDefs for tests, on top of the tools'
 * GraphDef editing code (tools/common/graphdef_edit.c). Every field is
 * malloc'd so protobuf-c's free_unpacked frees the whole graph. */
#include "graph_builder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor.h"
#include "xalloc.h"

struct gb_graph {
    Tfpi__GraphDef *def;
};

gb_graph *gb_new(void)
{
    gb_graph *g = xmalloc(sizeof *g);
    g->def = xmalloc(sizeof *g->def);
    tfpi__graph_def__init(g->def);
    return g;
}

void gb_free(gb_graph *g)
{
    tfpi__graph_def__free_unpacked(g->def, NULL);
    free(g);
}

Tfpi__NodeDef *gb_node(gb_graph *g, const char *op, const char *name, ...)
{
    Tfpi__NodeDef *n = gd_node_new(name, op);
    va_list ap;
    va_start(ap, name);
    for (const char *in; (in = va_arg(ap, const char *));)
        gd_add_input(n, in);
    va_end(ap);
    gd_append_node(g->def, n);
    return n;
}

void gb_attr_tensor(Tfpi__NodeDef *n, const char *key, tfpi_dtype dtype, const int64_t *dims, int ndims,
                    const void *data)
{
    size_t count = 1;
    for (int i = 0; i < ndims; i++)
        count *= (size_t)dims[i];
    gd_attr_set_tensor(n, key, gd_tensor_new(dtype, dims, ndims, data, count * tfpi_dtype_size(dtype)));
}

void gb_const(gb_graph *g, const char *name, tfpi_dtype dtype, const int64_t *dims, int ndims,
              const void *data)
{
    Tfpi__NodeDef *n = gb_node(g, "Const", name, NULL);
    gd_attr_set_type(n, "dtype", dtype);
    gb_attr_tensor(n, "value", dtype, dims, ndims, data);
}

void gb_placeholder(gb_graph *g, const char *name, tfpi_dtype dtype, const int64_t *dims, int ndims)
{
    Tfpi__NodeDef *n = gb_node(g, "Placeholder", name, NULL);
    gd_attr_set_type(n, "dtype", dtype);
    gd_attr_set_shape(n, "shape", dims, ndims);
}

void gb_const_string(gb_graph *g, const char *name, const void *data, size_t size)
{
    Tfpi__NodeDef *n = gb_node(g, "Const", name, NULL);
    gd_attr_set_type(n, "dtype", TFPI_STRING);
    Tfpi__TensorProto *t = gd_tensor_new(TFPI_STRING, NULL, 0, NULL, 0);
    t->n_string_val = 1;
    t->string_val = xcalloc(1, sizeof *t->string_val);
    t->string_val[0].len = size;
    t->string_val[0].data = xmalloc(size);
    if (size)
        memcpy(t->string_val[0].data, data, size);
    gd_attr_set_tensor(n, "value", t);
}

void gb_range_consts(gb_graph *g, const char *name, float min, float max)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s_min", name);
    gb_const(g, buf, TFPI_FLOAT, NULL, 0, &min);
    snprintf(buf, sizeof buf, "%s_max", name);
    gb_const(g, buf, TFPI_FLOAT, NULL, 0, &max);
}

uint8_t *gb_serialize(const gb_graph *g, size_t *size)
{
    *size = tfpi__graph_def__get_packed_size(g->def);
    uint8_t *buf = xmalloc(*size);
    tfpi__graph_def__pack(g->def, buf);
    return buf;
}

tfpi_graph *gb_load(const gb_graph *g, tfpi_status *status)
{
    size_t size;
    uint8_t *buf = gb_serialize(g, &size);
    tfpi_graph *graph = tfpi_graph_load_buffer(buf, size, status);
    free(buf);
    return graph;
}
