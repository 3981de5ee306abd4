"""export_models.py - small SavedModels shaped like the exports users bring
and ../shared/testdata lacks, each with numpy's answers computed here from
the same weights and inputs, independently of tfpi:

  estimator_linear   TF1 Estimator: VariableV2 weights, global_step read
                     through its IsVariableInitialized / RefSwitch cond

    python3 tests/cli/export_models.py OUT_DIR

writes OUT_DIR/<model>/ (SavedModel directories), the .npy feeds and
references, and OUT_DIR/manifest.tsv as tests/cli/function_graphs.py does:
one line per run, tab-separated: case name, run_graph flags, then
`want=FILE:got=FILE` pairs."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
from graphdef import DType, Node, Shape  # noqa: E402
from saved_model_writer import SavedModel  # noqa: E402

F, I32, I64, STR, BOOL = DType(1), DType(3), DType(9), DType(7), DType(10)


def const(name, value, dtype):
    return Node(name, "Const", [], {"dtype": dtype, "value": np.asarray(value)})


def global_step_cond(sm, step):
    """tf.train.get_or_create_global_step's int64 variable and the cond that
    reads it (IsVariableInitialized, RefSwitch on the reference, Merge with
    its zero initializer), as every TF1 Estimator graph has them."""
    sm.variable("global_step", np.array(step, np.int64))
    sm.nodes += [
        const("global_step/Initializer/zeros", np.array(0, np.int64), I64),
        Node("global_step/IsVariableInitialized", "IsVariableInitialized", ["global_step"], {"dtype": I64}),
        Node("global_step/cond/Switch", "Switch",
             ["global_step/IsVariableInitialized", "global_step/IsVariableInitialized"], {"T": BOOL}),
        Node("global_step/cond/switch_t", "Identity", ["global_step/cond/Switch:1"], {"T": BOOL}),
        Node("global_step/cond/switch_f", "Identity", ["global_step/cond/Switch"], {"T": BOOL}),
        Node("global_step/cond/pred_id", "Identity", ["global_step/IsVariableInitialized"], {"T": BOOL}),
        Node("global_step/cond/read/Switch", "RefSwitch", ["global_step", "global_step/cond/pred_id"],
             {"T": I64, "_class": ["loc:@global_step"]}),
        Node("global_step/cond/read", "Identity", ["global_step/cond/read/Switch:1"], {"T": I64}),
        Node("global_step/cond/Switch_1", "Switch", ["global_step/Initializer/zeros", "global_step/cond/pred_id"],
             {"T": I64, "_class": ["loc:@global_step"]}),
        Node("global_step/cond/Merge", "Merge", ["global_step/cond/Switch_1", "global_step/cond/read"],
             {"T": I64, "N": 2}),
    ]


def estimator_linear(rng):
    """A TF1 Estimator's linear classifier export: logits = x w + b."""
    sm = SavedModel()
    w = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal(2).astype(np.float32)
    sm.variable("linear/w", w)
    sm.variable("linear/b", b)
    global_step_cond(sm, 1234)
    sm.nodes += [
        Node("x", "Placeholder", [], {"dtype": F, "shape": Shape([-1, 3])}),
        Node("linear/w/read", "Identity", ["linear/w"], {"T": F}),
        Node("linear/b/read", "Identity", ["linear/b"], {"T": F}),
        Node("linear/MatMul", "MatMul", ["x", "linear/w/read"], {"T": F, "transpose_a": False, "transpose_b": False}),
        Node("logits", "BiasAdd", ["linear/MatMul", "linear/b/read"], {"T": F, "data_format": "NHWC"}),
        Node("probabilities", "Softmax", ["logits"], {"T": F}),
    ]
    sm.signature("serving_default", {"x": ("x:0", F, [-1, 3])},
                 {"logits": ("logits:0", F, [-1, 2]), "probabilities": ("probabilities:0", F, [-1, 2])})
    x = rng.standard_normal((4, 3)).astype(np.float32)
    logits = x.astype(np.float64) @ w + b
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return sm, {"x": x}, {"logits": logits.astype(np.float32),
                          "probabilities": (e / e.sum(axis=1, keepdims=True)).astype(np.float32),
                          "global_step/cond/Merge": np.array(1234, np.int64)}


MODELS = {"estimator_linear": estimator_linear}


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(30)
    lines = []
    for name, build in MODELS.items():
        sm, feeds, wants = build(rng)
        sm.write(os.path.join(out, name))
        flags = ["--graph=" + os.path.join(out, name)]
        pairs = []
        for k, v in feeds.items():
            path = os.path.join(out, "%s.%s.npy" % (name, k.replace("/", "_")))
            np.save(path, v)
            flags.append("--input=%s=%s" % (k, path))
        for k, v in wants.items():
            tag = k.replace("/", "_").replace(":", "_")
            want, got = (os.path.join(out, "%s.%s_%s.npy" % (name, w, tag)) for w in ("want", "got"))
            np.save(want, v)
            flags.append("--output=%s=%s" % (k, got))
            pairs.append("want=%s:got=%s" % (want, got))
        lines.append("\t".join([name] + flags + pairs))
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(len(lines))


if __name__ == "__main__":
    main(sys.argv[1])
