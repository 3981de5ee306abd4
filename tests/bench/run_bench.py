#!/usr/bin/python3
"""run_bench.py - the table of `make bench`: tfpi against OpenCV DNN on the
big models, in one run on this machine.

usage: run_bench.py BIN_DIR [--samples N] [--models NAME ...] [--threads T ...]

For each model (generated with ../shared/tools/make_models.py into
gen/models/ if missing) and thread count it takes N samples of each engine,
alternating them so that both see the same load on the machine:
  - tfpi: one timed run of BIN_DIR/benchmark_model (after one warm-up run) in
    a fresh process, with --num_threads=T;
  - OpenCV DNN: one timed run in a process kept open for the model
    (opencv_time.py), cv2.setNumThreads(T);
and prints one markdown table of the medians: model, threads, median ms,
GFLOP/s (2 x the model's multiply-adds per second), % of this CPU's fp32
peak for T threads (BIN_DIR/fp32_peak, an FMA loop timed in CPU time, so a
busy machine lowers the percentage), OpenCV's median ms and tfpi / OpenCV. Then,
per model, tfpi's peak RSS while running (VmRSS polled from the moment
benchmark_model reports the model loaded) against the bound 1.3 x model
file + planned arena, and the process's peak including the load (VmHWM).
Then, per model at 1 thread, where the time goes: the share of each op
type (benchmark_model's summary by node type), so the next bottleneck is
visible. Then the 8-bit rows (eightbit.py): ResNet-50, Inception v3 and MobileNet v1
1.0 through quantize_nodes with frozen ranges, against the float graphs. Last,
MobileNet v1 1.0 as a float .tflite against its frozen graph (tflite_bench.py).
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time

import eightbit
import tflite_bench

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
MAKE_MODELS = os.path.normpath(os.path.join(REPO, "..", "shared", "tools", "make_models.py"))
MODELS_DIR = os.path.join(REPO, "gen", "models")
MODELS = ["mobilenet_v1_1.0_224", "mobilenet_v2_1.0_224", "inception_v3_2015", "resnet_v1_50"]
EIGHT_BIT_MODELS = ["resnet_v1_50", "inception_v3_2015", "mobilenet_v1_1.0_224"]


def load_meta(name):
    with open(os.path.join(MODELS_DIR, name + ".json")) as f:
        return json.load(f)


def run(args):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("run_bench.py: %s failed:\n%s" % (" ".join(args), result.stdout))
    return result.stdout


def ensure_models(names):
    missing = [n for n in names if not os.path.exists(os.path.join(MODELS_DIR, n + ".pb"))]
    if missing:
        print("generating %s into %s ..." % (", ".join(missing), MODELS_DIR), flush=True)
        run([sys.executable, MAKE_MODELS, "--out", MODELS_DIR, "--only"] + missing)


def fp32_peaks(bin_dir, max_threads):
    """GFLOP/s per thread count, from fp32_peak."""
    out = run([os.path.join(bin_dir, "fp32_peak"), "--num_threads=%d" % max_threads, "--millis=1000"])
    peaks = {int(t): float(g) for t, g in re.findall(r"threads=(\d+) gflops=([\d.]+)", out)}
    simd = re.search(r"simd=(\S+)", out).group(1)
    return peaks, simd


def benchmark_args(bin_dir, meta, threads, runs):
    shape = ",".join(str(d) for d in meta["input"]["shape"])
    return [os.path.join(bin_dir, "benchmark_model"), "--graph=" + os.path.join(MODELS_DIR, meta["file"]),
            "--input_layer=" + meta["input"]["name"], "--input_layer_shape=" + shape,
            "--output_layer=" + meta["output"]["name"], "--num_threads=%d" % threads, "--num_runs=%d" % runs,
            "--warmup_runs=1", "--show_time=false", "--show_memory=false", "--show_summary=false"]


def tfpi_sample(bin_dir, meta, threads):
    """One timed run in a fresh process, in ms."""
    out = run(benchmark_args(bin_dir, meta, threads, 1))
    return float(re.search(r"^count=1 first=\S+ curr=\S+ min=\S+ max=\S+ avg=([\d.]+)", out, re.M).group(1)) / 1e3


def tfpi_memory(bin_dir, meta):
    """(peak RSS while running, arena, VmHWM) in bytes, from a few runs."""
    process = subprocess.Popen(["stdbuf", "-oL"] + benchmark_args(bin_dir, meta, 1, 5), stdout=subprocess.PIPE,
                               text=True)
    peak, done = [0], threading.Event()

    def poll():
        while not done.is_set():
            try:
                with open("/proc/%d/status" % process.pid) as f:
                    kb = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))
                peak[0] = max(peak[0], kb * 1024)
            except (OSError, AttributeError):
                return
            time.sleep(0.002)

    poller = threading.Thread(target=poll)
    out, loaded = [], False
    for line in process.stdout:
        out.append(line)
        if line.startswith("Loaded model") and not loaded:
            poller.start()
            loaded = True
    done.set()
    if loaded:
        poller.join()
    if process.wait() != 0 or not loaded:
        sys.exit("run_bench.py: benchmark_model failed on %s:\n%s" % (meta["file"], "".join(out)))
    memory = re.search(r"arena=(\d+) peak_rss=(\d+)", "".join(out))
    return peak[0], int(memory.group(1)), int(memory.group(2))


class OpenCV:
    """An opencv_time.py process with the model loaded: sample() times one run."""

    def __init__(self, meta, threads):
        self.process = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(HERE, "opencv_time.py"), os.path.join(MODELS_DIR, meta["file"]),
             os.path.join(MODELS_DIR, meta["name"] + ".json"), str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            sys.exit("run_bench.py: opencv_time.py could not run %s" % meta["file"])

    def sample(self):
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        return float(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def op_type_shares(bin_dir, meta, top=5):
    """[(op type, % of the run)] of the `top` costliest op types at 1 thread."""
    args = benchmark_args(bin_dir, meta, 1, 3)
    out = run([a for a in args if a != "--show_summary=false"] + ["--show_summary=true"])
    table = out.split("Summary by node type", 1)[1]
    rows = re.findall(r"^\s+(\S+)\s+\d+\s+[\d.]+\s+([\d.]+)%", table, re.M)
    return [(op, float(share)) for op, share in rows[:top]]


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bin_dir")
    parser.add_argument("--samples", type=int, default=7)
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--eightbit", nargs="*", default=EIGHT_BIT_MODELS, help="models for the 8-bit rows")
    args = parser.parse_args()
    ensure_models(sorted(set(args.models) | set(args.eightbit)))
    peaks, simd = fp32_peaks(args.bin_dir, max(args.threads))
    print("Machine: %s, %d cores; fp32 peak (%s FMA loop): %s" % (
        cpu_name(), os.cpu_count(), simd, ", ".join("%d thread%s %.1f GFLOP/s" % (t, "s" if t > 1 else "", g)
                                                    for t, g in sorted(peaks.items()))))
    print()
    print("| model | threads | median ms | GFLOP/s | % fp32 peak | OpenCV ms | tfpi / OpenCV |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models:
        meta = load_meta(name)
        flops = 2.0 * meta["macs"]
        for threads in args.threads:
            opencv = OpenCV(meta, threads)
            samples, opencv_samples = [], []
            for _ in range(args.samples):
                samples.append(tfpi_sample(args.bin_dir, meta, threads))
                opencv_samples.append(opencv.sample())
            opencv.close()
            ms, opencv_ms = statistics.median(samples), statistics.median(opencv_samples)
            gflops = flops / ms / 1e6
            print("| %s | %d | %.1f | %.1f | %.0f%% | %.1f | %.2f |" % (
                name, threads, ms, gflops, 100 * gflops / peaks[threads], opencv_ms, ms / opencv_ms), flush=True)
    print()
    for name in args.models:
        meta = load_meta(name)
        rss, arena, high_water = tfpi_memory(args.bin_dir, meta)
        bound = 1.3 * meta["bytes"] + arena
        print("%s: peak RSS while running %.1f MB, bound 1.3 x %.1f MB model + %.1f MB arena = %.1f MB (%s); "
              "with loading %.1f MB" % (name, rss / 1e6, meta["bytes"] / 1e6, arena / 1e6, bound / 1e6,
                                        "within" if rss <= bound else "over", high_water / 1e6))
    print()
    for name in args.models:
        shares = op_type_shares(args.bin_dir, load_meta(name))
        print("%s, 1 thread, time by op type: %s" % (name, ", ".join("%s %.1f%%" % s for s in shares)))
    if args.eightbit:
        eightbit.table(args.bin_dir, MODELS_DIR, args.eightbit, args.threads, args.samples, load_meta, benchmark_args)
    tflite_bench.table(args.bin_dir, MODELS_DIR, ["mobilenet_v1_1.0_224"], args.threads, args.samples, load_meta,
                       benchmark_args)


if __name__ == "__main__":
    main()
