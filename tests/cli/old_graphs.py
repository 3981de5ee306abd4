"""old_graphs.py OUT_DIR - material for tests/cli/test_old_graphs.sh: graphs
as older TensorFlow wrote them (no `versions` field, or producer 21, where a
Placeholder of unknown shape carries `shape {}`) and as newer TensorFlow does
(producer 22, where `shape {}` is a scalar), a string graph (Identity and
StringJoin-free: a Placeholder feeding Identity), and string .npy files in
every form numpy writes ('S', 'U', object), with the values they hold."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
from graphdef import DType, Node, Shape, encode_graph, _bytes_field, _key, _varint  # noqa: E402

out = sys.argv[1]


def graph(name, nodes, producer=None):
    data = encode_graph(nodes)
    if producer is not None:
        data += _bytes_field(4, _key(1, 0) + _varint(producer))
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


add = [Node("x", "Placeholder", [], {"dtype": DType(1), "shape": Shape([])}),
       Node("one", "Const", [], {"dtype": DType(1), "value": np.array(1, np.float32)}),
       Node("y", "Add", ["x", "one"], {"T": DType(1)})]
graph("no_versions.pb", add)
graph("producer21.pb", add, 21)
graph("producer22.pb", add, 22)
graph("strings.pb", [Node("s", "Placeholder", [], {"dtype": DType(7)}),
                     Node("t", "Identity", ["s"], {"T": DType(7)})], 26)
np.save(os.path.join(out, "vector.npy"), np.array([1.0, 2.0], np.float32))
values = [["h\u00e9llo", "x"], ["\U0001F600", ""]]
np.save(os.path.join(out, "u.npy"), np.array(values))
np.save(os.path.join(out, "s.npy"), np.array([v.encode() for row in values for v in row]).reshape(2, 2))
np.save(os.path.join(out, "o.npy"), np.array([["h\u00e9llo", b"x"], ["\U0001F600", "h\u00e9llo"]], dtype=object),
        allow_pickle=True)
np.save(os.path.join(out, "mixed.npy"), np.array([1, "a"], dtype=object), allow_pickle=True)
np.save(os.path.join(out, "want.npy"), np.array([v.encode() for row in values for v in row]).reshape(2, 2))
