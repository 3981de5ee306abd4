#!/usr/bin/python3
"""arm_bench.py - the table of `make bench TARGET=AARCH64` (or PI64, PI): the
estimated cycles per inference of this ARM build on the Raspberry Pis' cores,
from this PC.

usage: arm_bench.py BIN_DIR [--models NAME ...] [--cores a53,a72,a76]

For each model (generated with ../shared/tools/make_models.py into gen/models/
if missing) it runs ../shared/tools/armcost/cycles.sh on BIN_DIR/benchmark_model
(one thread; a 64-bit build on Cortex-A53 / Pi 3, A72 / Pi 4 and A76 / Pi 5,
a 32-bit one on the A72 of a Pi 4 with a 32-bit OS) and prints one markdown
table: model, core, instructions and estimated cycles per inference, ms at the
core's clock, and the ratio to ncnn's fp32 path as measured with the same
tool in issue 22 (NCNN below). Then, per model and core, the functions that
take the cycles. The estimate is llvm-mca's price of every hot block of a
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

import run_bench

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


def measure(bin_dir, meta, cores):
    """{core: (instructions, cycles, ms, [top function lines])} from cycles.sh."""
    args = ["bash", CYCLES, bin_dir, os.path.join(run_bench.MODELS_DIR, meta["name"] + ".pb"),
            meta["input"]["name"], ",".join(str(d) for d in meta["input"]["shape"]), meta["output"]["name"]]
    if cores:
        args.append(cores)
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
    a = parser.parse_args()
    missing = [tool for tool in ("llvm-mca-19", "pkg-config") if not shutil.which(tool)]
    if missing or subprocess.run(["pkg-config", "--exists", "glib-2.0"]).returncode:
        sys.exit("arm_bench.py: needs qemu-user, llvm-19 and libglib2.0-dev "
                 "(apt-get install qemu-user llvm-19 libglib2.0-dev)")
    run_bench.ensure_models(a.models)
    file_type = run_bench.run(["file", "-L", os.path.join(a.bin_dir, "benchmark_model")])
    armv7 = "aarch64" not in file_type
    rows, tops = [], []
    for name in a.models:
        meta = dict(run_bench.load_meta(name), name=name)
        for core, (insns, cycles, ms, top) in measure(a.bin_dir, meta, "" if armv7 else a.cores).items():
            label = "armv7 on a72" if armv7 else core
            ncnn = NCNN.get(name, {}).get("armv7" if armv7 else core)
            ratio = "%.2f" % (cycles / (ncnn * 1e6)) if ncnn else "-"
            rows.append("| %s | %s | %.0f | %.1f | %.1f | %s | %s |" % (
                name, label, insns / 1e6, cycles / 1e6, ms, ncnn or "-", ratio))
            tops.append("- %s on %s: %s" % (name, label, "; ".join(top[:4])))
        print("%s done" % name, flush=True)
    print("\n| model | core | M instructions | M cycles (est.) | ms | ncnn fp32 M cycles | tfpi / ncnn |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nWhere the cycles go (share of cycles, of instructions, function):")
    print("\n".join(tops))


if __name__ == "__main__":
    main()
