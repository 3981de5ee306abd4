/* print_required_ops - writes the minimal tf_op_files.txt for one or more
 * models: the kernels/ files that implement the ops they use, each with the
 * ops as a comment. Build a smaller library and binaries with it:
 *   print_required_ops --graph=a.pb,b.pb [--graph=c.pb] > my_ops.txt
 *   make TF_OP_FILES=my_ops.txt
 * A SavedModel directory or .meta covers what running it directly needs:
 * the ops its signature reaches, variables included. A TF2 graph's ops
 * include those of the library functions it calls (bodies, branches).
 * An op no tfpi kernel implements gets a warning on stderr and a comment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "graph/function_library.h"
#include "graph/node_def.h"
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

/* TF2 function graphs: the ops of the library functions the graph reaches
 * (calls, loop bodies and branches, nested), and those tfpi lowers calls
 * and functional control flow to; the call and control-flow ops themselves
 * need no kernel. */
static const char *const expanded_ops[] = {"PartitionedCall", "StatefulPartitionedCall", "While", "StatelessWhile",
                                           "If", "StatelessIf", "Case", "StatelessCase", NULL};
static const char *const lowered_to[] = {"Identity", "IdentityN", "NoOp", "ToBool", "Switch", "Merge", "Enter",
                                         "Exit", "NextIteration", "LoopCond", "Equal", "Const", NULL};

static bool is_expanded(const tp_function_library *lib, const char *op)
{
    for (int i = 0; expanded_ops[i]; i++)
        if (strcmp(op, expanded_ops[i]) == 0)
            return true;
    return tp_function_find(lib, op) != NULL;
}

/* Adds the ops of function `name` (once: seen marks the functions done) and of what it calls. */
static void add_function(op_set *set, tp_function_library *lib, const char *name, bool *seen, const char *path);

static void add_node(op_set *set, tp_function_library *lib, const Tfpi__NodeDef *def, bool *seen, const char *path)
{
    static const char *const keys[] = {"f", "cond", "body", "then_branch", "else_branch"};
    if (!is_expanded(lib, def->op)) {
        add_op(set, def->op, def->name, path);
        return;
    }
    for (int i = 0; lowered_to[i]; i++)
        add_op(set, lowered_to[i], def->name, path);
    add_function(set, lib, def->op, seen, path);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const Tfpi__AttrValue *a = tp_attr(def, keys[k]);
        if (a && a->value_case == TFPI__ATTR_VALUE__VALUE_FUNC)
            add_function(set, lib, a->func->name, seen, path);
    }
    const Tfpi__AttrValue *b = tp_attr(def, "branches");
    for (size_t i = 0; b && b->value_case == TFPI__ATTR_VALUE__VALUE_LIST && i < b->list->n_func; i++)
        add_function(set, lib, b->list->func[i]->name, seen, path);
}

static void add_function(op_set *set, tp_function_library *lib, const char *name, bool *seen, const char *path)
{
    const Tfpi__FunctionDef *f = tp_function_find(lib, name);
    int index = f ? tp_name_map_find(&lib->functions, name, strlen(name)) : -1;
    if (index < 0 || seen[index])
        return;
    seen[index] = true;
    for (size_t i = 0; i < f->n_node_def; i++)
        add_node(set, lib, f->node_def[i], seen, path);
}

/* Adds the ops graph's nodes need, through its function library. */
static int add_graph(op_set *set, const Tfpi__GraphDef *graph, const char *path)
{
    tfpi_status status = {0};
    tp_function_library lib;
    if (tp_function_library_open(&lib, graph->library.data, graph->library.len, NULL, path, &status) != TFPI_OK) {
        fprintf(stderr, "error: --graph: %s\n", status.message);
        return 1;
    }
    bool *seen = xcalloc(lib.lib->n_function + 1, sizeof *seen);
    for (size_t i = 0; i < graph->n_node; i++)
        add_node(set, &lib, graph->node[i], seen, path);
    free(seen);
    tp_function_library_close(&lib);
    return 0;
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
        rc = add_graph(set, graph, path);
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
