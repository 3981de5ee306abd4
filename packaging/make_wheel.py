#!/usr/bin/env python3
"""make_wheel.py - `make wheel`: a binary wheel of the Python module for one
target, tfpi-VERSION-py3-none-PLATFORM.whl (PLATFORM: linux_x86_64,
linux_armv7l, linux_aarch64), written with the standard library's zipfile
as the wheel format (PEP 427) lays it out:

    tfpi/*.py                      python/tfpi
    tfpi/libtfpi.so.MAJOR          the target's shared library
    tfpi/_installed.py             where the library and data are: this folder
    tfpi/data/...                  the default model, labels and image, when
                                   download_dependencies.sh fetched them
    tfpi-VERSION.dist-info/        METADATA, WHEEL, top_level.txt, RECORD

The code is pure Python over ctypes ("py3-none"); only the library ties
the wheel to a platform. It declares numpy (Requires-Dist): install it into
a venv made with --system-site-packages to use Debian's python3-numpy, or
give pip --no-deps. libtfpi.so needs the system's libprotobuf-c, libjpeg,
libpng, minizip and zlib (Debian: libprotobuf-c1 libjpeg62-turbo libpng16-16 libminizip1 zlib1g).

    make_wheel.py --version V --soname S --library PATH --platform P --out DIR
"""
import argparse
import base64
import glob
import hashlib
import os
import zipfile

DATA = ["models/mobilenet_v1_0.25_224/frozen_graph.pb", "models/mobilenet_v1_0.25_224/labels.txt",
        "images/grace_hopper.jpg"]


def metadata(version):
    return ("Metadata-Version: 2.1\nName: tfpi\nVersion: %s\n"
            "Summary: Run TensorFlow frozen graphs on a Raspberry Pi from Python (a tflite_runtime drop-in)\n"
            "License: Apache-2.0\nRequires-Python: >=3.7\nRequires-Dist: numpy\n" % version)


def wheel_file(platform):
    return ("Wheel-Version: 1.0\nGenerator: tfpi packaging/make_wheel.py\nRoot-Is-Purelib: false\n"
            "Tag: py3-none-%s\n" % platform)


def installed(soname):
    return ('"""Written by make wheel: libtfpi.so and the default data are inside this package."""\n'
            'SONAME = "%s"\nLIBDIR_FROM_PACKAGE = "."\nDATADIR_FROM_PACKAGE = "data"\n' % soname)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for flag in ("--version", "--soname", "--library", "--platform", "--out"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--source", default=".", help="the repository (python/tfpi, downloads/)")
    args = parser.parse_args()
    files = [(os.path.join("tfpi", os.path.basename(p)), open(p, "rb").read())
             for p in sorted(glob.glob(os.path.join(args.source, "python", "tfpi", "*.py")))
             if os.path.basename(p) != "_installed.py"]
    files.append(("tfpi/_installed.py", installed(args.soname).encode()))
    with open(args.library, "rb") as f:
        files.append(("tfpi/" + args.soname, f.read()))
    for name in DATA:
        path = os.path.join(args.source, "downloads", name)
        if os.path.exists(path):
            with open(path, "rb") as f:
                files.append(("tfpi/data/" + name, f.read()))
    info = "tfpi-%s.dist-info" % args.version
    files += [(info + "/METADATA", metadata(args.version).encode()),
              (info + "/WHEEL", wheel_file(args.platform).encode()),
              (info + "/top_level.txt", b"tfpi\n")]
    record = "\n".join([record_line(n, d) for n, d in files] + [info + "/RECORD,,", ""])
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "tfpi-%s-py3-none-%s.whl" % (args.version, args.platform))
    with zipfile.ZipFile(path + ".tmp", "w", zipfile.ZIP_DEFLATED) as whl:
        for name, data in files + [(info + "/RECORD", record.encode())]:
            entry = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            entry.external_attr = (0o755 if name.endswith(args.soname) else 0o644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(entry, data)
    os.replace(path + ".tmp", path)
    print(path)


if __name__ == "__main__":
    main()
