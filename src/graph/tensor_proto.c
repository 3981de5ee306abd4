/* tensor_proto.c - decodes TensorProto values: raw little-endian
 * tensor_content used in place, or the typed value fields, where fewer
 * values than the shape needs means "repeat the last one". */
#include "graph/tensor_proto.h"

#include <stdlib.h>
#include <string.h>

#include "tfpi.h"

bool tp_shape_from_proto(const Tfpi__TensorShapeProto *shape, int64_t *dims, int *ndims)
{
    if (!shape) {
        *ndims = 0;
        return true;
    }
    if (shape->unknown_rank || shape->n_dim > TFPI_MAX_DIMS)
        return false;
    *ndims = (int)shape->n_dim;
    for (size_t i = 0; i < shape->n_dim; i++)
        dims[i] = shape->dim[i]->size;
    return true;
}

/* Number of values in the typed field that matches dtype. */
static size_t typed_count(const Tfpi__TensorProto *p, tfpi_dtype dtype)
{
    switch (dtype) {
    case TFPI_FLOAT: return p->n_float_val;
    case TFPI_DOUBLE: return p->n_double_val;
    case TFPI_INT64: return p->n_int64_val;
    case TFPI_BOOL: return p->n_bool_val;
    case TFPI_STRING: return p->n_string_val;
    case TFPI_HALF: return p->n_half_val;
    case TFPI_COMPLEX64: return p->n_scomplex_val / 2; /* real, imaginary */
    default: return p->n_int_val; /* int32, int16, int8, uint8, uint16, qint*, quint* */
    }
}

/* Stores typed value k (already clamped to the field's size) as element i. */
static void store_typed(const Tfpi__TensorProto *p, tfpi_dtype dtype, void *data, size_t i, size_t k)
{
    switch (dtype) {
    case TFPI_FLOAT: ((float *)data)[i] = p->float_val[k]; break;
    case TFPI_DOUBLE: ((double *)data)[i] = p->double_val[k]; break;
    case TFPI_INT64: ((int64_t *)data)[i] = p->int64_val[k]; break;
    case TFPI_BOOL: ((uint8_t *)data)[i] = p->bool_val[k] != 0; break;
    case TFPI_STRING:
        ((tfpi_bytes *)data)[i] = (tfpi_bytes){p->string_val[k].len, p->string_val[k].data};
        break;
    case TFPI_HALF: case TFPI_INT16: case TFPI_QINT16: ((int16_t *)data)[i] = (int16_t)p->int_val[k]; break;
    case TFPI_UINT16: case TFPI_QUINT16: ((uint16_t *)data)[i] = (uint16_t)p->int_val[k]; break;
    case TFPI_INT32: case TFPI_QINT32: ((int32_t *)data)[i] = p->int_val[k]; break;
    case TFPI_INT8: case TFPI_QINT8: ((int8_t *)data)[i] = (int8_t)p->int_val[k]; break;
    case TFPI_UINT8: case TFPI_QUINT8: ((uint8_t *)data)[i] = (uint8_t)p->int_val[k]; break;
    case TFPI_COMPLEX64:
        ((float *)data)[2 * i] = p->scomplex_val[2 * k];
        ((float *)data)[2 * i + 1] = p->scomplex_val[2 * k + 1];
        break;
    case TFPI_RESOURCE: case TFPI_VARIANT: break; /* handles exist only at run time: refused below */
    }
}

tfpi_code tp_tensor_from_proto(const Tfpi__TensorProto *proto, tfpi_tensor *out, void **owned,
                               const char *what, tfpi_status *status)
{
    int64_t dims[TFPI_MAX_DIMS];
    int ndims;
    tfpi_dtype dtype = (tfpi_dtype)proto->dtype;
    *owned = NULL;
    if (tfpi_dtype_size(dtype) == 0 || dtype == TFPI_RESOURCE || dtype == TFPI_VARIANT)
        return tfpi_status_set(status, TFPI_UNIMPLEMENTED, "%s: tensor type %d is not supported", what,
                        (int)proto->dtype);
    if (!tp_shape_from_proto(proto->tensor_shape, dims, &ndims))
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: tensor has no usable shape", what);
    if (!tp_shape_fits(dtype, ndims, dims))
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: tensor shape is negative or too large", what);
    tp_tensor_set_shape(out, dtype, ndims, dims);
    size_t count = (size_t)tp_num_elements(out);
    size_t bytes = tp_byte_size(out);
    if (dtype != TFPI_STRING && proto->tensor_content.len > 0) {
        if (proto->tensor_content.len != bytes)
            return tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                            "%s: tensor_content has %zu bytes, shape and type need %zu", what,
                            proto->tensor_content.len, bytes);
        out->data = proto->tensor_content.data;
        return TFPI_OK;
    }
    size_t have = typed_count(proto, dtype);
    if (have > count)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: tensor has %zu values for %zu elements", what,
                        have, count);
    if (have == 0 && count > 0 && dtype == TFPI_STRING)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: string tensor has no values", what);
    void *data = calloc(bytes ? bytes : 1, 1);
    if (!data)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", what, bytes);
    for (size_t i = 0; have > 0 && i < count; i++)
        store_typed(proto, dtype, data, i, i < have ? i : have - 1);
    out->data = data;
    *owned = data;
    return TFPI_OK;
}
