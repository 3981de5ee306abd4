"""tf2_saved_model_refs.py - inputs and numpy references for the TF2 Keras
SavedModels of ../shared/testdata/savedmodel (tests/cli/test_tf2_saved_models.sh).
Each model's layers are evaluated in float64 numpy from the checkpoint's
weights, read by checkpoint_files.py (not by tfpi), in the layer order the
authors' code gives: mnist_bn_tf2 (model1.py: 3x [Conv2D 3x3 valid + ReLU,
BatchNorm eps 1e-3] with 2x2 max pools after the first two, Flatten, Dense
128 ReLU, Dense 10 softmax), digit_tflite_tf2 (Dense 100 ReLU, Dense 10
sigmoid; also evaluated from its TFLite twin's own buffers, read by
tflite_file.py), stock_lstm_tf2 (four Keras LSTMs of 50, 60, 80 and 120
units returning sequences, gates i, f, c, o, recurrent activation sigmoid,
activation ReLU as its cells hold; then Dense 1 on every step).

    tf2_saved_model_refs.py make SAVEDMODEL_DIR OUT
    tf2_saved_model_refs.py damage SRC_DIR OUT_DIR KIND KEY
    tf2_saved_model_refs.py iris SAVEDMODEL_DIR OUT

make writes OUT/<model>_in.npy and OUT/<model>_want.npy (and
digit_tflite_want.npy); damage copies a SavedModel with checkpoint key KEY
missing, of another shape or dtype, or with no variables/ at all. iris
writes serialized tf.Examples of iris.csv rows for iris_tf1's classify
signature (ParseExample, the MLP, TopKV2, a string table) with the scores
numpy gives (saved_model_refs.iris, from the checkpoint) and the class names
in score order (names in iris.csv's order of first appearance), and broken
examples."""
import os
import shutil
import struct
import sys

import numpy as np

import checkpoint_files as ck
import saved_model_refs
import tflite_file

ATTR = "/.ATTRIBUTES/VARIABLE_VALUE"


def weights(prefix):
    return {k[:-len(ATTR)] if k.endswith(ATTR) else k: v.astype(np.float64)
            for k, v in ck.read_bundle(prefix).items() if v.dtype != object}


def conv2d_valid(x, k, b):
    """NHWC x, HWIO k, stride 1, no padding."""
    kh, kw = k.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for dy in range(kh):
        for dx in range(kw):
            out += np.einsum("nhwc,co->nhwo", x[:, dy:dy + oh, dx:dx + ow, :], k[dy, dx])
    return out + b


def max_pool_2x2(x):
    n, h, w, c = x.shape
    h, w = h // 2, w // 2
    return x[:, :2 * h, :2 * w, :].reshape(n, h, 2, w, 2, c).max(axis=(2, 4))


def batch_norm(x, w, layer, eps=1e-3):
    p = "layer_with_weights-%d/" % layer
    return (x - w[p + "moving_mean"]) / np.sqrt(w[p + "moving_variance"] + eps) * w[p + "gamma"] + w[p + "beta"]


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def relu(z):
    return np.maximum(z, 0)


def mnist_bn(w, x):
    def layer(i, name):
        return w["layer_with_weights-%d/%s" % (i, name)]
    h = batch_norm(relu(conv2d_valid(x, layer(0, "kernel"), layer(0, "bias"))), w, 1)
    h = max_pool_2x2(h)
    h = batch_norm(relu(conv2d_valid(h, layer(2, "kernel"), layer(2, "bias"))), w, 3)
    h = max_pool_2x2(h)
    h = batch_norm(relu(conv2d_valid(h, layer(4, "kernel"), layer(4, "bias"))), w, 5)
    h = relu(h.reshape(h.shape[0], -1) @ layer(6, "kernel") + layer(6, "bias"))
    return softmax(h @ layer(7, "kernel") + layer(7, "bias"))


def digit(w, x):
    h = relu(x @ w["layer_with_weights-0/kernel"] + w["layer_with_weights-0/bias"])
    return sigmoid(h @ w["layer_with_weights-1/kernel"] + w["layer_with_weights-1/bias"])


def lstm(x, kernel, recurrent, bias):
    """Keras LSTM over x [N,T,D], returning every step's h [N,T,U]."""
    units = recurrent.shape[0]
    h = np.zeros((x.shape[0], units))
    c = np.zeros_like(h)
    out = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * units:(k + 1) * units] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * relu(g)
        h = sigmoid(o) * relu(c)
        out.append(h)
    return np.stack(out, axis=1)


def stock_lstm(w, x):
    h = x
    for layer in range(4):
        h = lstm(h, *(w["variables/%d" % (3 * layer + k)] for k in range(3)))
    return h @ w["layer_with_weights-4/kernel"] + w["layer_with_weights-4/bias"]


def damage(src, out, kind, key):
    shutil.copytree(src, out)
    for root, _, files in os.walk(out):  # the shared test data is read-only
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    variables = os.path.join(out, "variables")
    tensors = ck.read_bundle(os.path.join(variables, "variables"))
    shutil.rmtree(variables)
    if kind == "no_variables":
        return
    if kind == "missing_key":
        del tensors[key]
    elif kind == "wrong_shape":
        tensors[key] = tensors[key][..., :-1].copy()
    elif kind == "wrong_dtype":
        tensors[key] = tensors[key].astype(np.float64)
    os.makedirs(variables)
    ck.write_bundle(os.path.join(variables, "variables"), tensors)


def tf_example(features):
    """A serialized tf.Example: name -> ("float"|"int64", values), packed."""
    entries = b""
    for name, (kind, values) in features.items():
        packed = struct.pack("<%df" % len(values), *values) if kind == "float" else b"".join(
            ck.varint(v) for v in values)
        feature = ck.field_bytes(2 if kind == "float" else 3, ck.field_bytes(1, packed))
        entries += ck.field_bytes(1, ck.field_bytes(1, name.encode()) + ck.field_bytes(2, feature))
    return ck.field_bytes(1, entries)


def iris_examples(sm, out):
    rows = [line.strip().split(",") for line in open(os.path.join(sm, "iris_tf1", "iris.csv")) if line.strip()]
    names = []
    for row in rows:
        if row[4] not in names:
            names.append(row[4])
    w = saved_model_refs.weights(os.path.join(sm, "iris_tf1", "1", "variables", "variables"))
    for i in (0, 50, 100, 149):
        x = np.array([float(v) for v in rows[i][:4]], np.float32)
        with open(os.path.join(out, "iris_ex%d.bin" % i), "wb") as f:
            f.write(tf_example({"x": ("float", x.tolist())}))
        p = saved_model_refs.iris(w, x.astype(np.float64)[None])[0]
        order = sorted(range(3), key=lambda k: (-p[k], k))
        np.save(os.path.join(out, "iris_ex%d_scores.npy" % i), p[order][None].astype(np.float32))
        with open(os.path.join(out, "iris_ex%d_classes.txt" % i), "w") as f:
            f.write("classes: string [1,3] %s\n" % " ".join('"%s"' % names[k] for k in order))
    broken = {"bad_wire": b"\x0a\xff\x01", "missing": tf_example({"y": ("float", [1.0, 2.0, 3.0, 4.0])}),
              "int": tf_example({"x": ("int64", [5, 3, 1, 0])}), "short": tf_example({"x": ("float", [5.1, 3.5])})}
    for name, data in broken.items():
        with open(os.path.join(out, "iris_%s.bin" % name), "wb") as f:
            f.write(data)


def make(sm, out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    models = (("mnist_bn_tf2", "mnist_bn_tf2/variables/variables", mnist_bn, (2, 28, 28, 1)),
              ("digit_tflite_tf2", "digit_tflite_tf2/saved_model/variables/variables", digit, (4, 784)),
              ("stock_lstm_tf2", "stock_lstm_tf2/variables/variables", stock_lstm, (2, 100, 1)))
    for name, prefix, model, shape in models:
        x = rng.random(shape).astype(np.float32)
        np.save(os.path.join(out, name + "_in.npy"), x)
        want = model(weights(os.path.join(sm, prefix)), x.astype(np.float64))
        np.save(os.path.join(out, name + "_want.npy"), want.astype(np.float32))
        if name == "digit_tflite_tf2":
            lite = tflite_file.evaluate(os.path.join(sm, "digit_tflite_tf2/tflite_model.tflite"), x.astype(np.float64))
            np.save(os.path.join(out, "digit_tflite_want.npy"), lite.astype(np.float32))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "iris":
        iris_examples(sys.argv[2], sys.argv[3])
    else:
        damage(*sys.argv[2:6])
