"""tflite_refs.py - comparisons for the .tflite tests (numpy only).

compare GOT WANT REL: float outputs within REL relative of WANT (each
element within REL x |want|, or REL x max |want| for elements near zero);
steps GOT WANT [STEP]: quantized outputs (same integer dtype) within one
step of the output scale, i.e. one code, of WANT; float outputs of a
quantized model within STEP;
chain DIR REL: each DIR/got_<k>.npy against DIR/want_<k>.npy (written by
tflite_numpy_reference.py): integer tensors within one step, float ones
within REL of the tensor's largest magnitude (a long float32 chain's
rounding, against numpy's float64, is absolute: a value far below the
largest can differ by more than REL of itself);
hybrid DIR RULE_DIR: how far tfpi's float math on a hybrid model is from
TFLite's hybrid rule (top-1, or a mask's agreement), printed only.
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
            if w.size:
                err = np.abs(g.astype(np.float64) - w).max() / max(float(np.abs(w).max()), 1e-30)
                worst_rel = max(worst_rel, float(err))
        else:
            d = np.abs(g.astype(np.int64) - w.astype(np.int64))
            worst_steps, differ, values = max(worst_steps, int(d.max())), differ + int((d > 0).sum()), values + d.size
        k += 1
    print("%d tensors: integers max %d steps (%d of %d differ), floats max difference %.3g of the largest%s" %
          (k, worst_steps, differ, values, worst_rel, "; " + "; ".join(bad) if bad else ""))
    return 0 if k and not bad and worst_steps <= 1 and worst_rel <= rel else 1


def hybrid(directory, rule_directory):
    """tfpi's first output (DIR/got_0.npy) against the numpy chain with
    TFLite's hybrid rule (RULE_DIR/want_0.npy): a class's top-1, or a
    mask's share of values on the same side of 0.5, and the largest
    difference; information, not a bound."""
    g = np.load(os.path.join(directory, "got_0.npy")).astype(np.float64)
    w = np.load(os.path.join(rule_directory, "want_0.npy"))
    if w.size <= 1000:
        agree = "top-1 %s" % ("the same" if g.argmax() == w.argmax() else "%d, rule's %d" % (g.argmax(), w.argmax()))
    else:
        agree = "%d of %d values on the same side of 0.5" % (int(((g > 0.5) == (w > 0.5)).sum()), w.size)
    print("%s; max difference %.3g of the largest" % (agree, np.abs(g - w).max() / max(np.abs(w).max(), 1e-30)))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "hybrid":
        sys.exit(hybrid(sys.argv[2], sys.argv[3]))
    if sys.argv[1] == "chain":
        sys.exit(chain(sys.argv[2], float(sys.argv[3])))
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    sys.exit(steps(*[a for a in sys.argv[2:5] if a != "-"], **({"allowed": sys.argv[5]} if len(sys.argv) > 5 else {})))
