"""checkpoint_cases.py - test material for tests/cli/test_checkpoint.sh.

  checkpoint_cases.py make DIR        synthetic checkpoints under DIR, each
                                      with NAME.expected: what
                                      `inspect_checkpoint --all_tensors` must print
  checkpoint_cases.py expect PREFIX   that text for a real checkpoint, read
                                      with checkpoint_files.py (not tfpi)
  checkpoint_cases.py list PREFIX     what `inspect_checkpoint` must list
"""
import os
import struct
import sys

import numpy as np

import checkpoint_files as ck

NAMES = {1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 7: "DT_STRING", 9: "DT_INT64", 10: "DT_BOOL"}


def format_value(v):
    if isinstance(v, bytes):
        return '"' + "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else "\\x%02x" % b for b in v) + '"'
    if isinstance(v, (np.floating,)):
        return "%.9g" % float(v) if v.dtype == np.float32 else "%.17g" % float(v)
    return "%d" % int(v)


def format_tensor(key, array):
    values = [format_value(v) for v in np.asarray(array).reshape(-1)]
    return "tensor_name:  %s\n%s\n" % (key, " ".join(values))


def expect(tensors):
    return "".join(format_tensor(k, tensors[k]) for k in sorted(tensors, key=lambda k: k.encode()))


def strings(values):
    return np.array(values, dtype=object)


def write(directory, name, tensors, expected=None, **kwargs):
    prefix = os.path.join(directory, name)
    entries = ck.write_bundle(prefix, tensors, **kwargs)
    with open(prefix + ".expected", "w") as f:
        f.write(expect(expected if expected is not None else tensors))
    return prefix, entries


def flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x01]))


def index_blocks(prefix):
    """(offset, size) of the data blocks, the metaindex and the index block."""
    with open(prefix + ".index", "rb") as f:
        data = f.read()
    footer = data[-48:]
    meta, p = ck.read_varint(footer, 0)
    meta_size, p = ck.read_varint(footer, p)
    top, p = ck.read_varint(footer, p)
    top_size, p = ck.read_varint(footer, p)
    return (0, meta, top), (meta_size, top_size)


def make(directory):
    rng = np.random.default_rng(20)
    # Numeric types, a scalar, an empty tensor, and many keys (several data blocks).
    plain = {"a/float": rng.standard_normal((3, 4)).astype(np.float32), "b/int64": np.arange(5, dtype=np.int64),
             "c/int32": np.array(-7, np.int32), "d/bool": np.array([True, False, True]),
             "e/empty": np.zeros((0, 3), np.float32), "f/double": np.array([1.5, -2.25]),
             "g/uint8": np.arange(250, 256, dtype=np.uint8)}
    for i in range(300):
        plain["many/v%03d" % i] = np.full((2,), i, np.float32)
    write(directory, "plain", plain)
    write(directory, "strings", {"s": strings([b"", b"a", "h\u00e9llo".encode()]), "t": strings([]),
                                 "u": strings([b"x" * 200, b"\x00\xff\""]).reshape(1, 2)})
    w = np.arange(8, dtype=np.float32).reshape(4, 2)
    big = rng.standard_normal((130, 3)).astype(np.float32)
    parts = {"w": [[(0, 2), (0, -1)], [(2, 2), (0, -1)]],
             "big": [[(0, 100), (0, -1)], [(100, 30), (0, 2)], [(100, 30), (2, 1)]]}
    write(directory, "parts", {"w": w, "big": big, "plain": np.array([3.0], np.float32)}, partitions=parts)
    write(directory, "shards", {"a": np.array([1.0, 2.0], np.float32), "b": np.array([3, 4], np.int32),
                                "c": strings([b"in shard 1"])}, num_shards=2, shard_of={"b": 1, "c": 1})

    # ---- damaged copies ----
    prefix, _ = write(directory, "bad_data", {"x": np.arange(4, dtype=np.float32)})
    flip(prefix + ".data-00000-of-00001", 5)
    prefix, entries = write(directory, "bad_lengths", {"s": strings([b"abc", b"de"])})
    flip(prefix + ".data-00000-of-00001", 2)  # the first byte of the stored lengths checksum
    prefix, entries = write(directory, "bad_string_bytes", {"s": strings([b"abc", b"de"])})
    flip(prefix + ".data-00000-of-00001", 7)
    for block, name in ((0, "bad_data_block"), (1, "bad_meta_block"), (2, "bad_index_block")):
        prefix, _ = write(directory, name, {"x": np.arange(4, dtype=np.float32)})
        offsets, _ = index_blocks(prefix)
        flip(prefix + ".index", offsets[block] + 1)
    prefix, _ = write(directory, "bad_trailer", {"x": np.arange(4, dtype=np.float32)})
    offsets, sizes = index_blocks(prefix)
    flip(prefix + ".index", offsets[2] + sizes[1] + 2)
    prefix, _ = write(directory, "truncated", plain)
    with open(prefix + ".index", "r+b") as f:
        f.truncate(os.path.getsize(prefix + ".index") // 2)
    prefix, entries = write(directory, "past_end", {"x": np.arange(4, dtype=np.float32)})
    entries[b"x"]["offset"] = 8
    ck.write_index(prefix, entries)
    prefix, entries = write(directory, "bad_size", {"x": np.arange(4, dtype=np.float32)})
    entries[b"x"]["shape"] = [5]
    ck.write_index(prefix, entries)
    prefix, _ = write(directory, "missing_shard", {"a": np.array([1.0], np.float32),
                                                   "b": np.array([2.0], np.float32)}, num_shards=2, shard_of={"b": 1})
    os.remove(prefix + ".data-00001-of-00002")
    prefix, entries = write(directory, "missing_slice", {"w": w}, partitions={"w": parts["w"]})
    del entries[ck.slice_key("w", [(2, 2), (0, -1)])]
    ck.write_index(prefix, entries)
    prefix, entries = write(directory, "few_slices", {"w": w}, partitions={"w": parts["w"]})
    entries[b"w"]["slices"] = entries[b"w"]["slices"][:1]
    ck.write_index(prefix, entries)
    # The index block's handle one byte too long: its trailer would run into the footer.
    prefix, _ = write(directory, "long_handle", {"x": np.arange(4, dtype=np.float32)})
    (_, meta, top), (meta_size, top_size) = index_blocks(prefix)
    with open(prefix + ".index", "r+b") as f:
        f.seek(-48, os.SEEK_END)
        f.write((ck.varint(meta) + ck.varint(meta_size) + ck.varint(top) + ck.varint(top_size + 1)).ljust(40, b"\0"))
    # 300 keys whose entries all name one region of the data file (its checksum is computed once).
    prefix, entries = write(directory, "shared_region", {"x": np.arange(4096, dtype=np.float32)})
    for i in range(300):
        entries[b"y%03d" % i] = dict(entries[b"x"])
    ck.write_index(prefix, entries)
    # Entries refused after they are unpacked (each was leaked until the third hostile round).
    for name, field, value in (("negative_shape", "shape", [-1]), ("negative_shard", "shard_id", -1),
                               ("negative_offset", "offset", -8)):
        prefix, entries = write(directory, name, {"x": np.arange(4, dtype=np.float32)})
        entries[b"x"][field] = value
        ck.write_index(prefix, entries)
    prefix, entries = write(directory, "variant", {"x": np.arange(4, dtype=np.float32)})
    entries[b"x"]["dtype"] = 21
    ck.write_index(prefix, entries)
    # A key "" that is not a header, then a big-endian header.
    prefix, entries = write(directory, "big_endian", {"x": np.arange(4, dtype=np.float32)})
    header = ck.field_varint(1, 1) + ck.field_varint(2, 1)
    table = [(b"", header)] + [(k, ck.entry_proto(entries[k])) for k in sorted(entries)]
    with open(prefix + ".index", "wb") as f:
        f.write(ck.write_table(table))
    # A restart entry that shares a prefix, and a restart count past the block.
    prefix, _ = write(directory, "bad_restarts", {"x": np.arange(4, dtype=np.float32)})
    rewrite_first_block(prefix, lambda block: block[:-4] + struct.pack("<I", 100000))


def rewrite_first_block(prefix, change):
    """Replaces the first data block's contents (keeping valid checksums)."""
    with open(prefix + ".index", "rb") as f:
        data = bytearray(f.read())
    (first, _, _), _ = index_blocks(prefix)
    table = ck.read_table(bytes(data))
    block = ck._block_bytes(table, 16)
    changed = change(block)
    assert len(changed) == len(block)
    data[first:first + len(block)] = changed
    crc = ck.mask(ck.crc32c(b"\0", ck.crc32c(changed)))
    data[first + len(block) + 1:first + len(block) + 5] = struct.pack("<I", crc)
    with open(prefix + ".index", "wb") as f:
        f.write(data)


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "expect":
        sys.stdout.write(expect(ck.read_bundle(sys.argv[2])))
    elif sys.argv[1] == "list":
        for key, dtype, shape, partitioned in ck.list_bundle(sys.argv[2]):
            print("%s (%s) [%s]%s" % (key, NAMES.get(dtype, "?"), ",".join(map(str, shape)),
                                      " partitioned" if partitioned else ""))


if __name__ == "__main__":
    main()
