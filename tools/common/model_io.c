/* model_io.c - a model's declared inputs and outputs as flag values (see
 * model_io.h). */
#include "model_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One tensor's shape as "1,224,224,3" into f (open sizes as 1). */
static void put_shape(FILE *f, const int64_t *dims, int ndims)
{
    for (int d = 0; d < ndims; d++)
        fprintf(f, "%s%lld", d ? "," : "", (long long)(dims[d] < 0 ? 1 : dims[d]));
}

/* Names, shapes and types of the .tflite's inputs (or outputs: names only). */
static void put_tflite(const tfpi_graph *graph, bool inputs, FILE *names, FILE *shapes, FILE *types)
{
    int n = inputs ? tfpi_tflite_num_inputs(graph) : tfpi_tflite_num_outputs(graph);
    for (int i = 0, written = 0; i < n; i++) {
        tfpi_tflite_tensor t;
        int index = inputs ? tfpi_tflite_input(graph, i) : tfpi_tflite_output(graph, i);
        if (tfpi_tflite_get_tensor(graph, index, &t, NULL) != TFPI_OK || !t.graph_name)
            continue; /* no node computes it: nothing to feed or fetch */
        fprintf(names, "%s%s", written ? "," : "", t.graph_name);
        if (shapes) {
            fprintf(shapes, "%s", written ? ":" : "");
            put_shape(shapes, t.dims, t.ndims);
            fprintf(types, "%s%s", written ? "," : "", tfpi_dtype_name(t.dtype));
        }
        written++;
    }
}

/* The same for the signature's keys (shapes and types of the tensors they name). */
static void put_signature(const tfpi_graph *graph, bool inputs, FILE *names, FILE *shapes, FILE *types)
{
    int n = inputs ? tfpi_graph_signature_num_inputs(graph) : tfpi_graph_signature_num_outputs(graph);
    for (int i = 0; i < n; i++) {
        const char *tensor = NULL;
        const char *key = inputs ? tfpi_graph_signature_input(graph, i, &tensor)
                                 : tfpi_graph_signature_output(graph, i, &tensor);
        fprintf(names, "%s%s", i ? "," : "", key);
        if (shapes) {
            int64_t dims[TFPI_MAX_DIMS];
            int ndims = tfpi_graph_node_shape(graph, tensor, dims, TFPI_MAX_DIMS);
            fprintf(shapes, "%s", i ? ":" : "");
            put_shape(shapes, dims, ndims < 0 ? 0 : ndims);
            fprintf(types, "%s%s", i ? "," : "", tfpi_dtype_name(tfpi_graph_node_dtype(graph, tensor)));
        }
    }
}

bool model_io_read(const tfpi_graph *graph, model_io *io)
{
    *io = (model_io){0};
    bool tflite = tfpi_tflite_num_inputs(graph) > 0;
    if (!tflite && tfpi_graph_signature_num_inputs(graph) <= 0)
        return false;
    size_t sizes[4];
    FILE *f[4];
    char **out[4] = {&io->inputs, &io->shapes, &io->types, &io->outputs};
    bool ok = true;
    for (int k = 0; k < 4; k++)
        ok = (f[k] = open_memstream(out[k], &sizes[k])) != NULL && ok;
    if (ok) {
        void (*put)(const tfpi_graph *, bool, FILE *, FILE *, FILE *) = tflite ? put_tflite : put_signature;
        put(graph, true, f[0], f[1], f[2]);
        put(graph, false, f[3], NULL, NULL);
    }
    for (int k = 0; k < 4; k++)
        ok = (!f[k] || fclose(f[k]) == 0) && ok;
    if (!ok || !*io->inputs || !*io->outputs) {
        model_io_free(io);
        return false;
    }
    return true;
}

void model_io_free(model_io *io)
{
    free(io->inputs);
    free(io->shapes);
    free(io->types);
    free(io->outputs);
    *io = (model_io){0};
}
