/* transform_graph - rewrites a frozen graph with TensorFlow's graph
 * transforms, in the order given:
 *   transform_graph --in_graph=G.pb --out_graph=G2.pb --inputs=input
 *       --outputs=softmax --transforms='strip_unused_nodes(type=float,
 *       shape="1,224,224,3") fold_constants(ignore_errors=true)
 *       fold_batch_norms fold_old_batch_norms quantize_weights'
 *       [--output_as_text]
 * Every transform accepts ignore_errors=true: if it fails, a warning is
 * printed and the graph stays as it was before it. See --help for the list.
 * Each transform is logged as TensorFlow does ("Applying fold_constants"),
 * with the nodes it removed and added by op; the end says what changed in
 * all, nodes and bytes (on stdout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "graphdef_io.h"
#include "tfpi.h"
#include "transforms/transform.h"
#include "xalloc.h"

/* "a,b:0, c" -> {"a", "b", "c"} (node names: any ":k" dropped). */
static char **split_names(const char *list, int *count)
{
    char **names = NULL;
    *count = 0;
    char *copy = xstrdup(list ? list : "");
    for (char *save = NULL, *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        char *colon = strrchr(t, ':');
        if (colon)
            *colon = '\0';
        names = xrealloc(names, (size_t)(*count + 1) * sizeof *names);
        names[(*count)++] = xstrdup(t[0] == '^' ? t + 1 : t);
    }
    free(copy);
    return names;
}

static void free_names(char **names, int count)
{
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* True if the space-separated list holds name. */
static bool takes_param(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p; p += strcspn(p, " "), p += *p == ' ')
        if (strncmp(p, name, len) == 0 && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}

/* Unknown transforms and parameters are errors before anything runs. */
static tfpi_code check_calls(const transform_list *list, tfpi_status *status)
{
    for (int i = 0; i < list->count; i++) {
        const transform_call *call = &list->calls[i];
        const transform_def *def = transform_find(call->name);
        if (!def) {
            fprintf(stderr, "error: --transforms: unknown transform '%s' (known: ", call->name);
            transform_print_names(stderr);
            fprintf(stderr, ")\n");
            status->message[0] = '\0'; /* already reported */
            return status->code = TFPI_INVALID_ARGUMENT;
        }
        for (int p = 0; p < call->num_params; p++) {
            const char *name = call->params[p].name;
            if (!takes_param(def->params, name) && strcmp(name, "ignore_errors") != 0)
                return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                                "--transforms: %s has no parameter '%s' (it takes: %s%signore_errors)",
                                call->name, name, def->params, *def->params ? " " : "");
        }
    }
    return TFPI_OK;
}

/* How many nodes of each op a graph has. */
typedef struct op_tally {
    int count;
    const char **ops;
    int *nodes;
} op_tally;

static void tally(const Tfpi__GraphDef *graph, op_tally *t)
{
    for (size_t i = 0; i < graph->n_node; i++) {
        const char *op = graph->node[i]->op;
        int k = 0;
        while (k < t->count && strcmp(t->ops[k], op) != 0)
            k++;
        if (k == t->count) {
            t->ops = xrealloc(t->ops, (size_t)(k + 1) * sizeof *t->ops);
            t->nodes = xrealloc(t->nodes, (size_t)(k + 1) * sizeof *t->nodes);
            t->ops[k] = xstrdup(op);
            t->nodes[k] = 0;
            t->count++;
        }
        t->nodes[k]++;
    }
}

static void tally_free(op_tally *t)
{
    for (int k = 0; k < t->count; k++)
        free((char *)t->ops[k]);
    free(t->ops);
    free(t->nodes);
    memset(t, 0, sizeof *t);
}

static int tally_of(const op_tally *t, const char *op)
{
    for (int k = 0; k < t->count; k++)
        if (!strcmp(t->ops[k], op))
            return t->nodes[k];
    return 0;
}

/* "475 -> 320 nodes (-138 Identity, -27 Rsqrt, +12 Const)": what changed
 * between two tallies of a graph, on stdout. */
static void print_change(const op_tally *before, const op_tally *after)
{
    int total_before = 0, total_after = 0, shown = 0;
    for (int k = 0; k < before->count; k++)
        total_before += before->nodes[k];
    for (int k = 0; k < after->count; k++)
        total_after += after->nodes[k];
    printf("%d -> %d nodes", total_before, total_after);
    for (int k = 0; k < before->count; k++) { /* ops that were there */
        int d = tally_of(after, before->ops[k]) - before->nodes[k];
        if (d != 0)
            printf("%s%+d %s", shown++ ? ", " : " (", d, before->ops[k]);
    }
    for (int k = 0; k < after->count; k++) /* new ops */
        if (tally_of(before, after->ops[k]) == 0)
            printf("%s+%d %s", shown++ ? ", " : " (", after->nodes[k], after->ops[k]);
    printf("%s", shown ? ")" : " (no change)");
}

/* Runs one transform; with ignore_errors=true a failure leaves the graph as
 * it was (restored from a serialized copy) and prints a warning. */
static tfpi_code run_one(Tfpi__GraphDef **graph, transform_ctx *ctx)
{
    bool ignore_errors;
    tfpi_code code = transform_param_bool(ctx, "ignore_errors", false, &ignore_errors);
    if (code != TFPI_OK)
        return code;
    uint8_t *saved = NULL;
    size_t saved_size = 0;
    if (ignore_errors) {
        saved_size = tfpi__graph_def__get_packed_size(*graph);
        saved = xmalloc(saved_size);
        tfpi__graph_def__pack(*graph, saved);
    }
    code = transform_find(ctx->call->name)->run(*graph, ctx);
    if (code != TFPI_OK && ignore_errors) {
        fprintf(stderr, "warning: %s (ignored: ignore_errors=true)\n", ctx->status->message);
        tfpi__graph_def__free_unpacked(*graph, NULL);
        *graph = tfpi__graph_def__unpack(NULL, saved_size, saved);
        code = *graph ? TFPI_OK : TFPI_OUT_OF_MEMORY;
    }
    free(saved);
    return code;
}

static int transform(const char *in, const char *out, const char *inputs, const char *outputs,
                     const char *spec, bool as_text)
{
    tfpi_status status = {0};
    transform_list list = {0};
    transform_ctx ctx = {.status = &status};
    Tfpi__GraphDef *graph = NULL;
    tfpi_code code = transform_spec_parse(spec, &list, &status);
    if (code == TFPI_OK)
        code = check_calls(&list, &status);
    if (code == TFPI_OK && !(graph = graphdef_read(in, true, NULL, &status)))
        code = status.code;
    ctx.inputs = split_names(inputs, &ctx.num_inputs);
    ctx.outputs = split_names(outputs, &ctx.num_outputs);
    op_tally first = {0};
    size_t bytes_before = graph ? tfpi__graph_def__get_packed_size(graph) : 0;
    if (graph)
        tally(graph, &first);
    for (int i = 0; code == TFPI_OK && i < list.count; i++) {
        ctx.call = &list.calls[i];
        op_tally before = {0}, after = {0};
        tally(graph, &before);
        printf("Applying %s\n", ctx.call->name); /* TensorFlow's log line */
        fflush(stdout);
        code = run_one(&graph, &ctx);
        if (code == TFPI_OK) {
            tally(graph, &after);
            printf("  %s: ", ctx.call->name);
            print_change(&before, &after);
            printf("\n");
        }
        tally_free(&before);
        tally_free(&after);
    }
    if (code == TFPI_OK)
        code = graphdef_write(out, graph, as_text, &status);
    if (code == TFPI_OK) {
        op_tally last = {0};
        tally(graph, &last);
        printf("Done: ");
        print_change(&first, &last);
        printf("; %zu -> %zu bytes of GraphDef; wrote %s\n", bytes_before, tfpi__graph_def__get_packed_size(graph),
               out);
        tally_free(&last);
    }
    tally_free(&first);
    if (code != TFPI_OK && status.message[0])
        fprintf(stderr, "error: %s\n", status.message);
    free_names(ctx.inputs, ctx.num_inputs);
    free_names(ctx.outputs, ctx.num_outputs);
    transform_spec_free(&list);
    tfpi__graph_def__free_unpacked(graph, NULL);
    return code == TFPI_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *in_graph = NULL, *out_graph = NULL, *inputs = NULL, *outputs = NULL, *transforms = NULL;
    bool as_text = false;
    const tool_flag flags[] = {
        {"in_graph", FLAG_STRING, &in_graph, "graph to transform (.pb, .pbtxt or memmapped)"},
        {"out_graph", FLAG_STRING, &out_graph, "where to write the result"},
        {"inputs", FLAG_STRING, &inputs, "input node names, comma-separated"},
        {"outputs", FLAG_STRING, &outputs, "output node names, comma-separated"},
        {"transforms", FLAG_STRING, &transforms, "the transforms, e.g. 'fold_constants quantize_weights'"},
        {"output_as_text", FLAG_BOOL, &as_text, "write text format (.pbtxt) instead of binary"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags,
                         "--in_graph=G.pb --out_graph=G2.pb --inputs=A --outputs=B --transforms='...'");
    if (rc == 2) {
        printf("transforms: ");
        transform_print_names(stdout);
        printf("\n");
    }
    if (rc == 0 && (!in_graph || !out_graph || !transforms)) {
        fprintf(stderr, "error: --in_graph, --out_graph and --transforms are required (see --help)\n");
        rc = 1;
    }
    if (rc == 0)
        rc = transform(in_graph, out_graph, inputs, outputs, transforms, as_text);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
