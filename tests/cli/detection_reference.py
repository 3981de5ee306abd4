"""detection_reference.py - helpers for tests/cli/test_detect.sh, standard
library only (no numpy):

  detection_reference.py png IMAGE.npy OUT.png
      writes a uint8 [1,h,w,3] .npy image as a lossless RGB PNG, so detect
      sees exactly the tensor the reference outputs were computed from;
  detection_reference.py lines PREFIX LABELS THRESHOLD
      prints the lines detect should print ("label score ymin xmin ymax
      xmax", pixels) from PREFIX.tfjs.<output>.npy and the image size in
      PREFIX.image_tensor.npy;
  detection_reference.py compare WANT GOT
      same labels in the same order (detections whose scores differ by less
      than 1e-4 may swap), scores within 1e-4, corners within 0.1 pixel."""
import ast
import struct
import sys
import zlib


def load_npy(path):
    data = open(path, "rb").read()
    header_len = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_len].decode())
    body = data[10 + header_len:]
    code = {"<f4": "f", "|u1": "B", "<i4": "i", "<i8": "q"}[header["descr"]]
    count = len(body) // struct.calcsize(code)
    return header["shape"], struct.unpack("<%d%s" % (count, code), body)


def write_png(npy, out):
    shape, pixels = load_npy(npy)
    h, w = shape[1], shape[2]
    raw = b"".join(b"\0" + bytes(pixels[(y * w) * 3:(y + 1) * w * 3]) for y in range(h))

    def chunk(kind, payload):
        return (struct.pack(">I", len(payload)) + kind + payload +
                struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))
    with open(out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def reference_lines(prefix, labels_path, threshold):
    labels = [l.strip() for l in open(labels_path)]
    shape, _ = load_npy(prefix + ".image_tensor.npy")
    h, w = shape[1], shape[2]
    _, boxes = load_npy(prefix + ".tfjs.detection_boxes.npy")
    _, scores = load_npy(prefix + ".tfjs.detection_scores.npy")
    _, classes = load_npy(prefix + ".tfjs.detection_classes.npy")
    _, num = load_npy(prefix + ".tfjs.num_detections.npy")
    for i in range(int(num[0])):
        if scores[i] >= threshold:
            b = boxes[4 * i:4 * i + 4]
            print("%s %.4f %.1f %.1f %.1f %.1f" % (labels[int(classes[i])], scores[i], b[0] * h, b[1] * w,
                                                   b[2] * h, b[3] * w))


def compare(want_path, got_path):
    # the label may hold spaces ("DINING TABLE"): the last five fields are numbers
    want = [[l.rsplit(None, 5)[0]] + l.split()[-5:] for l in open(want_path)]
    got = [[l.rsplit(None, 5)[0]] + l.split()[-5:] for l in open(got_path)]
    if len(want) != len(got) or not want:
        sys.exit("%d detections, want %d" % (len(got), len(want)))
    used = set()
    for w in want:
        match = [i for i, g in enumerate(got) if i not in used and g[0] == w[0] and
                 abs(float(g[1]) - float(w[1])) <= 1e-4 and
                 all(abs(float(a) - float(b)) <= 0.1 for a, b in zip(g[2:], w[2:]))]
        if not match:
            sys.exit("no detection like: %s" % " ".join(w))
        used.add(match[0])
    scores = [float(g[1]) for g in got]
    if any(a < b for a, b in zip(scores, scores[1:])):
        sys.exit("detections not in decreasing score order: %s" % scores)


if __name__ == "__main__":
    if sys.argv[1] == "png":
        write_png(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "lines":
        reference_lines(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        compare(sys.argv[2], sys.argv[3])
