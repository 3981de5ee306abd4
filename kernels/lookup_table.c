/* lookup_table.c - TensorFlow's hash tables, as Estimator and Keras exports
 * use them (index_to_string, vocabulary lookups): HashTableV2 names a table
 * held by the session (src/kernel/resource_store.h, beside its variables);
 * InitializeTableV2 fills it once (a second initialisation is skipped: the
 * graph loader makes every lookup wait for its table's initializer,
 * src/graph/table_init.c, so the first run fills it) and LookupTableImportV2
 * replaces what it holds; LookupTableFindV2 maps keys (int32, int64 or
 * strings) to scalar values, a missing key giving default_value;
 * LookupTableSizeV2 counts the keys. TFLite's HASHTABLE_IMPORT fills a
 * table once too, but keeps the first value of a key given twice (TFLite's
 * rule; TensorFlow refuses two values). MutableHashTableV2 starts empty (a
 * lookup gives the default) and LookupTableInsertV2 adds keys or replaces
 * their values (one key twice in one insert, with two values, is refused); a TF2 SavedModel fills one from its checkpoint in its
 * restore function (RestoreV2, then LookupTableImportV2), which its
 * lookups wait for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "kernel/resource_store.h"

static tfpi_code table_prepare(tp_op_ctx *ctx)
{
    tfpi_dtype key = tp_attr_type(ctx->def, "key_dtype", 0);
    if (key != TFPI_INT32 && key != TFPI_INT64 && key != TFPI_STRING)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "keys of type %s are not supported", tfpi_dtype_name(key));
    return tp_resource_handle_output(ctx, TP_RESOURCE_TABLE, key) ? TFPI_OK : ctx->status->code;
}

static tfpi_code mutable_table_prepare(tp_op_ctx *ctx)
{
    tfpi_dtype key = tp_attr_type(ctx->def, "key_dtype", 0), value = tp_attr_type(ctx->def, "value_dtype", 0);
    if (key != TFPI_INT32 && key != TFPI_INT64 && key != TFPI_STRING)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "keys of type %s are not supported", tfpi_dtype_name(key));
    if (!tfpi_dtype_size(value) || value == TFPI_RESOURCE || value == TFPI_VARIANT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "values of type %s are not supported", tfpi_dtype_name(value));
    tp_resource_var *t = tp_resource_handle_output(ctx, TP_RESOURCE_TABLE, key);
    if (!t)
        return ctx->status->code;
    if (t->value.dtype)
        return TFPI_OK;
    int64_t none = 0; /* made empty: usable at once */
    tfpi_tensor keys = {0}, values = {0};
    tp_tensor_set_shape(&keys, key, 1, &none);
    tp_tensor_set_shape(&values, value, 1, &none);
    keys.data = values.data = &none;
    return tp_resource_table_fill(ctx->variables, t, &keys, &values, false, ctx->status);
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

/* The table behind input 0; with inputs >= 0 (prepare), the node must have
 * that many inputs. */
static tfpi_code get_table(tp_op_ctx *ctx, int inputs, tp_resource_var **out)
{
    if (inputs >= 0 && tp_expect_inputs(ctx, inputs, inputs) != TFPI_OK)
        return ctx->status->code;
    const tfpi_tensor *h = ctx->inputs[0];
    tp_resource_var *t = h->dtype == TFPI_RESOURCE && h->ndims == 0 && h->data
                             ? tp_resource_store_get(ctx->variables, *(const intptr_t *)h->data)
                             : NULL;
    if (!t || t->kind != TP_RESOURCE_TABLE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 0 is not a table handle");
    *out = t;
    return TFPI_OK;
}

static tfpi_code fill_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    char name[300];
    tfpi_code code = get_table(ctx, 3, &t);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *keys = ctx->inputs[1], *values = ctx->inputs[2];
    if (keys->dtype != t->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "table '%s' has %s keys, given %s",
                       tp_resource_var_name(t, name, sizeof name), tfpi_dtype_name(t->dtype),
                       tfpi_dtype_name(keys->dtype));
    if (tp_num_elements(keys) != tp_num_elements(values) || values->ndims != keys->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "keys and values must have one shape (one value per key)");
    if (!tfpi_dtype_size(values->dtype) || values->dtype == TFPI_RESOURCE || values->dtype == TFPI_VARIANT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "values of type %s are not supported", tfpi_dtype_name(values->dtype));
    return TFPI_OK;
}

static tfpi_code fill_run(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    tfpi_code code = get_table(ctx, -1, &t);
    if (code != TFPI_OK)
        return code;
    if (t->value.dtype && strcmp(ctx->def->op, "InitializeTableV2") == 0)
        return TFPI_OK; /* initialised already, by an earlier run */
    return tp_resource_table_fill(ctx->variables, t, ctx->inputs[1], ctx->inputs[2], false, ctx->status);
}

/* TFLite's HASHTABLE_IMPORT: fills the table once (later imports are
 * skipped, as TFLite skips them), a key given twice keeping its first
 * value. */
static tfpi_code import_run(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    tfpi_code code = get_table(ctx, -1, &t);
    if (code != TFPI_OK || t->value.dtype)
        return code;
    return tp_resource_table_fill(ctx->variables, t, ctx->inputs[1], ctx->inputs[2], true, ctx->status);
}

/* LookupTableInsertV2: the new keys and values, then the table's others
 * (those no new key replaces). */
static tfpi_code insert_run(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    tfpi_code code = get_table(ctx, -1, &t);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *keys = ctx->inputs[1], *values = ctx->inputs[2];
    if (t->value.dtype && t->value.dtype != values->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the table holds %s values, given %s",
                       tfpi_dtype_name(t->value.dtype), tfpi_dtype_name(values->dtype));
    int64_t fresh = tp_num_elements(keys), old = t->value.dtype ? tp_num_elements(&t->keys) : 0;
    if ((code = tp_expect_within_budget(ctx, fresh + old, tfpi_dtype_size(keys->dtype) +
                                        tfpi_dtype_size(values->dtype) + 1, "table entries")) != TFPI_OK)
        return code;
    uint8_t *replaced = calloc((size_t)old + 1, 1);
    if (!replaced)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    int64_t n = fresh;
    for (int64_t i = 0; i < fresh; i++) {
        int64_t at = old ? tp_resource_table_find(t, keys, i) : -1;
        if (at >= 0 && !replaced[at])
            replaced[at] = 1, n--;
    }
    n += old;
    tfpi_tensor k = {0}, v = {0};
    tp_tensor_set_shape(&k, keys->dtype, 1, &n);
    tp_tensor_set_shape(&v, values->dtype, 1, &n);
    if ((code = tp_tensor_alloc(&k, ctx->status)) != TFPI_OK || (code = tp_tensor_alloc(&v, ctx->status)) != TFPI_OK) {
        tp_tensor_release(&k);
        free(replaced);
        return code;
    }
    size_t ks = tfpi_dtype_size(keys->dtype), vs = tfpi_dtype_size(values->dtype);
    memcpy(k.data, keys->data, (size_t)fresh * ks);
    memcpy(v.data, values->data, (size_t)fresh * vs);
    for (int64_t i = 0, at = fresh; i < old; i++) {
        if (replaced[i])
            continue;
        memcpy((char *)k.data + (size_t)at * ks, (const char *)t->keys.data + (size_t)i * ks, ks);
        memcpy((char *)v.data + (size_t)at * vs, (const char *)t->value.data + (size_t)i * vs, vs);
        at++;
    }
    free(replaced);
    code = tp_resource_table_fill(ctx->variables, t, &k, &v, false, ctx->status);
    /* the elements are borrowed (the fill copied them): free the arrays only */
    free(k.data);
    free(v.data);
    return code;
}

static tfpi_code find_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    char name[300];
    tfpi_code code = get_table(ctx, 3, &t);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *keys = ctx->inputs[1], *fallback = ctx->inputs[2];
    if (!t->value.dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "table '%s' is used before it was initialized",
                       tp_resource_var_name(t, name, sizeof name));
    if (keys->dtype != t->dtype || fallback->dtype != t->value.dtype || tp_num_elements(fallback) != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "table '%s' maps %s to %s; given %s keys and a %s default of %lld elements",
                       tp_resource_var_name(t, name, sizeof name), tfpi_dtype_name(t->dtype),
                       tfpi_dtype_name(t->value.dtype), tfpi_dtype_name(keys->dtype),
                       tfpi_dtype_name(fallback->dtype), (long long)tp_num_elements(fallback));
    return tp_set_output(ctx, 0, t->value.dtype, keys->ndims, keys->dims);
}

static tfpi_code find_run(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    tfpi_code code = get_table(ctx, -1, &t);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *keys = ctx->inputs[1];
    size_t size = tfpi_dtype_size(t->value.dtype);
    char *out = ctx->outputs[0].data;
    for (int64_t i = 0; i < tp_num_elements(keys); i++) {
        int64_t at = tp_resource_table_find(t, keys, i);
        memcpy(out + (size_t)i * size, at >= 0 ? (const char *)t->value.data + (size_t)at * size : ctx->inputs[2]->data,
               size);
    }
    return TFPI_OK;
}

static tfpi_code size_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    tfpi_code code = get_table(ctx, 1, &t);
    if (code == TFPI_OK)
        tp_tensor_set_shape(&ctx->outputs[0], TFPI_INT64, 0, NULL);
    return code;
}

static tfpi_code size_run(tp_op_ctx *ctx)
{
    tp_resource_var *t = NULL;
    tfpi_code code = get_table(ctx, -1, &t);
    if (code == TFPI_OK)
        *(int64_t *)ctx->outputs[0].data = t->value.dtype ? tp_num_elements(&t->keys) : 0;
    return code;
}

#define READS (TP_STATEFUL | TP_READS_VARIABLES)
#define WRITES (TP_STATEFUL | TP_WRITES_VARIABLES | TP_OUTPUTS(0))

const tp_kernel tp_kernels_lookup_table[] = {
    TP_KERNEL("HashTableV2", table_prepare, nothing_to_run, free, 0),
    TP_KERNEL("MutableHashTableV2", mutable_table_prepare, nothing_to_run, free, 0),
    TP_KERNEL("LookupTableInsertV2", fill_prepare, insert_run, NULL, WRITES),
    TP_KERNEL("InitializeTableV2", fill_prepare, fill_run, NULL, WRITES),
    TP_KERNEL("LookupTableImportV2", fill_prepare, fill_run, NULL, WRITES),
    TP_KERNEL("HASHTABLE_IMPORT", fill_prepare, import_run, NULL, WRITES | TP_TFLITE_OP),
    TP_KERNEL("LookupTableFindV2", find_prepare, find_run, NULL, READS),
    TP_KERNEL("LookupTableSizeV2", size_prepare, size_run, NULL, READS),
    TP_KERNELS_END,
};
