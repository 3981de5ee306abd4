"""saved_model_refs.py - inputs, numpy references and damaged copies for
tests/cli/test_saved_model.sh. The references evaluate each model's layers
in float64 numpy from the checkpoint's weights, read by checkpoint_files.py
(not by tfpi).

  saved_model_refs.py make SAVEDMODEL_DIR OUT   inputs (*_in.npy, image.npy) and references (*_want.npy)
  saved_model_refs.py compare GOT.npy WANT.npy TOL
  saved_model_refs.py damage SRC_DIR OUT_DIR KIND   a copy of a SavedModel with one thing wrong
"""
import os
import shutil
import sys

import numpy as np

import checkpoint_files as ck

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
import graphdef as gd  # noqa: E402


def weights(prefix):
    return {k: v.astype(np.float64) for k, v in ck.read_bundle(prefix).items() if v.dtype != object}


def xor(w, x):
    h = np.tanh(x @ w["dense_1/kernel"] + w["dense_1/bias"])
    return 1 / (1 + np.exp(-(h @ w["dense_2/kernel"] + w["dense_2/bias"])))


def iris(w, x):
    h = np.maximum(x @ w["dense_1/kernel"] + w["dense_1/bias"], 0)
    z = h @ w["dense_2/kernel"] + w["dense_2/bias"]
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def houseprices(w, x):
    """8-100-5-5-10-1: tanh hidden layers (dropout off), a linear output, squeezed."""
    h = x
    for i in range(4):
        h = np.tanh(h @ w["Variable" + ("_%d" % (2 * i) if i else "")] + w["Variable_%d" % (2 * i + 1)])
    return (h @ w["Variable_8"] + w["Variable_9"]).reshape(-1)


def make(sm, out):
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    np.save(os.path.join(out, "xor_in.npy"), x)
    want = xor(weights(sm + "/xor_tf1/1/variables/variables"), x.astype(np.float64))
    # The README's hand-computed values agree with the numpy evaluation.
    assert np.abs(want.reshape(-1) - [0.321544, 0.605022, 0.599322, 0.548477]).max() < 1e-6
    np.save(os.path.join(out, "xor_want.npy"), want)

    with open(sm + "/iris_tf1/iris.csv") as f:
        rows = [line.split(",")[:4] for line in f if line.strip()]
    x = np.array(rows, np.float32)
    np.save(os.path.join(out, "iris_in.npy"), x)
    np.save(os.path.join(out, "iris_want.npy"), iris(weights(sm + "/iris_tf1/1/variables/variables"), x.astype(np.float64)))

    # Standardised features, as the notebook feeds them: draws from N(0, 1).
    x = np.random.default_rng(20).standard_normal((16, 8)).astype(np.float32)
    np.save(os.path.join(out, "house_in.npy"), x)
    np.save(os.path.join(out, "house_want.npy"),
            houseprices(weights(sm + "/houseprices_ckpt/model.ckpt"), x.astype(np.float64)))
    np.save(os.path.join(out, "false.npy"), np.array(False))
    np.save(os.path.join(out, "image.npy"), np.random.default_rng(1).uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32))
    # A graph with a variable and no checkpoint.
    nodes = [gd.Node("Variable", "VariableV2", [], {"dtype": gd.DType(1), "shape": gd.Shape([2]),
                                                     "container": "", "shared_name": ""}),
             gd.Node("v", "Identity", ["Variable"], {"T": gd.DType(1)})]
    with open(os.path.join(out, "no_checkpoint.pb"), "wb") as f:
        f.write(gd.encode_graph(nodes))
    make_text_saved_model(out)


TEXT_SAVED_MODEL = """# A SavedModel in text form, as TensorFlow writes saved_model.pbtxt.
saved_model_schema_version: 1
meta_graphs {
  meta_info_def {
    stripped_op_list { op { name: "MatMul" } }
    tags: "serve"
    tensorflow_version: "1.15.0"
  }
  graph_def {
    node { name: "x" op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
    node { name: "w" op: "VariableV2"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
    node { name: "w/read" op: "Identity" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "y" op: "MatMul" input: "x" input: "w/read" attr { key: "T" value { type: DT_FLOAT } } }
    versions { producer: 27 }
    library { function { signature { name: "unused" } } }
  }
  signature_def {
    key: "serving_default"
    value {
      inputs { key: "in" value { name: "x:0" dtype: DT_FLOAT
                                 tensor_shape { dim { size: -1 } dim { size: 2 } } } }
      outputs { key: "out" value { name: "y:0" dtype: DT_FLOAT } }
      method_name: "tensorflow/serving/predict"
    }
  }
}
"""


def make_text_saved_model(out):
    """A text SavedModel (y = x @ w) with its checkpoint, and y for text_in.npy."""
    d = os.path.join(out, "text_saved_model")
    os.makedirs(os.path.join(d, "variables"))
    with open(os.path.join(d, "saved_model.pbtxt"), "w") as f:
        f.write(TEXT_SAVED_MODEL)
    w = np.array([[1, 2, 3], [-4, 5, 0.5]], np.float32)
    ck.write_bundle(os.path.join(d, "variables", "variables"), {"w": w})
    x = np.array([[1, 1], [0.5, -2]], np.float32)
    np.save(os.path.join(out, "text_in.npy"), x)
    np.save(os.path.join(out, "text_want.npy"), x.astype(np.float64) @ w)


def compare(got, want, tol):
    g, w = np.load(got), np.load(want)
    d = np.abs(g.astype(np.float64) - w).max() if g.shape == w.shape else float("inf")
    print("max |d| %.3g over %d values (shape %s, want %s)" % (d, w.size, g.shape, w.shape))
    return 0 if d <= tol else 1


def damage(src, out, kind):
    shutil.copytree(src, out)
    for root, dirs, files in os.walk(out):  # the shared test data is read-only
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    prefix = os.path.join(out, "variables", "variables")
    if kind == "no_variables":
        shutil.rmtree(os.path.join(out, "variables"))
        return
    if kind == "flipped_data":
        path = prefix + ".data-00000-of-00001"
        with open(path, "r+b") as f:
            data = bytearray(f.read())
            data[len(data) // 2] ^= 0x40
            f.seek(0)
            f.write(data)
        return
    tensors = ck.read_bundle(prefix)
    if kind == "missing_key":
        del tensors["dense_1/kernel"]
    elif kind == "wrong_shape":
        tensors["dense_1/kernel"] = tensors["dense_1/kernel"][:, :4].copy()
    elif kind == "wrong_dtype":
        tensors["dense_1/kernel"] = tensors["dense_1/kernel"].astype(np.float64)
    for name in os.listdir(os.path.join(out, "variables")):
        os.remove(os.path.join(out, "variables", name))
    ck.write_bundle(prefix, tensors)


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    elif sys.argv[1] == "damage":
        damage(sys.argv[2], sys.argv[3], sys.argv[4])


if __name__ == "__main__":
    main()
