"""test_tfpi.py - the Python module (python/tfpi) against real values: every
dtype and string feeds through small graphs written here (numpy gives the
expected outputs), MobileNet from the file, from bytes, memmapped and
encrypted (the same scores as label_image prints), the image helpers against
TensorFlow's own decoded input, errors raised as TfpiError with tfpi's
message, one session shared by two Python threads, and the tflite-style
Interpreter. Prints "ok"/"FAIL" lines and "N passed, N failed".

Run by tests/cli/test_python.sh with TFPI_LIBRARY, BIN, VERSION and
PYTHONPATH=python set."""
import glob
import os
import re
import subprocess
import sys
import threading
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
from graphdef import DType, Node, Shape  # noqa: E402

import tfpi  # noqa: E402
from checks import TMP, TOOL_ENV, check, run_groups, summary, write_graph  # noqa: E402
from checks import expect_error as expect_any_error  # noqa: E402

BIN = os.environ["BIN"]
TD = os.environ.get("TFPI_TESTDATA", "../shared/testdata")
MODEL = "downloads/models/mobilenet_v1_0.25_224/frozen_graph.pb"
IMAGE = "downloads/images/grace_hopper.jpg"
OUTPUT = "MobilenetV1/Predictions/Reshape_1"


def expect_error(name, pattern, fn, error=tfpi.TfpiError):
    expect_any_error(name, pattern, fn, error)


F32, F64, I32, U8, I16, I8, STR, I64, BOOL, U16, F16 = (DType(n) for n in (1, 2, 3, 4, 5, 6, 7, 9, 10, 17, 19))


def placeholder(name, dtype, dims):
    return Node(name, "Placeholder", [], {"dtype": dtype, "shape": Shape(dims)})


def test_version():
    check("tfpi.version() is the Makefile's VERSION", tfpi.version() == os.environ["VERSION"],
          tfpi.version())


def test_dtypes():
    path = write_graph("dtypes.pb", [
        placeholder("f32", F32, [2, 3]), Node("f32_sq", "Mul", ["f32", "f32"], {"T": F32}),
        placeholder("i32", I32, [4]), Node("i32_sum", "Add", ["i32", "i32"], {"T": I32}),
        placeholder("i64", I64, [3]), Node("i64_sum", "Add", ["i64", "i64"], {"T": I64}),
        placeholder("u8", U8, [2, 2]), Node("u8_same", "Identity", ["u8"], {"T": U8}),
        Node("u8_float", "Cast", ["u8"], {"SrcT": U8, "DstT": F32}),
        placeholder("b", BOOL, [3]), Node("b_not", "LogicalNot", ["b"], {}),
        placeholder("s", STR, [3]), Node("s_same", "Identity", ["s"], {"T": STR}),
        placeholder("f64", F64, [2]), Node("f64_same", "Identity", ["f64"], {"T": F64}),
        placeholder("i16", I16, [2]), Node("i16_same", "Identity", ["i16"], {"T": I16}),
        placeholder("i8", I8, [2]), Node("i8_same", "Identity", ["i8"], {"T": I8}),
        placeholder("u16", U16, [2]), Node("u16_same", "Identity", ["u16"], {"T": U16}),
        placeholder("f16", F16, [2]), Node("f16_same", "Identity", ["f16"], {"T": F16}),
    ])
    graph = tfpi.Graph(path)
    session = tfpi.Session(graph, num_threads=1)
    feeds = {"f32": np.array([[1.5, -2, 3], [0.25, 4, -0.5]], np.float32),
             "i32": np.array([1, -7, 2**30, 3], np.int32),
             "i64": np.array([2**40, -5, 9], np.int64),
             "u8": np.array([[0, 255], [17, 128]], np.uint8),
             "b": np.array([True, False, True]),
             "s": np.array([b"a\x00b", b"", "\u00e9t\u00e9".encode()], dtype=object),
             "f64": np.array([1e300, -0.5]), "i16": np.array([-32768, 7], np.int16),
             "i8": np.array([-128, 5], np.int8), "u16": np.array([65535, 1], np.uint16),
             "f16": np.array([0.5, -65504], np.float16)}
    want = {"f32_sq": feeds["f32"] ** 2, "i32_sum": feeds["i32"] * 2, "i64_sum": feeds["i64"] * 2,
            "u8_same": feeds["u8"], "u8_float": feeds["u8"].astype(np.float32),
            "b_not": ~feeds["b"], "s_same": feeds["s"], "f64_same": feeds["f64"],
            "i16_same": feeds["i16"], "i8_same": feeds["i8"], "u16_same": feeds["u16"],
            "f16_same": feeds["f16"]}
    got = session.run(feeds, list(want))
    for (name, w), g in zip(want.items(), got):
        check("dtype %s: %s -> %s" % (w.dtype, name, g.dtype),
              g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w),
              "got %r, want %r" % (g, w))
    details = {d["name"]: d for d in graph.inputs()}
    check("Graph.inputs() lists every Placeholder with numpy dtype and shape",
          [d["name"] for d in graph.inputs()] == ["f32", "i32", "i64", "u8", "b", "s", "f64", "i16", "i8",
                                                  "u16", "f16"] and
          details["f32"]["dtype"] == np.float32 and details["f32"]["shape"] == (2, 3) and
          details["s"]["dtype"] == object and details["b"]["dtype"] == np.bool_,
          str(graph.inputs()))
    check("Graph.outputs() lists the nodes nothing reads", graph.outputs() == list(want),
          str(graph.outputs()))
    # Strings given as bytes arrays ('S'), str arrays ('U') and Python lists all feed.
    for label, value in (("numpy 'S' array", np.array([b"x", b"yy", b"zzz"])),
                         ("numpy 'U' array", np.array(["x", "yy", "zzz"])),
                         ("list of str", ["x", "yy", "zzz"])):
        out = session.run({"s": value}, "s_same")
        check("string feed from a %s" % label, list(out) == [b"x", b"yy", b"zzz"], repr(out))
    got = session.run({"i32": [1.9, -2.5, 3, 4], "f32": np.arange(6.0).reshape(2, 3), "u8": [[1, 2], [3, 250]]},
                      ["i32_sum", "f32_sq", "u8_same"])
    check("feeds are cast to the placeholder's dtype as TensorFlow's session.run does (a list, float64)",
          got[0].dtype == np.int32 and list(got[0]) == [2, -4, 6, 8] and got[1].dtype == np.float32 and
          np.array_equal(got[1], np.arange(6.0).reshape(2, 3) ** 2) and got[2].dtype == np.uint8 and
          got[2][1, 1] == 250, repr(got))
    expect_error("a feed that cannot be cast names the feed (ValueError)", "'i32'",
                 lambda: session.run({"i32": ["a", "b", "c", "d"]}, "i32_sum"), ValueError)
    expect_error("a Python int the placeholder's type cannot hold (TypeError, as TensorFlow)", "300",
                 lambda: session.run({"u8": 300}, "u8_same"), TypeError)
    expect_error("a feed of the wrong shape: TensorFlow's message (ValueError)",
                 r"Cannot feed value of shape \(3,\) for Tensor 'i32', which has shape \(4,\)",
                 lambda: session.run({"i32": [1, 2, 3]}, "i32_sum"), ValueError)
    expect_error("a numpy dtype tfpi has no type for", "complex",
                 lambda: session.run({"f32": np.zeros((2, 3), np.complex64)}, "f32_sq"), TypeError)


def test_string_decode():
    path = write_graph("decode.pb", [
        placeholder("contents", STR, []), Node("decoded", "DecodeJpeg", ["contents"], {"channels": 3})])
    session = tfpi.Session(tfpi.Graph(path))
    with open(IMAGE, "rb") as f:
        data = f.read()
    pixels = session.run({"contents": data}, "decoded")
    check("a string scalar feed: DecodeJpeg in the graph equals tfpi.decode_image and load_image",
          np.array_equal(pixels, tfpi.decode_image(data)) and
          np.array_equal(pixels, tfpi.load_image(IMAGE)) and pixels.shape == (606, 517, 3),
          str(pixels.shape))
    expect_error("a string feed that is not an image: the node is named", r"node 'decoded' \(DecodeJpeg\)",
                 lambda: session.run({"contents": b"not a jpeg"}, "decoded"))
    small = tfpi.Session(tfpi.Graph(path), max_memory=100000)
    expect_error("max_memory: a decoded image over the budget names node, shape and bytes",
                 r"node 'decoded' \(DecodeJpeg\).*\[606,517,3\] needs 939906 bytes.*budget of 100000 bytes",
                 lambda: small.run({"contents": data}, "decoded"))
    forced = tfpi.Session(tfpi.Graph(path), cpu="a53")
    check("cpu='a53': a session on the forced kernels decodes the same pixels",
          np.array_equal(forced.run({"contents": data}, "decoded"), pixels))
    expect_error("cpu: an unknown core family is named in the error", r"z80 is not a CPU",
                 lambda: tfpi.Session(tfpi.Graph(path), cpu="z80"))


def label_image_top5(extra=()):
    out = subprocess.run([os.path.join(BIN, "label_image"), "--top_k=5", *extra],
                         capture_output=True, text=True, check=True, env=TOOL_ENV).stdout
    return [(int(m.group(1)), float(m.group(2)))
            for m in re.finditer(r"\((\d+)\): ([0-9.]+)", out)]


def same_top5(scores, want):
    top = np.argsort(-scores.reshape(-1))[:5]
    return len(want) == 5 and all(int(i) == w[0] and abs(scores.reshape(-1)[i] - w[1]) <= 1e-6
                                  for i, w in zip(top, want))


def mobilenet_input(path=IMAGE):
    return tfpi.image_to_input(tfpi.load_image(path), 224, 224, 127.5, 127.5)[None]


def test_mobilenet():
    want = label_image_top5()
    x = mobilenet_input()
    for threads in (1, 2):
        scores = tfpi.Session(tfpi.Graph(MODEL), num_threads=threads).run({"input": x}, OUTPUT)
        check("MobileNet, %d thread(s): the top 5 and scores label_image prints" % threads,
              same_top5(scores, want), "got %s, want %s" % (np.argsort(-scores[0])[:5], want))
    with open(MODEL, "rb") as f:
        data = f.read()
    reference = tfpi.Session(tfpi.Graph(MODEL), num_threads=1).run({"input": x}, OUTPUT)
    from_bytes = tfpi.Session(tfpi.Graph(data=data), num_threads=1).run({"input": x}, OUTPUT)
    check("Graph(data=bytes) gives the file's outputs", np.array_equal(from_bytes, reference))

    mmapped = os.path.join(TMP, "mobilenet_mmap.pb")
    subprocess.run([os.path.join(BIN, "convert_graphdef_memmapped_format"), "--in_graph=" + MODEL,
                    "--out_graph=" + mmapped], check=True, capture_output=True, env=TOOL_ENV)
    got = tfpi.Session(tfpi.Graph(mmapped), num_threads=1).run({"input": x}, OUTPUT)
    check("a memmapped model gives the same outputs", np.array_equal(got, reference))

    encrypted = os.path.join(TMP, "mobilenet.enc")
    subprocess.run([os.path.join(BIN, "encrypt_model"), "--in_graph=" + MODEL,
                    "--out_graph=" + encrypted, "--key=s3cret"], check=True, capture_output=True, env=TOOL_ENV)
    key = np.frombuffer(b"s3cret", np.uint8)

    def xor_in_place(buf):
        view = np.frombuffer(buf, np.uint8)
        view ^= np.resize(key, view.size)

    with open(encrypted, "rb") as f:
        secret = f.read()
    got = tfpi.Session(tfpi.Graph(data=secret, decrypt=xor_in_place), num_threads=1).run(
        {"input": x}, OUTPUT)
    check("an encrypted model with a decrypt callback (in place)", np.array_equal(got, reference))
    got = tfpi.Session(tfpi.Graph(encrypted, decrypt=lambda b: bytes(
        np.frombuffer(b, np.uint8) ^ np.resize(key, len(b)))), num_threads=1).run({"input": x}, OUTPUT)
    check("an encrypted file with a decrypt callback returning bytes", np.array_equal(got, reference))
    kept = []

    def decrypt_and_keep(buf):
        xor_in_place(buf)
        kept.append(buf)
    tfpi.Graph(data=secret, decrypt=decrypt_and_keep)
    kept[0][:4] = b"\xff" * 4  # the load is over: a view the callback kept must not reach freed C memory
    check("a decrypt callback that keeps its view writes its own copy, not freed memory",
          isinstance(kept[0].obj, bytearray) and bytes(kept[0][:4]) == b"\xff" * 4)
    expect_error("a decrypt callback's exception is raised by Graph()", "wrong key",
                 lambda: tfpi.Graph(data=secret, decrypt=lambda b: (_ for _ in ()).throw(
                     ValueError("wrong key"))), ValueError)
    expect_error("the wrong key: tfpi's load error", "model buffer: not a TensorFlow GraphDef",
                 lambda: tfpi.Graph(data=secret, decrypt=lambda b: None))

    interpreter = tfpi.Interpreter(model_path=MODEL, num_threads=1)
    interpreter.allocate_tensors()
    inp, out = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    interpreter.set_tensor(inp["index"], x)
    interpreter.invoke()
    check("Interpreter: details, set_tensor, invoke, get_tensor",
          list(inp["shape"]) == [1, 224, 224, 3] and inp["dtype"] == np.float32 and
          out["name"] == OUTPUT and np.array_equal(interpreter.get_tensor(out["index"]), reference),
          "%s %s" % (inp, out))


def test_examples():
    """pi_examples/python: label_image.py prints what label_image prints;
    camera.py labels a one-frame 'video' (an image file) with the same top."""
    want = subprocess.run([os.path.join(BIN, "label_image")], capture_output=True, text=True, env=TOOL_ENV).stdout
    got = subprocess.run([sys.executable, "pi_examples/python/label_image.py"], capture_output=True,
                         text=True)
    check("pi_examples/python/label_image.py prints label_image's top 5",
          got.returncode == 0 and got.stdout == want and want.count("\n") == 5,
          "got %r %r, want %r" % (got.stdout, got.stderr[-300:], want))
    got = subprocess.run([sys.executable, "pi_examples/python/camera.py", IMAGE], capture_output=True,
                         text=True)
    check("pi_examples/python/camera.py labels the frames of a file source",
          got.returncode == 0 and got.stdout.startswith(want.split(" (")[0] + " 0.3"),
          "got %r %r" % (got.stdout, got.stderr[-300:]))


def test_two_threads():
    """Two Python threads share one session, each with its own image; every
    result must equal that image's single-threaded result."""
    images = [IMAGE] + sorted(glob.glob(os.path.join(TD, "tf_reference", "mobilenet_v1_0.25_128_plates",
                                                     "*.jpg")))[:1]
    inputs = [mobilenet_input(p) for p in images]
    session = tfpi.Session(tfpi.Graph(MODEL), num_threads=1)
    want = [session.run({"input": x}, OUTPUT) for x in inputs]
    bad = []

    def worker(k):
        for _ in range(8):
            if not np.array_equal(session.run({"input": inputs[k]}, OUTPUT), want[k]):
                bad.append(k)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("one session used from two Python threads: every result right",
          len(images) == 2 and not bad and not np.array_equal(want[0], want[1]),
          "%d images, wrong runs in threads %s" % (len(images), bad))


def test_image_helpers():
    stem = sorted(glob.glob(os.path.join(TD, "tf_reference", "mobilenet_v1_0.25_128_plates", "*.jpg")))[0]
    want = np.fromfile(stem[:-4] + ".input_nhwc_1x128x128x3.f32", np.float32).reshape(128, 128, 3)
    got = tfpi.image_to_input(tfpi.load_image(stem), 128, 128, 127.5, 127.5)
    diff = float(np.abs(got - want).max())
    check("load_image + image_to_input match TensorFlow's decode and resize (max |d| %.1e)" % diff,
          got.shape == (128, 128, 3) and got.dtype == np.float32 and diff <= 1e-5)
    expect_error("decode_image of bytes that are not an image names them", "holiday.jpg",
                 lambda: tfpi.decode_image(b"GIF89a....", "holiday.jpg"))
    expect_error("load_image of a missing file names it", "no_such.jpg",
                 lambda: tfpi.load_image(os.path.join(TMP, "no_such.jpg")))


def test_wav_bytes():
    """A WAV whose last samples are silence ends in NUL bytes: fed as Python
    bytes it must reach DecodeWav whole, as TensorFlow's session.run keeps
    it, and give the speech model run_graph's answer for the same file."""
    import struct
    with open(os.path.join(TD, "speech_commands/yes.wav"), "rb") as f:
        wav = f.read()
    pad = b"\0" * 400  # 200 samples of silence
    data_size = struct.unpack_from("<I", wav, 40)[0] + len(pad)
    padded = wav[:4] + struct.pack("<I", len(wav) + len(pad) - 8) + wav[8:40] + struct.pack("<I", data_size) + \
        wav[44:] + pad
    path = os.path.join(TMP, "yes_padded.wav")
    with open(path, "wb") as f:
        f.write(padded)
    graph = os.path.join(TD, "speech_commands/conv_actions_frozen.pb")
    got = tfpi.Session(tfpi.Graph(graph), num_threads=1).run({"wav_data": padded}, "labels_softmax")
    npy = os.path.join(TMP, "yes_padded.npy")
    subprocess.run([os.path.join(BIN, "run_graph"), "--graph=" + graph, "--input=wav_data=@" + path,
                    "--output=labels_softmax=" + npy, "--num_threads=1"], check=True, env=TOOL_ENV)
    check("a WAV ending in NUL bytes fed as bytes: run_graph's scores, 'yes' first",
          np.array_equal(got, np.load(npy)) and int(np.argmax(got)) == 2, "%s" % got)
    session = tfpi.Session(tfpi.Graph(graph), num_threads=1)
    for fetch in (5, None, [b"labels_softmax"]):
        expect_error("a fetch that is not a string (%r): TypeError naming it" % (fetch,), "Fetch argument .* invalid type",
                     lambda: session.run({"wav_data": padded}, fetch), TypeError)


def test_errors():
    missing = os.path.join(TMP, "missing.pb")
    expect_error("Graph of a missing file: the message names it", "missing.pb", lambda: tfpi.Graph(missing))
    try:
        tfpi.Graph(missing)
    except tfpi.TfpiError as e:
        check("TfpiError carries tfpi's code", e.code_name == "NOT_FOUND" and e.code == 2, e.code_name)
    expect_error("Graph of random bytes", "model buffer: not a TensorFlow GraphDef",
                 lambda: tfpi.Graph(data=bytes(range(256)) * 4))
    session = tfpi.Session(tfpi.Graph(MODEL), num_threads=1)
    x = np.zeros((1, 224, 224, 3), np.float32)
    expect_error("an unknown feed is named", "'inputx'", lambda: session.run({"inputx": x}, OUTPUT))
    expect_error("an unknown fetch is named", "'nothing_here'", lambda: session.run({"input": x}, ["nothing_here"]))
    expect_error("a feed of the wrong shape names the node", "input|Conv|shape",
                 lambda: session.run({"input": np.zeros((1, 5, 3), np.float32)}, OUTPUT))
    check("the session still runs after errors",
          session.run({"input": x}, OUTPUT).shape == (1, 1001))
    graph = tfpi.Graph(MODEL)
    kept = tfpi.Session(graph, num_threads=1)
    graph.close()
    check("a session outlives its closed Graph", np.array_equal(
        kept.run({"input": x}, OUTPUT), session.run({"input": x}, OUTPUT)))
    expect_error("a closed Graph says so", "closed", graph.inputs, ValueError)
    kept.close()
    expect_error("a closed Session says so", "closed", lambda: kept.run({"input": x}, OUTPUT), ValueError)



def test_argument_errors():
    """Each bad argument raises tfpi's own ValueError naming it: not an
    AttributeError from deep inside, nor a value cut at a NUL or wrapped to 64 bits."""
    graph = tfpi.Graph(MODEL)
    cases = [
        ("cpu=b'a53'", r"^cpu=b'a53': give a str$", lambda: tfpi.Session(graph, cpu=b"a53")),
        ("precision=16", r"^precision=16: give a str$", lambda: tfpi.Session(graph, precision=16)),
        ("precision with a NUL", r"^precision='fp16\\x00x' holds a NUL character$",
         lambda: tfpi.Session(graph, precision="fp16\0x")),
        ("max_memory=2**70", r"^max_memory=1180591620717411303424 is out of range",
         lambda: tfpi.Session(graph, max_memory=2**70)),
        ("max_memory=-2", r"^max_memory=-2 is out of range: give bytes, 0 for the default budget or -1 for none$",
         lambda: tfpi.Session(graph, max_memory=-2)),
        ("max_memory=1.5", r"^max_memory=1.5: give an integer", lambda: tfpi.Session(graph, max_memory=1.5)),
        ("num_threads=2**40", r"^num_threads=1099511627776 is out of range",
         lambda: tfpi.Session(graph, num_threads=2**40)),
        ("model_path with a NUL", r"^model_path='.*frozen_graph.pb\\x00.pbtxt' holds a NUL character$",
         lambda: tfpi.Interpreter(model_path=MODEL + "\0.pbtxt")),
        ("Graph path with a NUL", r"^path='.*\\x00x' holds a NUL character$", lambda: tfpi.Graph(MODEL + "\0x")),
        ("tags with a NUL", r"^tags='serve\\x00gpu' holds a NUL character$",
         lambda: tfpi.Graph(MODEL, tags="serve\0gpu")),
    ]
    for name, pattern, fn in cases:
        try:
            fn()
            check(name + ": refused", False, "no error")
        except tfpi.TfpiValueError as e:
            check(name + ": tfpi's ValueError naming the argument", re.search(pattern, str(e)) is not None, str(e))
        except Exception as e:  # noqa: BLE001 - any other exception is the failure being tested
            check(name + ": tfpi's ValueError naming the argument", False, "%s: %s" % (type(e).__name__, e))


def test_saved_model():
    """SavedModels and checkpoints: xor_tf1's outputs are the README's
    hand-computed ones; a MobileNet SavedModel (tests/cli/make_saved_model.py)
    gives the frozen graph's exact scores by signature key."""
    sm = os.path.join(TD, "savedmodel")
    xor = tfpi.Graph(os.path.join(sm, "xor_tf1", "1"))
    check("SavedModel: its signature", xor.signature() == "serving_default" and
          xor.signature_inputs() == {"inputs": "dense_1_input:0"} and
          xor.signature_outputs() == {"prediction": "activation_2/Sigmoid:0"}, xor.signature_inputs())
    details = xor.inputs()
    check("SavedModel inputs() by signature key", len(details) == 1 and details[0]["name"] == "inputs" and
          details[0]["tensor"] == "dense_1_input:0" and details[0]["dtype"] == np.float32 and
          details[0]["shape"] == (-1, 2), details)
    got = tfpi.Session(xor).run({"inputs": np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)}, "prediction")
    check("xor_tf1 through its signature", np.abs(got.reshape(-1) - [0.321544, 0.605022, 0.599322, 0.548477]).max()
          < 1e-5, got)
    iris = tfpi.Graph(os.path.join(sm, "iris_tf1", "1"), signature="predict-iris")
    check("signature= picks another signature", iris.outputs() == ["prediction"], iris.outputs())
    house = tfpi.Graph(os.path.join(sm, "houseprices_ckpt", "model.ckpt.meta"))
    out = tfpi.Session(house).run({"Placeholder": np.array(False), "Placeholder_1": np.zeros((2, 8), np.float32)},
                                  "Squeeze")
    check("a .meta with its checkpoint", out.shape == (2,) and np.isfinite(out).all(), out)
    expect_error("tags= that no meta graph has", r"no MetaGraph with tags \{ train \}; available: \{ serve \}",
                 lambda: tfpi.Graph(os.path.join(sm, "xor_tf1", "1"), tags="train"))
    expect_error("a .tflite is named", "TensorFlow Lite model",
                 lambda: tfpi.Graph(os.path.join(sm, "digit_tflite_tf2", "tflite_model.tflite")))
    d = os.path.join(TMP, "mobilenet_sm")
    subprocess.run([sys.executable, "tests/cli/make_saved_model.py", MODEL, d, "--input=input", "--output=" + OUTPUT,
                    "--rename"], check=True)
    x = tfpi.image_to_input(tfpi.load_image(IMAGE), 224, 224, 127.5, 127.5)[None]
    want = tfpi.Session(tfpi.Graph(MODEL)).run({"input": x}, OUTPUT)
    interpreter = tfpi.Interpreter(model_path=d)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    got = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    # as in TensorFlow Lite, details name tensors and the signature names keys
    check("Interpreter on a SavedModel directory: the frozen graph's exact scores",
          interpreter.get_output_details()[0]["name"] == OUTPUT + ":0" and np.array_equal(got, want))
    runner = interpreter.get_signature_runner()
    check("Interpreter on a SavedModel: its signature's keys",
          interpreter.get_signature_list() == {"serving_default": {"inputs": ["images"], "outputs": ["scores"]}} and
          np.array_equal(runner(images=x)["scores"], want), interpreter.get_signature_list())


def test_precision():
    """precision="fp16": half-precision arithmetic where the CPU has it (the
    aarch64 build on a Pi 5), else fp32 with a RuntimeWarning; "fp32" and
    None are fp32; an unknown name is an error naming it."""
    x = mobilenet_input()
    graph = tfpi.Graph(MODEL)
    fp32 = tfpi.Session(graph, num_threads=1, precision="fp32")
    reference = fp32.run({"input": x}, OUTPUT)
    check("precision='fp32' is the default's fp32",
          fp32.precision == "fp32" and tfpi.Session(graph, num_threads=1).precision == "fp32")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        half = tfpi.Session(graph, num_threads=1, precision="fp16")
        interpreter = tfpi.Interpreter(model_path=MODEL, num_threads=1, precision="fp16")
    got = half.run({"input": x}, OUTPUT)
    if half.precision == "fp16":
        check("precision='fp16': the same top-1, probabilities within 0.02 of fp32",
              np.argmax(got) == np.argmax(reference) and np.abs(got - reference).max() <= 0.02 and not caught,
              str(np.abs(got - reference).max()))
    else:
        check("precision='fp16' on a CPU without fp16: fp32's outputs and a RuntimeWarning each (Session, "
              "Interpreter)", np.array_equal(got, reference) and len(caught) == 2 and
              all(w.category is RuntimeWarning and "running in fp32" in str(w.message) for w in caught),
              str([str(w.message) for w in caught]))
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    check("Interpreter(precision='fp16') gives the Session's outputs",
          np.array_equal(interpreter.get_tensor(interpreter.get_output_details()[0]["index"]), got))
    expect_error("precision: an unknown one is named", r"precision option fp8 is not a precision: use fp32 or fp16",
                 lambda: tfpi.Session(graph, precision="fp8"), ValueError)


run_groups(test_version, test_dtypes, test_string_decode, test_wav_bytes, test_mobilenet, test_examples,
           test_two_threads, test_image_helpers, test_errors, test_argument_errors, test_saved_model, test_precision)
summary()
