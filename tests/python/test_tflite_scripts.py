"""test_tflite_scripts.py - scripts written for TensorFlow Lite run on tfpi
with only their import line changed, and print what tfpi's C tools print:

- tflite_scripts/label_image.py (TensorFlow's tflite label_image.py, in the
  tflite_runtime form) on MobileNet v1 0.25 224 against `label_image`, and
  on a .tflite MobileNet (tests/cli/make_tflite_mobilenet.py) against
  `label_image` on the same file;
- tflite_scripts/detect_objects.py (a typical Raspberry Pi detection
  script) on the Object Detection API SSD against `detect`.

Each script is copied with its import line, and nothing else, swapped for
tfpi's. The pictures are made at the model's input size (224x224, 256x256)
so that the scripts' own resizing (Pillow, OpenCV) leaves the pixels as
they are and both sides see the same input; the JPEG as it is (Pillow's
bicubic resize against TensorFlow's bilinear) must give the same top label.
Prints "ok"/"FAIL" lines and "N passed, N failed".

Run by tests/cli/test_python.sh with BIN set."""
import os
import re
import subprocess
import sys

import cv2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import TMP, TOOL_ENV, check, run_groups, summary  # noqa: E402

BIN = os.environ["BIN"]
TD = os.environ.get("TFPI_TESTDATA", "../shared/testdata")
MOBILENET = os.path.join(TD, "mobilenet_v1_0.25_224")
SSD = os.path.join(TD, "detection", "ssd_aiy")
JPEG = os.path.join(TD, "images", "grace_hopper.jpg")
SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tflite_scripts")
CLI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli")
IMPORTS = {"import tflite_runtime.interpreter as tflite": "import tfpi.interpreter as tflite",
           "from tflite_runtime.interpreter import Interpreter": "from tfpi.interpreter import Interpreter"}


def with_tfpi_import(script):
    """A copy of the script whose only change is its tflite_runtime import."""
    with open(os.path.join(SCRIPTS, script)) as f:
        lines = f.read().split("\n")
    changed = [i for i, line in enumerate(lines) if line in IMPORTS]
    assert len(changed) == 1, "%s: expected one tflite_runtime import line, found %d" % (script, len(changed))
    lines[changed[0]] = IMPORTS[lines[changed[0]]]
    path = os.path.join(TMP, script)
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def run(args, tool=False):
    return subprocess.run(args, capture_output=True, text=True, env=TOOL_ENV if tool else None)


def picture(size, name):
    """grace_hopper.jpg resized to size x size, as a PNG."""
    path = os.path.join(TMP, name)
    cv2.imwrite(path, cv2.resize(cv2.imread(JPEG), (size, size), interpolation=cv2.INTER_AREA))
    return path


def label_image_top5(image, model=os.path.join(MOBILENET, "frozen_graph.pb")):
    out = run([os.path.join(BIN, "label_image"), "--graph=" + model,
               "--labels=" + os.path.join(MOBILENET, "labels.txt"), "--image=" + image], tool=True)
    return [(int(m.group(1)), float(m.group(2))) for m in re.finditer(r"\((\d+)\): ([0-9.e-]+)", out.stdout)]


def script_top5(output):
    """'0.354123: 458:bow tie, ...' lines -> [(458, 0.354123)] (labels.txt
    lines are 'index:name')."""
    return [(int(m.group(2)), float(m.group(1))) for m in re.finditer(r"^(\d\.\d{6}): (\d+):", output, re.M)]


def test_label_image():
    script = with_tfpi_import("label_image.py")
    square = picture(224, "grace_hopper_224.png")
    common = ["-m", os.path.join(MOBILENET, "frozen_graph.pb"), "-l", os.path.join(MOBILENET, "labels.txt")]
    got = run([sys.executable, script, "-i", square, "--num_threads", "1"] + common)
    want = label_image_top5(square)
    top = script_top5(got.stdout)
    check("tflite label_image.py: ran, top 5 and a time line", got.returncode == 0 and len(top) == 5 and
          re.search(r"^time: [0-9.]+ms$", got.stdout, re.M) is not None, got.stdout + got.stderr[-500:])
    check("tflite label_image.py prints label_image's top 5 (indices, scores within 1e-5: the C tool multiplies by 1/std, the script divides)",
          len(want) == 5 and [i for i, _ in top] == [i for i, _ in want] and
          all(abs(a[1] - b[1]) <= 1e-5 for a, b in zip(top, want)), "script %s, label_image %s" % (top, want))
    got = run([sys.executable, script, "-i", JPEG] + common)
    top, want = script_top5(got.stdout), label_image_top5(JPEG)
    check("tflite label_image.py on the JPEG itself (Pillow's resize): label_image's top label",
          got.returncode == 0 and top and want and top[0][0] == want[0][0], "script %s, label_image %s" % (top, want))


def tflite_mobilenet():
    """A float MobileNet v1 0.25 128 .tflite made from make_models.py's
    frozen graph (tests/cli/make_tflite_mobilenet.py)."""
    tools = os.environ.get("TFPI_TOOLS", "../shared/tools")
    subprocess.run([sys.executable, os.path.join(tools, "make_models.py"), "--out", TMP, "--only",
                    "mobilenet_v1_0.25_128_synthetic"], check=True, capture_output=True)
    model = os.path.join(TMP, "mobilenet.tflite")
    subprocess.run([sys.executable, os.path.join(CLI, "make_tflite_mobilenet.py"),
                    os.path.join(TMP, "mobilenet_v1_0.25_128_synthetic.pb"), model], check=True)
    return model


def test_label_image_tflite():
    script = with_tfpi_import("label_image.py")
    model = tflite_mobilenet()
    square = picture(128, "grace_hopper_128.png")
    got = run([sys.executable, script, "-i", square, "-m", model, "-l", os.path.join(MOBILENET, "labels.txt")])
    top, want = script_top5(got.stdout), label_image_top5(square, model)
    check("tflite label_image.py on a .tflite MobileNet prints label_image's top 5 on it (scores within 1e-5)",
          got.returncode == 0 and len(want) == 5 and [i for i, _ in top] == [i for i, _ in want] and
          all(abs(a[1] - b[1]) <= 1e-5 for a, b in zip(top, want)),
          "script %s, label_image %s %s" % (top, want, got.stderr[-300:]))


def test_detection():
    script = with_tfpi_import("detect_objects.py")
    square = picture(256, "grace_hopper_256.png")
    labels = os.path.join(SSD, "labels.txt")
    model = os.path.join(SSD, "frozen_inference_graph.pb")
    threshold = "0.075"
    want = run([os.path.join(BIN, "detect"), "--graph=" + model, "--labels=" + labels, "--image=" + square,
                "--threshold=" + threshold], tool=True).stdout.split("\n")
    want = [line.split() for line in want if line]
    saved = os.path.join(TMP, "boxes.png")
    got = run([sys.executable, script, "--model", model, "--labels", labels, "--image", square,
               "--threshold", threshold, "--save", saved])
    lines = [line.split() for line in got.stdout.split("\n") if line and not line.startswith("Saved")]
    check("detection script: ran and saved its picture", got.returncode == 0 and os.path.exists(saved),
                got.stdout + got.stderr[-500:])

    def same(a, b):  # label, score within 1e-4, corners within one pixel (the script truncates)
        return a[0] == b[0] and abs(float(a[1]) - float(b[1])) <= 1e-4 and \
            all(abs(max(1, float(x)) - float(y)) <= 1.0 for x, y in zip(b[2:], a[2:]))
    check("detection script prints detect's objects (labels, scores, boxes)",
          len(want) >= 2 and len(lines) == len(want) and all(same(a, b) for a, b in zip(lines, want)),
          "script %s, detect %s" % (lines, want))


run_groups(test_label_image, test_label_image_tflite, test_detection)
summary()
