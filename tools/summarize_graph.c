/* summarize_graph - what a frozen graph takes and gives, in the words of
 * TensorFlow's tool of the same name:
 *   summarize_graph --in_graph=G.pb|G.pbtxt|G_mmap.pb|saved_model_dir|M.meta [--print_structure]
 * prints the likely inputs (Placeholders with type and shape), variables,
 * likely outputs (nodes nothing consumes, except Const, Assign, NoOp and
 * Placeholder), the constant parameter count, control edges, devices, the
 * op types by count, and a benchmark_model command line to paste. A
 * SavedModel or a .meta first gets its tag sets, signatures (keys, tensors,
 * dtypes, shapes) and variables (checkpoint key, dtype, shape); the summary
 * is then of the graph frozen for its signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "freeze.h"
#include "graphdef_edit.h"
#include "graphdef_inspect.h"
#include "graphdef_io.h"
#include "model/checkpoint.h"
#include "model/tflite_schema.h"
#include "model_source.h"
#include "tflite_summary.h"
#include "xalloc.h"

typedef struct node_list {
    int count;
    const Tfpi__NodeDef **nodes;
} node_list;

static void push(node_list *list, const Tfpi__NodeDef *node)
{
    list->nodes = xrealloc(list->nodes, (size_t)(list->count + 1) * sizeof *list->nodes);
    list->nodes[list->count++] = node;
}

static bool op_is(const Tfpi__NodeDef *node, const char *op) { return strcmp(node->op, op) == 0; }

/* TensorFlow's HumanReadableNum: 4254889 -> "4.25M". */
static const char *human_readable(int64_t value, char *buf, size_t size)
{
    const char *units = "kMBT";
    int64_t v = value < 0 ? -value : value;
    if (v < 1000) {
        snprintf(buf, size, "%lld", (long long)value);
        return buf;
    }
    int unit = 0;
    while (v >= 1000000 && unit < 3) {
        v /= 1000;
        unit++;
    }
    snprintf(buf, size, "%s%.2f%c", value < 0 ? "-" : "", (double)v / 1000.0, units[unit]);
    return buf;
}

static int node_dtype(const Tfpi__NodeDef *node) { return tp_attr_type(node, "dtype", 0); }

/* The node's shape attr, or NULL when it has none. */
static const Tfpi__TensorShapeProto *node_shape(const Tfpi__NodeDef *node)
{
    const Tfpi__AttrValue *a = tp_attr(node, "shape");
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_SHAPE ? a->shape : NULL;
}

/* "(name=X, type=float(1), shape=[?,299,299,3]) " */
static void print_node_info(const Tfpi__NodeDef *node)
{
    char type[40], shape[256];
    const Tfpi__TensorShapeProto *s = node_shape(node);
    printf("(name=%s, type=%s(%d), shape=%s) ", node->name, gd_dtype_name(node_dtype(node), type, sizeof type),
           node_dtype(node), s ? gd_shape_string(s, shape, sizeof shape) : "None");
}

static void print_found(const char *what, const char *none, const node_list *list)
{
    if (list->count == 0) {
        printf("%s\n", none);
        return;
    }
    printf("Found %d %s: ", list->count, what);
    for (int i = 0; i < list->count; i++)
        print_node_info(list->nodes[i]);
    printf("\n");
}

/* Elements in a Const's value (or an ImmutableConst's or a variable's
 * shape), -1 if unknown. */
static int64_t parameter_count(const Tfpi__NodeDef *node)
{
    const Tfpi__AttrValue *value = tp_attr(node, "value");
    if (value && value->value_case == TFPI__ATTR_VALUE__VALUE_TENSOR)
        return gd_shape_elements(value->tensor->tensor_shape);
    bool shaped = op_is(node, "ImmutableConst") || op_is(node, "Variable") || op_is(node, "VariableV2");
    const Tfpi__TensorShapeProto *shape = shaped ? node_shape(node) : NULL;
    return shape ? gd_shape_elements(shape) : -1;
}

typedef struct op_count {
    const char *op;
    int count;
} op_count;

static int by_count_then_name(const void *a, const void *b)
{
    const op_count *x = a, *y = b;
    return x->count != y->count ? y->count - x->count : strcmp(x->op, y->op);
}

static void print_op_types(const Tfpi__GraphDef *graph)
{
    op_count *counts = xcalloc(graph->n_node + 1, sizeof *counts);
    size_t n = 0;
    for (size_t i = 0; i < graph->n_node; i++) {
        size_t k = 0;
        while (k < n && strcmp(counts[k].op, graph->node[i]->op) != 0)
            k++;
        if (k == n)
            counts[n++].op = graph->node[i]->op;
        counts[k].count++;
    }
    qsort(counts, n, sizeof *counts, by_count_then_name);
    printf("Op types used: ");
    for (size_t k = 0; k < n; k++)
        printf("%s%d %s", k ? ", " : "", counts[k].count, counts[k].op);
    printf("\n");
    free(counts);
}

/* For an eight-bit graph: how many nodes compute on 8-bit codes, and how
 * many convert between float and codes (each a pass over a tensor). */
static void print_eight_bit(const Tfpi__GraphDef *graph)
{
    int quantized = 0, conversions = 0, frozen = 0, dynamic = 0;
    for (size_t i = 0; i < graph->n_node; i++) {
        const char *op = graph->node[i]->op;
        quantized += !strncmp(op, "Quantized", 9) || !strcmp(op, "Requantize");
        conversions += !strcmp(op, "QuantizeV2") || !strcmp(op, "Dequantize");
        dynamic += !strcmp(op, "RequantizationRange");
        frozen += strstr(graph->node[i]->name, "/frozen_min") != NULL;
    }
    if (quantized > 0)
        printf("Eight-bit: %d quantized ops, %d QuantizeV2/Dequantize conversions, %d ranges measured per run "
               "(RequantizationRange), %d frozen\n",
               quantized, conversions, dynamic, frozen);
}

static void print_parameters_and_devices(const Tfpi__GraphDef *graph)
{
    int64_t constants = 0, variables = 0;
    int control_edges = 0;
    for (size_t i = 0; i < graph->n_node; i++) {
        const Tfpi__NodeDef *node = graph->node[i];
        for (size_t k = 0; k < node->n_input; k++)
            control_edges += node->input[k][0] == '^';
        bool is_variable = op_is(node, "Variable") || op_is(node, "VariableV2");
        if (!op_is(node, "Const") && !op_is(node, "ImmutableConst") && !is_variable)
            continue;
        int64_t n = parameter_count(node);
        if (n < 0)
            fprintf(stderr, "warning: cannot count the parameters of node '%s'\n", node->name);
        else if (is_variable)
            variables += n;
        else
            constants += n;
    }
    char c[32], v[32];
    printf("Found %lld (%s) const parameters, %lld (%s) variable parameters, and %d control_edges\n",
           (long long)constants, human_readable(constants, c, sizeof c), (long long)variables,
           human_readable(variables, v, sizeof v), control_edges);
    for (size_t i = 0; i < graph->n_node; i++) {
        const char *device = graph->node[i]->device;
        bool first = true;
        int count = 0;
        for (size_t k = 0; k < graph->n_node && *device; k++) {
            first = first && !(k < i && !strcmp(graph->node[k]->device, device));
            count += !strcmp(graph->node[k]->device, device);
        }
        if (*device && first)
            printf("%d nodes assigned to device '%s'\n", count, device);
    }
}

/* The Const int32 pair a Resize* node takes as its size, if it has one. */
static bool const_size(const Tfpi__GraphDef *graph, const gd_index *index, const Tfpi__NodeDef *resize,
                       int64_t size[2])
{
    int s = resize->n_input >= 2 ? gd_index_find_input(index, resize->input[1]) : -1;
    const Tfpi__AttrValue *a = s >= 0 && op_is(graph->node[s], "Const") ? tp_attr(graph->node[s], "value") : NULL;
    tfpi_tensor t = {0};
    void *owned = NULL;
    tfpi_status status = {0};
    bool ok = a && a->value_case == TFPI__ATTR_VALUE__VALUE_TENSOR &&
              gd_tensor_value(a->tensor, &t, &owned, resize->name, &status) == TFPI_OK && t.dtype == TFPI_INT32 &&
              tp_num_elements(&t) == 2 && tp_get_int(&t, 0) > 0 && tp_get_int(&t, 1) > 0;
    if (ok) {
        size[0] = tp_get_int(&t, 0);
        size[1] = tp_get_int(&t, 1);
    }
    free(owned);
    return ok;
}

/* The size (height, width) of the first Resize* op with a Const size that
 * what flows from node `start` reaches (breadth first, over data inputs):
 * the size the model itself works at. false if there is none. */
static bool resize_target(const Tfpi__GraphDef *graph, const gd_index *index, size_t start, int64_t size[2])
{
    size_t n = graph->n_node;
    size_t *first = xcalloc(n + 2, sizeof *first); /* readers of node i: reader[first[i] .. first[i+1]) */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < graph->node[i]->n_input; k++) {
            int from = graph->node[i]->input[k][0] == '^' ? -1 : gd_index_find_input(index, graph->node[i]->input[k]);
            if (from >= 0)
                first[from + 2]++;
        }
    for (size_t i = 2; i < n + 2; i++)
        first[i] += first[i - 1];
    size_t *reader = xcalloc(first[n + 1] + 1, sizeof *reader);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < graph->node[i]->n_input; k++) {
            int from = graph->node[i]->input[k][0] == '^' ? -1 : gd_index_find_input(index, graph->node[i]->input[k]);
            if (from >= 0)
                reader[first[from + 1]++] = i;
        }
    size_t *queue = xcalloc(n + 1, sizeof *queue), head = 0, tail = 0;
    bool *seen = xcalloc(n + 1, sizeof *seen), found = false;
    queue[tail++] = start;
    seen[start] = true;
    while (head < tail && !found) {
        size_t node = queue[head++];
        found = !strncmp(graph->node[node]->op, "Resize", 6) && const_size(graph, index, graph->node[node], size);
        for (size_t e = first[node]; e < first[node + 1]; e++)
            if (!seen[reader[e]]) {
                seen[reader[e]] = true;
                queue[tail++] = reader[e];
            }
    }
    free(first);
    free(reader);
    free(queue);
    free(seen);
    return found;
}

/* A shape to benchmark an input with: its declared sizes, the batch 1, and
 * for an image of unknown height and width (rank 4, 1 or 3 channels) the
 * size the graph resizes to, else 300x300 for a uint8 picture (the
 * detection models' usual size) or 224x224. */
static void suggested_shape(const Tfpi__GraphDef *graph, const gd_index *index, const Tfpi__NodeDef *input,
                            char *buf, size_t buf_size)
{
    const Tfpi__TensorShapeProto *s = node_shape(input);
    size_t used = 0;
    buf[0] = '\0';
    if (!s || s->unknown_rank)
        return;
    int64_t dims[TFPI_MAX_DIMS] = {0};
    size_t rank = s->n_dim < TFPI_MAX_DIMS ? s->n_dim : TFPI_MAX_DIMS;
    for (size_t d = 0; d < rank; d++)
        dims[d] = s->dim[d]->size < 0 ? 1 : s->dim[d]->size;
    if (rank == 4 && (s->dim[3]->size == 1 || s->dim[3]->size == 3) && (s->dim[1]->size < 0 || s->dim[2]->size < 0)) {
        int64_t size[2] = {224, 224};
        if (!resize_target(graph, index, (size_t)gd_index_find_input(index, input->name), size) &&
            node_dtype(input) == TFPI_UINT8)
            size[0] = size[1] = 300;
        for (int d = 1; d <= 2; d++)
            dims[d] = s->dim[d]->size < 0 ? size[d - 1] : s->dim[d]->size;
    }
    for (size_t d = 0; d < rank && used < buf_size; d++)
        used += (size_t)snprintf(buf + used, buf_size - used, "%s%lld", d ? "," : "", (long long)dims[d]);
}

/* The benchmark_model binary next to this one, if argv[0] has a directory. */
static void print_benchmark_usage(const Tfpi__GraphDef *graph, const gd_index *index, const char *argv0,
                                  const char *graph_path, const node_list *inputs, const node_list *outputs)
{
    const char *slash = strrchr(argv0, '/');
    printf("To use with tfpi's benchmark_model try these arguments:\n");
    printf("%.*sbenchmark_model --graph=%s --show_flops --input_layer=", slash ? (int)(slash - argv0 + 1) : 0,
           argv0, graph_path);
    for (int i = 0; i < inputs->count; i++)
        printf("%s%s", i ? "," : "", inputs->nodes[i]->name);
    printf(" --input_layer_type=");
    for (int i = 0; i < inputs->count; i++) {
        char type[40];
        printf("%s%s", i ? "," : "", gd_dtype_name(node_dtype(inputs->nodes[i]), type, sizeof type));
    }
    printf(" --input_layer_shape=");
    for (int i = 0; i < inputs->count; i++) {
        char shape[256];
        suggested_shape(graph, index, inputs->nodes[i], shape, sizeof shape);
        printf("%s%s", i ? ":" : "", shape);
    }
    printf(" --output_layer=");
    for (int i = 0; i < outputs->count; i++)
        printf("%s%s", i ? "," : "", outputs->nodes[i]->name);
    printf("\n");
}

/* A Const's value: the type, shape and first values. */
static void print_value(const Tfpi__NodeDef *node)
{
    const Tfpi__AttrValue *a = tp_attr(node, "value");
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_TENSOR)
        return;
    tfpi_tensor t = {0};
    void *owned = NULL;
    tfpi_status status = {0};
    char type[40], shape[256];
    printf(", value=Tensor<type: %s shape: %s values:", gd_dtype_name(a->tensor->dtype, type, sizeof type),
           gd_shape_string(a->tensor->tensor_shape, shape, sizeof shape));
    if (gd_tensor_value(a->tensor, &t, &owned, node->name, &status) == TFPI_OK) {
        int64_t n = tp_num_elements(&t);
        for (int64_t k = 0; k < n && k < 3; k++) {
            if (t.dtype == TFPI_FLOAT)
                printf(" %g", (double)((const float *)t.data)[k]);
            else if (t.dtype != TFPI_STRING && t.dtype != TFPI_DOUBLE && t.dtype != TFPI_HALF)
                printf(" %lld", (long long)tp_get_int(&t, k));
        }
        printf("%s", n > 3 ? "..." : "");
    }
    printf(">");
    free(owned);
}

static void print_structure(const Tfpi__GraphDef *graph)
{
    for (size_t i = 0; i < graph->n_node; i++) {
        const Tfpi__NodeDef *node = graph->node[i];
        printf("%s (%s): [", node->name, node->op);
        for (size_t k = 0; k < node->n_input; k++)
            printf("%s%s", k ? ", " : "", node->input[k]);
        printf("]");
        if (op_is(node, "Const"))
            print_value(node);
        printf("\n");
    }
}

/* Fails (one line) if an input names a node that does not exist. */
static int check_inputs(const Tfpi__GraphDef *graph, const gd_index *index, const char *path)
{
    for (size_t i = 0; i < graph->n_node; i++)
        for (size_t k = 0; k < graph->node[i]->n_input; k++)
            if (gd_index_find_input(index, graph->node[i]->input[k]) < 0) {
                fprintf(stderr, "error: %s: node '%s' has input '%s', but no node is named so\n", path,
                        graph->node[i]->name, graph->node[i]->input[k]);
                return 1;
            }
    return 0;
}

/* restored: the variables take their values from the model's checkpoint
 * (else benchmark_model is told to feed them). */
static int summarize(const Tfpi__GraphDef *graph, const char *path, const char *argv0, bool structure, bool restored)
{
    gd_index index;
    gd_index_build(&index, graph);
    bool *consumed = xcalloc(graph->n_node + 1, sizeof *consumed);
    int rc = check_inputs(graph, &index, path);
    for (size_t i = 0; rc == 0 && i < graph->n_node; i++)
        for (size_t k = 0; k < graph->node[i]->n_input; k++)
            consumed[gd_index_find_input(&index, graph->node[i]->input[k])] = true;
    node_list inputs = {0}, variables = {0}, outputs = {0};
    for (size_t i = 0; rc == 0 && i < graph->n_node; i++) {
        const Tfpi__NodeDef *node = graph->node[i];
        if (op_is(node, "Placeholder"))
            push(&inputs, node);
        if (op_is(node, "Variable") || op_is(node, "VariableV2"))
            push(&variables, node);
        if (!consumed[i] && !op_is(node, "Const") && !op_is(node, "Assign") && !op_is(node, "NoOp") &&
            !op_is(node, "Placeholder"))
            push(&outputs, node);
    }
    if (rc == 0) {
        print_found("possible inputs", "No inputs spotted.", &inputs);
        print_found("variables", "No variables spotted.", &variables);
        if (outputs.count == 0)
            printf("No outputs spotted.\n");
        else
            printf("Found %d possible outputs: ", outputs.count);
        for (int i = 0; i < outputs.count; i++)
            printf("(name=%s, op=%s) %s", outputs.nodes[i]->name, outputs.nodes[i]->op,
                   i + 1 == outputs.count ? "\n" : "");
        print_parameters_and_devices(graph);
        print_op_types(graph);
        print_eight_bit(graph);
        for (int i = 0; i < variables.count && !restored; i++) /* benchmark_model feeds both */
            push(&inputs, variables.nodes[i]);
        print_benchmark_usage(graph, &index, argv0, path, &inputs, &outputs);
        if (structure)
            print_structure(graph);
    }
    free(inputs.nodes);
    free(variables.nodes);
    free(outputs.nodes);
    free(consumed);
    gd_index_free(&index);
    return rc;
}

/* "float [-1,28,28,1]" */
static const char *type_and_shape(int dtype, int ndims, const int64_t *dims, char *buf, size_t size)
{
    char type[40];
    int n = snprintf(buf, size, "%s ", gd_dtype_name(dtype, type, sizeof type));
    if (ndims < 0) {
        snprintf(buf + n, size - (size_t)n, "<unknown>");
        return buf;
    }
    for (int d = 0; d < ndims && (size_t)n < size; d++)
        n += snprintf(buf + n, size - (size_t)n, "%s%lld", d ? "," : "[", (long long)dims[d]);
    if ((size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ndims ? "]" : "[]");
    return buf;
}

static void print_tensor_info(const char *what, const char *key, const Tfpi__TensorInfo *t)
{
    char desc[300];
    int64_t dims[TFPI_MAX_DIMS] = {0};
    int ndims = -1;
    const Tfpi__TensorShapeProto *shape = t ? t->tensor_shape : NULL;
    if (shape && !shape->unknown_rank && shape->n_dim <= TFPI_MAX_DIMS)
        for (ndims = 0; ndims < (int)shape->n_dim; ndims++)
            dims[ndims] = shape->dim[ndims]->size;
    bool named = t && t->encoding_case == TFPI__TENSOR_INFO__ENCODING_NAME;
    printf("    %s %s: %s %s\n", what, key, named ? t->name : "(sparse or composite)",
           type_and_shape(t ? (int)t->dtype : 0, ndims, dims, desc, sizeof desc));
}

/* Tag sets, signatures and variables of a SavedModel or .meta. */
static void print_model(const model_source *s, const char *path)
{
    char buf[600];
    if (s->saved_model)
        printf("SavedModel %s: tag sets %s\n", path, tp_saved_model_tag_sets(&s->sm, buf, sizeof buf));
    else
        printf("MetaGraph %s\n", path);
    const tp_meta_graph *mg = &s->meta;
    for (size_t i = 0; i < mg->num_signatures; i++) {
        const Tfpi__SignatureDefEntry *e = mg->signatures[i];
        if (!e->value)
            continue;
        printf("  signature '%s' (%s)%s:\n", e->key, e->value->method_name,
               s->info->signature_key && !strcmp(s->info->signature_key, e->key) ? ", summarized below" : "");
        for (size_t k = 0; k < e->value->n_inputs; k++)
            print_tensor_info("input ", e->value->inputs[k]->key, e->value->inputs[k]->value);
        for (size_t k = 0; k < e->value->n_outputs; k++)
            print_tensor_info("output", e->value->outputs[k]->key, e->value->outputs[k]->value);
    }
    const tp_checkpoint *ckpt = s->info->checkpoint;
    printf("  %d variables, checkpoint %s:\n", s->info->num_variables, ckpt ? tp_checkpoint_prefix(ckpt) : "(none)");
    for (int i = 0; i < s->info->num_variables; i++) {
        const tp_variable *v = &s->info->variables[i];
        const tp_checkpoint_entry *e = ckpt ? tp_checkpoint_find(ckpt, v->key) : NULL;
        printf("    %s: %s", v->node, e ? type_and_shape(e->dtype, e->ndims, e->dims, buf, sizeof buf) : "not saved");
        if (strcmp(v->key, v->node) != 0 || v->slice[0])
            printf(" (key %s%s%s)", v->key, v->slice[0] ? ", slice " : "", v->slice);
        printf("\n");
    }
}

/* The graph a SavedModel or .meta is summarized by: frozen for its
 * signature, or as it is when it has none. */
static Tfpi__GraphDef *read_model(const char *path, const char *tags, const char *signature)
{
    model_source s;
    model_source_options o = {tags, signature, NULL};
    tfpi_status status = {0};
    if (model_source_open(&s, path, &o, &status) != TFPI_OK) {
        fprintf(stderr, "error: %s\n", status.message);
        return NULL;
    }
    print_model(&s, path);
    int converted;
    freeze_options fo = {.clear_devices = false, .max_bytes = tfpi_default_max_memory()};
    Tfpi__GraphDef *graph = NULL;
    if (s.info->signature_key && freeze_source(&s, &fo, &converted, &status) != TFPI_OK)
        fprintf(stderr, "error: %s: %s\n", path, status.message);
    else
        graph = s.graph, s.graph = NULL;
    model_source_close(&s);
    return graph;
}

/* A .tflite: its tensors, operators, signatures and metadata, then the
 * usual summary of the graph it is translated into. */
static int summarize_tflite(const char *path, const char *signature, const char *argv0, bool structure)
{
    tfpi_status status = {0};
    tfpi_load_options o = {.signature = signature};
    tfpi_graph *g = tfpi_graph_load(path, &o, &status);
    if (!g) {
        fprintf(stderr, "error: %s\n", status.message);
        return 1;
    }
    tflite_summary_print(g, path);
    tfpi_graph_free(g);
    Tfpi__GraphDef *graph = graphdef_read_in_graph(path);
    int rc = graph ? summarize(graph, path, argv0, structure, false) : 1;
    tfpi__graph_def__free_unpacked(graph, NULL);
    return rc == 2 ? 0 : rc;
}

int main(int argc, char **argv)
{
    const char *in_graph = NULL, *tags = NULL, *signature = NULL;
    bool structure = false;
    const tool_flag flags[] = {
        {"in_graph", FLAG_STRING, &in_graph, "graph to summarize (.pb, .pbtxt, memmapped, SavedModel directory, .meta)"},
        {"print_structure", FLAG_BOOL, &structure, "also list every node with its inputs"},
        {"saved_model_tags", FLAG_STRING, &tags, "SavedModel: the meta graph's tags (default serve)"},
        {"signature_def", FLAG_STRING, &signature, "SavedModel: the signature to summarize (default serving_default)"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--in_graph=G.pb [--print_structure]");
    if (rc == 0 && in_graph && tp_tfl_detect_file(in_graph)) {
        rc = summarize_tflite(in_graph, signature, argv[0], structure);
        flags_free(flags, num_flags);
        return rc;
    }
    if (rc == 0 && in_graph && model_source_is_model(in_graph)) {
        Tfpi__GraphDef *graph = read_model(in_graph, tags, signature);
        rc = graph ? summarize(graph, in_graph, argv[0], structure, true) : 1;
        tfpi__graph_def__free_unpacked(graph, NULL);
        flags_free(flags, num_flags);
        return rc;
    }
    Tfpi__GraphDef *graph = rc == 0 ? graphdef_read_in_graph(in_graph) : NULL;
    if (rc == 0 && !graph)
        rc = 1;
    if (rc == 0)
        rc = summarize(graph, in_graph, argv[0], structure, false);
    tfpi__graph_def__free_unpacked(graph, NULL);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
