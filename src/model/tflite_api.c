/* tflite_api.c - the TensorFlow Lite part of the public API (tfpi.h):
 * the served subgraph's tensors as the file describes them, its inputs and
 * outputs, and the file's signatures. */
#include <stdlib.h>
#include <string.h>

#include "graph/model_info.h"
#include "model/tflite.h"
#include "model/tflite_zip.h"

static const tp_tfl_subgraph *served(const tfpi_graph *graph, const tp_tfl_model **model)
{
    int s;
    const tp_tfl_model *m = tp_tfl_graph_model(graph, &s);
    if (model)
        *model = m;
    return m ? &m->subgraphs[s] : NULL;
}

int tfpi_tflite_num_tensors(const tfpi_graph *graph)
{
    const tp_tfl_subgraph *g = served(graph, NULL);
    return g ? g->num_tensors : -1;
}

tfpi_code tfpi_tflite_get_tensor(const tfpi_graph *graph, int index, tfpi_tflite_tensor *out, tfpi_status *status)
{
    const tp_tfl_model *m;
    const tp_tfl_subgraph *g = served(graph, &m);
    if (!g)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "the model is not a TensorFlow Lite model");
    if (index < 0 || index >= g->num_tensors)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "tensor index %d is out of range (the model has %d)",
                               index, g->num_tensors);
    const tp_tfl_tensor *t = &g->tensors[index];
    *out = (tfpi_tflite_tensor){
        .name = t->name,
        .graph_name = tp_tfl_graph_tensor_name(graph, index),
        .dtype = t->dtype,
        .type_name = tp_tfl_type_name(t->type),
        .ndims = t->ndims,
        .num_scales = t->quant.count,
        .scales = t->quant.scale,
        .zero_points = t->quant.zero_point,
        .quantized_dimension = t->quant.dim,
        .is_constant = tp_tfl_tensor_data(m, t) != NULL,
        .is_variable = t->is_variable,
    };
    memcpy(out->dims, t->dims, sizeof out->dims);
    memcpy(out->dims_signature, t->signature, sizeof out->dims_signature);
    return TFPI_OK;
}

int tfpi_tflite_find_tensor(const tfpi_graph *graph, const char *name)
{
    const tp_tfl_subgraph *g = served(graph, NULL);
    if (!g || !name)
        return -1;
    const char *by_key = graph->model ? tp_model_info_signature_tensor(graph->model, name, true) : NULL;
    if (!by_key && graph->model)
        by_key = tp_model_info_signature_tensor(graph->model, name, false);
    for (int pass = 0; pass < 3; pass++)
        for (int t = 0; t < g->num_tensors; t++) {
            const char *graph_name = tp_tfl_graph_tensor_name(graph, t);
            const char *want = pass == 0 ? by_key : name;
            const char *have = pass == 2 ? g->tensors[t].name : graph_name;
            if (want && have && strcmp(want, have) == 0)
                return t;
            /* "node:0" names the same tensor as "node" */
            size_t n = want && have ? strlen(have) : 0;
            if (pass < 2 && n && strncmp(want, have, n) == 0 && strcmp(want + n, ":0") == 0)
                return t;
        }
    return -1;
}

static int io(const tfpi_graph *graph, int i, bool outputs)
{
    const tp_tfl_subgraph *g = served(graph, NULL);
    int n = g ? (outputs ? g->num_outputs : g->num_inputs) : 0;
    return i >= 0 && i < n ? (outputs ? g->outputs : g->inputs)[i] : -1;
}

int tfpi_tflite_num_inputs(const tfpi_graph *graph)
{
    const tp_tfl_subgraph *g = served(graph, NULL);
    return g ? g->num_inputs : -1;
}

int tfpi_tflite_input(const tfpi_graph *graph, int i) { return io(graph, i, false); }

int tfpi_tflite_num_outputs(const tfpi_graph *graph)
{
    const tp_tfl_subgraph *g = served(graph, NULL);
    return g ? g->num_outputs : -1;
}

int tfpi_tflite_output(const tfpi_graph *graph, int i) { return io(graph, i, true); }

int tfpi_tflite_subgraph(const tfpi_graph *graph)
{
    int s;
    return tp_tfl_graph_model(graph, &s) ? s : -1;
}

int tfpi_tflite_num_signatures(const tfpi_graph *graph)
{
    const tp_tfl_model *m = tp_tfl_graph_model(graph, NULL);
    return m ? m->num_signatures : -1;
}

static const tp_tfl_signature *signature(const tfpi_graph *graph, int s)
{
    const tp_tfl_model *m = tp_tfl_graph_model(graph, NULL);
    return m && s >= 0 && s < m->num_signatures ? &m->signatures[s] : NULL;
}

const char *tfpi_tflite_signature_key(const tfpi_graph *graph, int s, int *subgraph)
{
    const tp_tfl_signature *sig = signature(graph, s);
    if (sig && subgraph)
        *subgraph = (int)sig->subgraph;
    return sig ? sig->key : NULL;
}

int tfpi_tflite_signature_num_entries(const tfpi_graph *graph, int s, int outputs)
{
    const tp_tfl_signature *sig = signature(graph, s);
    return sig ? (outputs ? sig->num_outputs : sig->num_inputs) : -1;
}

const char *tfpi_tflite_signature_entry(const tfpi_graph *graph, int s, int outputs, int i, int *tensor)
{
    const tp_tfl_signature *sig = signature(graph, s);
    int n = sig ? (outputs ? sig->num_outputs : sig->num_inputs) : 0;
    if (i < 0 || i >= n)
        return NULL;
    const tp_tfl_tensor_map *e = outputs ? &sig->outputs[i] : &sig->inputs[i];
    if (tensor)
        *tensor = (int)e->tensor;
    return e->name;
}

tfpi_tensor *tfpi_tflite_associated_file(const tfpi_graph *graph, const char *name, tfpi_status *status)
{
    const tp_tfl_model *m = tp_tfl_graph_model(graph, NULL);
    if (!m) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "the model is not a TensorFlow Lite model");
        return NULL;
    }
    uint8_t *data;
    size_t size;
    if (tp_tfl_zip_read(m->fb.data, m->fb.size, name, &data, &size, m->fb.source, status) != TFPI_OK)
        return NULL;
    int64_t dims[1] = {(int64_t)size};
    tfpi_tensor *t = tfpi_tensor_new(TFPI_UINT8, dims, 1, status);
    if (t && size)
        memcpy(tfpi_tensor_data(t), data, size);
    free(data);
    return t;
}
