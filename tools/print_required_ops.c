/* print_required_ops - writes the minimal tf_op_files.txt for one or more
 * models: the kernels/ files that implement the ops they use, each with the
 * ops as a comment. Build a smaller library and binaries with it:
 *   print_required_ops --graph=a.pb,b.pb [--graph=c.pb] > my_ops.txt
 *   make TF_OP_FILES=my_ops.txt
 * A SavedModel directory or .meta covers what running it directly needs:
 * the ops its signature reaches, variables included.
 * An op no tfpi kernel implements gets a warning on stderr and a comment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "graphdef_io.h"
#include "model_source.h"
#include "tfpi.h"
#include "xalloc.h"

/* The distinct ops of all graphs, and the kernel file of each. */
typedef struct op_entry {
    char *op;
    const char *file; /* NULL: no kernel */
    char *first_use;  /* "node 'x' in model.pb" */
} op_entry;

typedef struct op_set {
    int count;
    op_entry *ops;
} op_set;

static void add_op(op_set *set, const char *op, const char *node, const char *path)
{
    for (int i = 0; i < set->count; i++)
        if (strcmp(set->ops[i].op, op) == 0)
            return;
    set->ops = xrealloc(set->ops, (size_t)(set->count + 1) * sizeof *set->ops);
    size_t n = strlen(node) + strlen(path) + 16;
    char *use = xmalloc(n);
    snprintf(use, n, "node '%s' in %s", node, path);
    set->ops[set->count++] = (op_entry){xstrdup(op), tfpi_kernel_file_for_op(op), use};
}

static int by_file_then_op(const void *a, const void *b)
{
    const op_entry *x = a, *y = b;
    if (!x->file != !y->file)
        return x->file ? -1 : 1;
    int c = x->file ? strcmp(x->file, y->file) : 0;
    return c ? c : strcmp(x->op, y->op);
}

static void print_list(op_set *set, const flag_list *graphs)
{
    qsort(set->ops, (size_t)set->count, sizeof *set->ops, by_file_then_op);
    printf("# tf_op_files.txt written by print_required_ops for:");
    for (int g = 0; g < graphs->count; g++)
        printf(" %s", graphs->values[g]);
    printf("\n# Build with: make TF_OP_FILES=<this file>\n");
    for (int i = 0; i < set->count;) {
        const char *file = set->ops[i].file;
        if (!file) {
            printf("# no tfpi kernel: %s (%s)\n", set->ops[i].op, set->ops[i].first_use);
            fprintf(stderr, "warning: op '%s' (%s) has no tfpi kernel; that part of the model cannot run\n",
                    set->ops[i].op, set->ops[i].first_use);
            i++;
            continue;
        }
        printf("%s  #", file);
        for (; i < set->count && set->ops[i].file && strcmp(set->ops[i].file, file) == 0; i++)
            printf(" %s", set->ops[i].op);
        printf("\n");
    }
}

/* Adds the ops of every graph named in the comma-separated arg. */
static int collect(const char *arg, op_set *set)
{
    char *paths = xstrdup(arg);
    int rc = 0;
    for (char *save = NULL, *path = strtok_r(paths, ",", &save); path && rc == 0;
         path = strtok_r(NULL, ",", &save)) {
        tfpi_status status = {0};
        /* A SavedModel runs with its variables: their kernel is needed too. */
        Tfpi__GraphDef *graph = model_source_is_model(path) ? graphdef_read_model(path, false, &status)
                                                            : graphdef_read(path, false, NULL, &status);
        if (!graph) {
            fprintf(stderr, "error: --graph: %s\n", status.message);
            rc = 1;
            continue;
        }
        for (size_t i = 0; i < graph->n_node; i++)
            add_op(set, graph->node[i]->op, graph->node[i]->name, path);
        tfpi__graph_def__free_unpacked(graph, NULL);
    }
    free(paths);
    return rc;
}

int main(int argc, char **argv)
{
    flag_list graphs = {0};
    const tool_flag flags[] = {
        {"graph", FLAG_LIST, &graphs, "model(s) to cover: comma-separated, repeatable"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    int rc = flags_parse(argc, argv, flags, num_flags, "--graph=a.pb[,b.pb] [--graph=c.pb] > ops.txt");
    if (rc == 0 && graphs.count == 0) {
        fprintf(stderr, "error: --graph is required (see --help)\n");
        rc = 1;
    }
    op_set set = {0};
    for (int g = 0; rc == 0 && g < graphs.count; g++)
        rc = collect(graphs.values[g], &set);
    if (rc == 0)
        print_list(&set, &graphs);
    for (int i = 0; i < set.count; i++) {
        free(set.ops[i].op);
        free(set.ops[i].first_use);
    }
    free(set.ops);
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
