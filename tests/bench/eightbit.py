"""eightbit.py - the 8-bit rows of `make bench` (used by run_bench.py).

prepare() makes a model's eight-bit twin with tfpi's own tools, the README's
workflow: transform_graph fold_constants fold_batch_norms fold_old_batch_norms
quantize_weights quantize_nodes, insert_logging of every RequantizationRange,
run_graph on a few random inputs in the model's value range (the logged
ranges go to stderr), freeze_requantization_ranges. The result is cached as
gen/models/<name>.8bit.pb. table() then times the float and the 8-bit graph
in turn (fresh benchmark_model processes, alternating) and prints the
medians and the speed-up.
"""
import os
import re
import statistics
import subprocess
import sys

import numpy

TRANSFORMS = "fold_constants fold_batch_norms fold_old_batch_norms quantize_weights quantize_nodes"
LOGGING = 'insert_logging(op=RequantizationRange, show_name=true, message="__requant_min_max:")'
LOGGED_RUNS = 3


def tool(bin_dir, name, *args):
    result = subprocess.run([os.path.join(bin_dir, name)] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit("eightbit.py: %s failed:\n%s" % (name, result.stderr))
    return result


def prepare(bin_dir, models_dir, meta):
    """The path of the model's 8-bit graph with frozen ranges (made once)."""
    source = os.path.join(models_dir, meta["file"])
    target = os.path.join(models_dir, meta["name"] + ".8bit.pb")
    if os.path.exists(target) and os.path.getmtime(target) > os.path.getmtime(source):
        return target
    io = ["--inputs=" + meta["input"]["name"], "--outputs=" + meta["output"]["name"]]
    dynamic, logged = target + ".dynamic.pb", target + ".logged.pb"
    tool(bin_dir, "transform_graph", "--in_graph=" + source, "--out_graph=" + dynamic, "--transforms=" + TRANSFORMS,
         *io)
    tool(bin_dir, "transform_graph", "--in_graph=" + dynamic, "--out_graph=" + logged, "--transforms=" + LOGGING, *io)
    low, high = meta["input"].get("value_range", [-1.0, 1.0])
    rng = numpy.random.default_rng(meta.get("seed", 1))
    log = target + ".ranges.log"
    with open(log, "w") as out:
        for _ in range(LOGGED_RUNS):
            feed = target + ".input.npy"
            numpy.save(feed, rng.uniform(low, high, meta["input"]["shape"]).astype(numpy.float32))
            out.write(tool(bin_dir, "run_graph", "--graph=" + logged, "--input=%s=%s" % (meta["input"]["name"], feed),
                           "--output=" + meta["output"]["name"] + "=" + target + ".output.npy").stderr)
    tool(bin_dir, "transform_graph", "--in_graph=" + dynamic, "--out_graph=" + target,
         "--transforms=freeze_requantization_ranges(min_max_log_file=%s)" % log, *io)
    return target


def sample(args):
    """One timed run in a fresh process, in ms."""
    out = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    return float(re.search(r"^count=1 first=\S+ curr=\S+ min=\S+ max=\S+ avg=([\d.]+)", out, re.M).group(1)) / 1e3


def table(bin_dir, models_dir, names, threads_list, samples, load_meta, benchmark_args):
    print()
    print("| model | threads | float ms | 8-bit ms | speed-up |")
    print("|---|---|---|---|---|")
    for name in names:
        meta = load_meta(name)
        quantized = prepare(bin_dir, models_dir, meta)
        for threads in threads_list:
            float_args = benchmark_args(bin_dir, meta, threads, 1)
            eight_args = [a if not a.startswith("--graph=") else "--graph=" + quantized for a in float_args]
            floats, eights = [], []
            for _ in range(samples):
                floats.append(sample(float_args))
                eights.append(sample(eight_args))
            f, e = statistics.median(floats), statistics.median(eights)
            print("| %s | %d | %.1f | %.1f | %.2fx |" % (name, threads, f, e, f / e), flush=True)
