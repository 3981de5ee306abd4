"""tflite_refs.py - comparisons for the .tflite tests (numpy only).

compare GOT WANT REL: float outputs within REL relative of WANT (each
element within REL x |want|, or REL x max |want| for elements near zero);
steps GOT WANT [STEP]: quantized outputs (same integer dtype) within one
step of the output scale, i.e. one code, of WANT; float outputs of a
quantized model within STEP;
chain DIR REL: each DIR/got_<k>.npy against DIR/want_<k>.npy (written by
tflite_numpy_reference.py): integer tensors within one step, float ones
within REL as compare does.
Prints the largest difference; exits 1 when it is too large."""
import os
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


def chain(directory, rel):
    """Every got/want pair of directory; one summary line."""
    worst_steps, differ, values, worst_rel, bad = 0, 0, 0, 0.0, []
    k = 0
    while os.path.exists(os.path.join(directory, "want_%d.npy" % k)):
        w = np.load(os.path.join(directory, "want_%d.npy" % k))
        g = np.load(os.path.join(directory, "got_%d.npy" % k))
        if g.shape != w.shape:
            bad.append("tensor %d: shape %s, want %s" % (k, g.shape, w.shape))
        elif w.dtype.kind == "f":
            floor = np.abs(w).max() if w.size else 0.0
            err = np.abs(g.astype(np.float64) - w) / np.maximum(np.abs(w), floor * 1e-3 + 1e-30)
            worst_rel = max(worst_rel, float(err.max()) if err.size else 0.0)
        else:
            d = np.abs(g.astype(np.int64) - w.astype(np.int64))
            worst_steps, differ, values = max(worst_steps, int(d.max())), differ + int((d > 0).sum()), values + d.size
        k += 1
    print("%d tensors: integers max %d steps (%d of %d differ), floats max relative %.3g%s" %
          (k, worst_steps, differ, values, worst_rel, "; " + "; ".join(bad) if bad else ""))
    return 0 if k and not bad and worst_steps <= 1 and worst_rel <= rel else 1


if __name__ == "__main__":
    if sys.argv[1] == "chain":
        sys.exit(chain(sys.argv[2], float(sys.argv[3])))
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    sys.exit(steps(*[a for a in sys.argv[2:5] if a != "-"], **({"allowed": sys.argv[5]} if len(sys.argv) > 5 else {})))
