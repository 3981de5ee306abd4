/* kernel_index.c - finds the kernel of an op by name through a hash index
 * of the compiled-in kernel lists (the generated tp_compiled_kernels),
 * built once per process: planning looks every node's op up, and a scan
 * of the few hundred ops with strcmp was a third of planning a 200,000-node
 * graph. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph/name_map.h"
#include "kernel/kernel.h"

static struct {
    pthread_once_t once;
    tp_name_map by_op;       /* op name -> index in kernels */
    const tp_kernel **kernels; /* NULL if the index could not be built */
} index_of_ops = {PTHREAD_ONCE_INIT, {0}, NULL};

static void build_index(void)
{
    size_t count = 0;
    for (int t = 0; tp_compiled_kernels[t]; t++)
        for (const tp_kernel *k = tp_compiled_kernels[t]; k->op; k++)
            count++;
    const tp_kernel **kernels = malloc((count + 1) * sizeof *kernels);
    if (!kernels || !tp_name_map_init(&index_of_ops.by_op, count)) {
        free(kernels);
        return;
    }
    size_t n = 0;
    for (int t = 0; tp_compiled_kernels[t]; t++)
        for (const tp_kernel *k = tp_compiled_kernels[t]; k->op; k++)
            if (tp_name_map_insert(&index_of_ops.by_op, k->op, (int)n)) /* the first of two alike wins */
                kernels[n++] = k;
    index_of_ops.kernels = kernels;
}

/* The scan the index replaces, for when memory for it ran out. */
static const tp_kernel *scan(const char *op)
{
    for (int t = 0; tp_compiled_kernels[t]; t++)
        for (const tp_kernel *k = tp_compiled_kernels[t]; k->op; k++)
            if (strcmp(k->op, op) == 0)
                return k;
    return NULL;
}

const tp_kernel *tp_find_kernel(const char *op)
{
    pthread_once(&index_of_ops.once, build_index);
    if (!index_of_ops.kernels)
        return scan(op);
    int i = tp_name_map_find(&index_of_ops.by_op, op, strlen(op));
    return i < 0 ? NULL : index_of_ops.kernels[i];
}
