"""make_saved_model.py - turns a frozen graph into the TF1 forms users have:
its large constants become VariableV2 nodes whose values go to a checkpoint,
with a tf.train.Saver restore graph (RestoreV2 + Assign), written as a
SavedModel directory (saved_model.pb + variables/) or as a .meta file plus a
checkpoint prefix. Written from the format facts (docs/savedmodel.md),
independently of tfpi, with tests/diff/graphdef.py and checkpoint_files.py.

  make_saved_model.py FROZEN.pb OUT_DIR --input=NAME --output=NAME
      [--input_key=images --output_key=scores] [--rename] [--partition=NAME]
      [--meta]   (OUT_DIR/model.ckpt.meta + model.ckpt.* instead of a SavedModel)
      [--identities]   (the restore graph's Assigns read through Identity nodes)
      [--shards=N]     (the variables spread over N data shards, round robin)

--rename saves every variable under "renamed/<name>" (so only the restore
graph, not the node names, says which key a variable takes); --partition
splits that constant into two VariableV2 parts joined by ConcatV2 and
stored as one partitioned checkpoint tensor."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checkpoint_files as ck  # noqa: E402
import graphdef as gd  # noqa: E402

MIN_VARIABLE_ELEMENTS = 16


def string_tensor(values):
    body = ck.field_varint(1, 7) + ck.field_bytes(2, ck.shape_proto([len(values)]))
    return body + b"".join(ck.field_bytes(8, v.encode()) for v in values)


def raw_node(name, op, inputs, attrs):
    """A NodeDef with already-encoded attr values."""
    body = ck.field_bytes(1, name.encode()) + ck.field_bytes(2, op.encode())
    body += b"".join(ck.field_bytes(3, i.encode()) for i in inputs)
    for key in sorted(attrs):
        body += ck.field_bytes(5, ck.field_bytes(1, key.encode()) + ck.field_bytes(2, attrs[key]))
    return ck.field_bytes(1, body)


def attr_tensor(encoded):
    return ck.field_bytes(8, encoded)


def attr_type(t):
    return ck.field_varint(6, t)


def attr_types(ts):
    return ck.field_bytes(1, ck.field_bytes(6, b"".join(ck.varint(t) for t in ts)))


def variable_node(name, array):
    dtype = ck.TYPE_NUMBERS[array.dtype]
    return gd.Node(name, "VariableV2", [], {"dtype": gd.DType(dtype), "shape": gd.Shape(list(array.shape)),
                                             "container": "", "shared_name": ""})


def convert(graph_bytes, rename, partition):
    """(graph nodes as encoded NodeDef fields, checkpoint tensors, partitions,
    restore list) for a frozen graph; nodes not converted keep their bytes."""
    out, tensors, partitions, restores = [], {}, {}, []
    for number, _, raw in ck.fields(graph_bytes):
        if number != 1:
            continue
        n = gd.decode_graph(ck.field_bytes(1, raw))[0]
        value = n.attrs.get("value") if n.op == "Const" else None
        if not isinstance(value, np.ndarray) or value.dtype != np.float32 or value.size < MIN_VARIABLE_ELEMENTS:
            out.append(ck.field_bytes(1, raw))
            continue
        key = ("renamed/" + n.name) if rename else n.name
        tensors[key] = value
        if n.name == partition:
            half = value.shape[0] // 2
            parts = [(0, half), (half, value.shape[0] - half)]
            partitions[key] = [[(s, ln)] + [(0, -1)] * (value.ndim - 1) for s, ln in parts]
            names = []
            for i, (s, ln) in enumerate(parts):
                part = n.name + "/part_%d" % i
                out.append(gd.encode_graph([variable_node(part, value[s:s + ln])]))
                spec = " ".join(map(str, value.shape)) + " " + ":".join(
                    ["%d,%d" % (s, ln)] + ["-"] * (value.ndim - 1))
                restores.append((part, key, spec))
                names.append(part)
            out.append(gd.encode_graph([
                gd.Node(n.name + "/axis", "Const", [], {"dtype": gd.DType(3), "value": np.array(0, np.int32)}),
                gd.Node(n.name, "ConcatV2", names + [n.name + "/axis"], {"T": gd.DType(1), "N": 2, "Tidx": gd.DType(3)})]))
            continue
        out.append(gd.encode_graph([variable_node(n.name, value)]))
        restores.append((n.name, key, ""))
    return out, tensors, partitions, restores


def saver_nodes(restores, identities=False):
    """tf.train.Saver's restore half: save/Const (the prefix, fed), RestoreV2,
    one Assign per variable, save/restore_all. With identities, each Assign's
    inputs come through Identity nodes, as in an inlined restore function."""
    dtypes = [1] * len(restores)
    out = raw_node("save/Const", "Const", [], {"dtype": attr_type(7), "value": attr_tensor(string_tensor(["model"]))})
    out += raw_node("save/RestoreV2/tensor_names", "Const", [],
                    {"dtype": attr_type(7), "value": attr_tensor(string_tensor([k for _, k, _ in restores]))})
    out += raw_node("save/RestoreV2/shape_and_slices", "Const", [],
                    {"dtype": attr_type(7), "value": attr_tensor(string_tensor([s for _, _, s in restores]))})
    out += raw_node("save/RestoreV2", "RestoreV2",
                    ["save/Const", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices"],
                    {"dtypes": attr_types(dtypes)})
    assigns = []
    for i, (var, _, _) in enumerate(restores):
        name = "save/Assign" + ("_%d" % i if i else "")
        assigns.append("^" + name)
        inputs = [var, "save/RestoreV2:%d" % i]
        if identities:
            for k, what in enumerate(("handle", "value")):
                out += raw_node("%s/%s" % (name, what), "Identity", [inputs[k]], {"T": attr_type(1)})
                inputs[k] = "%s/%s" % (name, what)
        out += raw_node(name, "Assign", inputs,
                        {"T": attr_type(1), "validate_shape": ck.field_varint(5, 1), "use_locking": ck.field_varint(5, 1)})
    out += raw_node("save/restore_all", "NoOp", assigns, {})
    return out


def tensor_info(name, dtype):
    return ck.field_bytes(1, name.encode()) + ck.field_varint(2, dtype)


def signature(input_key, input_name, output_key, output_name):
    def entry(key, info):
        return ck.field_bytes(1, key.encode()) + ck.field_bytes(2, info)
    body = ck.field_bytes(1, entry(input_key, tensor_info(input_name, 1)))
    body += ck.field_bytes(2, entry(output_key, tensor_info(output_name, 1)))
    body += ck.field_bytes(3, b"tensorflow/serving/predict")
    return ck.field_bytes(5, ck.field_bytes(1, b"serving_default") + ck.field_bytes(2, body))


def meta_graph(graph_def, tags, sig):
    info = b"".join(ck.field_bytes(4, t.encode()) for t in tags) + ck.field_bytes(5, b"1.15.0")
    saver = ck.field_bytes(1, b"save/Const:0") + ck.field_bytes(3, b"save/restore_all") + ck.field_varint(7, 2)
    return ck.field_bytes(1, info) + ck.field_bytes(2, graph_def) + ck.field_bytes(3, saver) + sig


def main():
    p = argparse.ArgumentParser()
    p.add_argument("frozen")
    p.add_argument("out")
    p.add_argument("--input", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--input_key", default="images")
    p.add_argument("--output_key", default="scores")
    p.add_argument("--rename", action="store_true")
    p.add_argument("--partition")
    p.add_argument("--meta", action="store_true")
    p.add_argument("--identities", action="store_true")
    p.add_argument("--shards", type=int, default=1)
    a = p.parse_args()
    with open(a.frozen, "rb") as f:
        nodes, tensors, partitions, restores = convert(f.read(), a.rename, a.partition)
    graph_def = b"".join(nodes) + saver_nodes(restores, a.identities) + ck.field_bytes(4, ck.field_varint(1, 26))
    sig = b"" if a.meta else signature(a.input_key, a.input + ":0", a.output_key, a.output + ":0")
    meta = meta_graph(graph_def, [] if a.meta else ["serve"], sig)
    os.makedirs(a.out, exist_ok=True)
    if a.meta:
        with open(os.path.join(a.out, "model.ckpt.meta"), "wb") as f:
            f.write(meta)
        ck.write_bundle(os.path.join(a.out, "model.ckpt"), tensors, partitions=partitions)
        with open(os.path.join(a.out, "checkpoint"), "w") as f:
            f.write('model_checkpoint_path: "model.ckpt"\nall_model_checkpoint_paths: "model.ckpt"\n')
        return
    os.makedirs(os.path.join(a.out, "variables"), exist_ok=True)
    with open(os.path.join(a.out, "saved_model.pb"), "wb") as f:
        f.write(ck.field_varint(1, 1) + ck.field_bytes(2, meta))
    shard_of = {name: i % a.shards for i, name in enumerate(sorted(tensors))}
    ck.write_bundle(os.path.join(a.out, "variables", "variables"), tensors, num_shards=a.shards,
                    partitions=partitions, shard_of=shard_of)


if __name__ == "__main__":
    main()
