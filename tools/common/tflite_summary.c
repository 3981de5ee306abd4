/* tflite_summary.c - summarize_graph for .tflite files (tflite_summary.h),
 * from the model the graph keeps (model/tflite.h). */
#include "tflite_summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tflite.h"
#include "model/tflite_options.h"

/* "INT8 [1,224,224,3]" with the signature's -1 where it has one. */
static void print_type_shape(const tp_tfl_tensor *t)
{
    printf("%s [", tp_tfl_type_name(t->type));
    for (int d = 0; d < t->ndims; d++)
        printf("%s%lld", d ? "," : "", (long long)(t->signature[d] < 0 ? -1 : t->dims[d]));
    printf("]");
}

static void print_quant(const tp_tfl_quant_params *q)
{
    if (q->count == 0)
        return;
    if (q->count == 1) {
        printf(" scale %.9g zero_point %lld", (double)q->scale[0], (long long)q->zero_point[0]);
        return;
    }
    printf(" per channel (dimension %d, %d scales %.6g..", q->dim, q->count, (double)q->scale[0]);
    printf("%.6g, zero points %lld..%lld)", (double)q->scale[q->count - 1], (long long)q->zero_point[0],
           (long long)q->zero_point[q->count - 1]);
}

static void print_tensor(const tfpi_graph *graph, const tp_tfl_model *m, const tp_tfl_subgraph *g, int t,
                         const char *indent)
{
    const tp_tfl_tensor *tensor = &g->tensors[t];
    const tp_tfl_buffer *data = tp_tfl_tensor_data(m, tensor);
    const char *graph_name = tp_tfl_graph_tensor_name(graph, t);
    printf("%s%d %s: ", indent, t, tensor->name);
    print_type_shape(tensor);
    print_quant(&tensor->quant);
    if (data)
        printf(", constant (%zu bytes)", data->size);
    if (tensor->is_variable)
        printf(", variable");
    if (graph_name && strcmp(graph_name, tensor->name) != 0)
        printf(" (graph tensor %s)", graph_name);
    printf("\n");
}

static int by_count(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return y[1] != x[1] ? y[1] - x[1] : x[0] - y[0];
}

/* Operators by count: "3 CONV_2D, 1 SOFTMAX". */
static void print_operators(const tp_tfl_model *m, const tp_tfl_subgraph *g)
{
    int (*counts)[2] = calloc((size_t)m->num_codes + 1, sizeof *counts);
    if (!counts)
        return;
    for (int c = 0; c < m->num_codes; c++)
        counts[c][0] = c;
    for (int i = 0; i < g->num_operators; i++)
        counts[g->operators[i].opcode][1]++;
    qsort(counts, (size_t)m->num_codes, sizeof *counts, by_count);
    printf("  %d operators:", g->num_operators);
    for (int c = 0; c < m->num_codes && counts[c][1]; c++) {
        const tp_tfl_code *code = &m->codes[counts[c][0]];
        const char *name = code->builtin == TP_TFL_OP_CUSTOM ? code->custom : tp_tfl_builtin_name(code->builtin);
        printf("%s %d %s", c ? "," : "", counts[c][1], name ? name : "?");
        if (!name)
            printf(" (builtin code %d)", code->builtin);
    }
    printf("\n");
    free(counts);
}

static void print_metadata(const tp_tfl_model *m)
{
    for (int i = 0; i < m->num_metadata; i++) {
        const tp_tfl_metadata *md = &m->metadata[i];
        const tp_tfl_buffer *b = &m->buffers[md->buffer];
        printf("  metadata %s: %zu bytes", md->name, b->size);
        if (strcmp(md->name, "min_runtime_version") == 0 && b->data) {
            size_t n = strnlen((const char *)b->data, b->size);
            printf(" \"%.*s\"", (int)n, (const char *)b->data);
        }
        printf("\n");
    }
}

int tflite_summary_print(const tfpi_graph *graph, const char *path)
{
    int served;
    const tp_tfl_model *m = tp_tfl_graph_model(graph, &served);
    if (!m)
        return 1;
    printf("TensorFlow Lite model %s: schema version %u, %d subgraph%s, %zu bytes\n", path, m->version,
           m->num_subgraphs, m->num_subgraphs == 1 ? "" : "s", m->fb.size);
    if (m->description[0])
        printf("  description: %s\n", m->description);
    for (int s = 0; s < m->num_subgraphs; s++) {
        const tp_tfl_subgraph *g = &m->subgraphs[s];
        printf("  subgraph %d%s%s%s: %d tensors, %d operators%s\n", s, g->name[0] ? " '" : "", g->name,
               g->name[0] ? "'" : "", g->num_tensors, g->num_operators, s == served ? " (served, below)" : "");
    }
    for (int i = 0; i < m->num_signatures; i++) {
        const tp_tfl_signature *sig = &m->signatures[i];
        printf("  signature '%s' (subgraph %u):\n", sig->key, sig->subgraph);
        for (int k = 0; k < sig->num_inputs; k++)
            printf("    input  %s: tensor %u\n", sig->inputs[k].name, sig->inputs[k].tensor);
        for (int k = 0; k < sig->num_outputs; k++)
            printf("    output %s: tensor %u\n", sig->outputs[k].name, sig->outputs[k].tensor);
    }
    const tp_tfl_subgraph *g = &m->subgraphs[served];
    printf("  inputs:\n");
    for (int i = 0; i < g->num_inputs; i++)
        print_tensor(graph, m, g, g->inputs[i], "    ");
    printf("  outputs:\n");
    for (int i = 0; i < g->num_outputs; i++)
        print_tensor(graph, m, g, g->outputs[i], "    ");
    print_operators(m, g);
    print_metadata(m);
    printf("  tensors:\n");
    for (int t = 0; t < g->num_tensors; t++)
        print_tensor(graph, m, g, t, "    ");
    return 0;
}
