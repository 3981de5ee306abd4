/* restore.c - RestoreV2(prefix, tensor_names [n], shape_and_slices [n];
 * dtypes): the named tensors (or slices) of the model's own checkpoint,
 * the one it was loaded with (a SavedModel's variables/, a .meta's or
 * --checkpoint's), each checked against its dtype. tfpi binds variables to
 * their checkpoint tensors without running restore ops; RestoreV2 runs
 * when a graph needs a restored value for something else: the contents of
 * a MutableHashTable, which a TF2 restore function imports
 * (LookupTableImportV2) and every lookup of the table waits for. Reads are
 * copies, within the memory budget. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/model_info.h"
#include "kernel/kernel.h"
#include "model/checkpoint.h"

/* The model's checkpoint, which prefix must name. */
static tp_checkpoint *checkpoint_of(tp_op_ctx *ctx)
{
    const tp_model_info *info = ctx->graph ? ctx->graph->model : NULL;
    const tfpi_tensor *prefix = ctx->inputs[0];
    if (!info || !info->checkpoint) {
        tp_fail(ctx, TFPI_NOT_FOUND, "the model was loaded without a checkpoint to restore from");
        return NULL;
    }
    const char *own = tp_checkpoint_prefix(info->checkpoint);
    const tfpi_bytes *given = prefix->data;
    if (!given || given->size != strlen(own) || memcmp(given->data, own, given->size) != 0) {
        tp_fail(ctx, TFPI_UNIMPLEMENTED, "restores from '%.*s'; tfpi reads the model's own checkpoint, %s",
                given ? (int)(given->size > 200 ? 200 : given->size) : 0, given ? (const char *)given->data : "",
                own);
        return NULL;
    }
    return info->checkpoint;
}

/* The tensors read, which the outputs point into. */
typedef struct restored {
    int count;
    tfpi_tensor tensors[];
} restored;

static void free_restored(void *state)
{
    restored *r = state;
    for (int i = 0; r && i < r->count; i++)
        tp_tensor_release(&r->tensors[i]);
    free(r);
}

static tfpi_code restore_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *prefix = ctx->inputs[0], *names = ctx->inputs[1], *slices = ctx->inputs[2];
    if (prefix->dtype != TFPI_STRING || tp_num_elements(prefix) != 1 || names->dtype != TFPI_STRING ||
        slices->dtype != TFPI_STRING || names->ndims != 1 || !tp_same_shape(names, slices))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "takes a prefix and two string vectors of one length");
    const Tfpi__AttrValue *dtypes = tp_attr(ctx->def, "dtypes");
    size_t n = dtypes && dtypes->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? dtypes->list->n_type : 0;
    if ((int64_t)n != names->dims[0] || (int64_t)n < ctx->num_outputs)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dtypes lists %zu types for %lld tensor names", n,
                       (long long)names->dims[0]);
    if (!prefix->data || !names->data || !slices->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its inputs' values");
    tp_checkpoint *ckpt = checkpoint_of(ctx);
    if (!ckpt)
        return ctx->status->code;
    int64_t budget = ctx->max_bytes > INT64_MAX ? INT64_MAX : (int64_t)ctx->max_bytes;
    free_restored(ctx->state);
    restored *r = ctx->state = calloc(1, sizeof *r + (size_t)ctx->num_outputs * sizeof(tfpi_tensor));
    if (!r)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int o = 0; o < ctx->num_outputs; o++) {
        const tfpi_bytes *key = &((const tfpi_bytes *)names->data)[o], *slice = &((const tfpi_bytes *)slices->data)[o];
        char k[1024], s[1024];
        if (key->size >= sizeof k || slice->size >= sizeof s || memchr(key->data, 0, key->size))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "tensor name %d is too long or holds a NUL byte", o);
        snprintf(k, sizeof k, "%.*s", (int)key->size, (const char *)key->data);
        snprintf(s, sizeof s, "%.*s", (int)slice->size, (const char *)slice->data);
        tfpi_tensor *t = &r->tensors[o];
        code = s[0] ? tp_checkpoint_read_slice(ckpt, k, s, budget, t, ctx->status)
                    : tp_checkpoint_read(ckpt, k, false, budget, t, ctx->status);
        r->count = o + 1;
        if (code != TFPI_OK) {
            char detail[sizeof ctx->status->message];
            memcpy(detail, ctx->status->message, sizeof detail);
            return tp_fail(ctx, code, "%s", detail);
        }
        if ((int)t->dtype != (int)dtypes->list->type[o])
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "key '%s' is %s, dtypes says %s", k, tfpi_dtype_name(t->dtype),
                           tfpi_dtype_name((tfpi_dtype)dtypes->list->type[o]));
        tp_tensor_set_shape(&ctx->outputs[o], t->dtype, t->ndims, t->dims);
        ctx->outputs[o].data = t->data;
    }
    return TFPI_OK;
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

const tp_kernel tp_kernels_restore[] = {
    TP_KERNEL("RestoreV2", restore_prepare, nothing_to_run, free_restored, TP_DYNAMIC),
    TP_KERNELS_END,
};
