"""nms_reference.py - NonMaxSuppressionV5 graphs over box sets that stress
the spatial grid the kernel uses (clusters of overlapping boxes, scattered
small boxes, identical boxes, boxes with NaN, infinite or huge corners,
zero-area boxes, one box covering all), with numpy's answer: TensorFlow's
greedy hard and soft NMS written out directly, every candidate compared
with every selected box in float32, as the op is defined.

    python3 tests/cli/nms_reference.py OUT_DIR

writes OUT_DIR/<case>.pb (output `y:0` indices, `y:1` scores) and
OUT_DIR/<case>.indices.npy / .scores.npy, and prints the case names."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import DType, Node, encode_graph  # noqa: E402

F32 = np.float32


def iou(a, b):
    # corners normalised as the kernel does (fminf / fmaxf: a NaN corner gives way to the other)
    ay0, ay1, ax0, ax1 = np.fmin(a[0], a[2]), np.fmax(a[0], a[2]), np.fmin(a[1], a[3]), np.fmax(a[1], a[3])
    by0, by1, bx0, bx1 = np.fmin(b[0], b[2]), np.fmax(b[0], b[2]), np.fmin(b[1], b[3]), np.fmax(b[1], b[3])
    with np.errstate(all="ignore"):
        area_a, area_b = F32((ay1 - ay0) * (ax1 - ax0)), F32((by1 - by0) * (bx1 - bx0))
        if area_a <= 0 or area_b <= 0:
            return F32(0)
        ih = np.fmax(F32(np.fmin(ay1, by1) - np.fmax(ay0, by0)), F32(0))
        iw = np.fmax(F32(np.fmin(ax1, bx1) - np.fmax(ax0, bx0)), F32(0))
        inter = F32(ih * iw)
        return F32(inter / F32(F32(area_a + area_b) - inter))


def nms(boxes, scores, max_out, iou_threshold, score_threshold, sigma):
    """Greedy NMS; soft (sigma > 0): the best candidate is decayed by every
    box selected since it was last looked at, newest first; unchanged means
    selected, else back in the queue while above the threshold."""
    queue = [(F32(s), i, 0) for i, s in enumerate(scores) if s > score_threshold]
    selected, kept = [], []
    scale = F32(-0.5) / F32(sigma) if sigma > 0 else None
    while queue and len(selected) < max_out:
        best = min(range(len(queue)), key=lambda k: (-queue[k][0], queue[k][1]))
        score, index, compared = queue.pop(best)
        if scale is None:
            if all(not (iou(boxes[index], boxes[j]) > iou_threshold) and
                   not np.isnan(iou(boxes[index], boxes[j])) for j in selected):
                selected.append(index)
                kept.append(score)
            continue
        original = score
        for j in range(len(selected) - 1, compared - 1, -1):
            if not score > score_threshold:
                break
            o = iou(boxes[index], boxes[selected[j]])
            with np.errstate(all="ignore"):
                score = F32(score * F32(np.exp(F32(scale * o * o), dtype=F32)))
        if score == original:
            selected.append(index)
            kept.append(score)
        elif score > score_threshold:
            queue.append((score, index, len(selected)))
    return np.array(selected, np.int32), np.array(kept, F32)


def box_sets(rng):
    centres = rng.uniform(0, 1, (30, 2))
    clustered = np.concatenate([np.concatenate([c - h, c + h], 1) for c, h in
                                ((centres[rng.integers(0, 30, 600)] + rng.normal(0, 0.01, (600, 2)),
                                  rng.uniform(0.01, 0.05, (600, 2))),)])
    corners = rng.uniform(0, 1, (800, 2))
    scattered = np.concatenate([corners, corners + rng.uniform(0.001, 0.02, (800, 2))], 1)
    odd = scattered[:200].copy()
    odd[5] = [np.nan, 0.1, 0.2, 0.3]
    odd[6] = [0, 0, np.inf, 0.5]
    odd[7] = [-1e30, -1e30, 1e30, 1e30]
    odd[8] = [0.3, 0.3, 0.3, 0.6]  # zero area
    odd[9] = [-1, -1, 2, 2]  # covers everything
    odd[10:20] = odd[20]  # identical boxes
    start = rng.uniform(0, 0.6, (30, 2))
    odd[30:60] = np.concatenate([start, start + rng.uniform(0.25, 0.4, (30, 2))], 1)  # each spans many cells
    flipped = scattered[:300][:, [2, 3, 0, 1]]  # corners in the other order
    return {"clustered": clustered, "scattered": scattered, "odd": odd, "flipped": flipped}


def graph(boxes, scores, max_out, iou_threshold, score_threshold, sigma):
    def const(name, value):
        a = np.asarray(value)
        return Node(name, "Const", [], {"dtype": DType(1 if a.dtype == F32 else 3), "value": a})
    return encode_graph([const("boxes", boxes.astype(F32)), const("scores", scores.astype(F32)),
                         const("max", np.int32(max_out)), const("iou", F32(iou_threshold)),
                         const("score_threshold", F32(score_threshold)), const("sigma", F32(sigma)),
                         Node("y", "NonMaxSuppressionV5", ["boxes", "scores", "max", "iou", "score_threshold",
                                                           "sigma"], {"T": DType(1)})])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(21)
    for name, boxes in box_sets(rng).items():
        boxes = boxes.astype(F32)
        scores = rng.uniform(0, 1, len(boxes)).astype(F32)
        scores[1:len(boxes):7] = scores[0]  # ties go to the lower index
        for mode, (iou_threshold, score_threshold, sigma) in {"hard": (0.3, 0.05, 0.0),
                                                             "soft": (1.0, 0.05, 0.5)}.items():
            case = f"{name}_{mode}"
            indices, kept = nms(boxes, scores, len(boxes), iou_threshold, score_threshold, sigma)
            with open(os.path.join(out, case + ".pb"), "wb") as f:
                f.write(graph(boxes, scores, len(boxes), iou_threshold, score_threshold, sigma))
            np.save(os.path.join(out, case + ".indices.npy"), indices)
            np.save(os.path.join(out, case + ".scores.npy"), kept)
            print(case)


if __name__ == "__main__":
    main()
