/* tensor_array.c - the TensorArray V3 family (TensorArrayV3, Read, Write,
 * Scatter, Gather, Size, Concat, Split, Close): a per-run vector of tensors
 * that tf.while_loop, map_fn and dynamic_rnn read and write one element per
 * iteration. The array lives in the run's resource list (freed when the run
 * ends); its handle is a resource scalar holding its address; the flow
 * tensors only order the ops and carry 0. Checks and messages follow TF: a
 * write past a fixed size, a second write, a second read of a cleared slot
 * and inconsistent shapes are errors; a read of an unwritten slot gives
 * zeros when the element shape is fully known (TF >= 1.12), else an error.
 * These ops run only on the dynamic executor (TP_DYNAMIC). */
#include <stdlib.h>
#include <string.h>

#include "kernel/array_kernel_util.h"

typedef struct ta_slot {
    tfpi_tensor t;
    bool written, cleared;
} ta_slot;

typedef struct tensor_array {
    tp_resource resource;
    const Tfpi__NodeDef *def; /* the creating node, for messages */
    tfpi_dtype dtype;
    int elem_ndims; /* -1: unknown rank */
    int64_t elem_dims[TFPI_MAX_DIMS]; /* -1: unknown */
    bool dynamic_size, clear_after_read, closed;
    int64_t size, cap;
    ta_slot *slots;
} tensor_array;

static void destroy_array(tp_resource *resource)
{
    tensor_array *ta = (tensor_array *)resource;
    for (int64_t i = 0; i < ta->size; i++)
        tp_tensor_release(&ta->slots[i].t);
    free(ta->slots);
    free(ta);
}

static tfpi_code grow(tp_op_ctx *ctx, tensor_array *ta, int64_t size)
{
    if (size > ta->cap) {
        int64_t cap = size > 2 * ta->cap ? size : 2 * ta->cap;
        if (tp_expect_within_budget(ctx, cap, sizeof(ta_slot), "TensorArray slots") != TFPI_OK)
            return TFPI_OUT_OF_MEMORY;
        ta_slot *slots = realloc(ta->slots, sizeof *slots * (size_t)cap);
        if (!slots)
            return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld TensorArray slots", (long long)cap);
        memset(slots + ta->cap, 0, sizeof *slots * (size_t)(cap - ta->cap));
        ta->slots = slots;
        ta->cap = cap;
    }
    if (size > ta->size)
        ta->size = size;
    return TFPI_OK;
}

/* The element shape of attr `name` (unknown rank if absent). */
static void read_element_shape(const Tfpi__NodeDef *def, const char *name, int *ndims, int64_t *dims)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    *ndims = -1;
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_SHAPE || a->shape->unknown_rank ||
        a->shape->n_dim > TFPI_MAX_DIMS)
        return;
    *ndims = (int)a->shape->n_dim;
    for (int i = 0; i < *ndims; i++)
        dims[i] = a->shape->dim[i]->size < 0 ? -1 : a->shape->dim[i]->size;
}

static bool fully_defined(int ndims, const int64_t *dims)
{
    for (int i = 0; i < ndims; i++)
        if (dims[i] < 0)
            return false;
    return ndims >= 0;
}

static tfpi_code create_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code == TFPI_OK && ctx->inputs[0]->dtype != TFPI_INT32)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size (input 0) must be int32, is %s",
                       tfpi_dtype_name(ctx->inputs[0]->dtype));
    if (code == TFPI_OK && (ctx->inputs[0]->ndims != 0 || tp_get_int(ctx->inputs[0], 0) < 0))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "size must be a scalar >= 0");
    if (code == TFPI_OK && !ctx->resources)
        return tp_fail(ctx, TFPI_INTERNAL, "TensorArrays run only on the dynamic executor");
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_RESOURCE, 0, NULL);
    if (ctx->num_outputs > 1)
        tp_tensor_set_shape(&ctx->outputs[1], TFPI_FLOAT, 0, NULL);
    return code;
}

static tfpi_code create_run(tp_op_ctx *ctx)
{
    tensor_array *ta = calloc(1, sizeof *ta);
    if (!ta)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ta->resource.destroy = destroy_array;
    ta->resource.next = *ctx->resources;
    *ctx->resources = &ta->resource;
    ta->def = ctx->def;
    ta->dtype = tp_attr_type(ctx->def, "dtype", TFPI_FLOAT);
    read_element_shape(ctx->def, "element_shape", &ta->elem_ndims, ta->elem_dims);
    ta->dynamic_size = tp_attr_bool(ctx->def, "dynamic_size", false);
    ta->clear_after_read = tp_attr_bool(ctx->def, "clear_after_read", true);
    *(tensor_array **)ctx->outputs[0].data = ta;
    if (ctx->num_outputs > 1)
        *(float *)ctx->outputs[1].data = 0;
    return grow(ctx, ta, tp_get_int(ctx->inputs[0], 0));
}

/* The array behind input 0, open. */
static tfpi_code get_array(tp_op_ctx *ctx, tensor_array **out)
{
    const tfpi_tensor *h = ctx->inputs[0];
    if (h->dtype != TFPI_RESOURCE || h->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 0 must be a TensorArray handle, not %s",
                       tfpi_dtype_name(h->dtype));
    *out = *(tensor_array *const *)h->data;
    if ((*out)->closed)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "TensorArray %s has already been closed.", (*out)->def->name);
    return TFPI_OK;
}

/* Checks the input count and finds the array behind input 0. */
static tfpi_code open_array(tp_op_ctx *ctx, int num_inputs, tensor_array **out)
{
    tfpi_code code = tp_expect_inputs(ctx, num_inputs, num_inputs);
    return code == TFPI_OK ? get_array(ctx, out) : code;
}

/* A read (Read, Gather, Concat) names the array's dtype in its attr. */
static tfpi_code open_array_to_read(tp_op_ctx *ctx, int num_inputs, tensor_array **out)
{
    tfpi_code code = open_array(ctx, num_inputs, out);
    tfpi_dtype wanted = code == TFPI_OK ? tp_attr_type(ctx->def, "dtype", (*out)->dtype) : 0;
    if (code == TFPI_OK && wanted != (*out)->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "TensorArray dtype is %s but Op requested dtype %s.",
                       tfpi_dtype_name((*out)->dtype), tfpi_dtype_name(wanted));
    return code;
}

static tfpi_code set_flow_out(tp_op_ctx *ctx, int output)
{
    if (output < ctx->num_outputs)
        tp_tensor_set_shape(&ctx->outputs[output], TFPI_FLOAT, 0, NULL);
    return TFPI_OK;
}

static void write_flow_out(tp_op_ctx *ctx)
{
    *(float *)ctx->outputs[0].data = 0;
}

static bool compatible(const tensor_array *ta, int ndims, const int64_t *dims)
{
    if (ta->elem_ndims < 0)
        return true;
    if (ndims != ta->elem_ndims)
        return false;
    for (int i = 0; i < ndims; i++)
        if (ta->elem_dims[i] >= 0 && ta->elem_dims[i] != dims[i])
            return false;
    return true;
}

/* Checks that slot index may receive a value of this shape (growing a
 * dynamic array); the write itself happens in run. */
static tfpi_code check_write(tp_op_ctx *ctx, tensor_array *ta, int64_t index, tfpi_dtype dtype, int ndims,
                             const int64_t *dims)
{
    if (dtype != ta->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "TensorArray dtype is %s but Op is trying to write dtype %s",
                       tfpi_dtype_name(ta->dtype), tfpi_dtype_name(dtype));
    if (index < 0 || (index >= ta->size && !ta->dynamic_size))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Tried to write to index %lld but array is not resizeable and size is: %lld",
                       (long long)index, (long long)ta->size);
    if (!compatible(ta, ndims, dims))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Could not write to TensorArray index %lld: the value's shape is incompatible with the "
                       "TensorArray's element shape",
                       (long long)index);
    if (index < ta->size && ta->slots[index].cleared)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Could not write to TensorArray index %lld because it has already been read.",
                       (long long)index);
    if (index < ta->size && ta->slots[index].written)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Could not write to TensorArray index %lld because it has already been written to.",
                       (long long)index);
    return TFPI_OK;
}

/* Writes element `offset` of leading-dimension chunks of value to slot index. */
static tfpi_code store(tp_op_ctx *ctx, tensor_array *ta, int64_t index, const tfpi_tensor *value, int ndims,
                       const int64_t *dims, size_t offset_bytes)
{
    tfpi_code code = grow(ctx, ta, index + 1);
    ta_slot *slot = &ta->slots[index];
    if (code != TFPI_OK)
        return code;
    tp_tensor_set_shape(&slot->t, value->dtype, ndims, dims);
    if ((code = tp_tensor_alloc(&slot->t, ctx->status)) != TFPI_OK)
        return code;
    memcpy(slot->t.data, (const char *)value->data + offset_bytes, tp_byte_size(&slot->t));
    if (value->dtype == TFPI_STRING && (code = tp_tensor_own_strings(&slot->t, ctx->status)) != TFPI_OK)
        return code;
    slot->written = true;
    return TFPI_OK;
}

static tfpi_code write_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array(ctx, 4, &ta);
    if (code == TFPI_OK) {
        const tfpi_tensor *v = ctx->inputs[2];
        code = check_write(ctx, ta, tp_get_int(ctx->inputs[1], 0), v->dtype, v->ndims, v->dims);
    }
    return code == TFPI_OK ? set_flow_out(ctx, 0) : code;
}

static tfpi_code write_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    const tfpi_tensor *v = ctx->inputs[2];
    write_flow_out(ctx);
    return store(ctx, ta, tp_get_int(ctx->inputs[1], 0), v, v->ndims, v->dims, 0);
}

/* The shape a read of slot index gives; fails for cleared slots and for
 * unwritten ones whose shape is not known. */
static tfpi_code read_shape(tp_op_ctx *ctx, tensor_array *ta, int64_t index, tfpi_tensor *out)
{
    if (index < 0 || index >= ta->size)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Tried to read from index %lld but array size is: %lld",
                       (long long)index, (long long)ta->size);
    const ta_slot *slot = &ta->slots[index];
    if (slot->cleared)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Could not read index %lld twice because it was cleared after a previous read (perhaps "
                       "try setting clear_after_read = false?)",
                       (long long)index);
    if (slot->written) {
        tp_tensor_set_shape(out, ta->dtype, slot->t.ndims, slot->t.dims);
        return TFPI_OK;
    }
    if (!fully_defined(ta->elem_ndims, ta->elem_dims))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Could not read from TensorArray index %lld because it has not yet been written to, and "
                       "the element shape is not fully defined",
                       (long long)index);
    tp_tensor_set_shape(out, ta->dtype, ta->elem_ndims, ta->elem_dims);
    return TFPI_OK;
}

/* Copies slot index (zeros if unwritten) to dst and clears it if the array
 * says so. */
static void take(tensor_array *ta, int64_t index, void *dst, size_t bytes)
{
    ta_slot *slot = &ta->slots[index];
    if (slot->written)
        memcpy(dst, slot->t.data, bytes);
    else
        memset(dst, 0, bytes);
    if (ta->clear_after_read && slot->written) {
        tp_tensor_release(&slot->t);
        slot->written = false;
        slot->cleared = true;
    }
}

static tfpi_code read_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array_to_read(ctx, 3, &ta);
    return code == TFPI_OK ? read_shape(ctx, ta, tp_get_int(ctx->inputs[1], 0), &ctx->outputs[0]) : code;
}

static tfpi_code read_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    take(ta, tp_get_int(ctx->inputs[1], 0), ctx->outputs[0].data, tp_byte_size(&ctx->outputs[0]));
    return TFPI_OK;
}

/* Scatter: value[i] -> slot indices[i]. */
static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The first index that appears twice in idx (of those `counts` accepts),
 * found sorted, in O(n log n) (a hostile scatter has a million indices);
 * -1 if none. *code is set if the check itself fails. */
static int64_t first_repeat(tp_op_ctx *ctx, const tfpi_tensor *idx, const tensor_array *counts, tfpi_code *code)
{
    int64_t n = tp_num_elements(idx), repeat = -1;
    int64_t *sorted = malloc(sizeof *sorted * ((size_t)n + 1));
    if (!sorted) {
        *code = tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory checking %lld indices", (long long)n);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        sorted[i] = tp_get_int(idx, i);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_int64);
    for (int64_t i = 1; i < n && repeat < 0; i++)
        if (sorted[i] == sorted[i - 1] && (!counts || counts->slots[sorted[i]].written))
            repeat = sorted[i];
    free(sorted);
    return repeat;
}

static tfpi_code check_distinct(tp_op_ctx *ctx, const tfpi_tensor *idx)
{
    tfpi_code code = TFPI_OK;
    int64_t repeat = first_repeat(ctx, idx, NULL, &code);
    if (repeat >= 0)
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "index %lld is scattered twice", (long long)repeat);
    return code;
}

static tfpi_code scatter_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array(ctx, 4, &ta);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *idx = ctx->inputs[1], *v = ctx->inputs[2];
    int64_t n = tp_num_elements(idx);
    if (idx->ndims != 1 || v->ndims < 1 || v->dims[0] != n)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be a vector as long as the value's first dimension");
    for (int64_t i = 0; i < n && code == TFPI_OK; i++)
        code = check_write(ctx, ta, tp_get_int(idx, i), v->dtype, v->ndims - 1, v->dims + 1);
    if (code == TFPI_OK)
        code = check_distinct(ctx, idx);
    return code == TFPI_OK ? set_flow_out(ctx, 0) : code;
}

static tfpi_code scatter_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    const tfpi_tensor *idx = ctx->inputs[1], *v = ctx->inputs[2];
    int64_t n = tp_num_elements(idx);
    size_t chunk = n ? tp_byte_size(v) / (size_t)n : 0;
    tfpi_code code = TFPI_OK;
    write_flow_out(ctx);
    for (int64_t i = 0; i < n && code == TFPI_OK; i++)
        code = store(ctx, ta, tp_get_int(idx, i), v, v->ndims - 1, v->dims + 1, (size_t)i * chunk);
    return code;
}

/* Split: rows [sum(lengths[:i]), +lengths[i]) of value -> slot i. */
static tfpi_code split_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array(ctx, 4, &ta);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *v = ctx->inputs[1], *len = ctx->inputs[2];
    int64_t n = tp_num_elements(len), total = 0;
    if (len->ndims != 1 || v->ndims < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "expects a value of rank >= 1 and a vector of lengths");
    for (int64_t i = 0; i < n; i++) {
        int64_t l = tp_get_int(len, i);
        if (l < 0 || l > v->dims[0] - total)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the lengths must add up to the value's first dimension %lld",
                           (long long)v->dims[0]);
        total += l;
        int64_t dims[TFPI_MAX_DIMS];
        memcpy(dims, v->dims, sizeof dims);
        dims[0] = l;
        if ((code = check_write(ctx, ta, i, v->dtype, v->ndims, dims)) != TFPI_OK)
            return code;
    }
    if (total != v->dims[0] || (n != ta->size && !ta->dynamic_size))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "the lengths must add up to the value's first dimension %lld and number the array's %lld "
                       "elements",
                       (long long)v->dims[0], (long long)ta->size);
    return set_flow_out(ctx, 0);
}

static tfpi_code split_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    const tfpi_tensor *v = ctx->inputs[1], *len = ctx->inputs[2];
    size_t row = v->dims[0] ? tp_byte_size(v) / (size_t)v->dims[0] : 0, offset = 0;
    tfpi_code code = TFPI_OK;
    write_flow_out(ctx);
    for (int64_t i = 0; i < tp_num_elements(len) && code == TFPI_OK; i++) {
        int64_t dims[TFPI_MAX_DIMS];
        memcpy(dims, v->dims, sizeof dims);
        dims[0] = tp_get_int(len, i);
        code = store(ctx, ta, i, v, v->ndims, dims, offset);
        offset += (size_t)dims[0] * row;
    }
    return code;
}

/* Gather (indices) and Concat (all slots): every chosen slot must have one
 * shape (Concat: from dimension 1 on). */
static tfpi_code stacked_shape(tp_op_ctx *ctx, tensor_array *ta, const tfpi_tensor *idx, bool concat)
{
    int64_t n = idx ? tp_num_elements(idx) : ta->size, rows = 0;
    tfpi_tensor first = {0}, each = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t k = idx ? tp_get_int(idx, i) : i;
        tfpi_code code = read_shape(ctx, ta, k, &each);
        if (code != TFPI_OK)
            return code;
        if (concat && each.ndims < 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Concat needs elements of rank >= 1; index %lld is a scalar",
                           (long long)k);
        rows += concat ? each.dims[0] : 1;
        if (concat)
            each.dims[0] = first.ndims ? first.dims[0] : each.dims[0];
        if (i == 0)
            first = each;
        else if (!tp_same_shape(&first, &each))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "TensorArray has inconsistent shapes. Index 0 has a shape "
                           "different from index %lld", (long long)k);
    }
    if (n == 0) {
        read_element_shape(ctx->def, concat ? "element_shape_except0" : "element_shape", &first.ndims, first.dims);
        if (!fully_defined(first.ndims, first.dims) && !fully_defined(ta->elem_ndims, ta->elem_dims))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "TensorArray has size zero, but element shape is not fully defined");
        if (!fully_defined(first.ndims, first.dims)) {
            first.ndims = ta->elem_ndims;
            memcpy(first.dims, ta->elem_dims, sizeof first.dims);
        }
        if (concat) { /* the shape without dimension 0: put a 0 in front */
            memmove(first.dims + 1, first.dims, sizeof(int64_t) * (TFPI_MAX_DIMS - 1));
            first.ndims++;
        }
    }
    if (first.ndims >= TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "elements of rank %d are too many dimensions", first.ndims);
    tfpi_tensor *out = &ctx->outputs[0];
    if (concat) {
        first.dims[0] = rows;
        tp_tensor_set_shape(out, ta->dtype, first.ndims, first.dims);
    } else {
        int64_t dims[TFPI_MAX_DIMS] = {n};
        memcpy(dims + 1, first.dims, sizeof(int64_t) * (size_t)first.ndims);
        tp_tensor_set_shape(out, ta->dtype, first.ndims + 1, dims);
    }
    return TFPI_OK;
}

static tfpi_code gather_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array_to_read(ctx, 3, &ta);
    if (code == TFPI_OK && ctx->inputs[1]->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be a vector");
    if (code == TFPI_OK)
        code = stacked_shape(ctx, ta, ctx->inputs[1], false);
    if (code == TFPI_OK && ta->clear_after_read) { /* the first read of a written slot clears it */
        int64_t repeat = first_repeat(ctx, ctx->inputs[1], ta, &code);
        if (repeat >= 0)
            code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Could not read index %lld twice because it was cleared "
                           "after a previous read (perhaps try setting clear_after_read = false?)",
                           (long long)repeat);
    }
    return code;
}

static tfpi_code gather_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    const tfpi_tensor *idx = ctx->inputs[1];
    int64_t n = tp_num_elements(idx);
    size_t chunk = n ? tp_byte_size(&ctx->outputs[0]) / (size_t)n : 0;
    for (int64_t i = 0; i < n; i++)
        take(ta, tp_get_int(idx, i), (char *)ctx->outputs[0].data + (size_t)i * chunk, chunk);
    return TFPI_OK;
}

static tfpi_code concat_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array_to_read(ctx, 2, &ta);
    if (code == TFPI_OK)
        code = stacked_shape(ctx, ta, NULL, true);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        tp_tensor_set_shape(&ctx->outputs[1], TFPI_INT64, 1, (int64_t[]){ta->size});
    return code;
}

static tfpi_code concat_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    const tfpi_tensor *out = &ctx->outputs[0];
    size_t row = tfpi_dtype_size(out->dtype), offset = 0;
    for (int d = 1; d < out->ndims; d++)
        row *= (size_t)out->dims[d];
    for (int64_t i = 0; i < ta->size; i++) {
        int64_t rows = ta->slots[i].written ? ta->slots[i].t.dims[0] : ta->elem_dims[0]; /* zeros */
        if (ctx->num_outputs > 1)
            ((int64_t *)ctx->outputs[1].data)[i] = rows;
        take(ta, i, (char *)out->data + offset, (size_t)rows * row);
        offset += (size_t)rows * row;
    }
    return TFPI_OK;
}

static tfpi_code size_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array(ctx, 2, &ta);
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_INT32, 0, NULL);
    return code;
}

static tfpi_code size_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    *(int32_t *)ctx->outputs[0].data = (int32_t)ta->size;
    return TFPI_OK;
}

static tfpi_code close_prepare(tp_op_ctx *ctx)
{
    tensor_array *ta;
    tfpi_code code = open_array(ctx, 1, &ta);
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_FLOAT, 1, (int64_t[]){0}); /* no outputs: an empty stand-in */
    return code;
}

static tfpi_code close_run(tp_op_ctx *ctx)
{
    tensor_array *ta = *(tensor_array *const *)ctx->inputs[0]->data;
    for (int64_t i = 0; i < ta->size; i++)
        tp_tensor_release(&ta->slots[i].t);
    ta->closed = true;
    return TFPI_OK;
}

#define TA_FLAGS (TP_DYNAMIC | TP_STATEFUL)
const tp_kernel tp_kernels_tensor_array[] = {
    TP_KERNEL("TensorArrayV3", create_prepare, create_run, NULL, TA_FLAGS | TP_OUTPUTS(2)),
    TP_KERNEL("TensorArrayWriteV3", write_prepare, write_run, NULL, TA_FLAGS),
    TP_KERNEL("TensorArrayReadV3", read_prepare, read_run, NULL, TA_FLAGS),
    TP_KERNEL("TensorArrayScatterV3", scatter_prepare, scatter_run, NULL, TA_FLAGS),
    TP_KERNEL("TensorArraySplitV3", split_prepare, split_run, NULL, TA_FLAGS),
    TP_KERNEL("TensorArrayGatherV3", gather_prepare, gather_run, NULL, TA_FLAGS),
    TP_KERNEL("TensorArrayConcatV3", concat_prepare, concat_run, NULL, TA_FLAGS | TP_OUTPUTS(2)),
    TP_KERNEL("TensorArraySizeV3", size_prepare, size_run, NULL, TA_FLAGS),
    TP_KERNEL("TensorArrayCloseV3", close_prepare, close_run, NULL, TA_FLAGS),
    TP_KERNELS_END,
};
