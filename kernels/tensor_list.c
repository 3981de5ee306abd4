/* tensor_list.c - the TF2 TensorList ops that lowered TF2 loops use
 * (EmptyTensorList, TensorListReserve, TensorListFromTensor, GetItem,
 * SetItem, PushBack, Stack, Length, ElementShape). A list is a value: a
 * variant scalar pointing at a list object; the ops that "modify" one make
 * a new object sharing the unchanged elements (each element is reference
 * counted). Objects live in the run's resource list and are freed when the
 * run ends. Slots may be uninitialised: reading or stacking one gives zeros
 * of the element shape, which must then be fully known. Element shapes are
 * int32/int64 vectors with -1 for unknown dimensions, or the scalar -1 for
 * an unknown rank. These ops run only on the dynamic executor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"

typedef struct element {
    int refs;
    tfpi_tensor t;
} element;

typedef struct tensor_list {
    tp_resource resource;
    tfpi_dtype dtype;
    int elem_ndims; /* -1: unknown rank */
    int64_t elem_dims[TFPI_MAX_DIMS];
    int64_t max_elements; /* -1: unbounded */
    int64_t count;
    element **items; /* NULL: uninitialised */
} tensor_list;

static void drop(element *e)
{
    if (e && --e->refs == 0) {
        tp_tensor_release(&e->t);
        free(e);
    }
}

static void destroy_list(tp_resource *resource)
{
    tensor_list *l = (tensor_list *)resource;
    for (int64_t i = 0; i < l->count; i++)
        drop(l->items[i]);
    free(l->items);
    free(l);
}

/* A new list of `count` slots in the run's resources; the items of `from`
 * (if given) are shared. */
static tensor_list *new_list(tp_op_ctx *ctx, const tensor_list *from, int64_t count)
{
    if (tp_expect_within_budget(ctx, count + 1, sizeof(element *), "TensorList slots") != TFPI_OK)
        return NULL;
    tensor_list *l = calloc(1, sizeof *l);
    if (l)
        l->items = calloc((size_t)count + 1, sizeof *l->items);
    if (!l || !l->items) {
        free(l);
        tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for a list of %lld elements", (long long)count);
        return NULL;
    }
    l->resource.destroy = destroy_list;
    l->resource.next = *ctx->resources;
    *ctx->resources = &l->resource;
    l->count = count;
    l->max_elements = -1;
    if (from) {
        l->dtype = from->dtype;
        l->elem_ndims = from->elem_ndims;
        memcpy(l->elem_dims, from->elem_dims, sizeof l->elem_dims);
        l->max_elements = from->max_elements;
        for (int64_t i = 0; i < from->count && i < count; i++)
            if ((l->items[i] = from->items[i]))
                l->items[i]->refs++;
    }
    return l;
}

static tfpi_code read_shape_input(tp_op_ctx *ctx, int input, int *ndims, int64_t *dims)
{
    const tfpi_tensor *s = ctx->inputs[input];
    if (s->ndims == 0) {
        if (tp_get_int(s, 0) != -1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "an element shape given as a scalar must be -1 (unknown rank)");
        *ndims = -1;
        return TFPI_OK;
    }
    if (s->ndims != 1 || s->dims[0] > TFPI_MAX_DIMS || (s->dtype != TFPI_INT32 && s->dtype != TFPI_INT64))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "element_shape must be an int32 or int64 vector (or -1)");
    *ndims = (int)s->dims[0];
    for (int i = 0; i < *ndims; i++)
        dims[i] = tp_get_int(s, i) < 0 ? -1 : tp_get_int(s, i);
    return TFPI_OK;
}

static bool compatible(const tensor_list *l, int ndims, const int64_t *dims)
{
    if (l->elem_ndims < 0)
        return true;
    if (ndims != l->elem_ndims)
        return false;
    for (int i = 0; i < ndims; i++)
        if (l->elem_dims[i] >= 0 && l->elem_dims[i] != dims[i])
            return false;
    return true;
}

/* The op's element_dtype (or, for an item, the item's type) must be the
 * list's: TensorFlow's check and message. */
static tfpi_code check_element_dtype(tp_op_ctx *ctx, const tensor_list *l, tfpi_dtype op_dtype)
{
    if (op_dtype != l->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Invalid data types; op elements %s but list elements %s",
                       tfpi_dtype_name(op_dtype), tfpi_dtype_name(l->dtype));
    return TFPI_OK;
}

/* The list's element shape as "[2,?]" ("<unknown>" for an unknown rank). */
static const char *element_shape_string(const tensor_list *l, char *buf, size_t size)
{
    if (l->elem_ndims < 0)
        return "<unknown>";
    size_t n = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < l->elem_ndims && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, l->elem_dims[i] < 0 ? "%s?" : "%s%lld", i ? "," : "",
                              (long long)l->elem_dims[i]);
    if (n < size)
        snprintf(buf + n, size - n, "]");
    return buf;
}

/* The list behind input `input`. */
static tfpi_code get_list(tp_op_ctx *ctx, int input, tensor_list **out)
{
    const tfpi_tensor *h = ctx->inputs[input];
    if (h->dtype != TFPI_VARIANT || h->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input %d must be a TensorList, not %s", input,
                       tfpi_dtype_name(h->dtype));
    *out = *(tensor_list *const *)h->data;
    return TFPI_OK;
}

static tfpi_code expect_dynamic(tp_op_ctx *ctx, int min_inputs, int max_inputs)
{
    tfpi_code code = tp_expect_inputs(ctx, min_inputs, max_inputs);
    if (code == TFPI_OK && !ctx->resources)
        return tp_fail(ctx, TFPI_INTERNAL, "TensorLists run only on the dynamic executor");
    return code;
}

static tfpi_code handle_output(tp_op_ctx *ctx)
{
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_VARIANT, 0, NULL);
    return TFPI_OK;
}

static void set_handle(tp_op_ctx *ctx, tensor_list *l)
{
    *(tensor_list **)ctx->outputs[0].data = l;
}

/* EmptyTensorList(element_shape, max_num_elements) and
 * TensorListReserve(element_shape, num_elements). */
static tfpi_code make_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = expect_dynamic(ctx, 2, 2);
    if (code == TFPI_OK && (tp_num_elements(ctx->inputs[1]) != 1 || tp_get_int(ctx->inputs[1], 0) < -1))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the element count must be a scalar >= 0 (or -1)");
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    return code == TFPI_OK && (code = read_shape_input(ctx, 0, &ndims, dims)) == TFPI_OK ? handle_output(ctx)
                                                                                            : code;
}

static tfpi_code make_run(tp_op_ctx *ctx)
{
    bool reserve = strcmp(ctx->def->op, "TensorListReserve") == 0;
    int64_t n = tp_get_int(ctx->inputs[1], 0);
    tensor_list *l = new_list(ctx, NULL, reserve ? n : 0);
    if (!l)
        return ctx->status->code;
    l->dtype = tp_attr_type(ctx->def, "element_dtype", TFPI_FLOAT);
    read_shape_input(ctx, 0, &l->elem_ndims, l->elem_dims);
    l->max_elements = reserve ? -1 : n;
    set_handle(ctx, l);
    return TFPI_OK;
}

static element *new_element(tp_op_ctx *ctx, const tfpi_tensor *src, int ndims, const int64_t *dims,
                            size_t offset)
{
    element *e = calloc(1, sizeof *e);
    if (!e) {
        tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    e->refs = 1;
    tp_tensor_set_shape(&e->t, src->dtype, ndims, dims);
    if (tp_tensor_alloc(&e->t, ctx->status) != TFPI_OK) {
        free(e);
        return NULL;
    }
    memcpy(e->t.data, (const char *)src->data + offset, tp_byte_size(&e->t));
    return e;
}

static tfpi_code from_tensor_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = expect_dynamic(ctx, 2, 2);
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];
    if (code != TFPI_OK)
        return code;
    if (ctx->inputs[0]->ndims < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the tensor must have rank >= 1");
    tfpi_dtype declared = tp_attr_type(ctx->def, "element_dtype", ctx->inputs[0]->dtype);
    if (declared != ctx->inputs[0]->dtype) /* its input is typed element_dtype */
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "element_dtype is %s, but the tensor is %s",
                       tfpi_dtype_name(declared), tfpi_dtype_name(ctx->inputs[0]->dtype));
    return (code = read_shape_input(ctx, 1, &ndims, dims)) == TFPI_OK ? handle_output(ctx) : code;
}

static tfpi_code from_tensor_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *t = ctx->inputs[0];
    tensor_list *l = new_list(ctx, NULL, t->dims[0]);
    if (!l)
        return ctx->status->code;
    l->dtype = t->dtype;
    l->elem_ndims = t->ndims - 1;
    memcpy(l->elem_dims, t->dims + 1, sizeof(int64_t) * (size_t)(t->ndims - 1));
    size_t chunk = t->dims[0] ? tp_byte_size(t) / (size_t)t->dims[0] : 0;
    for (int64_t i = 0; i < t->dims[0]; i++)
        if (!(l->items[i] = new_element(ctx, t, t->ndims - 1, t->dims + 1, (size_t)i * chunk)))
            return ctx->status->code;
    set_handle(ctx, l);
    return TFPI_OK;
}

/* The shape an item of l has: its own, else the list's, else the shape
 * input (which must be fully known). */
static tfpi_code item_shape(tp_op_ctx *ctx, const tensor_list *l, int64_t index, int shape_input, tfpi_tensor *out)
{
    if (index < l->count && l->items[index]) {
        tp_tensor_set_shape(out, l->dtype, l->items[index]->t.ndims, l->items[index]->t.dims);
        return TFPI_OK;
    }
    int ndims = l->elem_ndims;
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, l->elem_dims, sizeof dims);
    int given;
    int64_t given_dims[TFPI_MAX_DIMS];
    if (shape_input >= 0 && read_shape_input(ctx, shape_input, &given, given_dims) == TFPI_OK && given >= 0) {
        if (ndims < 0) {
            ndims = given;
            memcpy(dims, given_dims, sizeof dims);
        }
        for (int i = 0; i < ndims && i < given; i++)
            if (dims[i] < 0)
                dims[i] = given_dims[i];
    }
    for (int i = 0; i < ndims; i++)
        if (dims[i] < 0)
            ndims = -1;
    if (ndims < 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Trying to read an uninitialized tensor but element_shape is not fully defined");
    tp_tensor_set_shape(out, l->dtype, ndims, dims);
    return TFPI_OK;
}

static tfpi_code get_item_prepare(tp_op_ctx *ctx)
{
    tensor_list *l = NULL;
    tfpi_code code = tp_expect_inputs(ctx, 2, 3);
    if (code == TFPI_OK)
        code = get_list(ctx, 0, &l);
    if (code != TFPI_OK)
        return code;
    int64_t index = tp_get_int(ctx->inputs[1], 0);
    if (index < 0 || index >= l->count)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Trying to access element %lld in a list with %lld elements.",
                       (long long)index, (long long)l->count);
    if ((code = check_element_dtype(ctx, l, tp_attr_type(ctx->def, "element_dtype", l->dtype))) != TFPI_OK)
        return code;
    return item_shape(ctx, l, index, ctx->num_inputs > 2 ? 2 : -1, &ctx->outputs[0]);
}

static tfpi_code get_item_run(tp_op_ctx *ctx)
{
    const tensor_list *l = *(tensor_list *const *)ctx->inputs[0]->data;
    const element *e = l->items[tp_get_int(ctx->inputs[1], 0)];
    if (e)
        memcpy(ctx->outputs[0].data, e->t.data, tp_byte_size(&e->t));
    else
        memset(ctx->outputs[0].data, 0, tp_byte_size(&ctx->outputs[0]));
    return TFPI_OK;
}

/* SetItem(handle, index, item) and PushBack(handle, item). */
static tfpi_code put_prepare(tp_op_ctx *ctx)
{
    bool push = strcmp(ctx->def->op, "TensorListPushBack") == 0;
    tensor_list *l = NULL;
    tfpi_code code = expect_dynamic(ctx, push ? 2 : 3, push ? 2 : 3);
    if (code == TFPI_OK)
        code = get_list(ctx, 0, &l);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *item = ctx->inputs[push ? 1 : 2];
    int64_t index = push ? l->count : tp_get_int(ctx->inputs[1], 0);
    if (push && l->max_elements >= 0 && l->count >= l->max_elements)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Tried to push item into a full list");
    if (!push && (index < 0 || index >= l->count))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Trying to modify element %lld in a list with %lld elements.",
                       (long long)index, (long long)l->count);
    if ((code = check_element_dtype(ctx, l, tp_attr_type(ctx->def, "element_dtype", l->dtype))) != TFPI_OK ||
        (code = check_element_dtype(ctx, l, item->dtype)) != TFPI_OK)
        return code;
    char item_shape_buf[TFPI_MAX_DIMS * 22 + 3], list_shape[TFPI_MAX_DIMS * 22 + 3];
    if (!compatible(l, item->ndims, item->dims))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "Tried to %s a tensor with incompatible shape. Item element shape: %s list shape: %s",
                       push ? "push" : "set", tp_shape_string(item, item_shape_buf, sizeof item_shape_buf),
                       element_shape_string(l, list_shape, sizeof list_shape));
    return handle_output(ctx);
}

static tfpi_code put_run(tp_op_ctx *ctx)
{
    bool push = strcmp(ctx->def->op, "TensorListPushBack") == 0;
    const tensor_list *from = *(tensor_list *const *)ctx->inputs[0]->data;
    const tfpi_tensor *item = ctx->inputs[push ? 1 : 2];
    int64_t index = push ? from->count : tp_get_int(ctx->inputs[1], 0);
    tensor_list *l = new_list(ctx, from, from->count + (push ? 1 : 0));
    if (!l)
        return ctx->status->code;
    drop(l->items[index]);
    if (!(l->items[index] = new_element(ctx, item, item->ndims, item->dims, 0)))
        return ctx->status->code;
    set_handle(ctx, l);
    return TFPI_OK;
}

static tfpi_code stack_prepare(tp_op_ctx *ctx)
{
    tensor_list *l = NULL;
    tfpi_code code = tp_expect_inputs(ctx, 1, 2);
    if (code == TFPI_OK)
        code = get_list(ctx, 0, &l);
    if (code != TFPI_OK)
        return code;
    if ((code = check_element_dtype(ctx, l, tp_attr_type(ctx->def, "element_dtype", l->dtype))) != TFPI_OK)
        return code;
    int64_t expected = tp_attr_int(ctx->def, "num_elements", -1);
    if (expected >= 0 && expected != l->count)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the list has %lld elements, the op expects %lld",
                       (long long)l->count, (long long)expected);
    tfpi_tensor first = {0}, each = {0};
    int shape_input = ctx->num_inputs > 1 ? 1 : -1;
    if (l->count == 0) {
        if ((code = item_shape(ctx, l, 0, shape_input, &first)) != TFPI_OK)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "Tried to stack elements of an empty list with non-fully-defined element_shape");
    }
    for (int64_t i = 0; i < l->count; i++) {
        if ((code = item_shape(ctx, l, i, shape_input, i ? &each : &first)) != TFPI_OK)
            return code;
        if (i && !tp_same_shape(&first, &each))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the list's elements have different shapes");
    }
    if (first.ndims >= TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "elements of rank %d are too many dimensions", first.ndims);
    int64_t dims[TFPI_MAX_DIMS] = {l->count};
    memcpy(dims + 1, first.dims, sizeof(int64_t) * (size_t)first.ndims);
    tp_tensor_set_shape(&ctx->outputs[0], l->dtype, first.ndims + 1, dims);
    return TFPI_OK;
}

static tfpi_code stack_run(tp_op_ctx *ctx)
{
    const tensor_list *l = *(tensor_list *const *)ctx->inputs[0]->data;
    size_t chunk = l->count ? tp_byte_size(&ctx->outputs[0]) / (size_t)l->count : 0;
    for (int64_t i = 0; i < l->count; i++) {
        char *dst = (char *)ctx->outputs[0].data + (size_t)i * chunk;
        if (l->items[i])
            memcpy(dst, l->items[i]->t.data, chunk);
        else
            memset(dst, 0, chunk);
    }
    return TFPI_OK;
}

static tfpi_code length_prepare(tp_op_ctx *ctx)
{
    tensor_list *l = NULL;
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code == TFPI_OK)
        code = get_list(ctx, 0, &l);
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_INT32, 0, NULL);
    return code;
}

static tfpi_code length_run(tp_op_ctx *ctx)
{
    *(int32_t *)ctx->outputs[0].data = (int32_t)(*(tensor_list *const *)ctx->inputs[0]->data)->count;
    return TFPI_OK;
}

static tfpi_code element_shape_prepare(tp_op_ctx *ctx)
{
    tensor_list *l = NULL;
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code == TFPI_OK)
        code = get_list(ctx, 0, &l);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype type = tp_attr_type(ctx->def, "shape_type", TFPI_INT32);
    if (type != TFPI_INT32 && type != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "shape_type must be int32 or int64");
    if (l->elem_ndims < 0)
        tp_tensor_set_shape(&ctx->outputs[0], type, 0, NULL);
    else
        tp_tensor_set_shape(&ctx->outputs[0], type, 1, (int64_t[]){l->elem_ndims});
    return TFPI_OK;
}

static tfpi_code element_shape_run(tp_op_ctx *ctx)
{
    const tensor_list *l = *(tensor_list *const *)ctx->inputs[0]->data;
    tfpi_tensor *out = &ctx->outputs[0];
    for (int i = 0; i < (l->elem_ndims < 0 ? 1 : l->elem_ndims); i++) {
        int64_t v = l->elem_ndims < 0 ? -1 : l->elem_dims[i];
        if (out->dtype == TFPI_INT32)
            ((int32_t *)out->data)[i] = (int32_t)v;
        else
            ((int64_t *)out->data)[i] = v;
    }
    return TFPI_OK;
}

#define TL_FLAGS (TP_DYNAMIC | TP_STATEFUL)
const tp_kernel tp_kernels_tensor_list[] = {
    TP_KERNEL("EmptyTensorList", make_prepare, make_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListReserve", make_prepare, make_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListFromTensor", from_tensor_prepare, from_tensor_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListGetItem", get_item_prepare, get_item_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListSetItem", put_prepare, put_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListPushBack", put_prepare, put_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListStack", stack_prepare, stack_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListLength", length_prepare, length_run, NULL, TL_FLAGS),
    TP_KERNEL("TensorListElementShape", element_shape_prepare, element_shape_run, NULL, TL_FLAGS),
    TP_KERNELS_END,
};
