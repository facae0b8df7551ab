#!/usr/bin/env python3
"""Generative test of dempact's input handling: builds hundreds of hostile inputs from
valid ones, from a seed, and runs dempact on each.

Usage: hostile_inputs.py DEMPACT CLASS [--seed N] [--count N]
  CLASS  case    numbers of a case file          (dempact check; every 10th also run)
         csv     a particle CSV file              (dempact check on a case that reads it)
         lammps  a LAMMPS data file               (dempact bench --load FILE --steps 3)
         stl     an STL file, ASCII and binary    (dempact check on a case that reads it)

Each input belongs to one of three kinds, and each kind has its property:
  refuse  made invalid by construction (a value outside what its key takes, NaN and
          infinity, garbage text, huge and negative counts, duplicated particles, UTF-16
          and UTF-32 text, NUL bytes, a count the file cannot hold): exit status 2 or 4,
          a message on stderr that names the file (and line or key), no signal;
  accept  a change dempact documents as harmless (a UTF-8 byte-order mark, CRLF line
          ends): exit status 0 and the same summary as the unchanged input;
  either  a change that may or may not leave a valid input (truncation at any byte,
          flipped bytes, a duplicated line): no signal, exit status 0, 2 or 4, and a
          message naming the file with 2 and 4.
Every input also has a timeout (no hang) and a clean stderr (no sanitizer report).
The same seed gives the same inputs; a failure prints the seed, the input's number and
its text, and keeps the input in the folder it names.
"""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

TIMEOUT = 60  # s per input: generous for a sanitized build on a busy machine

# Values that no numeric key takes: not finite, not a number, not a scalar.
GARBAGE = ["nan", ".nan", "NaN", "inf", "-inf", ".inf", "-.Inf", "1e400", "-1e999", "abc",
           "1.2.3", "0x1p", "12abc", "''", "[1, 2]", "{a: 1}", "1e", "--1"]
POSITIVE = ["0", "-1", "-1e300", "-0.0"]


def values(kind):
    """What the key of this kind refuses, besides GARBAGE (docs/guarantees.md)."""
    extra = {
        "domain": ["1e300", "-1e300", "5e9", "-5e9"],
        "inside": ["1e300", "-1e300", "1e3", "-1e3"],          # regions, points, positions
        "positive": POSITIVE,
        "radius": POSITIVE + ["1e300"],                          # wider than its region/domain
        "young": POSITIVE + ["1e300"],                           # a step of 1e-150 s (a
                                                                 # wall's may be rigid)
        "end": POSITIVE + ["1e300", "1e-300"],                   # too many steps, no step
        "step": POSITIVE + ["1e300", "1e-300"],                  # above the limit, too many
        "interval": ["-1", "1e-300"],                            # shorter than a step
        "rate": POSITIVE + ["1e300", "1e12"],                    # cannot fit in the region
        "wall_size": POSITIVE + ["1e300"],                       # beyond the walls' reach
        "scale": POSITIVE + ["1e300"],
        "velocity": ["1e300", "-1e300", "3e8"],                  # more than r/2 per step
        "spin": ["1e300"],                                       # a wall spinning
        "gravity": ["1e300", "-1e300", "1e20"],
        "poisson": ["0.5", "-1", "7", "-3"],
        "restitution": ["0", "-0.5", "1.5", "1e300"],
        "friction": ["-1", "-1e300"],
        "seed": ["-1", "1.5", "1e30", "99999999999999999999999", "0x10"],
        "count": ["-5", "2.5", "1e15", "1e300"],
        "lattice_count": ["-5", "2.5"],
        "fraction": ["0", "2", "-1"],
        "wd_interval": ["0", "1e7", "2.5", "-3"],
        "tolerance": ["-1", "1e4", "0"],
        "skin": ["-1", "1e300", "1"],
        "direction": [],
        "start": ["-1"],
        "stop": ["-1", "0"],
    }[kind]
    return GARBAGE + extra


# The case every case input mutates: every kind of wall, source and key, a few dozen
# particles. A slot <kind:value> is a number the mutation may replace.
CASE_TEMPLATE = """\
# hostile_inputs.py's base case
name: hostile
domain:
  min: [<domain:0>, <domain:0>, <domain:0>]
  max: [<domain:0.1>, <domain:0.1>, <domain:0.2>]
gravity: [<gravity:0>, <gravity:0>, <gravity:-9.81>]
time:
  end: <end:0.004>
  step: <step:2e-5>
  output_interval: <interval:0.002>
  timeseries_interval: <interval:0.0005>
neighbour:
  skin: <skin:0.0005>
watchdog:
  max_overlap_fraction: <fraction:0.5>
  interval: <wd_interval:1>
  energy_tolerance: <tolerance:0.05>
materials:
  - {name: glass, density: <positive:2500>, young: <young:1.0e7>, poisson: <poisson:0.25>}
  - {name: steel, density: <positive:7800>, young: <positive:2.0e8>, poisson: <poisson:0.3>}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    params: {restitution: <restitution:0.8>}
    friction: {coefficient: <friction:0.3>}
  - materials: [glass, steel]
    law: hertz_tti
    params: {restitution: <restitution:0.7>}
walls:
  - {name: floor, type: plane, material: steel, point: [<inside:0.05>, <inside:0.05>, <inside:0>], normal: [<direction:0>, <direction:0>, <direction:1>]}
  - name: drum
    type: cylinder
    material: steel
    point: [<inside:0.05>, <inside:0.05>, <inside:0>]
    axis: [<direction:0>, <direction:0>, <direction:1>]
    radius: <wall_size:0.05>
    length: <wall_size:0.2>
    side: inner
    rotation: {axis_point: [<inside:0.05>, <inside:0.05>, <inside:0>], axis: [<direction:0>, <direction:0>, <direction:1>], angular_velocity: <spin:0.5>}
  - {name: lid, type: rectangle, material: steel, point: [<inside:0.05>, <inside:0.05>, <inside:0.2>], normal: [<direction:0>, <direction:0>, <direction:-1>], axis: [<direction:1>, <direction:0>, <direction:0>], half_size: [<wall_size:0.05>, <wall_size:0.05>], velocity: [<velocity:0>, <velocity:0>, <velocity:0>]}
  - {name: baffle, type: stl, material: steel, file: wall.stl, scale: <scale:0.01>, translation: [<inside:0.02>, <inside:0.02>, <inside:0.15>]}
particles:
  - {source: lattice, material: glass, region: {min: [<inside:0.03>, <inside:0.03>, <inside:0.01>], max: [<inside:0.07>, <inside:0.07>, <inside:0.03>]}, radius: <radius:0.004>, count: <lattice_count:8>, velocity: [<velocity:0>, <velocity:0>, <velocity:-0.1>]}
  - {source: random, material: glass, region: {min: [<inside:0.03>, <inside:0.03>, <inside:0.04>], max: [<inside:0.07>, <inside:0.07>, <inside:0.06>]}, count: <count:5>, radius: {min: <radius:0.002>, max: <radius:0.003>}, seed: <seed:7>}
  - {source: file, material: glass, file: particles.csv}
inlets:
  - {material: glass, region: {min: [<inside:0.03>, <inside:0.03>, <inside:0.11>], max: [<inside:0.07>, <inside:0.07>, <inside:0.13>]}, rate: <rate:2000>, radius: <radius:0.003>, velocity: [<velocity:0>, <velocity:0>, <velocity:-0.5>], start: <start:0>, stop: <stop:0.003>, interval: <positive:0.001>, seed: <seed:3>}
outlets:
  - {region: {min: [<inside:0>, <inside:0>, <inside:0.19>], max: [<inside:0.1>, <inside:0.1>, <inside:0.2>]}}
"""
SLOT = re.compile(r"<([a-z_]+):([^<>]+)>")

CSV_BASE = """\
x,y,z,radius,vx,vy,vz
0.045,0.045,0.08,0.002,0,0,-0.2
0.055,0.045,0.08,0.002,0,0,0
0.045,0.055,0.085,0.0025,0.1,0,0
0.055,0.055,0.085,0.002,0,0,0
"""

STL_TRIANGLES = [((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((0, 0, 0), (0, 0, 1), (1, 0, 0)),
                 ((0, 0, 0), (0, 1, 0), (0, 0, 1)), ((1, 0, 0), (0, 0, 1), (0, 1, 0))]

# A bed for `dempact bench --load`: eight spheres at rest on the floor z = 0 (x, y periodic).
LAMMPS_BASE = """\
hostile_inputs.py bed

8 atoms
1 atom types

0 0.02 xlo xhi
0 0.02 ylo yhi
0 0.01 zlo zhi

Atoms # sphere

1 1 0.004 2500 0.003 0.003 0.002
2 1 0.004 2500 0.008 0.003 0.002
3 1 0.004 2500 0.013 0.003 0.002
4 1 0.004 2500 0.003 0.008 0.002
5 1 0.004 2500 0.008 0.008 0.002
6 1 0.004 2500 0.013 0.008 0.002
7 1 0.004 2500 0.003 0.013 0.002
8 1 0.004 2500 0.008 0.013 0.002

Velocities

1 0 0 0 0 0 0
2 0 0 -0.01 0 0 0
3 0 0 0 0 0 0
4 0 0.01 0 0 0 0
5 0 0 0 0 0 0
6 0 0 0 0 0 0
7 0 0 0 0 0 0
8 0 0 0 0 0 1
"""


def stl_ascii(triangles, name="baffle"):
    out = ["solid " + name]
    for t in triangles:
        out += ["  facet normal 0 0 0", "    outer loop"]
        out += ["      vertex %r %r %r" % tuple(v) for v in t]
        out += ["    endloop", "  endfacet"]
    return "\n".join(out + ["endsolid " + name, ""])


def stl_binary(triangles):
    data = bytearray(b"hostile_inputs.py binary STL".ljust(80, b" "))
    data += struct.pack("<I", len(triangles))
    for t in triangles:
        data += struct.pack("<3f", 0, 0, 0)
        for v in t:
            data += struct.pack("<3f", *v)
        data += b"\0\0"
    return bytes(data)


def fill(template, chosen=None, value=None):
    """The template with every slot at its value; slot number `chosen` at `value`."""
    k = -1

    def put(m):
        nonlocal k
        k += 1
        return value if k == chosen else m.group(2)
    return SLOT.sub(put, template)


def slots(template):
    return [m.group(1) for m in SLOT.finditer(template)]


# ---- mutations of text that hold for every class ---------------------------------------

def utf16(text):
    return text.encode("utf-16")  # with a byte-order mark


def utf32(text):
    return text.encode("utf-32")


def with_nul(rng, text):
    data = bytearray(text.encode())
    data.insert(rng.randrange(len(data)), 0)
    return bytes(data)


def with_garbage(rng, text):
    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(8, 200))) + b"\0"
    at = rng.randrange(len(text))
    return text.encode()[:at] + junk + text.encode()[at:]


def bom(text):
    return b"\xef\xbb\xbf" + text.encode()


def crlf(text):
    return text.replace("\n", "\r\n").encode()


def truncated(rng, text):
    return text.encode()[:rng.randrange(1, len(text))]


def flipped(rng, text):
    data = bytearray(text.encode())
    for _ in range(rng.randrange(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def duplicated_line(rng, text):
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    return "\n".join(lines[:k + 1] + [lines[k]] + lines[k + 1:]).encode()


def common_mutations(rng, text):
    """(kind, label, bytes) of the text-level mutations."""
    return [("refuse", "UTF-16", utf16(text)), ("refuse", "UTF-32", utf32(text)),
            ("refuse", "a NUL byte", with_nul(rng, text)),
            ("refuse", "binary garbage", with_garbage(rng, text)),
            ("accept", "a UTF-8 byte-order mark", bom(text)), ("accept", "CRLF", crlf(text)),
            ("accept", "mark and CRLF", b"\xef\xbb\xbf" + crlf(text)),
            ("either", "truncated", truncated(rng, text)),
            ("either", "flipped bytes", flipped(rng, text)),
            ("either", "a duplicated line", duplicated_line(rng, text))]


# ---- the classes -----------------------------------------------------------------------

class Runner:
    def __init__(self, dempact, folder):
        self.dempact = dempact
        self.folder = folder
        self.env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")

    def run(self, args):
        try:
            p = subprocess.run([self.dempact] + args, cwd=self.folder, env=self.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, "", "timeout after %d s" % TIMEOUT
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")

    def write(self, name, data):
        with open(os.path.join(self.folder, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())


def case_text():
    return fill(CASE_TEMPLATE)


def setup_case(r, stl=None, csv=None, case=None):
    r.write("wall.stl", stl if stl is not None else stl_ascii(STL_TRIANGLES))
    r.write("particles.csv", csv if csv is not None else CSV_BASE)
    r.write("case.yaml", case if case is not None else case_text())


def inputs_case(rng, count):
    names = slots(CASE_TEMPLATE)
    text = case_text()
    out = []
    for _ in range(count - 10):
        k = rng.randrange(len(names))
        kind = names[k]
        own = values(kind)[len(GARBAGE):]
        v = rng.choice(own if own and rng.random() < 0.6 else GARBAGE)
        out.append(("refuse", "slot %d (%s) = %s" % (k, kind, v), fill(CASE_TEMPLATE, k, v)))
    out += common_mutations(rng, text)
    return out


def inputs_csv(rng, count):
    lines = CSV_BASE.strip("\n").split("\n")
    header, rows = lines[0], lines[1:]
    out = []
    refused_value = {0: ["1e300", "-1e300", "1", "-1"], 1: ["1e300", "-1e300", "1", "-1"],
                     2: ["1e300", "-1e300", "1", "-1"], 3: POSITIVE + ["1e300", "1e-300"],
                     4: ["1e300", "-3e8"], 5: ["1e300"], 6: ["-1e300"]}
    for _ in range(count - 16):
        choice = rng.random()
        if choice < 0.7:  # one number
            i, col = rng.randrange(len(rows)), rng.randrange(7)
            fields = rows[i].split(",")
            v = rng.choice(GARBAGE[:13] + refused_value[col])
            fields[col] = v
            new_rows = rows[:i] + [",".join(fields)] + rows[i + 1:]
            out.append(("refuse", "row %d column %d = %s" % (i, col, v),
                        "\n".join([header] + new_rows) + "\n"))
        elif choice < 0.8:  # a particle twice (coincident with itself)
            i = rng.randrange(len(rows))
            new_rows = rows[:]
            new_rows.insert(rng.randrange(len(rows) + 1), rows[i])
            out.append(("refuse", "row %d twice" % i, "\n".join([header] + new_rows) + "\n"))
        elif choice < 0.9:  # the header
            h = rng.choice(["x,y,z,radius,vx,vy", "x,y,z,r,vx,vy,vz", "x,y,z,radius,vx,vy,vz,vz",
                            "x,x,z,radius,vx,vy,vz", "", "x;y;z;radius;vx;vy;vz"])
            out.append(("refuse", "header %r" % h, "\n".join([h] + rows) + "\n"))
        else:  # a row with a field more or less
            i = rng.randrange(len(rows))
            row = rows[i] + ",0" if rng.random() < 0.5 else rows[i].rsplit(",", 1)[0]
            out.append(("refuse", "row %d with %s" % (i, row), "\n".join(
                [header] + rows[:i] + [row] + rows[i + 1:]) + "\n"))
    out.append(("refuse", "30000 identical lines", header + "\n" + (rows[0] + "\n") * 30000))
    out.append(("refuse", "no rows", header + "\n"))
    out.append(("refuse", "empty", ""))
    out.append(("refuse", "a million columns", ",".join(["x"] * 1000000) + "\n"))
    out.append(("refuse", "a field of a megabyte", header + "\n" + "1" * 1000000 + "\n"))
    out.append(("refuse", "binary", bytes(rng.randrange(256) for _ in range(4096)) + b"\0"))
    out += common_mutations(rng, CSV_BASE)
    return out


def inputs_lammps(rng, count):
    lines = LAMMPS_BASE.split("\n")
    atoms = [k for k, l in enumerate(lines) if re.match(r"^\d+ 1 0\.004", l)]
    vels = [k for k, l in enumerate(lines) if re.match(r"^\d+ [-0-9. e]+$", l) and
            k > lines.index("Velocities")]
    header = {k: l for k, l in enumerate(lines) if re.search(r"atoms$|atom types$|lo .hi$", l)}
    out = []
    atom_values = {2: POSITIVE + ["1e300", "0.05"],       # diameter (wider than the box)
                   3: POSITIVE + ["3000"],                 # density (the bench takes one)
                   4: ["1e300", "-1e300", "1", "-0.5"],    # positions outside the box
                   5: ["1e300", "-1e300", "1", "-0.5"], 6: ["1e300", "-1e300", "1", "-0.5"],
                   0: ["0", "-1", "1.5", "99999999999999999999"], 1: ["0", "2", "-1"]}
    for _ in range(count - 12):
        choice = rng.random()
        new = lines[:]
        if choice < 0.45:
            k = rng.choice(atoms)
            f = new[k].split()
            col = rng.randrange(7)
            f[col] = rng.choice(GARBAGE[:13] + atom_values[col])
            new[k] = " ".join(f)
            label = "atom line %d field %d = %s" % (k, col, f[col])
        elif choice < 0.6:
            k = rng.choice(vels)
            f = new[k].split()
            col = rng.randrange(1, 4)
            f[col] = rng.choice(GARBAGE[:13] + ["1e300", "-1e300", "1e6"])
            new[k] = " ".join(f)
            label = "velocity line %d field %d = %s" % (k, col, f[col])
        elif choice < 0.7:  # two atoms at one point, or one atom twice
            a, b = rng.sample(atoms, 2)
            fa, fb = new[a].split(), new[b].split()
            if rng.random() < 0.5:
                fb[4:7] = fa[4:7]
                label = "atoms on lines %d and %d coincide" % (a, b)
            else:
                fb[0] = fa[0]
                label = "atom ID of line %d twice" % a
            new[b] = " ".join(fb)
        elif choice < 0.85:
            k = rng.choice(list(header))
            f = new[k].split()
            if f[-1] == "atoms":
                f[0] = rng.choice(["9", "7", "0", "-8", "1e18", "18446744073709551616", "x"])
            elif f[-1] == "types":
                f[0] = rng.choice(["0", "-1", "1e9"])
            elif rng.random() < 0.3:  # an empty or upside-down side
                f[0], f[1] = (f[1], f[0]) if rng.random() < 0.5 else (f[1], f[1])
            else:
                f[rng.randrange(2)] = rng.choice(GARBAGE[:13] + ["1e300", "-1e300"])
            new[k] = " ".join(f)
            label = "header line %d: %s" % (k, new[k])
        else:  # a section cut short or a stray section
            k = rng.choice(atoms)
            if rng.random() < 0.5:
                new = lines[:k]
                label = "cut before line %d" % k
            else:
                new.insert(rng.choice(atoms), rng.choice(["Bonds", "Ellipsoids", "1 2 3",
                                                          "Atoms # sphere"]))
                label = "a stray line"
        out.append(("refuse", label, "\n".join(new)))
    out.append(("refuse", "ten thousand atoms at one point",
                LAMMPS_BASE.split("Atoms")[0].replace("8 atoms", "10000 atoms") +
                "Atoms # sphere\n\n" +
                "".join("%d 1 0.004 2500 0.01 0.01 0.002\n" % (i + 1) for i in range(10000))))
    out.append(("refuse", "empty", ""))
    out += common_mutations(rng, LAMMPS_BASE)
    return out


def inputs_stl(rng, count):
    out = []
    for _ in range(count - 14):
        tri = [list(map(list, t)) for t in STL_TRIANGLES]
        t, v, a = rng.randrange(len(tri)), rng.randrange(3), rng.randrange(3)
        binary = rng.random() < 0.4
        if binary:
            x = rng.choice([float("nan"), float("inf"), float("-inf"), 3e38, -3e38, 1e15])
            tri[t][v][a] = x
            out.append(("refuse", "binary: vertex %d of triangle %d = %r" % (v, t, x),
                        stl_binary(tri)))
        else:
            x = rng.choice(["nan", "inf", "-inf", "1e400", "abc", "1.2.3", "", "1e15", "-1e300"])
            text = stl_ascii(tri).split("\n")
            vertex_lines = [k for k, l in enumerate(text) if "vertex" in l]
            k = vertex_lines[3 * t + v]
            f = text[k].split()
            f[1 + a] = x
            text[k] = "      " + " ".join(f)
            out.append(("refuse", "ascii: vertex %d of triangle %d = %r" % (v, t, x),
                        "\n".join(text)))
    ascii_text = stl_ascii(STL_TRIANGLES)
    b = stl_binary(STL_TRIANGLES)
    out.append(("refuse", "binary: cut short", b[:rng.randrange(84, len(b) - 1)]))
    out.append(("refuse", "binary: count + 1", b[:80] + struct.pack("<I", 5) + b[84:]))
    out.append(("refuse", "binary: count 2^32 - 1", b[:80] + struct.pack("<I", 2**32 - 1) + b[84:]))
    out.append(("refuse", "binary: no triangles", b[:80] + struct.pack("<I", 0)))
    out.append(("refuse", "ascii: a fourth vertex",
                ascii_text.replace("    endloop", "      vertex 0 0 0\n    endloop", 1)))
    out.append(("refuse", "ascii: no endsolid", ascii_text.rsplit("endsolid", 1)[0]))
    out.append(("refuse", "ascii: a floor 1e15 m away",
                stl_ascii([tuple((x, y, z + 1e15) for x, y, z in t) for t in STL_TRIANGLES])))
    out.append(("refuse", "empty", ""))
    for kind, label, data in common_mutations(rng, ascii_text):
        if label not in ("truncated",):  # a cut after 'endsolid' keeps a valid file
            out.append((kind, label, data))
        else:
            out.append(("either", label, data))
    return out


def check_output(code, out, err, kind, names):
    """The property of the input's kind; returns what is wrong, or None."""
    if code is None:
        return err
    if code < 0:
        return "killed by signal %d" % -code
    for word in ("Sanitizer", "runtime error", "LeakSanitizer"):
        if word in err:
            return "sanitizer report"
    if kind == "refuse" and code not in (2, 4):
        return "exit status %d, expected 2 or 4" % code
    if kind == "either" and code not in (0, 2, 4):
        return "exit status %d, expected 0, 2 or 4" % code
    if kind == "accept" and code != 0:
        return "exit status %d, expected 0 (the change is documented as accepted)" % code
    if code in (2, 4) and not any(n in err for n in names):
        return "the message names none of %s" % ", ".join(names)
    return None


def summary_of(out):
    """What `check` says of a case (or bench of a bed), without the paths and the timings."""
    return "\n".join(l for l in out.split("\n") if not l.startswith(("/", "hostile", "case.yaml")) and
                     "wall_seconds" not in l and "per_second" not in l and "per_step" not in l
                     and "peak_memory" not in l and not l.startswith("steps ") and
                     not l.startswith("bed ") and not l.startswith(("pass ", "passes ")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dempact")
    ap.add_argument("cls", choices=["case", "csv", "lammps", "stl"])
    ap.add_argument("--seed", type=int, default=20240)
    ap.add_argument("--count", type=int, default=250)
    a = ap.parse_args()
    rng = random.Random("%s-%d" % (a.cls, a.seed))
    folder = tempfile.mkdtemp(prefix="dempact-hostile-")
    r = Runner(os.path.abspath(a.dempact), folder)
    build = {"case": inputs_case, "csv": inputs_csv, "lammps": inputs_lammps,
             "stl": inputs_stl}[a.cls]
    inputs = build(rng, a.count)

    def attempt(k, data):
        """Writes input k and runs dempact on it: (status, stdout, stderr, names)."""
        if a.cls == "lammps":
            r.write("bed.data", data)
            return r.run(["bench", "--load", "bed.data", "--steps", "3", "--threads", "1",
                          "--quiet"]) + (["bed.data"],)
        if a.cls == "case":
            setup_case(r, case=data)
        elif a.cls == "csv":
            setup_case(r, csv=data)
        else:
            setup_case(r, stl=data)
        named = {"case": ["case.yaml:"], "csv": ["particles.csv"],
                 "stl": ["wall.stl", "walls[3]"]}[a.cls]
        if a.cls == "csv":  # a message about the key that names the file is fine too
            named.append("particles[2]")
        return r.run(["check", "case.yaml"]) + (named,)

    base = attempt(-1, LAMMPS_BASE if a.cls == "lammps" else
                   {"case": case_text(), "csv": CSV_BASE, "stl": stl_ascii(STL_TRIANGLES)}[a.cls])
    if base[0] != 0:
        print("FAIL: the unchanged input is refused (exit %s):\n%s" % (base[0], base[2]))
        return 1
    base_summary = summary_of(base[1])
    counts = {"refuse": 0, "accept": 0, "either": 0}
    outcomes = {}
    failures = 0
    for k, (kind, label, data) in enumerate(inputs):
        code, out, err, names = attempt(k, data)
        problem = check_output(code, out, err, kind, names)
        if problem is None and kind == "accept" and summary_of(out) != base_summary:
            problem = "accepted, but not read as the unchanged input:\n" + out
        if problem is None and a.cls == "case" and kind == "refuse" and k % 10 == 0:
            # `run` refuses what `check` refuses, and leaves nothing behind
            code2, _, err2 = r.run(["run", "case.yaml", "--output", "out", "--quiet",
                                    "--threads", "1"])
            if code2 != code:
                problem = "run exits %s where check exits %s: %s" % (code2, code, err2)
            elif code == 2 and os.path.exists(os.path.join(folder, "out", "hostile.h5")):
                problem = "run left an output file behind a refused case"
            shutil.rmtree(os.path.join(folder, "out"), ignore_errors=True)
        counts[kind] += 1
        outcomes[code] = outcomes.get(code, 0) + 1
        if problem:
            failures += 1
            keep = os.path.join(folder, "failed-%d" % k)
            with open(keep, "wb") as f:
                f.write(data if isinstance(data, bytes) else data.encode())
            print("FAIL: input %d (%s, %s): %s\n  stderr: %s\n  kept in %s" %
                  (k, kind, label, problem, err.strip()[:600], keep))
    print("%s: %d inputs from seed %d (%d to refuse, %d to accept, %d either way); exit "
          "statuses %s" % (a.cls, len(inputs), a.seed, counts["refuse"], counts["accept"],
                           counts["either"],
                           ", ".join("%s: %d" % (c, n) for c, n in sorted(outcomes.items(),
                                                                           key=str))))
    if failures:
        print("%d passed, %d failed" % (len(inputs) - failures, failures))
        return 1
    shutil.rmtree(folder, ignore_errors=True)
    print("%d passed, 0 failed" % len(inputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
