"""Conversions between numpy arrays and tfpi tensors (copies both ways).

Numeric arrays map to tfpi's dtypes by their numpy dtype, or are cast to
the dtype the graph expects (as TensorFlow's session.run casts a feed with
numpy); strings (bytes, str, or arrays of them: numpy 'S'/'U' or object)
become TFPI_STRING tensors, str encoded as UTF-8. String outputs come back
as object arrays of bytes, and quantized ones (quint8, qint8, qint32,
quint16, qint16) as their integer codes (uint8, int8, int32, uint16, int16),
as TensorFlow's Python API returns them.
"""
import ctypes
import math

import numpy as np

from ._library import MAX_DIMS, Bytes, Status, lib
from .errors import INVALID_ARGUMENT, OUT_OF_MEMORY, TfpiValueError

STRING = 7
NUMPY_OF_DTYPE = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16,
                  6: np.int8, 8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16, 19: np.float16}
DTYPE_OF_NUMPY = {np.dtype(v): k for k, v in NUMPY_OF_DTYPE.items()}
# qint8, quint8, qint32, qint16, quint16: their codes' integer types.
NUMPY_OF_QUANTIZED = {11: np.int8, 12: np.uint8, 13: np.int32, 15: np.int16, 16: np.uint16}
QUANTIZED_NAMES = {11: "qint8", 12: "quint8", 13: "qint32", 15: "qint16", 16: "quint16"}


def numpy_dtype(code):
    """The numpy dtype of a tfpi dtype code (object for strings, the codes'
    integer type for the quantized ones), or None."""
    if code == STRING:
        return np.dtype(object)
    t = NUMPY_OF_DTYPE.get(code, NUMPY_OF_QUANTIZED.get(code))
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


def check_shape(shape, what):
    """Raises ValueError unless shape is a list of at most 8 sizes >= 0."""
    if len(shape) > MAX_DIMS:
        raise TfpiValueError(INVALID_ARGUMENT, "%s: rank %d, tfpi holds at most %d dimensions"
                             % (what, len(shape), MAX_DIMS))
    if any(int(d) < 0 for d in shape):
        raise TfpiValueError(INVALID_ARGUMENT, "%s: shape %s has a negative size" % (what, list(shape)))


def check_budget(shape, itemsize, budget, what):
    """Raises ValueError if a tensor of this shape would not fit the memory
    budget (bytes; None or < 0: no budget), before anything is allocated."""
    needed = math.prod(int(d) for d in shape) * itemsize
    if budget is not None and budget >= 0 and needed > budget:
        raise TfpiValueError(OUT_OF_MEMORY, "%s: %s needs %d bytes, over the memory budget of %d bytes "
                             "(max_memory)" % (what, list(shape), needed, budget))


def _new_tensor(code, shape):
    status = Status()
    check_shape(shape, "tensor")
    dims = (ctypes.c_int64 * MAX_DIMS)(*shape)
    t = lib.tfpi_tensor_new(code, dims, len(shape), ctypes.byref(status))
    status.check(t is not None)
    return t


def _string_tensor(array, name):
    t = _new_tensor(STRING, array.shape)
    status = Status()
    for i, element in enumerate(array.reshape(-1)):
        data = _element_bytes(element, name)
        if lib.tfpi_tensor_set_string(t, i, data, len(data), ctypes.byref(status)) != 0:
            lib.tfpi_tensor_free(t)
            status.check()
    return t


def _python_int_fits(value, dtype):
    """TensorFlow refuses a Python int feed its integer dtype cannot hold."""
    if isinstance(value, bool) or not isinstance(value, int) or dtype.kind not in "iu":
        return True
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def _cast(value, array, dtype, name):
    """array as dtype, the way TensorFlow's session.run converts a feed
    (numpy's conversion); ValueError or TypeError naming the feed if it
    cannot be converted."""
    if not _python_int_fits(value, dtype):
        raise TypeError("feed '%s': the value %d does not fit its tensor's type %s" % (name, value, dtype))
    if _is_string(array):
        raise TfpiValueError(INVALID_ARGUMENT, "feed '%s': strings cannot be fed to a %s tensor" % (name, dtype))
    if array.dtype.kind == "c" or array.dtype.names:
        raise TypeError("feed '%s': numpy dtype %s has no tfpi equivalent" % (name, array.dtype))
    try:
        return array.astype(dtype)
    except (TypeError, ValueError) as e:
        raise TfpiValueError(INVALID_ARGUMENT, "feed '%s': cannot convert %s to %s: %s"
                             % (name, array.dtype, dtype, e)) from None


def to_tensor(value, name, code=None, budget=None):
    """A new tfpi tensor holding a copy of value (the caller frees it).
    code: the tfpi dtype the graph expects (None: from value's numpy dtype);
    value is then cast to it as TensorFlow does. budget: bytes the tensor
    may take (None: no limit), checked before anything is copied."""
    array = value if isinstance(value, np.ndarray) else np.asarray(value)
    if array.dtype.kind in "SU" and not isinstance(value, np.ndarray):
        # As TensorFlow's session.run: Python bytes and str are kept whole
        # (an 'S' array would drop trailing NUL bytes, the end of a WAV file).
        array = np.asarray(value, dtype=object)
    check_shape(array.shape, "feed '%s'" % name)
    if code == STRING or (code is None and _is_string(array)):
        check_budget(array.shape, ctypes.sizeof(Bytes), budget, "feed '%s'" % name)
        return _string_tensor(array, name)
    target = numpy_dtype(code) if code is not None else array.dtype.newbyteorder("=")
    if code is None:
        code = DTYPE_OF_NUMPY.get(target)
    if code is None or target is None:
        raise TypeError("feed '%s': numpy dtype %s has no tfpi equivalent" % (name, array.dtype))
    check_budget(array.shape, target.itemsize, budget, "feed '%s'" % name)
    if array.dtype != target:
        array = _cast(value, array, target, name)
    if not array.flags["C_CONTIGUOUS"]:  # (np.ascontiguousarray would make a scalar 1-d)
        array = array.copy(order="C")
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
