"""tflite_refs.py - comparisons for the .tflite tests (numpy only).

compare GOT WANT REL: float outputs within REL relative of WANT (each
element within REL x |want|, or REL x max |want| for elements near zero);
steps GOT WANT [STEP]: quantized outputs (same integer dtype) within one
step of the output scale, i.e. one code, of WANT; float outputs of a
quantized model within STEP.
Prints the largest difference; exits 1 when it is too large."""
import sys

import numpy as np


def compare(got, want, rel):
    g, w = np.load(got).astype(np.float64), np.load(want).astype(np.float64)
    if g.shape != w.shape:
        print("shape %s, want %s" % (g.shape, w.shape))
        return 1
    floor = np.abs(w).max() if w.size else 0.0
    err = np.abs(g - w) / np.maximum(np.abs(w), floor * 1e-3 + 1e-30)
    print("max relative difference %.3g over %d values" % (err.max() if err.size else 0.0, w.size))
    return 0 if err.size == 0 or err.max() <= rel else 1


def steps(got, want, step=None, allowed=1):
    g, w = np.load(got), np.load(want)
    if g.shape != w.shape or g.dtype != w.dtype:
        print("%s %s, want %s %s" % (g.dtype, g.shape, w.dtype, w.shape))
        return 1
    if step is None:
        d = np.abs(g.astype(np.int64) - w.astype(np.int64))
    else:
        d = np.abs(g.astype(np.float64) - w.astype(np.float64)) / float(step)
    print("max %.3g steps over %d values (%d differ)" % (d.max(), d.size, int((d > 0).sum())))
    return 0 if d.max() <= float(allowed) else 1


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    sys.exit(steps(*[a for a in sys.argv[2:5] if a != "-"], **({"allowed": sys.argv[5]} if len(sys.argv) > 5 else {})))
