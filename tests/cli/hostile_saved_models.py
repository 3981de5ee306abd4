"""hostile_saved_models.py - SavedModels of the third hostile round (issue
27), written from the format facts (docs/savedmodel.md) with
tests/diff/graphdef.py: sizes that were quadratic to load (20,000 signature
inputs, 50,000 signatures), the selection rules (tag sets matched exactly,
the one signature used when there is no serving_default, signature keys
paired with their own tensors) and what must be refused (over-long or
too many tags, NUL bytes in names). No variables: the graphs compute from
their inputs.

  hostile_saved_models.py OUT_DIR   (one SavedModel directory per case)"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
import graphdef as gd  # noqa: E402

FLOAT = gd.DType(1)


def field(number, data):
    return gd._bytes_field(number, data)


def tensor_info(name):
    return field(1, name.encode() if isinstance(name, str) else name) + gd._key(2, 0) + gd._varint(1)


def signature(key, inputs, outputs):
    """inputs, outputs: (signature key, tensor name) pairs."""
    def entries(number, pairs):
        return b"".join(field(number, field(1, k.encode()) + field(2, tensor_info(t))) for k, t in pairs)
    body = entries(1, inputs) + entries(2, outputs) + field(3, b"tensorflow/serving/predict")
    return field(5, field(1, key.encode()) + field(2, body))


def meta_graph(nodes, tags, signatures):
    info = b"".join(field(4, t if isinstance(t, bytes) else t.encode()) for t in tags)
    return field(1, info) + field(2, gd.encode_graph(nodes)) + b"".join(signatures)


def write(out, name, metas):
    path = os.path.join(out, name)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "saved_model.pb"), "wb") as f:
        f.write(gd._key(1, 0) + gd._varint(1) + b"".join(field(2, m) for m in metas))


def placeholder(name):
    return gd.Node(name, "Placeholder", [], {"dtype": FLOAT, "shape": gd.Shape([-1])})


def scaled(name, source, factor):
    """name = source * factor."""
    c = gd.Node(name + "/factor", "Const", [], {"dtype": FLOAT, "value": gd.TypedArray(np.float32(factor), 1)})
    return [c, gd.Node(name, "Mul", [source, name + "/factor"], {"T": FLOAT})]


def main():
    out = sys.argv[1]
    # 20,000 inputs in one signature (each resolved by key at load).
    n = 20000
    nodes = [placeholder("p%05d" % i) for i in range(n)] + scaled("y", "p00000", 2.0)
    write(out, "inputs_20000", [meta_graph(nodes, ["serve"], [signature(
        "serving_default", [("k%05d" % i, "p%05d:0" % i) for i in range(n)], [("y", "y:0")])])])
    # 50,000 signatures, serving_default the last one.
    nodes = [placeholder("x")] + scaled("y", "x", 3.0)
    sigs = [signature("s%05d" % i, [("x", "x:0")], [("y", "y:0")]) for i in range(50000 - 1)]
    sigs.append(signature("serving_default", [("x", "x:0")], [("y", "y:0")]))
    write(out, "signatures_50000", [meta_graph(nodes, ["serve"], sigs)])
    # Two inputs whose keys sort the other way round from their tensors: y = a - b.
    nodes = [placeholder("p0"), placeholder("p1"), gd.Node("y", "Sub", ["p1", "p0"], {"T": FLOAT})]
    write(out, "two_inputs", [meta_graph(nodes, ["serve"], [signature(
        "serving_default", [("b", "p0:0"), ("a", "p1:0")], [("y", "y:0")])])])
    # Tag sets {serve, gpu} (y = 2x) and {serve} (y = 3x); and one with {serve, gpu} only.
    gpu = meta_graph([placeholder("x")] + scaled("y", "x", 2.0), ["serve", "gpu"],
                     [signature("serving_default", [("x", "x:0")], [("y", "y:0")])])
    cpu = meta_graph([placeholder("x")] + scaled("y", "x", 3.0), ["serve"],
                     [signature("serving_default", [("x", "x:0")], [("y", "y:0")])])
    write(out, "tag_sets", [gpu, cpu])
    write(out, "gpu_only", [gpu])
    # One signature, not called serving_default (y = 5x).
    write(out, "one_signature", [meta_graph([placeholder("x")] + scaled("y", "x", 5.0), ["serve"],
                                            [signature("predict", [("x", "x:0")], [("y", "y:0")])])])
    # A signature tensor name and a tag with a NUL byte inside.
    nodes = [placeholder("x")] + scaled("y", "x", 3.0)
    write(out, "nul_tensor_name", [meta_graph(nodes, ["serve"], [signature(
        "serving_default", [("x", b"x:0\0junk")], [("y", "y:0")])])])
    write(out, "nul_tag", [meta_graph(nodes, [b"serve\0gpu"], [signature(
        "serving_default", [("x", "x:0")], [("y", "y:0")])])])
    # 33 tags, and a 65-character tag: refused, not cut to another meta graph's tags.
    many = ["t%02d" % i for i in range(33)]
    write(out, "tags_33", [meta_graph(nodes, many, [signature("serving_default", [("x", "x:0")], [("y", "y:0")])])])
    long_tag = "serve" + "x" * 60
    write(out, "tag_65_chars", [meta_graph(nodes, [long_tag], [signature(
        "serving_default", [("x", "x:0")], [("y", "y:0")])])])


if __name__ == "__main__":
    main()
