"""Helpers of the tests of tools/compare.py's command line: run it, and fingerprint a
folder tree (every name, kind, size, content hash and link target) to prove it unchanged."""

import hashlib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COMPARE = os.path.join(ROOT, "tools", "compare.py")
# the cheapest real comparison: the small packing cut at 2 ms (about 420 steps of 200
# beads: a fraction of a second per run; the report's figures cost about 2 s)
TINY = ["--size", "small", "--seeds", "1", "--end-time", "0.002", "--jobs", "1"]


def run_compare(args, timeout=120, **kw):
    """(exit status, stdout, stderr) of `python tools/compare.py ARGS`."""
    p = subprocess.run([sys.executable, COMPARE] + list(args), capture_output=True,
                       text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    return p.returncode, p.stdout, p.stderr


def tree_digest(path):
    """{relative name: (kind, size, sha256 or link target)} of everything under path
    (path itself included); {} if it does not exist."""
    out = {}
    if not os.path.lexists(path):
        return out

    def one(full, rel):
        if os.path.islink(full):
            out[rel] = ("link", os.readlink(full))
        elif os.path.isdir(full):
            out[rel] = ("dir",)
        else:
            with open(full, "rb") as f:
                data = f.read()
            out[rel] = ("file", len(data), hashlib.sha256(data).hexdigest())

    one(path, ".")
    if os.path.isdir(path) and not os.path.islink(path):
        for base, dirs, files in os.walk(path):
            for name in dirs + files:
                full = os.path.join(base, name)
                one(full, os.path.relpath(full, path))
    return out


def file_state(path):
    """Content hash, inode and modification time: the same file, untouched."""
    st = os.stat(path)
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest(), st.st_ino, st.st_mtime_ns
