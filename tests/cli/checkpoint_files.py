"""checkpoint_files.py - TensorFlow checkpoints (tensor bundles) in plain
Python + numpy, written for the tests independently of tfpi's C reader:
read_bundle() gives the reference values the models' numpy evaluations use,
write_bundle() makes the synthetic checkpoints (strings, partitioned
tensors, several shards) and, with damage, the hostile ones.

Format facts (docs/savedmodel.md section 1): P.index is a LevelDB table
(blocks of prefix-compressed entries + restarts, a 5-byte trailer of type and
masked CRC-32C, a 48-byte footer ending in magic 0xdb4775248b80fb57) mapping
keys to BundleEntryProto; P.data-%05d-of-%05d hold the raw bytes."""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
import graphdef  # noqa: E402

MAGIC = 0xDB4775248B80FB57
MASK_DELTA = 0xA282EAD8

# DataType number -> numpy dtype (strings handled apart).
NUMPY_TYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
               9: np.int64, 10: np.bool_, 17: np.uint16, 19: np.float16}
DT_STRING = 7
TYPE_NUMBERS = {np.dtype(v): k for k, v in NUMPY_TYPES.items()}


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC-32C of data, continuing from crc (the CRC of what came before)."""
    c = crc ^ 0xFFFFFFFF
    for b in bytes(data):
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def mask(c):
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + MASK_DELTA) & 0xFFFFFFFF


def unmask(m):
    r = (m - MASK_DELTA) & 0xFFFFFFFF
    return ((r >> 17) | (r << 15)) & 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283
assert mask(0) == MASK_DELTA and unmask(mask(0x12345678)) == 0x12345678


# ---- protobuf wire format (tests/diff/graphdef.py's reader and varints) ----
varint = graphdef._varint
read_varint = graphdef._read_varint
fields = graphdef._fields  # fixed32 values come as their 4 bytes


def field_varint(number, v):
    return varint(number << 3) + varint(v)


def field_bytes(number, b):
    return varint(number << 3 | 2) + varint(len(b)) + b


def field_fixed32(number, v):
    return varint(number << 3 | 5) + struct.pack("<I", v)


def shape_proto(shape):
    return b"".join(field_bytes(2, field_varint(1, d) if d else b"") for d in shape)


def parse_shape(buf):
    dims = []
    for number, _, value in fields(buf):
        if number == 2:
            size = 0
            for n, _, v in fields(value):
                if n == 1:
                    size = v - (1 << 64) if v >= 1 << 63 else v
            dims.append(size)
    return dims


# ---- reading -------------------------------------------------------------
def _block(data, offset, size):
    contents = data[offset:offset + size]
    kind = data[offset + size]
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    if unmask(stored) != crc32c(bytes([kind]), crc32c(contents)):
        raise ValueError("block checksum mismatch at offset %d" % offset)
    if kind != 0:
        raise ValueError("compressed block")
    return contents


def _entries(block):
    num_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * num_restarts
    pos, key = 0, b""
    while pos < limit:
        shared, pos = read_varint(block, pos)
        non_shared, pos = read_varint(block, pos)
        value_len, pos = read_varint(block, pos)
        key = key[:shared] + bytes(block[pos:pos + non_shared])
        pos += non_shared
        yield key, bytes(block[pos:pos + value_len])
        pos += value_len


def read_table(data):
    """Every (key, value) of an sstable, checksums verified."""
    footer = data[-48:]
    if struct.unpack_from("<Q", footer, 40)[0] != MAGIC:
        raise ValueError("bad magic")
    pos = 0
    handles = []
    for _ in range(2):
        off, pos = read_varint(footer, pos)
        size, pos = read_varint(footer, pos)
        handles.append((off, size))
    _block(data, *handles[0])
    out = []
    for _, handle in _entries(_block(data, *handles[1])):
        off, p = read_varint(handle, 0)
        size, _ = read_varint(handle, p)
        out.extend(_entries(_block(data, off, size)))
    return out


def parse_entry(value):
    e = {"dtype": 0, "shape": [], "shard_id": 0, "offset": 0, "size": 0, "crc32c": 0, "slices": []}
    for number, _, v in fields(value):
        if number == 1:
            e["dtype"] = v
        elif number == 2:
            e["shape"] = parse_shape(v)
        elif number == 3:
            e["shard_id"] = v
        elif number == 4:
            e["offset"] = v
        elif number == 5:
            e["size"] = v
        elif number == 6:
            e["crc32c"] = struct.unpack("<I", v)[0]
        elif number == 7:
            e["slices"].append(v)
    if e["dtype"] > 100:
        e["dtype"] -= 100
    return e


def _decode_strings(raw, n, stored_crc):
    pos, lengths, crc = 0, [], 0
    for _ in range(n):
        length, pos = read_varint(raw, pos)
        lengths.append(length)
        crc = crc32c(struct.pack("<I" if length < 1 << 32 else "<Q", length), crc)
    if n == 0:
        return []
    if unmask(struct.unpack_from("<I", raw, pos)[0]) != crc:
        raise ValueError("length checksum")
    crc = crc32c(raw[pos:], crc)
    if unmask(stored_crc) != crc:
        raise ValueError("entry checksum")
    pos += 4
    out = []
    for length in lengths:
        out.append(bytes(raw[pos:pos + length]))
        pos += length
    return out


def read_bundle(prefix):
    """{key: numpy array (numeric) or nested list of bytes (strings)} for
    every unpartitioned tensor of a checkpoint, checksums verified."""
    with open(prefix + ".index", "rb") as f:
        table = read_table(f.read())
    num_shards = 1
    for number, _, v in fields(table[0][1]):
        if number == 1:
            num_shards = v
    shards = {}
    out = {}
    for key, value in table[1:]:
        if key[:1] == b"\0":
            continue
        e = parse_entry(value)
        if e["slices"]:
            continue
        if e["shard_id"] not in shards:
            with open("%s.data-%05d-of-%05d" % (prefix, e["shard_id"], num_shards), "rb") as f:
                shards[e["shard_id"]] = f.read()
        raw = shards[e["shard_id"]][e["offset"]:e["offset"] + e["size"]]
        n = int(np.prod(e["shape"], dtype=np.int64))
        if e["dtype"] == DT_STRING:
            strings = _decode_strings(raw, n, e["crc32c"])
            out[key.decode()] = np.array(strings, dtype=object).reshape(e["shape"])
            continue
        if unmask(e["crc32c"]) != crc32c(raw):
            raise ValueError("data checksum of " + key.decode())
        out[key.decode()] = np.frombuffer(raw, NUMPY_TYPES[e["dtype"]]).reshape(e["shape"]).copy()
    return out


def list_bundle(prefix):
    """[(key, dtype number, shape, partitioned)] in key order."""
    with open(prefix + ".index", "rb") as f:
        table = read_table(f.read())
    out = []
    for key, value in table[1:]:
        if key[:1] != b"\0":
            e = parse_entry(value)
            out.append((key.decode(), e["dtype"], e["shape"], bool(e["slices"])))
    return out


# ---- writing -------------------------------------------------------------
def ordered_unsigned(v):
    body = v.to_bytes((v.bit_length() + 7) // 8, "big") if v else b""
    return bytes([len(body)]) + body


_HEADERS = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0), 5: (0xF8, 0), 6: (0xFC, 0),
            7: (0xFE, 0), 8: (0xFF, 0), 9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def ordered_signed(v):
    x = ~v if v < 0 else v
    if x < 64:
        return bytes([(0x80 ^ v) & 0xFF])
    n = x.bit_length() // 7 + 1
    body = bytearray(v.to_bytes(n, "big", signed=True))
    body[0] ^= _HEADERS[n][0]
    body[1] ^= _HEADERS[n][1]
    return bytes(body)


def slice_key(name, extents):
    """EncodeTensorNameSlice: extents is [(start, length)], length -1 = full."""
    escaped = b"".join({0: b"\x00\xff", 0xFF: b"\xff\x00"}.get(c, bytes([c])) for c in name.encode())
    out = b"\x00" + escaped + b"\x00\x01" + ordered_unsigned(len(extents))
    for start, length in extents:
        out += ordered_signed(start) + ordered_signed(length)
    return out


assert slice_key("w", [(0, 5), (0, -1)]) == bytes.fromhex("0077000101028085807f")
assert ordered_signed(100) == bytes.fromhex("c064") and ordered_signed(-1) == b"\x7f"


def _block_bytes(entries, restart_interval):
    out, restarts, prev = bytearray(), [], b""
    for i, (key, value) in enumerate(entries):
        shared = 0
        if i % restart_interval == 0:
            restarts.append(len(out))
        else:
            while shared < min(len(prev), len(key)) and prev[shared] == key[shared]:
                shared += 1
        out += varint(shared) + varint(len(key) - shared) + varint(len(value)) + key[shared:] + value
        prev = key
    if not restarts:
        restarts = [0]
    for r in restarts:
        out += struct.pack("<I", r)
    return bytes(out + struct.pack("<I", len(restarts)))


def write_table(entries, block_size=4096):
    """An sstable of sorted (key, value) pairs, as bytes."""
    out = bytearray()

    def emit(block):
        handle = varint(len(out)) + varint(len(block))
        out.extend(block + b"\0" + struct.pack("<I", mask(crc32c(b"\0", crc32c(block)))))
        return handle

    index, pending = [], []
    for key, value in entries:
        pending.append((key, value))
        if sum(len(k) + len(v) for k, v in pending) >= block_size:
            index.append((key, emit(_block_bytes(pending, 16))))
            pending = []
    if pending:
        index.append((pending[-1][0], emit(_block_bytes(pending, 16))))
    meta = emit(_block_bytes([], 16))
    top = emit(_block_bytes(index, 1))
    footer = (meta + top).ljust(40, b"\0") + struct.pack("<Q", MAGIC)
    return bytes(out + footer)


def _string_bytes(strings):
    if not strings:
        return b"", 0
    lengths = b"".join(varint(len(s)) for s in strings)
    crc = 0
    for s in strings:
        crc = crc32c(struct.pack("<I", len(s)), crc)
    stored = struct.pack("<I", mask(crc))
    body = b"".join(strings)
    return lengths + stored + body, crc32c(body, crc32c(stored, crc))


def write_bundle(prefix, tensors, num_shards=1, partitions=None, shard_of=None):
    """Writes a checkpoint. tensors: {name: numpy array, or numpy object
    array of bytes for a string tensor}. partitions: {name: [slice boxes]},
    each box [(start, length)] per dim (length -1 = whole dim): the tensor is
    stored as those slices. shard_of: {name: shard}. Returns the entries
    (key -> (entry dict, raw data bytes)) so tests can damage them."""
    partitions = partitions or {}
    shard_of = shard_of or {}
    data = [bytearray() for _ in range(num_shards)]
    entries = {}

    def add(key, array, shard):
        if array.dtype == object:
            raw, crc = _string_bytes([bytes(s) for s in array.reshape(-1)])
            dtype = DT_STRING
        else:
            raw = np.ascontiguousarray(array).tobytes()
            crc, dtype = crc32c(raw), TYPE_NUMBERS[array.dtype]
        entry = {"dtype": dtype, "shape": list(array.shape), "shard_id": shard,
                 "offset": len(data[shard]), "size": len(raw), "crc32c": mask(crc), "slices": []}
        data[shard].extend(raw)
        entries[key] = entry

    for name, array in tensors.items():
        shard = shard_of.get(name, 0)
        if name not in partitions:
            add(name.encode(), array, shard)
            continue
        full = {"dtype": TYPE_NUMBERS[array.dtype], "shape": list(array.shape), "shard_id": 0, "offset": 0,
                "size": 0, "crc32c": 0, "slices": []}
        for extents in partitions[name]:
            index = tuple(slice(s, None if n < 0 else s + n) for s, n in extents)
            add(slice_key(name, extents), array[index], shard)
            full["slices"].append(b"".join(
                field_bytes(1, field_varint(1, s) + (field_varint(2, n) if n >= 0 else b"")) for s, n in extents))
        entries[name.encode()] = full
    for shard in range(num_shards):
        with open("%s.data-%05d-of-%05d" % (prefix, shard, num_shards), "wb") as f:
            f.write(data[shard])
    write_index(prefix, entries, num_shards)
    return entries


def entry_proto(e):
    out = field_varint(1, e["dtype"]) + field_bytes(2, shape_proto(e["shape"]))
    if e["shard_id"]:
        out += field_varint(3, e["shard_id"])
    if e["offset"]:
        out += field_varint(4, e["offset"])
    if e["size"]:
        out += field_varint(5, e["size"])
    if e["crc32c"]:
        out += field_fixed32(6, e["crc32c"])
    return out + b"".join(field_bytes(7, s) for s in e["slices"])


def write_index(prefix, entries, num_shards=1, block_size=4096):
    header = field_varint(1, num_shards) + field_bytes(3, field_varint(1, 1))
    table = [(b"", header)] + [(k, entry_proto(entries[k])) for k in sorted(entries)]
    with open(prefix + ".index", "wb") as f:
        f.write(write_table(table, block_size))
