/* tflite_hashtable.c - TFLite's hash tables (tflite_hashtable.h), as text
 * models with a vocabulary use them: HASHTABLE names the table of its
 * table_id (a HashTableV2 shared by that name, so the init subgraph that
 * CALL_ONCE runs and the main one reach the same table), HASHTABLE_IMPORT
 * fills it once (its own kernel: TFLite keeps the first value of a key
 * given twice, where TensorFlow refuses), HASHTABLE_FIND looks keys up
 * (LookupTableFindV2) and HASHTABLE_SIZE counts them (LookupTableSizeV2,
 * reshaped to TFLite's [1]). TFLite runs a subgraph's operators in order;
 * tfpi's graph keeps that order for the tables through control edges: each
 * table operator waits for the CALL_ONCE and HASHTABLE_IMPORT operators
 * before it. As TFLite's kernels require, keys and values are int64 and
 * string or string and int64, and an import's keys and values have one
 * shape. */
#include "model/tflite_hashtable.h"

#include <stdio.h>

#include "model/tflite_options.h"

enum { HASHTABLE = 136, HASHTABLE_FIND = 137, HASHTABLE_IMPORT = 138, HASHTABLE_SIZE = 139 };
enum { TFL_INT64 = 4, TFL_STRING = 5 };

bool tp_tfl_is_table_op(int32_t builtin) { return builtin >= HASHTABLE && builtin <= HASHTABLE_SIZE; }

static const tp_tfl_tensor *tensor_of(const tp_tfl_op *o, bool input, int i)
{
    const tp_tfl_operator *op = o->op;
    int32_t t = input ? op->inputs[i] : op->outputs[i];
    return t >= 0 ? &o->x->g->tensors[t] : NULL;
}

/* TFLite's pairs: int64 keys with string values, or string keys with int64 values. */
static bool table_types(tfpi_dtype key, tfpi_dtype value)
{
    return (key == TFPI_INT64 && value == TFPI_STRING) || (key == TFPI_STRING && value == TFPI_INT64);
}

static const char *type_name(tfpi_dtype t) { return t ? tfpi_dtype_name(t) : "no type tfpi holds"; }

static tfpi_code expect_arity(const tp_tfl_op *o, int inputs, int outputs)
{
    if (o->op->num_inputs != inputs || o->op->num_outputs != outputs)
        return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "has %d inputs and %d outputs; TFLite's takes %d and gives %d",
                              o->op->num_inputs, o->op->num_outputs, inputs, outputs);
    for (int i = 0; i < inputs; i++)
        if (o->op->inputs[i] < 0)
            return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "input %d is absent", i);
    return TFPI_OK;
}

/* Node op(inputs of the operator) named o->name, after the effects before it. */
static Tfpi__NodeDef *table_node(tp_tfl_op *o, const char *name, const char *op, int n)
{
    tp_tfl_translator *x = o->x;
    const char *inputs[3] = {0};
    for (int i = 0; i < n; i++)
        if (!(inputs[i] = tp_tfl_input(x, o->op->inputs[i])))
            return NULL;
    Tfpi__NodeDef *def = tp_tfl_emit(x, name, op, inputs, n);
    if (def && !tp_tfl_after_effects(x, def))
        return NULL;
    return def;
}

static tfpi_code hashtable(tp_tfl_op *o)
{
    tp_tfl_translator *x = o->x;
    int64_t id = 0, key = -1, value = -1;
    tp_tfl_option_int(&x->m->fb, o->op->options_type, &o->op->options, "table_id", &id);
    tp_tfl_option_int(&x->m->fb, o->op->options_type, &o->op->options, "key_dtype", &key);
    tp_tfl_option_int(&x->m->fb, o->op->options_type, &o->op->options, "value_dtype", &value);
    if (!((key == TFL_INT64 && value == TFL_STRING) || (key == TFL_STRING && value == TFL_INT64)))
        return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "a table of %s keys and %s values (TFLite's tables map int64 "
                              "to string or string to int64)", tp_tfl_type_name((int)key), tp_tfl_type_name((int)value));
    char shared[48];
    snprintf(shared, sizeof shared, "tflite_hashtable_%lld", (long long)id);
    Tfpi__NodeDef *def = table_node(o, o->name, "HashTableV2", 0);
    bool ok = def && tp_tfl_attr(x, def, "shared_name", tp_attr_new_string(shared)) &&
              tp_tfl_attr(x, def, "container", tp_attr_new_string("")) &&
              tp_tfl_attr(x, def, "use_node_name_sharing", tp_attr_new_bool(false)) &&
              tp_tfl_attr(x, def, "key_dtype", tp_attr_new_type(key == TFL_INT64 ? TFPI_INT64 : TFPI_STRING)) &&
              tp_tfl_attr(x, def, "value_dtype", tp_attr_new_type(value == TFL_INT64 ? TFPI_INT64 : TFPI_STRING));
    return ok ? tp_tfl_set_output(x, o->op->outputs[0], o->name, 0) : x->status->code;
}

static tfpi_code import(tp_tfl_op *o)
{
    const tp_tfl_tensor *keys = tensor_of(o, true, 1), *values = tensor_of(o, true, 2);
    if (!table_types(keys->dtype, values->dtype))
        return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "%s keys and %s values (TFLite's tables map int64 to string "
                              "or string to int64)", type_name(keys->dtype), type_name(values->dtype));
    bool same = keys->ndims == values->ndims;
    for (int i = 0; same && i < keys->ndims; i++)
        same = keys->dims[i] == values->dims[i];
    if (!same)
        return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "its keys (rank %d, %lld first) and values (rank %d, %lld "
                              "first) differ in shape; TFLite imports one value per key", keys->ndims,
                              (long long)(keys->ndims ? keys->dims[0] : 1), values->ndims,
                              (long long)(values->ndims ? values->dims[0] : 1));
    tp_tfl_translator *x = o->x;
    Tfpi__NodeDef *def = table_node(o, o->name, "HASHTABLE_IMPORT", 3);
    bool ok = def && tp_tfl_attr(x, def, "Tin", tp_attr_new_type(keys->dtype)) &&
              tp_tfl_attr(x, def, "Tout", tp_attr_new_type(values->dtype)) &&
              tp_tfl_attr(x, def, "builtin_code", tp_attr_new_int(HASHTABLE_IMPORT));
    return ok && tp_tfl_add_effect(x, def->name) ? TFPI_OK : x->status->code;
}

static tfpi_code find(tp_tfl_op *o)
{
    const tp_tfl_tensor *keys = tensor_of(o, true, 1), *fallback = tensor_of(o, true, 2), *out = tensor_of(o, false, 0);
    if (!table_types(keys->dtype, out->dtype) || fallback->dtype != out->dtype)
        return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "%s keys, a %s default and %s values (TFLite's tables map "
                              "int64 to string or string to int64)", type_name(keys->dtype),
                              type_name(fallback->dtype), type_name(out->dtype));
    int64_t count = 1;
    for (int i = 0; i < fallback->ndims; i++)
        count = fallback->dims[i] == 1 ? count : -1;
    if (count != 1)
        return tp_tfl_op_fail(o, TFPI_UNIMPLEMENTED, "a default of rank %d that is not one value (tfpi takes one)",
                              fallback->ndims);
    tp_tfl_translator *x = o->x;
    Tfpi__NodeDef *def = table_node(o, o->name, "LookupTableFindV2", 3);
    bool ok = def && tp_tfl_attr(x, def, "Tin", tp_attr_new_type(keys->dtype)) &&
              tp_tfl_attr(x, def, "Tout", tp_attr_new_type(out->dtype));
    return ok ? tp_tfl_set_output(x, o->op->outputs[0], o->name, 0) : x->status->code;
}

static tfpi_code size(tp_tfl_op *o)
{
    tp_tfl_translator *x = o->x;
    if (tensor_of(o, false, 0)->dtype != TFPI_INT64)
        return tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "its output is %s; TFLite's is int64",
                              type_name(tensor_of(o, false, 0)->dtype));
    const char *count = tp_tfl_fresh_name(x, o->name, "count");
    Tfpi__NodeDef *def = count ? table_node(o, count, "LookupTableSizeV2", 1) : NULL;
    const int32_t one = 1;
    const char *shape = def ? tp_tfl_const_i32(x, o->name, "shape", &one, 1, false) : NULL;
    Tfpi__NodeDef *reshape = shape ? tp_tfl_emit(x, o->name, "Reshape", (const char *[]){def->name, shape}, 2) : NULL;
    if (!count)
        return tfpi_status_set(x->status, TFPI_OUT_OF_MEMORY, "%s: out of memory", x->source);
    bool ok = reshape && tp_tfl_attr(x, reshape, "T", tp_attr_new_type(TFPI_INT64)) &&
              tp_tfl_attr(x, reshape, "Tshape", tp_attr_new_type(TFPI_INT32));
    return ok ? tp_tfl_set_output(x, o->op->outputs[0], o->name, 0) : x->status->code;
}

tfpi_code tp_tfl_table_op(tp_tfl_op *o)
{
    static const int arity[4][2] = {{0, 1}, {3, 1}, {3, 0}, {1, 1}};
    const int *a = arity[o->builtin - HASHTABLE];
    tfpi_code code = expect_arity(o, a[0], a[1]);
    if (code != TFPI_OK)
        return code;
    switch (o->builtin) {
    case HASHTABLE: return hashtable(o);
    case HASHTABLE_FIND: return find(o);
    case HASHTABLE_IMPORT: return import(o);
    default: return size(o);
    }
}
