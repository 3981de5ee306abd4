#!/usr/bin/python3
"""arm_bench.py - the table of `make bench TARGET=AARCH64` (or PI64, PI): the
estimated cycles per inference of this ARM build on the Raspberry Pis' cores,
from this PC.

usage: arm_bench.py BIN_DIR [--models NAME ...] [--cores a53,a72,a76] [--no-int8]

For each model (generated with ../shared/tools/make_models.py into gen/models/
if missing) it runs ../shared/tools/armcost/cycles.sh on BIN_DIR/benchmark_model
(one thread; a 64-bit build on Cortex-A53 / Pi 3, A72 / Pi 4 and A76 / Pi 5,
a 32-bit one on the A72 of a Pi 4 with a 32-bit OS) and prints one markdown
table: model, core, instructions and estimated cycles per inference, ms at the
core's clock, and the ratio to ncnn's fp32 path as measured with the same
tool in issue 22 (NCNN below). For the MobileNets, the eight-bit forms
follow each float row, with their ratio to it on the same core:
  - int8: TensorFlow Lite's per-channel int8 operators (CONV_2D,
    DEPTHWISE_CONV_2D, FULLY_CONNECTED), as a build that reads .tflite runs
    the real int8 MobileNet v2 of ../shared/testdata/tflite/mask_mnv2_int8,
    else (and for v1) the same layers with random weights as the .tflite
    reader lays them out (tflite_int8_graphs.py: no residual ADDs, mean or
    softmax, so the convolutions' cycles);
  - 8-bit TF: the model made eight-bit by quantize_nodes with frozen ranges
    (eightbit.py; needs the host build's tools in gen/linux/bin).
Then, per model and core, the functions that take the cycles. The estimate is llvm-mca's price of every hot block of a
qemu-user run (cache misses and mispredictions are not counted: boards run
1.0-1.75x slower), repeatable to about 1e-5, so use it to compare builds.

Needs qemu-user, llvm-19 (llvm-mca-19) and libglib2.0-dev (the qemu plugin):
apt-get install qemu-user llvm-19 libglib2.0-dev. A model takes minutes per
core (ResNet-50: about ten).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

import eightbit
import run_bench
import tflite_int8_graphs

CYCLES = os.path.normpath(os.path.join(run_bench.REPO, "..", "shared", "tools", "armcost", "cycles.sh"))
MODELS = ["mobilenet_v1_1.0_224", "mobilenet_v2_1.0_224", "resnet_v1_50"]
# ncnn's fp32 path (snapshot of 2026-07, one thread), millions of estimated
# cycles per inference with the same tool, from issue 22; "armv7" is the
# 32-bit build on the A72.
NCNN = {
    "mobilenet_v1_1.0_224": {"a53": 286, "a72": 154, "a76": 78, "armv7": 156},
    "mobilenet_v2_1.0_224": {"a53": 182, "a72": 97, "a76": 50, "armv7": 96},
    "resnet_v1_50": {"a53": 1309, "a72": 686, "a76": 345, "armv7": 721},
}


TFLITE_V2 = os.path.normpath(os.path.join(run_bench.REPO, "..", "shared", "testdata", "tflite", "mask_mnv2_int8",
                                         "mask_detector_quant.tflite"))
HOST_TOOLS = os.path.join(run_bench.REPO, "gen", "linux", "bin")


def eight_bit_forms(name, meta):
    """[(label, graph, input name, shape, output, input type)] of the model's eight-bit forms."""
    forms = []
    if name not in ("mobilenet_v1_1.0_224", "mobilenet_v2_1.0_224"):
        return forms
    reads_tflite = os.path.isdir(os.path.join(run_bench.REPO, "src", "model"))
    if name == "mobilenet_v2_1.0_224" and reads_tflite and os.path.exists(TFLITE_V2):
        forms.append(("int8 .tflite", TFLITE_V2, "mobilenetv2_1.00_224_input", meta["input"]["shape"], "Identity",
                      "uint8"))
    else:
        graph = os.path.join(run_bench.MODELS_DIR, name + ".int8.pb")
        if not os.path.exists(graph):
            tflite_int8_graphs.main_to(run_bench.MODELS_DIR)
        forms.append(("int8 layers", graph, "input", meta["input"]["shape"], "logits", "int8"))
    if os.path.exists(os.path.join(HOST_TOOLS, "transform_graph")):
        graph = eightbit.prepare(HOST_TOOLS, run_bench.MODELS_DIR, meta)
        forms.append(("8-bit TF", graph, meta["input"]["name"], meta["input"]["shape"], meta["output"]["name"],
                      "float"))
    return forms


def measure(bin_dir, graph, input_name, shape, output, cores, input_type="float"):
    """{core: (instructions, cycles, ms, [top function lines])} from cycles.sh."""
    args = ["bash", CYCLES, bin_dir, graph, input_name, ",".join(str(d) for d in shape), output, cores or "",
            "--input_layer_type=" + input_type]
    out = run_bench.run(args)
    results, core, insns = {}, None, 0.0
    for line in out.splitlines():
        m = re.match(r"instructions per window: ([\d.e+]+)", line)
        if m:
            insns = float(m.group(1))
        m = re.match(r"\s*per inference on (\w+): ([\d.]+) M cycles, ([\d.]+) ms", line)
        if m:
            core = m.group(1)
            results[core] = (insns, float(m.group(2)) * 1e6, float(m.group(3)), [])
        elif core and re.match(r"\s+[\d.]+% cyc", line):
            results[core][3].append(line.strip())
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--cores", default="", help="comma list of a53, a72, a76 (64-bit builds)")
    parser.add_argument("--no-int8", action="store_true", help="only the float models")
    a = parser.parse_args()
    missing = [tool for tool in ("llvm-mca-19", "pkg-config") if not shutil.which(tool)]
    if missing or subprocess.run(["pkg-config", "--exists", "glib-2.0"]).returncode:
        sys.exit("arm_bench.py: needs qemu-user, llvm-19 and libglib2.0-dev "
                 "(apt-get install qemu-user llvm-19 libglib2.0-dev)")
    run_bench.ensure_models(a.models)
    file_type = run_bench.run(["file", "-L", os.path.join(a.bin_dir, "benchmark_model")])
    armv7 = "aarch64" not in file_type
    rows, tops = [], []
    cores = "" if armv7 else a.cores
    for name in a.models:
        meta = dict(run_bench.load_meta(name), name=name)
        floats = measure(a.bin_dir, os.path.join(run_bench.MODELS_DIR, meta["name"] + ".pb"), meta["input"]["name"],
                         meta["input"]["shape"], meta["output"]["name"], cores)
        for core, (insns, cycles, ms, top) in floats.items():
            label = "armv7 on a72" if armv7 else core
            ncnn = NCNN.get(name, {}).get("armv7" if armv7 else core)
            ratio = "%.2f" % (cycles / (ncnn * 1e6)) if ncnn else "-"
            rows.append("| %s | fp32 | %s | %.0f | %.1f | %.1f | %s | %s | - |" % (
                name, label, insns / 1e6, cycles / 1e6, ms, ncnn or "-", ratio))
            tops.append("- %s fp32 on %s: %s" % (name, label, "; ".join(top[:4])))
        for form, graph, input_name, shape, output, input_type in ([] if a.no_int8 else eight_bit_forms(name, meta)):
            for core, (insns, cycles, ms, top) in measure(a.bin_dir, graph, input_name, shape, output, cores,
                                                          input_type).items():
                label = "armv7 on a72" if armv7 else core
                fp32 = floats.get(core)
                versus = "%.2f" % (cycles / fp32[1]) if fp32 else "-"
                rows.append("| %s | %s | %s | %.0f | %.1f | %.1f | - | - | %s |" % (
                    name, form, label, insns / 1e6, cycles / 1e6, ms, versus))
                tops.append("- %s %s on %s: %s" % (name, form, label, "; ".join(top[:4])))
        print("%s done" % name, flush=True)
    print("\n| model | form | core | M instructions | M cycles (est.) | ms | ncnn fp32 M cycles | tfpi / ncnn "
          "| / fp32 |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nWhere the cycles go (share of cycles, of instructions, function):")
    print("\n".join(tops))


if __name__ == "__main__":
    main()
