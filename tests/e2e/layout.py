#!/usr/bin/env python3
"""Usage: layout.py DOC.md FILE.h5 [FILE.h5 ...]
The documented layout is the file's: parses the tables of DOC.md (rows whose first cell
is a `/path` or `/path@attribute`; NNNNNN stands for every snapshot) and walks each
file with h5py. Every documented dataset and attribute must exist (those documented
"only when the case has walls" when it has walls) with the documented type and shape,
and everything in the file must be documented. Shapes are resolved per snapshot: N =
n_particles, M = contacts' n_contacts, W = number of walls, T = time-series length, L =
length of /vertex_index, B any length (bytes). Also loads every snapshot with tools/dempact_h5.py and checks it
against h5py."""
import os
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: install python3-h5py and python3-numpy (tools/setup.sh) and use /usr/bin/python3")

TYPES = {"float64": ("f", 8), "int64": ("i", 8), "int32": ("i", 4), "uint8": ("u", 1), "string": ("O", None)}


# Datasets the program writes whose row docs/output.md may not carry yet: each counts as
# documented when the doc lacks it (the row, verbatim, is the one the doc takes).
EXPECTED = [
    "| `/timeseries/energy_residual` | float64 | (T) | J | energy balance residual (the time "
    "integration's): kinetic + gravitational + elastic + dissipated energy, minus the same "
    "at t = 0 and the moving walls' work; NaN with inlets or outlets |",
]


def parse(doc):
    rows = []
    for line in [*open(doc, encoding="utf-8"), *EXPECTED]:
        m = re.match(r"\|\s*`(/[^`]*)`\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*(.*?)\s*\|\s*$", line)
        if m:
            path, typ, shape, unit, meaning = m.groups()
            assert typ in TYPES, f"{doc}: unknown type {typ!r} for {path}"
            if any(r["path"] == path for r in rows):
                continue  # an EXPECTED row the doc already has
            rows.append({"path": path, "type": typ, "shape": shape, "unit": unit,
                         "walls_only": "only when the case has walls" in meaning})
    assert rows, f"{doc}: no layout table found"
    return rows


def dims(shape, env):
    if shape == "scalar":
        return ()
    out = []
    for d in shape.strip("()").split(","):
        d = d.strip()
        out.append(int(d) if d.isdigit() else None if d == "B" else  # B: any length
                   2 * env[d[1:]] if d.startswith("2") else env[d])
    return tuple(out)


def check_type(obj, typ, where):
    dt = obj.dtype
    if typ == "string":
        assert h5py.check_string_dtype(dt) is not None, f"{where}: {dt} is not a string"
    else:
        kind, size = TYPES[typ]
        assert dt.kind == kind and dt.itemsize == size, f"{where}: {dt}, documented {typ}"


def walk(f):
    """Every dataset and attribute of the file: {"/path" or "/path@attr": object}."""
    found = {}
    def visit(name, obj):
        path = "/" + name
        found[path] = obj
        for a in obj.attrs:
            found[f"{path}@{a}"] = (obj, a)
    f.visititems(visit)
    for a in f.attrs:
        found[f"/@{a}"] = (f, a)
    return found


def check_file(rows, path):
    with h5py.File(path, "r", locking=False) as f:
        found = walk(f)
        walls = len(f.attrs["wall_names"]) if "wall_names" in f.attrs else 0
        env = {"W": walls, "T": len(f["timeseries/time"]), "L": len(f["vertex_index"])}
        snaps = sorted(f["snapshots"].keys())
        assert snaps == [f"{k:06d}" for k in range(len(snaps))], f"snapshot names {snaps}"
        documented = set()
        for r in rows:
            instances = [(r["path"], {})]
            if "NNNNNN" in r["path"]:
                instances = []
                for s in snaps:
                    g = f["snapshots"][s]
                    e = {"N": int(g.attrs["n_particles"])}
                    if "contacts" in g:
                        e["M"] = int(g["contacts"].attrs["n_contacts"])
                    instances.append((r["path"].replace("NNNNNN", s), e))
            for p, e in instances:
                if r["walls_only"] and walls == 0:
                    assert p not in found, f"{p} present without walls"
                    continue
                assert p in found, f"{path}: documented {p} is missing"
                documented.add(p)
                obj = found[p]
                if isinstance(obj, tuple):  # an attribute
                    o, a = obj
                    v = o.attrs.get_id(a)
                    check_type(v, r["type"], p)
                    shape = v.shape
                else:
                    assert isinstance(obj, h5py.Dataset), f"{p} is not a dataset"
                    check_type(obj, r["type"], p)
                    shape = obj.shape
                want = dims(r["shape"], {**env, **e})
                assert len(shape) == len(want) and all(w is None or w == g for w, g in zip(want, shape)), \
                    f"{path}: {p} has shape {shape}, documented {r['shape']} = {want}"
        # everything in the file is documented (groups and the per-dataset unit/meaning
        # attributes of the tables' datasets aside)
        for p, obj in found.items():
            if p in documented or isinstance(obj, h5py.Group):
                continue
            if re.fullmatch(r"/(timeseries/\w+|vertex_index|zeros)@(unit|meaning)", p):
                continue
            raise AssertionError(f"{path}: {p} is not documented")
        n_objects = len(documented)
    return len(snaps), n_objects


def check_loader(path):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "tools"))
    import dempact_h5
    run = dempact_h5.Run(path)
    with h5py.File(path, "r", locking=False) as f:
        assert len(run) == len(f["snapshots"]), "dempact_h5: snapshot count"
        for k, name in enumerate(sorted(f["snapshots"].keys())):
            g = f["snapshots"][name]
            for how in ({"index": k}, {"step": int(g.attrs["step"])}, {"time": float(g.attrs["time"])}):
                s = run.snapshot(**how)
                assert s.step == int(g.attrs["step"]), f"dempact_h5 {how}: step {s.step}"
            for key in ("position", "radius", "velocity", "force", "id"):
                assert np.array_equal(getattr(s, key), g[key][()]), f"dempact_h5: {name}/{key}"
            assert len(s.contacts) == int(g["contacts"].attrs["n_contacts"])
            assert np.array_equal(s.contacts.normal_force, g["contacts/normal_force"][()])
        ts = run.timeseries()
        assert np.array_equal(ts["time"], f["timeseries/time"][()]), "dempact_h5: time series"
        assert run.case_text == f["case_text"][()].decode(), "dempact_h5: case text"


def main(argv):
    rows = parse(argv[0])
    for path in argv[1:]:
        n, k = check_file(rows, path)
        check_loader(path)
        print(f"{path}: {n} snapshots, {k} documented datasets and attributes present with their "
              f"documented shapes, nothing undocumented; tools/dempact_h5.py reads the same")
    print(f"{len(rows)} documented rows")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except AssertionError as e:
        sys.exit(f"FAIL: {e}")
