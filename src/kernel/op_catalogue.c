/* op_catalogue.c - the public face of the generated op catalogue: which
 * kernels/ file implements an op (print_required_ops writes these lines). */
#include "kernel/kernel.h"

const char *tfpi_kernel_file_for_op(const char *op)
{
    return op ? tp_kernel_file_for_op(op) : NULL;
}
