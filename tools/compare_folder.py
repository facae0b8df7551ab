#!/usr/bin/env python3
"""The report folder of tools/compare.py: which names in it are the tool's own, the
marker that makes a folder its report, each run's record of completion, atomic writes
and the lock that keeps one writer (docs/compare.md, "The report folder's rules").

- The marker, compare-report.json, is the first file the tool writes into a folder; it
  names the tool and the settings every run of the report shares (the base case and the
  files it names, by SHA-256; the restitution; --end-time; the laws' parameters). A
  folder is the tool's report exactly when it holds a marker that names the tool.
- The tool's own names: the marker, meta.json, report.md, table.csv, summary.csv, the
  figures (OWN_FILES), their temporary twins (NAME.compare-tmp) and runs/. Every other
  name in the folder is the user's, and the tool never writes, moves or removes it.
- A run is complete when its folder runs/LAW_MODE/seedK/ holds done.json, written
  atomically after `dempact run` exited 0, naming the run's case (by SHA-256), the
  dempact program that ran it (its --version and the executable's SHA-256) and its
  HDF5 file, which must exist.

Used by tools/compare.py; it has no command of its own.
"""

import errno
import fcntl
import hashlib
import json
import os
import shutil
import sys

TOOL = "tools/compare.py"
MARKER = "compare-report.json"
RUNS = "runs"
DONE = "done.json"
TMP = ".compare-tmp"
FIGURES = ("kinetic_energy.svg", "measures.svg", "energy.svg", "packing_profile.svg",
           "force_distribution.svg", "stress_strain.svg", "shear_measures.svg",
           "shear_energy.svg", "shear_mu_time.svg")
OWN_FILES = (MARKER, "meta.json", "report.md", "table.csv", "summary.csv") + FIGURES


class FolderError(Exception):
    """A folder the tool must not write into (the message names it and why)."""


def sha256_text(text):
    return hashlib.sha256(text.encode()).hexdigest()


def atomic_write(path, text):
    """Writes text to path through a temporary twin renamed over it: path holds the old
    content or the new, never part of it."""
    atomic_save(path, lambda tmp: _write_text(tmp, text))


def _write_text(path, text):
    with open(path, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def atomic_save(path, save):
    """save(tmp) writes the file at tmp; it is then renamed over path."""
    tmp = path + TMP
    try:
        save(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_json(path):
    """The JSON object in path, or None (absent, unreadable, not an object)."""
    try:
        with open(path) as f:
            value = json.load(f)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def read_marker(out):
    """The marker of the tool's report in out, or None."""
    marker = read_json(os.path.join(out, MARKER))
    if marker is None or marker.get("written_by") != TOOL or not isinstance(
            marker.get("settings"), dict):
        return None
    return marker


def is_own_name(name):
    base = name[:-len(TMP)] if name.endswith(TMP) else name
    return base in OWN_FILES or base == RUNS


def classify(out):
    """("new", None): out does not exist; ("empty", None); ("own", marker): the tool's
    report; ("foreign", (the tool's names there, the other names)): anything else.
    Raises FolderError when out is not a folder."""
    if not os.path.lexists(out):
        parent = os.path.dirname(os.path.abspath(out))
        while not os.path.lexists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise FolderError(f"--out {out}: {parent} is a file, not a folder")
        return "new", None
    if not os.path.isdir(out):
        raise FolderError(f"--out {out}: is a file, not a folder")
    try:
        names = sorted(os.listdir(out))
    except OSError as exc:
        raise FolderError(f"--out {out}: cannot be read: {exc.strerror}")
    if not names:
        return "empty", None
    marker = read_marker(out)
    if marker is not None:
        return "own", marker
    return "foreign", ([n for n in names if is_own_name(n)],
                       [n for n in names if not is_own_name(n)])


def check_replaceable(out):
    """With --overwrite in a folder that is not the tool's report: every own name there
    must be one the tool can replace (a file, or runs/ a folder)."""
    for name in OWN_FILES:
        path = os.path.join(out, name)
        if os.path.isdir(path):
            raise FolderError(f"--out {out}: {name} is a folder; compare.py writes a file "
                              "of that name and does not remove folders it did not make")
    runs = os.path.join(out, RUNS)
    if os.path.lexists(runs) and (os.path.islink(runs) or not os.path.isdir(runs)):
        raise FolderError(f"--out {out}: {RUNS} is not a folder of the report's runs")


def lock(out):
    """Holds an exclusive lock on the folder while the process lives (one writer per
    report); raises FolderError if another process holds it."""
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise FolderError(f"--out {out}: another compare.py is writing it")
        raise
    return fd


def remove(path):
    """Removes a file, a symbolic link or a folder tree of the tool's own."""
    if os.path.islink(path) or not os.path.isdir(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    else:
        shutil.rmtree(path)


def start_afresh(out):
    """--overwrite on the tool's own report: its own names go, the user's stay."""
    for name in os.listdir(out):
        if is_own_name(name):
            remove(os.path.join(out, name))


def remove_stale_temporaries(out):
    for name in os.listdir(out):
        if name.endswith(TMP) and is_own_name(name):
            remove(os.path.join(out, name))


def run_complete(folder, identity, version):
    """(True, record) when the run in folder completed with this case (identity: the
    SHA-256 of its case) and this dempact version; (False, why) otherwise."""
    record = read_json(os.path.join(folder, DONE))
    if record is None:
        return False, "did not complete"
    if record.get("identity") != identity:
        return False, "was made from another case"
    if record.get("dempact") != version:
        return False, f"was made by {record.get('dempact')}"
    h5 = record.get("h5")
    if not isinstance(h5, str) or not os.path.isfile(os.path.join(folder, h5)):
        return False, "has lost its HDF5 file"
    return True, record


def run_folders(out):
    """[(name LAW_MODE/seedK, folder, done record or None)] of the runs under out/runs
    that the tool made (those holding its case.yaml), sorted by name."""
    runs = os.path.join(out, RUNS)
    found = []
    if not os.path.isdir(runs):
        return found
    for d in sorted(os.listdir(runs)):
        if not os.path.isdir(os.path.join(runs, d)):
            continue
        for s in sorted(os.listdir(os.path.join(runs, d))):
            folder = os.path.join(runs, d, s)
            if os.path.isdir(folder) and os.path.isfile(os.path.join(folder, "case.yaml")):
                found.append((f"{d}/{s}", folder, read_json(os.path.join(folder, DONE))))
    return found


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
