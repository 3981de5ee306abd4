"""tflite_file.py - a float TensorFlow Lite model evaluated in numpy from its
own buffers, for the tests: a small FlatBuffers reader (root offset, vtables,
vectors) over the TFLite schema's Model, SubGraph, Tensor, Buffer and
Operator tables, and the few float ops dense Keras models convert to
(FULLY_CONNECTED with its fused activation, LOGISTIC, RELU, RESHAPE,
SOFTMAX). Nothing here comes from tfpi or TensorFlow.

Schema facts used (field index: meaning): Model 1 operator_codes, 2
subgraphs, 4 buffers; OperatorCode 0 deprecated_builtin_code, 3
builtin_code; SubGraph 0 tensors, 1 inputs, 2 outputs, 3 operators; Tensor
0 shape, 1 type (0 = float32), 2 buffer; Buffer 0 data; Operator 0
opcode_index, 1 inputs, 2 outputs, 4 builtin_options;
FullyConnectedOptions 0 fused_activation_function (1 RELU, 3 RELU6). A
FULLY_CONNECTED weight is [out, in]."""
import struct

import numpy as np

FULLY_CONNECTED, LOGISTIC, RELU, RESHAPE, SOFTMAX = 9, 14, 19, 22, 25


class Table:
    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        vtable = pos - struct.unpack_from("<i", buf, pos)[0]
        size = struct.unpack_from("<H", buf, vtable)[0]
        self.fields = [struct.unpack_from("<H", buf, vtable + 4 + 2 * i)[0] for i in range((size - 4) // 2)]

    def _at(self, i):
        return self.pos + self.fields[i] if i < len(self.fields) and self.fields[i] else None

    def scalar(self, i, fmt, default=0):
        at = self._at(i)
        return default if at is None else struct.unpack_from("<" + fmt, self.buf, at)[0]

    def _target(self, i):
        at = self._at(i)
        return None if at is None else at + struct.unpack_from("<I", self.buf, at)[0]

    def table(self, i):
        at = self._target(i)
        return None if at is None else Table(self.buf, at)

    def vector(self, i, fmt):
        at = self._target(i)
        if at is None:
            return []
        n = struct.unpack_from("<I", self.buf, at)[0]
        return list(struct.unpack_from("<%d%s" % (n, fmt), self.buf, at + 4))

    def bytes(self, i):
        at = self._target(i)
        return b"" if at is None else self.buf[at + 4:at + 4 + struct.unpack_from("<I", self.buf, at)[0]]

    def tables(self, i):
        at = self._target(i)
        if at is None:
            return []
        n = struct.unpack_from("<I", self.buf, at)[0]
        return [Table(self.buf, at + 4 + 4 * k + struct.unpack_from("<I", self.buf, at + 4 + 4 * k)[0])
                for k in range(n)]


def evaluate(path, x):
    """The model's first output for input x (float64 arithmetic)."""
    buf = open(path, "rb").read()
    if buf[4:8] != b"TFL3":
        raise ValueError("%s: not a TFLite model" % path)
    model = Table(buf, struct.unpack_from("<I", buf, 0)[0])
    codes = [max(c.scalar(0, "b"), c.scalar(3, "i")) for c in model.tables(1)]
    buffers = [b.bytes(0) for b in model.tables(4)]
    graph = model.tables(2)[0]
    tensors = graph.tables(0)
    values = {}
    for t, tensor in enumerate(tensors):
        data = buffers[tensor.scalar(2, "I")]
        if data:
            if tensor.scalar(1, "b") != 0:
                raise ValueError("tensor %d is not float32" % t)
            values[t] = np.frombuffer(data, "<f4").astype(np.float64).reshape(tensor.vector(0, "i"))
    values[graph.vector(1, "i")[0]] = x
    for op in graph.tables(3):
        code, ins, outs = codes[op.scalar(0, "I")], op.vector(1, "i"), op.vector(2, "i")
        a = values[ins[0]]
        if code == FULLY_CONNECTED:
            y = a.reshape(-1, values[ins[1]].shape[1]) @ values[ins[1]].T
            if len(ins) > 2 and ins[2] >= 0:
                y = y + values[ins[2]]
            activation = op.table(4).scalar(0, "b") if op.table(4) else 0
            y = np.maximum(y, 0) if activation == 1 else np.clip(y, 0, 6) if activation == 3 else y
        elif code == LOGISTIC:
            y = 1 / (1 + np.exp(-a))
        elif code == RELU:
            y = np.maximum(a, 0)
        elif code == RESHAPE:
            y = a.reshape([d if d >= 0 else -1 for d in tensors[outs[0]].vector(0, "i")])
        elif code == SOFTMAX:
            e = np.exp(a - a.max(axis=-1, keepdims=True))
            y = e / e.sum(axis=-1, keepdims=True)
        else:
            raise ValueError("builtin op %d is not evaluated here" % code)
        values[outs[0]] = y
    return values[graph.vector(2, "i")[0]]
