"""Conversions between numpy arrays and tfpi tensors (copies both ways).

Numeric arrays map to tfpi's dtypes by their numpy dtype; strings (bytes,
str, or arrays of them: numpy 'S'/'U' or object) become TFPI_STRING
tensors, str encoded as UTF-8. String outputs come back as object arrays of
bytes, as TensorFlow's Python API returns them.
"""
import ctypes

import numpy as np

from ._library import MAX_DIMS, Bytes, Status, lib

STRING = 7
NUMPY_OF_DTYPE = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16,
                  6: np.int8, 9: np.int64, 10: np.bool_, 17: np.uint16, 19: np.float16}
DTYPE_OF_NUMPY = {np.dtype(v): k for k, v in NUMPY_OF_DTYPE.items()}


def numpy_dtype(code):
    """The numpy dtype of a tfpi dtype code (object for strings), or None."""
    if code == STRING:
        return np.dtype(object)
    t = NUMPY_OF_DTYPE.get(code)
    return np.dtype(t) if t is not None else None


def _is_string(array):
    return array.dtype.kind in "SUO"


def _element_bytes(value, name):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytearray, memoryview, np.bytes_)):
        return bytes(value)
    raise TypeError("feed '%s': string elements must be bytes or str, not %s"
                    % (name, type(value).__name__))


def _new_tensor(code, shape):
    status = Status()
    if len(shape) > MAX_DIMS:
        raise ValueError("tensor of rank %d: tfpi holds at most %d dimensions"
                         % (len(shape), MAX_DIMS))
    dims = (ctypes.c_int64 * MAX_DIMS)(*shape)
    t = lib.tfpi_tensor_new(code, dims, len(shape), ctypes.byref(status))
    status.check(t is not None)
    return t


def to_tensor(value, name):
    """A new tfpi tensor holding a copy of value (the caller frees it)."""
    array = value if isinstance(value, np.ndarray) else np.asarray(value)
    if _is_string(array):
        t = _new_tensor(STRING, array.shape)
        status = Status()
        for i, element in enumerate(array.reshape(-1)):
            data = _element_bytes(element, name)
            if lib.tfpi_tensor_set_string(t, i, data, len(data), ctypes.byref(status)) != 0:
                lib.tfpi_tensor_free(t)
                status.check()
        return t
    code = DTYPE_OF_NUMPY.get(array.dtype.newbyteorder("="))
    if code is None:
        raise TypeError("feed '%s': numpy dtype %s has no tfpi equivalent" % (name, array.dtype))
    # (ascontiguousarray would make a scalar 1-D)
    array = np.asarray(array, dtype=array.dtype.newbyteorder("="), order="C")
    t = _new_tensor(code, array.shape)
    if array.nbytes:
        ctypes.memmove(lib.tfpi_tensor_data(t), array.ctypes.data, array.nbytes)
    return t


def from_tensor(t):
    """A numpy array copied out of tensor t, which is then freed."""
    try:
        code = lib.tfpi_tensor_dtype(t)
        shape = tuple(lib.tfpi_tensor_dim(t, i) for i in range(lib.tfpi_tensor_ndims(t)))
        count = lib.tfpi_tensor_num_elements(t)
        if code == STRING:
            elements = (Bytes * count).from_address(lib.tfpi_tensor_data(t)) if count else []
            out = np.empty(count, dtype=object)
            for i, e in enumerate(elements):
                out[i] = ctypes.string_at(e.data, e.size) if e.size else b""
            return out.reshape(shape)
        dtype = numpy_dtype(code)
        if dtype is None:
            raise TypeError("tfpi output of dtype %d has no numpy equivalent" % code)
        out = np.empty(shape, dtype=dtype)
        if out.nbytes:
            ctypes.memmove(out.ctypes.data, lib.tfpi_tensor_data(t), out.nbytes)
        return out
    finally:
        lib.tfpi_tensor_free(t)
