"""tflite_writer.py - writes TensorFlow Lite FlatBuffers for the tests, with
numpy and struct only (no TensorFlow here): a small FlatBuffer builder
(tables, vectors, strings, unions) and Model helpers, following the field
numbers of TFLite's schema.fbs (Model 0 version, 1 operator_codes,
2 subgraphs, 3 description, 4 buffers, 6 metadata, 7 signature_defs;
SubGraph 0 tensors, 1 inputs, 2 outputs, 3 operators, 4 name; Tensor
0 shape, 1 type, 2 buffer, 3 name, 4 quantization, 5 is_variable,
7 shape_signature; Operator 0 opcode_index, 1 inputs, 2 outputs,
3/4 builtin_options, 5 custom_options, 8 intermediates; OperatorCode 0
deprecated_builtin_code, 1 custom_code, 2 version, 3 builtin_code; Buffer
0 data, 1 offset, 2 size).

Objects are laid out parents first, so every offset points forward; each
table's vtable sits just before it. `raw=True` in build() returns the
layout's positions too, for tests that damage a file at a known place."""
import struct

import numpy as np


class Table:
    """fields: {index: (kind, value)}; kinds 'b','B','h','i','I','q','Q','f','bool' or 'ref' (an object)."""

    def __init__(self, fields=None, name="table"):
        self.fields = dict(fields or {})
        self.name = name


class Vector:
    """A vector of scalars (fmt 'i', 'f', 'q', 'B', ...) or of objects (fmt 'ref')."""

    def __init__(self, items, fmt, align=4):
        self.items, self.fmt, self.align = list(items), fmt, align


class String:
    def __init__(self, text):
        self.data = text.encode() if isinstance(text, str) else bytes(text)


def ref(obj):
    return ("ref", obj)


def ints(values):
    return ref(Vector([int(v) for v in values], "i"))


SIZES = {"b": 1, "B": 1, "bool": 1, "h": 2, "H": 2, "i": 4, "I": 4, "f": 4, "q": 8, "Q": 8, "ref": 4}


class Builder:
    def __init__(self):
        self.out = bytearray()
        self.pending = []  # (position of a uoffset, object)
        self.positions = {}

    def align(self, n):
        while len(self.out) % n:
            self.out.append(0)

    def place(self, obj):
        if isinstance(obj, Table):
            return self.table(obj)
        if isinstance(obj, Vector):
            return self.vector(obj)
        if isinstance(obj, String):
            self.align(4)
            at = len(self.out)
            self.out += struct.pack("<I", len(obj.data)) + obj.data + b"\0"
            return at
        raise TypeError(obj)

    def table(self, t):
        count = max(t.fields) + 1 if t.fields else 0
        layout, size = [], 4
        for i in sorted(t.fields, key=lambda k: -SIZES[t.fields[k][0]]):
            kind = t.fields[i][0]
            width = SIZES[kind]
            size = (size + width - 1) // width * width
            layout.append((i, size))
            size += width
        offsets = dict(layout)
        vtable = struct.pack("<HH", 4 + 2 * count, size) + b"".join(
            struct.pack("<H", offsets.get(i, 0)) for i in range(count))
        self.align(2)
        vt_at = len(self.out)
        self.out += vtable
        self.align(8)
        at = len(self.out)
        body = bytearray(size)
        struct.pack_into("<i", body, 0, at - vt_at)
        for i, off in layout:
            kind, value = t.fields[i]
            if kind == "ref":
                self.pending.append((at + off, value))
            elif kind == "bool":
                body[off] = 1 if value else 0
            else:
                struct.pack_into("<" + kind, body, off, value)
        self.out += body
        self.positions[id(t)] = at
        return at

    def vector(self, v):
        width = SIZES[v.fmt]
        self.align(max(4, v.align))
        # the count sits 4 bytes before the elements, which keep their alignment
        while (len(self.out) + 4) % max(width, v.align):
            self.out.append(0)
        at = len(self.out)
        self.out += struct.pack("<I", len(v.items))
        for item in v.items:
            if v.fmt == "ref":
                self.pending.append((len(self.out), item))
                self.out += b"\0\0\0\0"
            else:
                self.out += struct.pack("<" + v.fmt, item)
        self.positions[id(v)] = at
        return at

    def build(self, root, identifier=b"TFL3", raw=False):
        self.out = bytearray(struct.pack("<I", 0) + identifier)
        self.pending = [(0, root)]
        while self.pending:
            field, obj = self.pending.pop(0)
            at = self.place(obj)
            struct.pack_into("<I", self.out, field, at - field)
        self.align(16)
        return (bytes(self.out), self.positions) if raw else bytes(self.out)


# ---- TFLite Model helpers ------------------------------------------------------------------
FLOAT32, INT32, UINT8, INT64, INT16, INT8 = 0, 2, 3, 4, 7, 9
NP_TYPES = {np.dtype(np.float32): FLOAT32, np.dtype(np.int32): INT32, np.dtype(np.uint8): UINT8,
            np.dtype(np.int64): INT64, np.dtype(np.int16): INT16, np.dtype(np.int8): INT8}


class Graph:
    """One subgraph's tensors, operators, inputs and outputs."""

    def __init__(self):
        self.tensors, self.operators, self.inputs, self.outputs = [], [], [], []


class Model:
    """A model being assembled: buffers, operator codes and subgraphs; tensor()
    and op() add to the current subgraph (new_subgraph() starts another)."""

    def __init__(self):
        self.buffers = [Table({}, "Buffer")]  # buffer 0: the empty sentinel
        self.codes = []
        self.graphs = [Graph()]
        self.current = self.graphs[0]
        self.signatures, self.metadata = [], []

    def new_subgraph(self):
        """Starts subgraph len(graphs) and returns its index; tensor() and op() then add to it."""
        self.graphs.append(Graph())
        self.current = self.graphs[-1]
        return len(self.graphs) - 1

    def use_subgraph(self, index):
        self.current = self.graphs[index]

    tensors = property(lambda self: self.current.tensors)
    operators = property(lambda self: self.current.operators)
    inputs = property(lambda self: self.current.inputs,
                      lambda self, v: setattr(self.current, "inputs", v))
    outputs = property(lambda self: self.current.outputs,
                       lambda self, v: setattr(self.current, "outputs", v))

    def tensor(self, name, shape, type=FLOAT32, data=None, quant=None, signature=None, variable=False):
        fields = {0: ints(shape), 1: ("b", type), 3: ref(String(name))}
        if data is not None:
            raw = np.ascontiguousarray(data).tobytes() if not isinstance(data, bytes) else data
            self.buffers.append(Table({0: ref(Vector(raw, "B", align=16))}, "Buffer"))
            fields[2] = ("I", len(self.buffers) - 1)
        if quant is not None:
            scale, zero, dim = quant
            fields[4] = ref(Table({2: ref(Vector(scale, "f")), 3: ref(Vector(zero, "q")), 6: ("i", dim)}))
        if signature is not None:
            fields[7] = ints(signature)
        if variable:
            fields[5] = ("bool", True)
        self.tensors.append(Table(fields, "Tensor"))
        return len(self.tensors) - 1

    def const(self, name, array, quant=None):
        array = np.asarray(array)
        return self.tensor(name, array.shape, NP_TYPES[array.dtype], data=array, quant=quant)

    def code(self, builtin, custom=None, deprecated_only=False):
        key = (builtin, custom, deprecated_only)
        if key not in [c[0] for c in self.codes]:
            fields = {0: ("b", min(builtin, 127)), 2: ("i", 1)}
            if not deprecated_only:
                fields[3] = ("i", builtin)
            if custom is not None:
                fields[1] = ref(String(custom))
            self.codes.append((key, Table(fields, "OperatorCode")))
        return [c[0] for c in self.codes].index(key)

    def op(self, builtin, inputs, outputs, options_type=0, options=None, custom=None, custom_options=None,
           deprecated_only=False, intermediates=None):
        fields = {0: ("I", self.code(builtin, custom, deprecated_only)), 1: ints(inputs), 2: ints(outputs)}
        if intermediates is not None:
            fields[8] = ints(intermediates)
        if options_type:
            fields[3] = ("B", options_type)
            fields[4] = ref(Table(options or {}, "Options"))
        if custom_options is not None:
            fields[5] = ref(Vector(custom_options, "B"))
        self.operators.append(Table(fields, "Operator"))

    @staticmethod
    def subgraph(g, name):
        return Table({0: ref(Vector(g.tensors, "ref")), 1: ints(g.inputs), 2: ints(g.outputs),
                      3: ref(Vector(g.operators, "ref")), 4: ref(String(name))}, "SubGraph")

    def signature(self, key, inputs, outputs, subgraph=0):
        def maps(pairs):
            return ref(Vector([Table({0: ref(String(n)), 1: ("I", t)}, "TensorMap") for n, t in pairs], "ref"))
        self.signatures.append(Table({0: maps(inputs), 1: maps(outputs), 2: ref(String(key)),
                                      4: ("I", subgraph)}, "SignatureDef"))

    def root(self, version=3):
        fields = {0: ("I", version), 1: ref(Vector([c[1] for c in self.codes], "ref")),
                  2: ref(Vector([self.subgraph(g, "main" if i == 0 else "subgraph_%d" % i)
                                 for i, g in enumerate(self.graphs)], "ref")),
                  4: ref(Vector(self.buffers, "ref"))}
        if self.metadata:
            fields[6] = ref(Vector(self.metadata, "ref"))
        if self.signatures:
            fields[7] = ref(Vector(self.signatures, "ref"))
        return Table(fields, "Model")

    def write(self, path=None):
        data = Builder().build(self.root())
        if path:
            with open(path, "wb") as f:
                f.write(data)
        return data
