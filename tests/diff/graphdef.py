"""graphdef.py - TensorFlow GraphDef (.pb) in plain Python: encode the small
graphs of the differential tests and decode any frozen graph, straight from
the protobuf wire format (docs/reference.md section 1), so the references
share no parsing code with tfpi.

A graph is a list of Node(name, op, inputs, attrs). Attr values are Python
values tagged by kind: int, float, bool, str, DType (a type attr), Shape (a
list of dims), numpy.ndarray or TypedArray (a tensor), Func (a function and
its attrs), Placeholder (a function attr placeholder), or a list of those.
A graph may carry a function library: a list of Function (function.proto's
FunctionDef: signature, body nodes, ret and control_ret maps)."""
import struct
from dataclasses import dataclass, field

import numpy as np

# TensorFlow DataType numbers and their numpy types (quantized types map to
# their storage type).
DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
          7: object, 9: np.int64, 10: np.bool_, 11: np.int8, 12: np.uint8, 13: np.int32,
          17: np.uint16, 19: np.float16}
NAMES = {"float": 1, "double": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
         "int64": 9, "bool": 10, "qint8": 11, "quint8": 12, "qint32": 13, "uint16": 17, "half": 19}


class DType(int):
    """A type attr: TensorFlow's DataType number."""


@dataclass
class TypedArray:
    """A tensor attr value whose TensorFlow type is not the natural one of
    its numpy storage (quint8, qint8, qint32)."""
    array: np.ndarray
    dtype: int


class Shape(list):
    """A shape attr: dims, -1 unknown; unknown_rank set for an unknown rank."""
    unknown_rank = False


@dataclass
class Func:
    """A func attr value: NameAttrList (a function name and its attrs)."""
    name: str
    attrs: dict = field(default_factory=dict)


class Placeholder(str):
    """An attr value in a function body that the call binds ("T")."""


@dataclass
class Arg:
    """An input or output argument of a function signature: one tensor of
    `dtype` (a DType), or of the type attr `type_attr`; `number_attr` or
    `type_list_attr` make it a list."""
    name: str
    dtype: int = 0
    type_attr: str = ""
    number_attr: str = ""
    type_list_attr: str = ""


@dataclass
class Function:
    """A FunctionDef: body nodes refer to arguments by name and to body
    outputs as "node:output_arg:index"; ret maps output arg names to such
    references, control_ret names nodes. attr_defs: signature attrs with
    their default values (None: no default)."""
    name: str
    inputs: list
    outputs: list
    nodes: list
    ret: dict
    control_ret: dict = field(default_factory=dict)
    attr_defs: dict = field(default_factory=dict)


@dataclass
class Node:
    name: str
    op: str
    inputs: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)


def dtype_number(np_dtype):
    np_dtype = np.dtype(np_dtype)
    for number, t in DTYPES.items():
        if number < 11 and t is not object and np.dtype(t) == np_dtype:
            return number
    raise ValueError(f"no TensorFlow type for {np_dtype}")


# ---- encoding ---------------------------------------------------------------

def _varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(number, wire):
    return _varint(number << 3 | wire)


def _bytes_field(number, data):
    return _key(number, 2) + _varint(len(data)) + data


def _shape(dims):
    if getattr(dims, "unknown_rank", False):
        return _key(3, 0) + _varint(1)
    return b"".join(_bytes_field(2, _key(1, 0) + _varint(d)) for d in dims)


# The typed TensorProto field TF writes scalars to: (field number, packing).
_SCALAR_FIELDS = {1: (5, "f"), 2: (6, "d"), 9: (10, "varint"), 10: (11, "varint")}


def _packed(number, values, fmt):
    if fmt == "varint":
        body = b"".join(_varint(int(v)) for v in values)
    else:
        body = struct.pack(f"<{len(values)}{fmt}", *values)
    return _bytes_field(number, body)


def encode_tensor(array, dtype=None):
    """Like TensorFlow: a scalar in its typed *_val field, anything else as
    tensor_content."""
    array = np.asarray(array, order="C")  # (ascontiguousarray would make a scalar 1-D)
    dtype = dtype or dtype_number(array.dtype)
    out = _key(1, 0) + _varint(dtype) + _bytes_field(2, _shape(array.shape))
    if dtype == 7:  # strings: one string_val per element
        return out + b"".join(_bytes_field(8, bytes(v)) for v in array.flat)
    if array.ndim == 0:
        number, fmt = _SCALAR_FIELDS.get(dtype, (7, "varint"))  # int_val holds the small integer types
        return out + _packed(number, [array.item()], fmt)
    return out + _bytes_field(4, array.astype(array.dtype.newbyteorder("<")).tobytes())


def _attr_value(v):
    if isinstance(v, Placeholder):
        return _bytes_field(9, v.encode())
    if isinstance(v, bool):
        return _key(5, 0) + _varint(int(v))
    if isinstance(v, DType):
        return _key(6, 0) + _varint(int(v))
    if isinstance(v, int):
        return _key(3, 0) + _varint(v)
    if isinstance(v, float):
        return _key(4, 5) + struct.pack("<f", v)
    if isinstance(v, str):
        return _bytes_field(2, v.encode())
    if isinstance(v, Shape):
        return _bytes_field(7, _shape(v))
    if isinstance(v, np.ndarray):
        return _bytes_field(8, encode_tensor(v))
    if isinstance(v, TypedArray):
        return _bytes_field(8, encode_tensor(v.array, v.dtype))
    if isinstance(v, Func):
        return _bytes_field(10, _name_attr_list(v))
    if isinstance(v, list):
        return _bytes_field(1, _list_value(v))
    raise TypeError(f"cannot encode attr value {v!r}")


def _map_entry(key, value):
    return _bytes_field(1, key) + _bytes_field(2, value)


def _name_attr_list(f):
    return _bytes_field(1, f.name.encode()) + b"".join(
        _bytes_field(2, _map_entry(k.encode(), _attr_value(f.attrs[k]))) for k in sorted(f.attrs))


def _list_value(items):
    """Packed, as TensorFlow writes lists: ints, floats and types in one field each."""
    if all(isinstance(v, DType) for v in items) and items:
        return _packed(6, items, "varint")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        return _packed(3, items, "varint") if items else b""
    if all(isinstance(v, float) for v in items):
        return _packed(4, items, "f")
    if all(isinstance(v, str) for v in items):
        return b"".join(_bytes_field(2, v.encode()) for v in items)
    if all(isinstance(v, Func) for v in items):
        return b"".join(_bytes_field(9, _name_attr_list(v)) for v in items)
    if all(isinstance(v, Shape) for v in items):
        return b"".join(_bytes_field(7, _shape(v)) for v in items)
    raise TypeError(f"cannot encode list attr {items!r}")


def encode_node(n):
    body = _bytes_field(1, n.name.encode()) + _bytes_field(2, n.op.encode())
    body += b"".join(_bytes_field(3, i.encode()) for i in n.inputs)
    for key in sorted(n.attrs):
        body += _bytes_field(5, _bytes_field(1, key.encode()) + _bytes_field(2, _attr_value(n.attrs[key])))
    return body


def _arg_def(a):
    out = _bytes_field(1, a.name.encode())
    if a.dtype:
        out += _key(3, 0) + _varint(a.dtype)
    for number, text in ((4, a.type_attr), (5, a.number_attr), (6, a.type_list_attr)):
        if text:
            out += _bytes_field(number, text.encode())
    return out


def encode_function(f):
    """A FunctionDef's bytes."""
    sig = _bytes_field(1, f.name.encode())
    sig += b"".join(_bytes_field(2, _arg_def(a)) for a in f.inputs)
    sig += b"".join(_bytes_field(3, _arg_def(a)) for a in f.outputs)
    for name, default in f.attr_defs.items():
        attr = _bytes_field(1, name.encode()) + _bytes_field(2, b"type")
        if default is not None:
            attr += _bytes_field(3, _attr_value(default))
        sig += _bytes_field(4, attr)
    out = _bytes_field(1, sig) + b"".join(_bytes_field(3, encode_node(n)) for n in f.nodes)
    out += b"".join(_bytes_field(4, _map_entry(k.encode(), v.encode())) for k, v in f.ret.items())
    out += b"".join(_bytes_field(6, _map_entry(k.encode(), v.encode())) for k, v in f.control_ret.items())
    return out


def encode_library(functions):
    """A FunctionDefLibrary's bytes."""
    return b"".join(_bytes_field(1, encode_function(f)) for f in functions)


def encode_graph(nodes, library=None):
    out = b"".join(_bytes_field(1, encode_node(n)) for n in nodes)
    if library:
        out += _bytes_field(2, encode_library(library))
    return out


# ---- decoding ---------------------------------------------------------------

def _fields(data):
    """Yields (number, wire type, value) of a message: ints for varints and
    fixed, bytes for length-delimited."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 2:
            length, pos = _read_varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def _read_varint(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def _signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def _repeated(wire, value, fmt):
    """Values of a repeated scalar field, packed (wire 2) or not."""
    if fmt == "varint":
        if wire == 0:
            return [value]
        out, pos = [], 0
        while pos < len(value):
            v, pos = _read_varint(value, pos)
            out.append(v)
        return out
    return list(struct.unpack(f"<{len(value) // struct.calcsize(fmt)}{fmt}", value))


def decode_shape(data):
    shape = Shape()
    for number, _, value in _fields(data):
        if number == 2:
            shape.append(next((_signed(v) for n, _, v in _fields(value) if n == 1), 0))
        elif number == 3:
            shape.unknown_rank = bool(value)
    return shape


def decode_tensor(data):
    dtype, dims, content, values = 1, [], None, []
    for number, wire, value in _fields(data):
        if number == 1:
            dtype = value
        elif number == 2:
            dims = decode_shape(value)
        elif number == 4:
            content = value
        elif number == 5:
            values += _repeated(wire, value, "f")
        elif number == 6:
            values += _repeated(wire, value, "d")
        elif number in (7, 10, 13):
            values += [_signed(v) for v in _repeated(wire, value, "varint")]
        elif number == 11:
            values += [bool(v) for v in _repeated(wire, value, "varint")]
        elif number == 8:
            values.append(bytes(value))
    np_type = DTYPES[dtype]
    count = int(np.prod(dims)) if dims else 1
    if content is not None:
        return np.frombuffer(content, dtype=np.dtype(np_type).newbyteorder("<")).astype(np_type).reshape(dims)
    if np_type is object:
        array = np.empty(count, dtype=object)
        array[:len(values)] = values
    elif dtype == 19:  # half_val holds the bit patterns
        array = np.array(values, dtype=np.uint16).view(np.float16)
    else:
        array = np.array(values, dtype=np_type)
    if len(values) < count:  # the last value fills the rest
        array = np.concatenate([array, np.full(count - len(values), values[-1] if values else 0, dtype=np_type)])
    return array.reshape(dims)


def decode_list(data):
    items = []
    for number, wire, value in _fields(data):
        if number == 2:
            items.append(bytes(value).decode(errors="replace"))
        elif number == 3:
            items += [_signed(v) for v in _repeated(wire, value, "varint")]
        elif number == 4:
            items += _repeated(wire, value, "f")
        elif number == 5:
            items += [bool(v) for v in _repeated(wire, value, "varint")]
        elif number == 6:
            items += [DType(v) for v in _repeated(wire, value, "varint")]
        elif number == 7:
            items.append(decode_shape(value))
        elif number == 8:
            items.append(decode_tensor(value))
    return items


def decode_attr(data):
    for number, wire, value in _fields(data):
        if number == 1:
            return decode_list(value)
        if number == 2:
            return bytes(value).decode(errors="replace")
        if number == 3:
            return _signed(value)
        if number == 4:
            return struct.unpack("<f", value)[0]
        if number == 5:
            return bool(value)
        if number == 6:
            return DType(value)
        if number == 7:
            return decode_shape(value)
        if number == 8:
            return decode_tensor(value)
    return None


def decode_graph(data):
    nodes = []
    for number, _, value in _fields(memoryview(data).tobytes()):
        if number != 1:
            continue
        node = Node("", "")
        for n, _, v in _fields(value):
            if n == 1:
                node.name = bytes(v).decode()
            elif n == 2:
                node.op = bytes(v).decode()
            elif n == 3:
                node.inputs.append(bytes(v).decode())
            elif n == 5:
                key = attr = None
                for en, _, ev in _fields(v):
                    if en == 1:
                        key = bytes(ev).decode()
                    elif en == 2:
                        attr = decode_attr(ev)
                node.attrs[key] = attr
        nodes.append(node)
    return nodes

