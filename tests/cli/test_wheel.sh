# test_wheel.sh - `make wheel` (packaging/make_wheel.py): the wheel has the
# name pip expects (tfpi-VERSION-py3-none-PLATFORM.whl) and a valid RECORD,
# installs with pip into a fresh venv (python3 -m venv
# --system-site-packages: numpy from Debian's python3-numpy, nothing from
# PyPI), and there, from a folder with no build tree, the Python examples
# run on the model the wheel carries and print what label_image prints.
# Host builds only; tests/check_wheels.sh installs the ARM wheels into
# minimal armhf and arm64 roots under qemu.
. tests/cli/lib.sh
: "${VERSION:?}" "${SONAME:?}" "${BIN:?}"
if [ -n "${QEMU:-}" ] || [ -n "${SANITIZE:-}" ] || [ -z "${WHEEL_PLATFORM:-}" ]; then
    echo "skip: the wheel is installed and run on plain host builds (tests/check_wheels.sh: ARM)"
    echo "0 passed, 0 failed"
    exit 0
fi
PY=/usr/bin/python3
REPO=$(pwd)
WHEEL_DIR=$CLI_TMP/dist
out=$($PY packaging/make_wheel.py --version "$VERSION" --soname "$SONAME" --library "$BIN/../lib/libtfpi.so.$VERSION" \
    --platform "$WHEEL_PLATFORM" --out "$WHEEL_DIR" 2>&1)
wheel=$WHEEL_DIR/tfpi-$VERSION-py3-none-$WHEEL_PLATFORM.whl
cli_result "make_wheel.py writes $(basename "$wheel")" "$([ "$out" = "$wheel" ] && [ -f "$wheel" ] && echo yes)" "$out"

checked=$($PY -c '
import base64, hashlib, sys, zipfile
whl = zipfile.ZipFile(sys.argv[1])
record = whl.read("tfpi-%s.dist-info/RECORD" % sys.argv[2]).decode().split()
bad = []
for line in record:
    name, digest, size = line.rsplit(",", 2)
    if not digest:
        continue
    data = whl.read(name)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if digest != want or int(size) != len(data):
        bad.append(name)
names = set(whl.namelist())
need = {"tfpi/__init__.py", "tfpi/interpreter.py", "tfpi/" + sys.argv[3], "tfpi/_installed.py",
        "tfpi/data/models/mobilenet_v1_0.25_224/frozen_graph.pb"}
print("yes" if not bad and need <= names and len(record) == len(names) else "bad %s missing %s" % (bad, need - names))
' "$wheel" "$VERSION" "$SONAME" 2>&1)
cli_result "the wheel's RECORD lists every file with its sha256 and size; module, library and model inside" \
    "$([ "$checked" = yes ] && echo yes)" "$checked"

VENV=$CLI_TMP/venv
if ! $PY -m venv --system-site-packages "$VENV" >"$CLI_TMP/err" 2>&1; then
    cli_result "python3 -m venv (Debian: python3-venv)" no "$(head -c 300 "$CLI_TMP/err")"
    cli_summary
    exit
fi
env -u PYTHONPATH -u TFPI_LIBRARY "$VENV/bin/python" -m pip install --no-index --disable-pip-version-check -q "$wheel" \
    >"$CLI_TMP/out" 2>&1
rc=$?
cli_result "pip install of the wheel into a fresh venv, offline (numpy from Debian's python3-numpy)" \
    "$([ "$rc" -eq 0 ] && echo yes)" "exit $rc: $(tail -c 400 "$CLI_TMP/out")"

RUN=$CLI_TMP/elsewhere
mkdir "$RUN"
venv_python() { (cd "$RUN" && env -u PYTHONPATH -u TFPI_LIBRARY "$VENV/bin/python" "$@"); }
got=$(venv_python -c 'import os, tfpi, tfpi._library as l
from tfpi.interpreter import Interpreter
print(tfpi.version(), os.path.relpath(l.lib._name, os.path.dirname(tfpi.__file__)))' 2>&1)
cli_result "import tfpi in the venv loads the library the wheel carries" \
    "$([ "$got" = "$VERSION $SONAME" ] && echo yes)" "$got"
want=$($QEMU "$BIN/label_image")
got=$(venv_python "$REPO/pi_examples/python/label_image.py" 2>&1)
cli_result "pi_examples/python/label_image.py in the venv, elsewhere: label_image's output, the wheel's model" \
    "$([ -n "$want" ] && [ "$got" = "$want" ] && echo yes)" "got '$got', want '$want'"
got=$(venv_python "$REPO/pi_examples/python/camera.py" "$REPO/downloads/images/grace_hopper.jpg" 2>&1)
cli_result "pi_examples/python/camera.py in the venv labels a picture" \
    "$(echo "$got" | grep -q '^bow tie, bow-tie, bowtie 0.3' && echo yes)" "$got"
env -u PYTHONPATH "$VENV/bin/python" -m pip uninstall -y -q tfpi >"$CLI_TMP/out" 2>&1
left=$(find "$VENV" -path '*site-packages/tfpi*' | head -n 3)
cli_result "pip uninstall removes it all" "$([ -z "$left" ] && echo yes)" "left: $left"
cli_summary
