"""hostile_corpus.py - what the hostile-model corpus is written with: a
GraphDef encoder that takes attribute values of any size and shape (raw
TensorProtos, encoded bytes), node and Const shorthands, and Corpus, which
writes each case's model and feeds and the manifest test_hostile_models.sh
runs: tab-separated case name, expectation (`error:REGEX`, one error line
and a non-zero exit; `output:REGEX`, stdout must match) and run_graph
flags."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
import graphdef  # noqa: E402
from graphdef import DType, Node, Shape  # noqa: E402

FLOAT, INT32, INT64, STRING, BOOL, UINT8 = DType(1), DType(3), DType(9), DType(7), DType(10), DType(4)

B = graphdef._bytes_field
K = graphdef._key
V = graphdef._varint


class Raw(bytes):
    """An AttrValue given as its encoded bytes."""


def raw_tensor(dtype, dims, content=None, int_vals=None, string_vals=None):
    """A TensorProto attr with any shape, however large (no numpy array)."""
    body = K(1, 0) + V(dtype) + B(2, b"".join(B(2, K(1, 0) + V(d)) for d in dims))
    if content is not None:
        body += B(4, content)
    if int_vals is not None:
        body += B(7 if dtype != 9 else 10, b"".join(V(v) for v in int_vals))
    for s in string_vals or []:
        body += B(8, s)
    return Raw(B(8, body))


def attr_bytes(value):
    return bytes(value) if isinstance(value, Raw) else graphdef._attr_value(value)


def encode_node(n, extra=b""):
    body = B(1, n.name.encode()) + B(2, n.op.encode())
    body += b"".join(B(3, i.encode()) for i in n.inputs)
    for key in sorted(n.attrs):
        body += B(5, B(1, key.encode()) + B(2, attr_bytes(n.attrs[key])))
    return B(1, body + extra)


def encode(nodes):
    return b"".join(n if isinstance(n, bytes) else encode_node(n) for n in nodes)


def const(name, value, dtype=None):
    a = np.asarray(value)
    if dtype is None:
        dtype = {np.dtype(np.float32): FLOAT, np.dtype(np.int32): INT32, np.dtype(np.int64): INT64,
                 np.dtype(np.bool_): BOOL, np.dtype(np.uint8): UINT8}[a.dtype]
    return Node(name, "Const", [], {"dtype": DType(dtype), "value": graphdef.TypedArray(a, dtype)})


def i32(v):
    return np.asarray(v, dtype=np.int32)


def i64(v):
    return np.asarray(v, dtype=np.int64)


def f32(v):
    return np.asarray(v, dtype=np.float32)


def node(name, op, inputs=(), **attrs):
    return Node(name, op, list(inputs), dict(attrs))


def ph(name, shape, dtype=FLOAT):
    return node(name, "Placeholder", dtype=dtype, shape=Shape(shape))


class Corpus:
    def __init__(self, out):
        self.out = out
        self.lines = []
        self.names = set()

    def add(self, name, nodes, expect, fetch="y", feeds=(), extra=()):
        """nodes: Node objects or encoded NodeDef fields; feeds: (name, array);
        extra: more run_graph flags."""
        assert name not in self.names, name
        self.names.add(name)
        path = os.path.join(self.out, name + ".pb")
        with open(path, "wb") as f:
            f.write(nodes if isinstance(nodes, bytes) else encode(nodes))
        flags = [f"--graph={path}", f"--output={fetch}", "--num_threads=1", "--max_memory=1G", *extra]
        for i, (feed, array) in enumerate(feeds):
            npy = os.path.join(self.out, f"{name}.{i}.npy")
            np.save(npy, array)
            flags.append(f"--input={feed}={npy}")
        self.lines.append("\t".join([name, expect] + flags))

    def error(self, name, nodes, pattern, **kw):
        self.add(name, nodes, "error:" + pattern, **kw)

    def output(self, name, nodes, pattern, **kw):
        self.add(name, nodes, "output:" + pattern, **kw)

    def write_manifest(self):
        with open(os.path.join(self.out, "manifest.tsv"), "w") as f:
            f.write("\n".join(self.lines) + "\n")


def one_op(op, inputs, **attrs):
    """Const inputs a0, a1, ... into one node y of op."""
    nodes = [const(f"a{i}", v) for i, v in enumerate(inputs)]
    return nodes + [node("y", op, [f"a{i}" for i in range(len(inputs))], **attrs)]
