#!/usr/bin/env python3
"""Usage: layout.py DOC.md FILE.h5 [FILE.h5 ...]
The documented layout is the file's: parses the tables of DOC.md (rows whose first cell
is a `/path` or `/path@attribute`; NNNNNN stands for every snapshot) and walks each
output with h5py, following the external links of /snapshots into the snapshot files.
Every documented dataset and attribute must exist (those documented "only when the case
has walls" when it has walls) with the documented type and shape, and everything in the
output must be documented. Every dataset carries string attributes `unit` and `meaning`:
the unit is the table's, and the table's meaning (without its backquotes) starts with
the file's. Shapes are resolved per snapshot: N = n_particles, M = contacts' n_contacts,
L = length of its vertex_index, V and F = its walls' vertices and triangles, W = number
of walls, T = time-series length, B any length (bytes). Also loads every snapshot with
tools/dempact_h5.py and checks it against h5py."""
import os
import re
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: install python3-h5py and python3-numpy (tools/setup.sh) and use /usr/bin/python3")

TYPES = {"float64": ("f", 8), "int64": ("i", 8), "int32": ("i", 4), "uint8": ("u", 1), "string": ("O", None),
         "compound": ("V", None)}


def parse(doc):
    rows = []
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"\|\s*`(/[^`]*)`\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*(.*?)\s*\|\s*$", line)
        if m:
            path, typ, shape, unit, meaning = m.groups()
            assert typ in TYPES, f"{doc}: unknown type {typ!r} for {path}"
            assert not any(r["path"] == path for r in rows), f"{doc}: {path} documented twice"
            rows.append({"path": path, "type": typ, "shape": shape, "unit": unit,
                         "meaning": meaning.replace("`", ""),
                         "walls_only": "only when the case has walls" in meaning,
                         # a row that says what its absence means: written only by some runs
                         "optional": "(absent: " in meaning})
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
    elif typ == "compound":  # named members, every one a number
        assert dt.names and all(dt[n].kind in "uif" for n in dt.names), f"{where}: {dt}, documented {typ}"
    else:
        kind, size = TYPES[typ]
        assert dt.kind == kind and dt.itemsize == size, f"{where}: {dt}, documented {typ}"


def walk(f):
    """Every dataset and attribute of the output, through the snapshots' external links:
    {"/path" or "/path@attr": object}."""
    found = {}

    def visit(group, path):
        for a in group.attrs:
            found[f"{path}@{a}" if path else f"/@{a}"] = (group, a)
        for name in group:
            link = group.get(name, getlink=True)
            sub = f"{path}/{name}"
            if isinstance(link, h5py.SoftLink):
                raise AssertionError(f"{sub}: a soft link")
            obj = group[name]  # follows an external link
            if isinstance(obj, h5py.Group):
                found[sub] = obj
                visit(obj, sub)
            else:
                found[sub] = obj
                for a in obj.attrs:
                    found[f"{sub}@{a}"] = (obj, a)
    visit(f, "")
    return found


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def check_file(rows, path):
    with h5py.File(path, "r", locking=False) as f:
        found = walk(f)
        walls = len(f.attrs["wall_names"]) if "wall_names" in f.attrs else 0
        env = {"W": walls, "T": len(f["timeseries/time"])}
        snaps = sorted(f["snapshots"].keys())
        assert snaps == [f"{k:06d}" for k in range(len(snaps))], f"snapshot names {snaps}"
        for s in snaps:  # each an external link to NAME.d/NNNNNN.h5, relative
            link = f["snapshots"].get(s, getlink=True)
            assert isinstance(link, h5py.ExternalLink), f"/snapshots/{s} is not an external link"
            want = os.path.splitext(os.path.basename(path))[0] + f".d/{s}.h5"
            assert link.filename == want and link.path == "/", f"/snapshots/{s} links to {link.filename}:{link.path}"
        documented, by_path = set(), {}
        for r in rows:
            instances = [(r["path"], {})]
            if "NNNNNN" in r["path"]:
                instances = []
                for s in snaps:
                    g = f["snapshots"][s]
                    e = {"N": int(g.attrs["n_particles"]), "M": int(g["contacts"].attrs["n_contacts"]),
                         "L": len(g["vertex_index"])}
                    if "walls" in g:
                        e["V"], e["F"] = len(g["walls/vertices"]), len(g["walls/triangles"])
                    instances.append((r["path"].replace("NNNNNN", s), e))
            for p, e in instances:
                if r["walls_only"] and walls == 0:
                    assert p not in found, f"{p} present without walls"
                    continue
                if r["optional"] and p not in found:
                    continue
                assert p in found, f"{path}: documented {p} is missing"
                documented.add(p)
                by_path[p] = r
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
                    # the dataset's own unit and meaning, both ways against the table
                    assert "unit" in obj.attrs and "meaning" in obj.attrs, f"{p}: no unit or meaning attribute"
                    unit, meaning = text(obj.attrs["unit"]), text(obj.attrs["meaning"])
                    assert unit == r["unit"], f"{p}: unit {unit!r}, documented {r['unit']!r}"
                    assert meaning and r["meaning"].startswith(meaning), \
                        f"{p}: meaning {meaning!r} is not where the documented one starts ({r['meaning']!r})"
                want = dims(r["shape"], {**env, **e})
                assert len(shape) == len(want) and all(w is None or w == g for w, g in zip(want, shape)), \
                    f"{path}: {p} has shape {shape}, documented {r['shape']} = {want}"
        # everything in the output is documented (groups and the datasets' own unit and
        # meaning aside)
        for p, obj in found.items():
            if p in documented or isinstance(obj, h5py.Group):
                continue
            m = re.fullmatch(r"(/.*)@(unit|meaning)", p)
            if m and m.group(1) in documented and not isinstance(found[m.group(1)], tuple):
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
            if "walls" in g:
                assert np.array_equal(s.walls.vertices, g["walls/vertices"][()]), "dempact_h5: walls"
        ts = run.timeseries()
        assert np.array_equal(ts["time"], f["timeseries/time"][()]), "dempact_h5: time series"
        assert run.case_text == f["case_text"][()].decode(), "dempact_h5: case text"


def main(argv):
    rows = parse(argv[0])
    for path in argv[1:]:
        n, k = check_file(rows, path)
        check_loader(path)
        print(f"{path}: {n} snapshots, {k} documented datasets and attributes present with their "
              f"documented shapes and units, nothing undocumented; tools/dempact_h5.py reads the same")
    print(f"{len(rows)} documented rows")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except AssertionError as e:
        sys.exit(f"FAIL: {e}")
