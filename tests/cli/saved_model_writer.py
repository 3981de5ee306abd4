"""saved_model_writer.py - writes SavedModel directories the way
TensorFlow lays them out (docs/savedmodel.md section 2), from plain Python
graphs (tests/diff/graphdef.py), for the models the shared test data lack:

  - TF1: VariableV2 variables restored by a tf.train.Saver graph
    (save/Const, RestoreV2, one Assign per variable, save/restore_all);
  - TF2: VarHandleOp variables, restored by a library function
    __inference__traced_restore_N (RestoreV2, Identity, AssignVariableOp per
    variable) that the outer StatefulPartitionedCall_2 calls with the handles,
    the saver_def naming it; serving functions called from the outer graph.

Any number of signatures, of any dtypes and shapes. The checkpoint is
written by checkpoint_files.py. Written from the format facts,
independently of tfpi."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checkpoint_files as ck  # noqa: E402
import graphdef as gd  # noqa: E402
from graphdef import Arg, DType, Func, Function, Node, Shape  # noqa: E402

STRING, RESOURCE = DType(7), DType(20)


def tensor_info(name, dtype, shape=None):
    body = ck.field_bytes(1, name.encode()) + ck.field_varint(2, dtype)
    if shape is not None:
        body += ck.field_bytes(3, b"".join(ck.field_bytes(2, ck.field_varint(1, d & (2**64 - 1)) if d else b"")
                                           for d in shape))
    return body


def signature_def(inputs, outputs, method="tensorflow/serving/predict"):
    """inputs, outputs: {key: (tensor name, dtype, shape or None)}."""
    def entry(key, info):
        return ck.field_bytes(1, key.encode()) + ck.field_bytes(2, info)
    body = b"".join(ck.field_bytes(1, entry(k, tensor_info(*v))) for k, v in inputs.items())
    body += b"".join(ck.field_bytes(2, entry(k, tensor_info(*v))) for k, v in outputs.items())
    return body + ck.field_bytes(3, method.encode())


class SavedModel:
    """Collects a graph, its variables and signatures; write() makes the
    directory. tf2=True: resource variables and a restore function."""

    def __init__(self, tf2=False):
        self.tf2 = tf2
        self.nodes, self.functions, self.signatures, self.tensors = [], [], {}, {}
        self.variables = []  # (node name, checkpoint key, dtype)
        self.tables = []  # (node name, keys' checkpoint key, values' key, key dtype, value dtype)

    def variable(self, name, value, key=None):
        """A variable node `name` holding numpy array `value` in the checkpoint (under `key`)."""
        dtype = DType(gd.dtype_number(value.dtype))
        key = key or name
        self.tensors[key] = value
        self.variables.append((name, key, dtype))
        if self.tf2:
            self.nodes.append(Node(name, "VarHandleOp", [], {"dtype": dtype, "shape": Shape(list(value.shape)),
                                                            "shared_name": name, "container": ""}))
        else:
            self.nodes.append(Node(name, "VariableV2", [], {"dtype": dtype, "shape": Shape(list(value.shape)),
                                                           "shared_name": "", "container": ""}))
        return name

    def table(self, name, keys, values, key):
        """A TF2 MutableHashTableV2 `name` mapping keys to values (numpy arrays,
        object arrays of bytes for strings), saved under key/.ATTRIBUTES/
        table-keys and table-values and imported by the restore function."""
        kd, vd = (DType(STRING if a.dtype == object else gd.dtype_number(a.dtype)) for a in (keys, values))
        k, v = key + "/.ATTRIBUTES/table-keys", key + "/.ATTRIBUTES/table-values"
        self.tensors[k], self.tensors[v] = keys, values
        self.tables.append((name, k, v, kd, vd))
        self.nodes.append(Node(name, "MutableHashTableV2", [], {"key_dtype": kd, "value_dtype": vd,
                                                                "shared_name": "table_" + name, "container": "",
                                                                "use_node_name_sharing": False}))
        return name

    def signature(self, key, inputs, outputs, method="tensorflow/serving/predict"):
        self.signatures[key] = signature_def(inputs, outputs, method)

    def _restore_nodes(self):
        names = [k for _, k, _ in self.variables]
        consts = [Node("save/RestoreV2/tensor_names", "Const", [], {"dtype": STRING, "value": _strings(names)}),
                  Node("save/RestoreV2/shape_and_slices", "Const", [],
                       {"dtype": STRING, "value": _strings([""] * len(names))})]
        if not self.tf2:
            prefix = gd.TypedArray(np.array(b"model", dtype=object), STRING)
            out = [Node("save/Const", "Const", [], {"dtype": STRING, "value": prefix})]
            out += consts + [Node("save/RestoreV2", "RestoreV2", ["save/Const"] + [c.name for c in consts],
                                  {"dtypes": [d for _, _, d in self.variables]})]
            assigns = []
            for i, (var, _, dtype) in enumerate(self.variables):
                name = "save/Assign" + ("_%d" % i if i else "")
                out.append(Node(name, "Assign", [var, "save/RestoreV2:%d" % i],
                                {"T": dtype, "validate_shape": True, "use_locking": True}))
                assigns.append("^" + name)
            return out + [Node("save/restore_all", "NoOp", assigns)], ("save/Const:0", "save/restore_all")
        # TF2: the restore function and the outer call that passes it every handle.
        keys = names + [k for _, kk, vk, _, _ in self.tables for k in (kk, vk)]
        dtypes = [d for _, _, d in self.variables] + [d for _, _, _, kd, vd in self.tables for d in (kd, vd)]
        handles = [v for v, _, _ in self.variables] + [t for t, _, _, _, _ in self.tables]
        args = [Arg("file_prefix", STRING)] + [Arg("unknown_%d" % i, RESOURCE) for i in range(len(handles))]
        body = [Node("RestoreV2/tensor_names", "Const", [], {"dtype": STRING, "value": _strings(keys)}),
                Node("RestoreV2/shape_and_slices", "Const", [], {"dtype": STRING, "value": _strings([""] * len(keys))}),
                Node("RestoreV2", "RestoreV2", ["file_prefix", "RestoreV2/tensor_names:output:0",
                                                "RestoreV2/shape_and_slices:output:0"], {"dtypes": dtypes})]
        controls = []
        for i, (_, _, dtype) in enumerate(self.variables):
            body.append(Node("Identity_%d" % i, "Identity", ["RestoreV2:tensors:%d" % i], {"T": dtype}))
            body.append(Node("AssignVariableOp_%d" % i, "AssignVariableOp",
                             ["unknown_%d" % i, "Identity_%d:output:0" % i], {"dtype": dtype}))
            controls.append("^AssignVariableOp_%d" % i)
        for t, (_, _, _, kd, vd) in enumerate(self.tables):
            arg, at = "unknown_%d" % (len(self.variables) + t), len(names) + 2 * t
            body.append(Node("table_restore_%d" % t, "LookupTableImportV2",
                             [arg, "RestoreV2:tensors:%d" % at, "RestoreV2:tensors:%d" % (at + 1)],
                             {"Tin": kd, "Tout": vd}))
            controls.append("^table_restore_%d" % t)
        body.append(Node("NoOp", "NoOp", controls))
        body.append(Node("Identity_out", "Identity", ["file_prefix", "^NoOp"], {"T": STRING}))
        self.functions.append(Function("__inference__traced_restore_900", args, [Arg("identity", STRING)], body,
                                       {"identity": "Identity_out:output:0"}))
        call = Node("StatefulPartitionedCall_2", "StatefulPartitionedCall", ["saver_filename"] + handles,
                    {"f": Func("__inference__traced_restore_900"), "Tin": [STRING] + [RESOURCE] * len(handles),
                     "Tout": [STRING]})
        prefix = Node("saver_filename", "Placeholder", [], {"dtype": STRING, "shape": Shape([])})
        return [prefix, call], ("saver_filename:0", "StatefulPartitionedCall_2")

    def write(self, out, tags=("serve",)):
        os.makedirs(os.path.join(out, "variables"), exist_ok=True)
        restore, (filename, restore_op) = self._restore_nodes()
        graph = gd.encode_graph(self.nodes + restore, self.functions) + ck.field_bytes(4, ck.field_varint(1, 1087))
        info = b"".join(ck.field_bytes(4, t.encode()) for t in tags)
        info += ck.field_bytes(5, b"2.12.0" if self.tf2 else b"1.15.0")
        saver = ck.field_bytes(1, filename.encode()) + ck.field_bytes(3, restore_op.encode()) + ck.field_varint(7, 2)
        sigs = b"".join(ck.field_bytes(5, ck.field_bytes(1, k.encode()) + ck.field_bytes(2, v))
                        for k, v in self.signatures.items())
        meta = ck.field_bytes(1, info) + ck.field_bytes(2, graph) + ck.field_bytes(3, saver) + sigs
        with open(os.path.join(out, "saved_model.pb"), "wb") as f:
            f.write(ck.field_varint(1, 1) + ck.field_bytes(2, meta))
        ck.write_bundle(os.path.join(out, "variables", "variables"), self.tensors)


def _strings(values):
    """A string tensor attr value."""
    return gd.TypedArray(np.array([v.encode() for v in values], dtype=object), STRING)
