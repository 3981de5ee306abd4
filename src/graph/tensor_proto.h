/* tensor_proto.h - TensorProto (a Const's value) to tensor. */
#ifndef TFPI_TENSOR_PROTO_H
#define TFPI_TENSOR_PROTO_H

#include "graph.pb-c.h"
#include "core/tensor.h"

/* Sets out's dtype, shape and data. Raw tensor_content is used in place
 * (borrowed from the proto); typed *_val fields are expanded (the last value
 * repeats to fill the shape) into *owned, which the caller frees.
 * `what` names the tensor in errors. */
tfpi_code tp_tensor_from_proto(const Tfpi__TensorProto *proto, tfpi_tensor *out, void **owned,
                               const char *what, tfpi_status *status);

/* Shape from a TensorShapeProto; false if the rank is unknown or too high. */
bool tp_shape_from_proto(const Tfpi__TensorShapeProto *shape, int64_t *dims, int *ndims);

#endif
