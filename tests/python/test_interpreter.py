"""test_interpreter.py - tfpi.interpreter.Interpreter as a drop-in for
tflite_runtime's: the keys and meanings of the details, every method, the
errors tflite scripts catch (ValueError for bad arguments, RuntimeError for
a failed run), signatures, delegates, quantized outputs as numpy integers,
and bad input (wrong dtypes, shapes, indices, a closed interpreter,
non-contiguous arrays, huge shapes) as Python exceptions, never a crash;
also run under the sanitizers by `make test SANITIZE=1`. Values are checked
against tfpi.Session (itself checked against label_image and TensorFlow's
outputs by test_tfpi.py) and numpy. Prints "ok"/"FAIL" lines and
"N passed, N failed"."""
import gc
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import TMP, check, expect_error, run_groups, summary, write_graph  # noqa: E402
from graphdef import DType, Node, Shape, TypedArray  # noqa: E402

import tfpi  # noqa: E402
import tfpi.interpreter as tflite  # noqa: E402
from tfpi.interpreter import Interpreter  # noqa: E402

TD = os.environ.get("TFPI_TESTDATA", "../shared/testdata")
MODEL = os.path.join(TD, "mobilenet_v1_0.25_224", "frozen_graph.pb")
SSD = os.path.join(TD, "detection", "ssd_aiy", "frozen_inference_graph.pb")
OUTPUT = "MobilenetV1/Predictions/Reshape_1"
IMAGE = os.path.join(TD, "images", "grace_hopper.jpg")
TFLITE_KEYS = {"name", "index", "shape", "shape_signature", "dtype", "quantization", "quantization_parameters",
               "sparsity_parameters"}


def mobilenet_input():
    return tfpi.image_to_input(tfpi.load_image(IMAGE), 224, 224)[None]


def reference_scores(x):
    return tfpi.Session(tfpi.Graph(MODEL), num_threads=1).run({"input": x}, OUTPUT)


def test_details():
    interpreter = Interpreter(model_path=MODEL)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details(), interpreter.get_output_details()
    check("input and output details have exactly tflite's keys",
          len(inp) == 1 and len(out) == 1 and set(inp[0]) == TFLITE_KEYS and set(out[0]) == TFLITE_KEYS,
          "%s %s" % (inp, out))
    i, o = inp[0], out[0]
    check("input details: name, index 0, int32 shape arrays, numpy dtype, no quantization",
          i["name"] == "input" and i["index"] == 0 and i["shape"].dtype == np.int32 and
          list(i["shape"]) == [1, 224, 224, 3] and list(i["shape_signature"]) == [1, 224, 224, 3] and
          i["dtype"] == np.float32 and i["quantization"] == (0.0, 0) and
          i["quantization_parameters"]["scales"].size == 0 and i["sparsity_parameters"] == {}, str(i))
    check("output details after allocate_tensors: name, index 1, dtype, shape [1, 1001]",
          o["name"] == OUTPUT and o["index"] == 1 and o["dtype"] == np.float32 and list(o["shape"]) == [1, 1001],
          str(o))
    check("get_tensor_details lists the inputs then the outputs",
          [d["index"] for d in interpreter.get_tensor_details()] == [0, 1] and
          interpreter.get_tensor_details()[1]["name"] == OUTPUT)
    before = Interpreter(model_path=MODEL).get_output_details()[0]
    check("an output's dtype is known before allocate_tensors() and invoke()", before["dtype"] == np.float32,
          str(before))

    ssd = Interpreter(model_path=SSD)
    names = [d["name"] for d in ssd.get_output_details()]
    check("a detection export lists its four real outputs (no Assert, no cond switches), in TFLite's order",
          names == ["detection_boxes", "detection_classes", "detection_scores", "num_detections"], str(names))
    d = ssd.get_input_details()[0]
    check("image_tensor [?,?,?,3]: shape is the size the graph resizes to (256x256), shape_signature keeps -1",
          list(d["shape"]) == [1, 256, 256, 3] and list(d["shape_signature"]) == [-1, -1, -1, 3] and
          d["dtype"] == np.uint8, str(d))


def test_invoke():
    x = mobilenet_input()
    want = reference_scores(x)
    interpreter = Interpreter(model_path=MODEL, num_threads=1)
    interpreter.allocate_tensors()
    interpreter.set_tensor(0, x)
    interpreter.invoke()
    got = interpreter.get_tensor(1)
    check("set_tensor, invoke, get_tensor: the session's scores", np.array_equal(got, want))
    got[0, 0] = 123.0
    check("get_tensor returns a copy", interpreter.get_tensor(1)[0, 0] != 123.0)

    with open(MODEL, "rb") as f:
        content = f.read()
    for threads in (None, 0, -1, 2):
        other = Interpreter(model_content=content, num_threads=threads)
        other.allocate_tensors()
        other.tensor(0)()[0] = x[0]  # tflite's raw-buffer way of setting an input
        other.invoke()
        check("model_content, num_threads=%r, input written through tensor(0)()" % threads,
              np.array_equal(other.tensor(1)(), want))

    flipped = np.ascontiguousarray(x[:, :, ::-1, :])
    view = flipped[:, :, ::-1, :]  # the same values, not contiguous
    interpreter.set_tensor(0, view)
    interpreter.invoke()
    check("a non-contiguous array feeds its values", not view.flags["C_CONTIGUOUS"] and
          np.array_equal(interpreter.get_tensor(1), want))

    runner = interpreter.get_signature_runner()
    result = runner(input=x)
    check("get_signature_list and the frozen graph's serving_default runner",
          interpreter.get_signature_list() == {"serving_default": {"inputs": ["input"], "outputs": [OUTPUT]}} and
          list(result) == [OUTPUT] and np.array_equal(result[OUTPUT], want) and
          list(runner.get_input_details()["input"]["shape"]) == [1, 224, 224, 3])
    expect_error("a signature runner with an unknown input key: ValueError", "Invalid Input name",
                 lambda: runner(image=x), ValueError)
    expect_error("an unknown signature key: ValueError", "not found",
                 lambda: interpreter.get_signature_runner("predict"), ValueError)
    interpreter.reset_all_variables()

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        delegated = tflite.Interpreter(model_path=MODEL, experimental_delegates=[tflite.load_delegate(
            "libedgetpu.so.1")])
    delegated.allocate_tensors()
    delegated.set_tensor(0, x)
    delegated.invoke()
    check("an Edge TPU delegate is ignored with a warning; the model runs on the CPU",
          any("libedgetpu" in str(w.message) for w in caught) and np.array_equal(delegated.get_tensor(1), want))


def test_resize():
    ssd = Interpreter(model_path=SSD)
    image = np.load(os.path.join(TD, "detection", "ssd_aiy", "image_11.image_tensor.npy"))
    ssd.resize_tensor_input(0, image.shape, strict=True)
    ssd.allocate_tensors()
    ssd.set_tensor(0, image)
    ssd.invoke()
    want = tfpi.Session(tfpi.Graph(SSD)).run({"image_tensor": image}, ["detection_boxes", "detection_classes"])
    check("resize_tensor_input(strict=True) of the unknown sizes, then the picture's own size",
          list(ssd.get_input_details()[0]["shape"]) == [1, 187, 250, 3] and
          np.array_equal(ssd.get_tensor(0), image) and np.array_equal(ssd.get_tensor(1), want[0]) and
          np.array_equal(ssd.get_tensor(2), want[1]))
    expect_error("resize_tensor_input(strict=True) of a known size: ValueError", "strict",
                 lambda: ssd.resize_tensor_input(0, [1, 300, 300, 4], strict=True), ValueError)

    m = Interpreter(model_path=MODEL)
    expect_error("resize_tensor_input of a size the frozen graph declares: ValueError naming its shape",
                 r"input input has shape \[1, 224, 224, 3\]", lambda: m.resize_tensor_input(0, [2, 224, 224, 3]),
                 ValueError)
    mnist = Interpreter(model_path=os.path.join(TD, "mnist", "mnist.pb"))
    mnist.resize_tensor_input(0, [3, 784])
    mnist.allocate_tensors()
    rows = np.random.default_rng(1).uniform(-1, 1, (3, 784)).astype(np.float32)
    mnist.set_tensor(0, rows)
    mnist.invoke()
    got = mnist.get_tensor(1)
    want = tfpi.Session(tfpi.Graph(os.path.join(TD, "mnist", "mnist.pb"))).run({"input": rows}, "softmax")
    check("resize_tensor_input of MNIST's unknown batch to 3",
          got.shape == (3, 10) and np.array_equal(got, want) and
          list(mnist.get_output_details()[0]["shape"]) == [3, 10] and
          list(mnist.get_input_details()[0]["shape_signature"]) == [-1, 784], repr(got.shape))


def test_bad_input():
    x = mobilenet_input()
    m = Interpreter(model_path=MODEL)
    m.allocate_tensors()
    cases = [
        ("set_tensor of float64 into float32", "Got value of type float64 but expected type float32",
         lambda: m.set_tensor(0, x.astype(np.float64))),
        ("set_tensor of a list (float64)", "expected type float32", lambda: m.set_tensor(0, x.tolist())),
        ("set_tensor of the wrong size", "Dimension mismatch. Got 200 but expected 224 for dimension 1",
         lambda: m.set_tensor(0, np.zeros((1, 200, 224, 3), np.float32))),
        ("set_tensor of the wrong rank", "Dimension mismatch. Got 3 but expected 4",
         lambda: m.set_tensor(0, np.zeros((224, 224, 3), np.float32))),
        ("set_tensor of strings", "expected type float32", lambda: m.set_tensor(0, np.array([b"x"]))),
        ("set_tensor on an output index", "is an output", lambda: m.set_tensor(1, x)),
        ("set_tensor on index 7", "Invalid tensor index 7", lambda: m.set_tensor(7, x)),
        ("get_tensor of index -1", "Invalid tensor index -1", lambda: m.get_tensor(-1)),
        ("get_tensor of index '0'", "Invalid tensor index", lambda: m.get_tensor("0")),
        ("get_tensor of subgraph 1", "subgraph", lambda: m.get_tensor(1, 1)),
        ("resize_tensor_input with a negative size", "negative", lambda: m.resize_tensor_input(0, [1, -5, 2, 3])),
        ("resize_tensor_input to 9 dimensions", "at most 8", lambda: m.resize_tensor_input(0, [1] * 9)),
        ("resize_tensor_input of text", "list of ints", lambda: m.resize_tensor_input(0, ["a"])),
        ("both model_path and model_content", "both", lambda: Interpreter(model_path=MODEL, model_content=b"x")),
        ("neither model_path nor model_content", "either", lambda: Interpreter()),
        ("num_threads='2'", "should be int", lambda: Interpreter(model_path=MODEL, num_threads="2")),
        ("num_threads=-2", ">= -1", lambda: Interpreter(model_path=MODEL, num_threads=-2)),
        ("a missing model file", "no_such.pb", lambda: Interpreter(model_path=os.path.join(TMP, "no_such.pb"))),
        ("model_content that is no model", "not a TensorFlow GraphDef",
         lambda: Interpreter(model_content=bytes(range(256)) * 8)),
    ]
    for name, pattern, fn in cases:
        expect_error(name + ": ValueError", pattern, fn, ValueError)

    huge = Interpreter(model_path=os.path.join(TD, "mnist", "mnist.pb"))
    huge.resize_tensor_input(0, [2 ** 62, 784])
    expect_error("a huge shape: allocate_tensors refuses it against the memory budget (ValueError)",
                 "over the memory budget", huge.allocate_tensors, ValueError)
    broadcast = np.broadcast_to(np.float32(0), (1 << 20, 224, 224, 3))  # a 600 GB view of one float
    session = tfpi.Session(tfpi.Graph(MODEL), max_memory=1 << 30)
    expect_error("Session.run of a huge broadcast view: refused before it is copied (ValueError)",
                 "over the memory budget of 1073741824 bytes", lambda: session.run({"input": broadcast}, OUTPUT),
                 ValueError)
    m.set_tensor(0, x)
    m.invoke()
    check("the interpreter still runs after all these errors", np.array_equal(m.get_tensor(1), reference_scores(x)))

    view = m.tensor(1)
    runner = m.get_signature_runner()
    m.close()
    for name, fn in (("invoke", m.invoke), ("get_tensor", lambda: m.get_tensor(1)),
                     ("set_tensor", lambda: m.set_tensor(0, x)), ("get_input_details", m.get_input_details),
                     ("a tensor() function", view), ("a signature runner", lambda: runner(input=x))):
        expect_error("a closed interpreter: %s raises ValueError" % name, "closed", fn, ValueError)
    kept = Interpreter(model_path=MODEL)
    kept.allocate_tensors()
    kept.set_tensor(0, x)
    kept.invoke()
    scores = kept.tensor(1)
    del kept
    gc.collect()
    check("a tensor() function outlives its dropped interpreter", np.array_equal(scores(), reference_scores(x)))


def test_errors_and_quantized():
    """A failed run is a RuntimeError; quantized outputs are numpy ints."""
    assert_graph = write_graph("assert.pb", [
        Node("x", "Placeholder", [], {"dtype": DType(3), "shape": Shape([])}),
        Node("ten", "Const", [], {"dtype": DType(3), "value": np.array(10, np.int32)}),
        Node("small", "Less", ["x", "ten"], {"T": DType(3)}),
        Node("check", "Assert", ["small", "x"], {"T": [DType(3)]}),
        Node("y", "Identity", ["x", "^check"], {"T": DType(3)}),
    ])
    a = Interpreter(model_path=assert_graph)
    a.allocate_tensors()
    a.set_tensor(0, np.array(3, np.int32))
    a.invoke()
    check("a graph with an Assert lists its real output only", [d["name"] for d in a.get_output_details()] == ["y"]
          and a.get_tensor(1) == 3)
    a.set_tensor(0, np.array(30, np.int32))
    expect_error("a run that fails (a false Assert): RuntimeError with TensorFlow's message, a TfpiError",
                 "assertion failed", a.invoke, RuntimeError)
    try:
        a.invoke()
    except RuntimeError as e:
        check("the run error is also a tfpi.TfpiError (not a ValueError)",
              isinstance(e, tfpi.TfpiError) and not isinstance(e, ValueError))
    try:
        Interpreter(model_path=os.path.join(TMP, "missing.pb"))
    except ValueError as e:
        check("a load error is a tfpi.TfpiError and a ValueError, with tfpi's code",
              isinstance(e, tfpi.TfpiError) and e.code_name == "NOT_FOUND")

    nodes, feeds = [], {}
    for tf_type, np_type, values in ((12, np.uint8, [0, 255]), (11, np.int8, [-128, 127]),
                                     (13, np.int32, [-2 ** 31, 7]), (16, np.uint16, [65535, 1]),
                                     (15, np.int16, [-32768, 5])):
        name = "q%d" % tf_type
        nodes += [Node(name, "Placeholder", [], {"dtype": DType(tf_type), "shape": Shape([2])}),
                  Node(name + "_out", "Identity", [name], {"T": DType(tf_type)})]
        feeds[name] = np.array(values, np_type)
    nodes += [Node("f", "Placeholder", [], {"dtype": DType(1), "shape": Shape([4])}),
              Node("lo", "Const", [], {"dtype": DType(1), "value": np.array(0, np.float32)}),
              Node("hi", "Const", [], {"dtype": DType(1), "value": np.array(4, np.float32)}),
              Node("codes", "QuantizeV2", ["f", "lo", "hi"], {"T": DType(12), "mode": "MIN_FIRST"}),
              Node("codes_q", "Identity", ["codes"], {"T": DType(12)}),
              Node("c8", "Const", [], {"dtype": DType(12), "value": TypedArray(np.array([9, 200], np.uint8), 12)}),
              Node("back", "Dequantize", ["c8", "lo", "hi"], {"T": DType(12), "mode": "MIN_FIRST"})]
    path = write_graph("quantized.pb", nodes)
    session = tfpi.Session(tfpi.Graph(path))
    names = [n + "_out" for n in feeds]
    got = session.run(dict(feeds), names)
    check("quint8, qint8, qint32, quint16, qint16 outputs come back as uint8, int8, int32, uint16, int16",
          all(g.dtype == feeds[n[:-4]].dtype and np.array_equal(g, feeds[n[:-4]]) for g, n in zip(got, names)),
          repr(got))
    codes = session.run({"f": np.array([0, 1, 2, 4], np.float32)}, "codes")
    check("QuantizeV2 (MIN_FIRST) codes of [0, 1, 2, 4] in [0, 4]: uint8 [0, 64, 128, 255] (numpy: round(x * 255 / 4))",
          codes.dtype == np.uint8 and list(codes) == list(np.round(np.array([0, 1, 2, 4]) * 255 / 4)), repr(codes))
    q = Interpreter(model_path=path)
    details = {d["name"]: d for d in q.get_input_details() + q.get_output_details()}
    check("Interpreter: a quint8 output's dtype is uint8 before invoke()", details["codes_q"]["dtype"] == np.uint8,
          str(details["codes_q"]))
    check("Interpreter: the quantization of a quint8 tensor from the range its Dequantize reads it with",
          tfpi.interpreter._model_io.quantization(tfpi.Graph(path), "c8") == (4 / 255, 0))
    # Zero points round halves away from zero: [-1, 1] has -min / scale = 127.5 -> 128 (not 127),
    # [-0.99, 1.01] 126.2... -> 126, and [-126.5, 128.5] exactly 126.5 -> 127 (Python's round() gives 126).
    for low, high, zero in ((-1.0, 1.0, 128), (-0.99, 1.01, 126), (-126.5, 128.5, 127)):
        ranged = [Node("c8", "Const", [], {"dtype": DType(12), "value": TypedArray(np.array([9], np.uint8), 12)}),
                  Node("lo", "Const", [], {"dtype": DType(1), "value": np.array(low, np.float32)}),
                  Node("hi", "Const", [], {"dtype": DType(1), "value": np.array(high, np.float32)}),
                  Node("back", "Dequantize", ["c8", "lo", "hi"], {"T": DType(12), "mode": "MIN_FIRST"})]
        got = tfpi.interpreter._model_io.quantization(tfpi.Graph(write_graph("ranged.pb", ranged)), "c8")
        check("Interpreter: the zero point of [%g, %g] is %d" % (low, high, zero), got[1] == zero, str(got))


run_groups(test_details, test_invoke, test_resize, test_bad_input, test_errors_and_quantized)
summary()
