"""nms_reference.py - NonMaxSuppressionV5 graphs over box sets that stress
the spatial grid the kernel uses (clusters of overlapping boxes, scattered
small boxes, identical boxes, boxes with NaN, infinite or huge corners,
zero-area boxes, one box covering all), with numpy's answer: TensorFlow's
greedy hard and soft NMS written out directly, every candidate compared
with every selected box in float32, as the op is defined.

    python3 tests/cli/nms_reference.py OUT_DIR

writes OUT_DIR/<case>.pb (output `y:0` indices, `y:1` scores) and
OUT_DIR/<case>.indices.npy / .scores.npy, and prints the case names."""
import heapq
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import DType, Node, encode_graph  # noqa: E402

F32 = np.float32


def iou_matrix(boxes):
    """Every pair's IoU in float32, each step as the kernel takes it: corners
    normalised with fminf / fmaxf (a NaN corner gives way to the other), 0
    where either box has no area."""
    y0, y1 = np.fmin(boxes[:, 0], boxes[:, 2]), np.fmax(boxes[:, 0], boxes[:, 2])
    x0, x1 = np.fmin(boxes[:, 1], boxes[:, 3]), np.fmax(boxes[:, 1], boxes[:, 3])
    with np.errstate(all="ignore"):
        area = ((y1 - y0) * (x1 - x0)).astype(F32)
        ih = np.fmax(np.fmin(y1[:, None], y1[None, :]) - np.fmax(y0[:, None], y0[None, :]), F32(0))
        iw = np.fmax(np.fmin(x1[:, None], x1[None, :]) - np.fmax(x0[:, None], x0[None, :]), F32(0))
        inter = (ih * iw).astype(F32)
        union = (area[:, None] + area[None, :]).astype(F32) - inter
        overlap = (inter / union).astype(F32)
        empty = (area[:, None] <= 0) | (area[None, :] <= 0)
    return np.where(empty, F32(0), overlap).astype(F32)


def nms(boxes, scores, max_out, iou_threshold, score_threshold, sigma):
    """Greedy NMS; soft (sigma > 0): the best candidate is decayed by every
    box selected since it was last looked at, newest first; unchanged means
    selected, else back in the queue while above the threshold. The queue
    is a heap on (-score, index): the best score first, ties to the lower
    index."""
    overlap = iou_matrix(boxes)
    queue = [(-F32(s), i, 0) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(queue)
    selected, kept = [], []
    scale = F32(-0.5) / F32(sigma) if sigma > 0 else None
    while queue and len(selected) < max_out:
        score, index, compared = heapq.heappop(queue)
        score = -score
        if scale is None:
            row = overlap[index, selected]
            if not np.any((row > iou_threshold) | np.isnan(row)):
                selected.append(index)
                kept.append(score)
            continue
        original = score
        for j in range(len(selected) - 1, compared - 1, -1):
            if not score > score_threshold:
                break
            o = overlap[index, selected[j]]
            with np.errstate(all="ignore"):
                score = F32(score * F32(np.exp(F32(scale * o * o), dtype=F32)))
        if score == original:
            selected.append(index)
            kept.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, len(selected)))
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
