"""test_tflite_interpreter.py - tfpi.interpreter.Interpreter on .tflite
files, as tflite_runtime's: the details as the file gives them (tensor
indices, shape and shape_signature, per-tensor and per-channel
quantization with quantized_dimension), outputs against Arm NN's (the
references in ../shared/testdata/tflite) and numpy, resize_tensor_input on
a dynamic batch, get_signature_list and get_signature_runner from the
file's SignatureDefs, tensor() views, model_content, a quantized model's
uint8 input when its kernels are compiled in, and the Edge TPU model's
error. Prints "ok"/"FAIL" lines and "N passed, N failed"."""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from checks import check, expect_error, run_groups, summary  # noqa: E402

import tflite_file  # noqa: E402
from tfpi.interpreter import Interpreter  # noqa: E402

TD = os.environ.get("TFPI_TESTDATA", "../shared/testdata")
TL = os.path.join(TD, "tflite")
FASHION = os.path.join(TL, "fashion_cnn_float", "model_no_quant.tflite")
FASHION_INT8 = os.path.join(TL, "fashion_cnn_int8_floatio", "model.tflite")
MNIST = os.path.join(TL, "mnist_dense_float", "mnist.tflite")
DIGIT = os.path.join(TD, "savedmodel", "digit_tflite_tf2", "tflite_model.tflite")
CHESS = os.path.join(TL, "chess_effnet_int8", "model.tflite")


def relative(got, want):
    floor = np.abs(want).max() * 1e-3 + 1e-30
    return float((np.abs(got.astype(np.float64) - want) / np.maximum(np.abs(want), floor)).max())


def test_float_models():
    for path, folder in ((FASHION, "fashion_cnn_float"), (MNIST, "mnist_dense_float")):
        interpreter = Interpreter(model_path=path, num_threads=1)
        interpreter.allocate_tensors()
        i, o = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
        x = np.load(os.path.join(TL, folder, "input_0.npy"))
        interpreter.set_tensor(i["index"], x)
        interpreter.invoke()
        got, want = interpreter.get_tensor(o["index"]), np.load(os.path.join(TL, folder, "ref_armnn_0.npy"))
        check("%s through the Interpreter matches Arm NN within 1e-5 relative (%.2g)" % (folder, relative(got, want)),
              got.shape == want.shape and relative(got, want) <= 1e-5)


def test_details():
    interpreter = Interpreter(model_path=FASHION_INT8)  # details need no kernel: nothing runs
    inp, out = interpreter.get_input_details(), interpreter.get_output_details()
    check("input details: the file's index, name, shape, shape_signature and dtype",
          inp[0]["index"] == 0 and inp[0]["name"] == "serving_default_input_1:0" and
          list(inp[0]["shape"]) == [1, 28, 28, 1] and list(inp[0]["shape_signature"]) == [-1, 28, 28, 1] and
          inp[0]["dtype"] == np.float32, str(inp))
    check("output details: tensor 14, float32 [1, 10]",
          out[0]["index"] == 14 and list(out[0]["shape"]) == [1, 10] and out[0]["dtype"] == np.float32, str(out))
    details = {d["index"]: d for d in interpreter.get_tensor_details()}
    q = details[8]
    check("a per-tensor int8 tensor: quantization (scale, zero point) and its parameters",
          len(details) == 15 and q["dtype"] == np.int8 and abs(q["quantization"][0] - 0.00392156886) < 1e-9 and
          q["quantization"][1] == -128 and list(q["quantization_parameters"]["zero_points"]) == [-128], str(q))
    w = details[5]
    params = w["quantization_parameters"]
    check("a per-channel filter: six scales along quantized_dimension 0, quantization (0.0, 0)",
          w["quantization"] == (0.0, 0) and params["scales"].shape == (6,) and params["scales"].dtype == np.float32
          and params["quantized_dimension"] == 0 and list(params["zero_points"]) == [0] * 6, str(w))
    check("get_signature_list gives the file's SignatureDef",
          interpreter.get_signature_list() == {"serving_default": {"inputs": ["input_1"], "outputs": ["dense"]}},
          str(interpreter.get_signature_list()))
    plain = Interpreter(model_path=MNIST)
    check("a file without SignatureDefs has none", plain.get_signature_list() == {}, str(plain.get_signature_list()))


def test_signatures_and_resize():
    x = np.random.default_rng(7).random((3, 784)).astype(np.float32)
    want = tflite_file.evaluate(DIGIT, x.astype(np.float64))
    interpreter = Interpreter(model_content=open(DIGIT, "rb").read())
    runner = interpreter.get_signature_runner()
    got = runner(dense_input=x)
    check("get_signature_runner() runs the SignatureDef by keys, batch 3 (shape_signature [-1, 784])",
          set(got) == {"dense_1"} and np.abs(got["dense_1"] - want).max() < 1e-5, str(got)[:200])
    check("the runner's details are keyed by the signature's names",
          list(runner.get_input_details()) == ["dense_input"] and
          list(runner.get_output_details()["dense_1"]["shape_signature"]) == [-1, 10])
    index = interpreter.get_input_details()[0]["index"]
    interpreter.resize_tensor_input(index, [3, 784])
    interpreter.allocate_tensors()
    interpreter.tensor(index)()[...] = x  # writing into the input's view sets it
    interpreter.invoke()
    out = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    check("resize_tensor_input to batch 3, tensor() view, invoke", out.shape == (3, 10) and
          np.abs(out - want).max() < 1e-5, str(out.shape))
    expect_error("resizing a size the file fixes is a ValueError", "only those identified by -1 can change",
                 lambda: interpreter.resize_tensor_input(index, [3, 785]), ValueError)
    expect_error("an unknown signature key is a ValueError", "not found",
                 lambda: interpreter.get_signature_runner("train"), ValueError)
    buf = open(DIGIT, "rb").read()
    model = tflite_file.Table(buf, struct.unpack_from("<I", buf, 0)[0])
    graph, buffers = model.tables(2)[0], [b.bytes(0) for b in model.tables(4)]
    intermediate = next(t for t, tensor in enumerate(graph.tables(0)) if not buffers[tensor.scalar(2, "I")] and
                        t not in graph.vector(1, "i") + graph.vector(2, "i"))
    expect_error("get_tensor of an intermediate tensor says what tfpi keeps", "only the model's inputs and outputs",
                 lambda: interpreter.get_tensor(intermediate), ValueError)


def test_quantized_input():
    interpreter = Interpreter(model_path=CHESS)
    interpreter.allocate_tensors()
    i = interpreter.get_input_details()[0]
    check("a uint8 model's input: uint8 [1, 224, 224, 3] with the file's scale",
          i["dtype"] == np.uint8 and list(i["shape"]) == [1, 224, 224, 3] and abs(i["quantization"][0] - 0.0037040731) < 1e-9,
          str(i))
    interpreter.set_tensor(i["index"], np.load(os.path.join(TL, "chess_effnet_int8", "input_0.npy")))
    try:
        interpreter.invoke()
    except RuntimeError as e:
        check("chess_effnet_int8 waits for its kernels: %s" % str(e)[-80:], "does not implement" in str(e), str(e))
        return
    got = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    want = np.load(os.path.join(TL, "chess_effnet_int8", "ref_armnn_0.npy"))
    # Within 4 steps and the same top class: tfpi follows TFLite's integer rules, Arm NN rounds some of
    # the stem convolution's outputs the other way and EfficientNet-lite amplifies it (tests/cli/test_tflite.sh).
    check("chess_effnet_int8 fed uint8 pixels: within 4 output steps of Arm NN, the same top class",
          got.dtype == np.uint8 and np.abs(got.astype(int) - want.astype(int)).max() <= 4 and
          np.argmax(got) == np.argmax(want), "%s %s" % (got, want))


def test_constants():
    """get_tensor on a weight gives the file's values, before and after
    invoke() (when the convolutions run from packed copies of them, the
    file's pages given back), and after a resize plans again."""
    buf = open(FASHION_INT8, "rb").read()
    model = tflite_file.Table(buf, struct.unpack_from("<I", buf, 0)[0])
    buffers = [b.bytes(0) for b in model.tables(4)]
    in_file = {t: buffers[tensor.scalar(2, "I")] for t, tensor in enumerate(model.tables(2)[0].tables(0))}
    interpreter = Interpreter(model_path=FASHION_INT8)
    constants = [d for d in interpreter.get_tensor_details() if in_file[d["index"]]]
    x = np.load(os.path.join(TL, "fashion_cnn_int8_floatio", "input_0.npy"))

    def same_as_file(when):
        bad = [d["name"] for d in constants
               if not np.array_equal(interpreter.get_tensor(d["index"]),
                                     np.frombuffer(in_file[d["index"]], d["dtype"]).reshape(d["shape"]))]
        check("get_tensor of the %d constants (an int8 filter among them) %s: the file's values"
              % (len(constants), when), not bad and any(d["dtype"] == np.int8 for d in constants), str(bad))

    same_as_file("before allocate_tensors")
    interpreter.allocate_tensors()
    index = interpreter.get_input_details()[0]["index"]
    interpreter.set_tensor(index, x)
    interpreter.invoke()
    same_as_file("after invoke")
    interpreter.resize_tensor_input(index, [2, 28, 28, 1])
    interpreter.allocate_tensors()
    interpreter.set_tensor(index, np.concatenate([x, x]))
    interpreter.invoke()
    same_as_file("after a resize and invoke")
    expect_error("a constant's array is read-only", "read-only",
                 lambda: interpreter.tensor(constants[0]["index"])().fill(0), ValueError)


def test_edge_tpu():
    expect_error("an Edge TPU model is a ValueError naming the Coral Edge TPU and what to use",
                 "Coral Edge TPU.*use the CPU .tflite it was compiled from",
                 lambda: Interpreter(model_path=os.path.join(TL, "tm_edgetpu_uint8", "model_edgetpu.tflite")),
                 ValueError)


run_groups(test_float_models, test_details, test_signatures_and_resize, test_constants, test_quantized_input,
           test_edge_tpu)
summary()
