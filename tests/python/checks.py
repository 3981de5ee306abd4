"""checks.py - what every tests/python/test_*.py uses: check() prints an
"ok"/"FAIL" line, expect_error() checks a raised exception and its message,
summary() prints "N passed, N failed" and exits non-zero on a failure;
write_graph() writes a small graph made with tests/diff/graphdef.py.
TOOL_ENV runs the C tools without python's sanitizer preload (they link
their own runtime under SANITIZE=1)."""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
from graphdef import encode_graph  # noqa: E402

TOOL_ENV = {key: value for key, value in os.environ.items() if key != "LD_PRELOAD"}
results = {"passed": 0, "failed": 0}
TMP = tempfile.mkdtemp()  # the test's files; summary() removes it


def check(name, ok, detail=""):
    results["passed" if ok else "failed"] += 1
    print(("ok   %s" % name) if ok else ("FAIL %s: %s" % (name, detail)), flush=True)


def expect_error(name, pattern, fn, error=Exception):
    """fn() must raise `error` (a class or tuple) whose message matches pattern."""
    try:
        fn()
    except error as e:
        check(name, re.search(pattern, str(e)) is not None, "message '%s' lacks '%s'" % (e, pattern))
        return
    except Exception as e:  # the wrong kind of exception
        check(name, False, "raised %s: %s" % (type(e).__name__, e))
        return
    check(name, False, "no exception")


def run_groups(*tests):
    """Runs each test function; one that raises is a failure, the others still run."""
    for test in tests:
        try:
            test()
        except Exception as e:
            check(test.__name__, False, "%s: %s" % (type(e).__name__, e))


def write_graph(name, nodes):
    """Writes graphdef.py's nodes as TMP/name and returns the path."""
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(encode_graph(nodes))
    return path


def summary():
    shutil.rmtree(TMP, ignore_errors=True)
    print("%d passed, %d failed" % (results["passed"], results["failed"]))
    sys.exit(1 if results["failed"] else 0)
