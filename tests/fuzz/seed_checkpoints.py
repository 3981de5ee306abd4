"""seed_checkpoints.py OUT_DIR - seeds for fuzz_checkpoint: every checkpoint
of ../shared/testdata/savedmodel and the synthetic ones of
tests/cli/checkpoint_cases.py (strings, partitioned tensors, damaged
files), each packed as 4 bytes of .index length, the .index, then shard 0."""
import glob
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import checkpoint_cases  # noqa: E402

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
work = tempfile.mkdtemp()
checkpoint_cases.make(work)
indexes = glob.glob(os.path.join(work, "*.index"))
indexes += glob.glob(os.path.join(os.environ.get("TFPI_TESTDATA", "../shared/testdata"), "savedmodel", "**",
                                  "*.index"), recursive=True)
for index in indexes:
    prefix = index[:-len(".index")]
    with open(index, "rb") as f:
        packed = f.read()
    shards = sorted(glob.glob(prefix + ".data-00000-of-*"))
    data = open(shards[0], "rb").read() if shards else b""
    name = prefix.replace("/", "_").strip("_.")
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<I", len(packed)) + packed + data)
