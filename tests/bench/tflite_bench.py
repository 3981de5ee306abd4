"""tflite_bench.py - the TensorFlow Lite rows of `make bench`: a float
MobileNet as a .tflite (tests/cli/make_tflite_mobilenet.py: batch norms
folded into the convolutions as TFLite's converter does) against the
frozen graph it was made from, each timed by benchmark_model in fresh
processes, alternating, medians of N samples: the .tflite should run within
5% of the frozen graph, on the same kernels."""
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONVERTER = os.path.normpath(os.path.join(HERE, "..", "cli", "make_tflite_mobilenet.py"))


def tflite_of(models_dir, name):
    """MODELS_DIR/NAME.tflite, written from NAME.pb if missing."""
    path = os.path.join(models_dir, name + ".tflite")
    if not os.path.exists(path):
        subprocess.run([sys.executable, CONVERTER, os.path.join(models_dir, name + ".pb"), path], check=True)
    return path


def sample(args):
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True).stdout
    return float(re.search(r"^count=1 first=\S+ curr=\S+ min=\S+ max=\S+ avg=([\d.]+)", out, re.M).group(1)) / 1e3


def table(bin_dir, models_dir, names, threads_list, samples, load_meta, benchmark_args):
    print()
    print("| TensorFlow Lite model | threads | .tflite median ms | frozen .pb median ms | .tflite / .pb |")
    print("|---|---|---|---|---|")
    for name in names:
        meta = load_meta(name)
        lite = tflite_of(models_dir, name)
        for threads in threads_list:
            pb_args = benchmark_args(bin_dir, meta, threads, 1)
            lite_args = [a if not a.startswith("--graph=") else "--graph=" + lite for a in pb_args]
            lite_ms, pb_ms = [], []
            for _ in range(samples):
                lite_ms.append(sample(lite_args))
                pb_ms.append(sample(pb_args))
            a, b = statistics.median(lite_ms), statistics.median(pb_ms)
            print("| %s.tflite | %d | %.1f | %.1f | %.3f |" % (name, threads, a, b, a / b), flush=True)
