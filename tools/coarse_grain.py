#!/usr/bin/env python3
"""Continuum fields from a dempact run: density, velocity, kinetic and contact stress,
fabric, on a grid, along one axis or averaged over the box, time-averaged over a window
of snapshots (Goldhirsch 2010; Weinhart et al. 2012; docs/coarse-graining.md).

    .venv/bin/python tools/coarse_grain.py output/pour.h5 --out pour_cg.h5 \\
        --width 0.002 --profile z --bins 200 --from 0.3

The sums run in C: this entry calls the program coarse_grain (build/tools/coarse_grain,
or the installed libexec/dempact/coarse_grain; DEMPACT_COARSE_GRAIN names another) with
the same arguments, and `load(OUT.h5)` reads its output into numpy arrays:

    import sys; sys.path.insert(0, "tools")
    import coarse_grain
    coarse_grain.run("output/pour.h5", "pour_cg.h5", width=0.002, profile="z", bins=200)
    f = coarse_grain.load("pour_cg.h5")     # f["z"], f["density"], f["stress"] (n, 3, 3), ...

The program checks every argument (exit status 2 for bad input, nothing written).
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def program():
    """The coarse_grain program: DEMPACT_COARSE_GRAIN, the build beside this file, or the
    installed one (share/dempact/tools -> libexec/dempact)."""
    given = os.environ.get("DEMPACT_COARSE_GRAIN")
    if given:
        return given
    for path in (os.path.join(HERE, "..", "build", "tools", "coarse_grain"),
                 os.path.join(HERE, "..", "..", "..", "libexec", "dempact", "coarse_grain")):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    return shutil.which("coarse_grain")


def arguments(run_file, out, width, kernel="gauss", grid=None, profile=None, bins=None, box=False,
              region=None, time_from=None, time_to=None):
    """The program's command line for these settings."""
    a = [str(run_file), "--out", str(out), "--width", repr(float(width)), "--kernel", kernel]
    if grid is not None:
        a += ["--grid", ",".join(str(int(n)) for n in grid)]
    if profile is not None:
        a += ["--profile", profile]
    if bins is not None:
        a += ["--bins", str(int(bins))]
    if box:
        a += ["--box"]
    if region is not None:
        a += ["--region", ",".join(repr(float(x)) for x in region)]
    if time_from is not None:
        a += ["--from", repr(float(time_from))]
    if time_to is not None:
        a += ["--to", repr(float(time_to))]
    return a


def run(run_file, out, width, **options):
    """Runs the program; raises RuntimeError with its message when it refuses or fails."""
    exe = program()
    if not exe:
        raise RuntimeError("coarse_grain: the program is not built (cmake --build build --target coarse_grain)")
    done = subprocess.run([exe] + arguments(run_file, out, width, **options), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"coarse_grain: exit status {done.returncode}")
    return done.stdout.strip()


def load(path):
    """The output's fields as numpy arrays: a dict with the coordinates (x, y, z, as
    present), every field (vectors (..., 3), tensors (..., 3, 3)), times, steps, a
    Lees-Edwards run's box_heights and the file's attributes under "attrs"."""
    import h5py
    import numpy as np
    out = {}
    with h5py.File(path, "r") as f:
        out["attrs"] = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
        for k, v in f["coordinates"].items():
            out[k] = np.asarray(v[()])
        for k, v in f["fields"].items():
            a = np.asarray(v[()])
            if a.shape and a.shape[-1] == 9:
                a = a.reshape(a.shape[:-1] + (3, 3))
            out[k] = a
        out["times"] = np.asarray(f["times"][()])
        out["steps"] = np.asarray(f["steps"][()])
        if "box_heights" in f:   # a Lees-Edwards run: each snapshot's box height
            out["box_heights"] = np.asarray(f["box_heights"][()])
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="The program's own help: build/tools/coarse_grain --help")
    p.add_argument("run", help="the run's DIR/NAME.h5")
    p.add_argument("--out", required=True, help="the fields' HDF5 file (OUT.xmf is written beside it)")
    p.add_argument("--width", required=True, help="kernel width W in m (Gaussian: standard deviation, "
                                                  "cut off at 3W; Lucy: radius 3W)")
    p.add_argument("--kernel", default="gauss", help="gauss (default) or lucy")
    p.add_argument("--grid", help="NX,NY,NZ: points at the cell centres of the region")
    p.add_argument("--profile", help="x, y or z: a profile along that axis (with --bins)")
    p.add_argument("--bins", help="the profile's number of points")
    p.add_argument("--box", action="store_true", help="one average over the whole domain")
    p.add_argument("--region", help="X0,Y0,Z0,X1,Y1,Z1: the grid's or profile's extent in m")
    p.add_argument("--from", dest="time_from", help="first time of the window, s")
    p.add_argument("--to", dest="time_to", help="last time of the window, s")
    a = p.parse_args(argv)
    exe = program()
    if not exe:
        print("coarse_grain.py: the program coarse_grain is not built: cmake --build build --target coarse_grain",
              file=sys.stderr)
        return 2
    cmd = [exe, a.run, "--out", a.out, "--width", a.width, "--kernel", a.kernel]
    for flag, value in (("--grid", a.grid), ("--profile", a.profile), ("--bins", a.bins),
                        ("--region", a.region), ("--from", a.time_from), ("--to", a.time_to)):
        if value is not None:
            cmd += [flag, value]
    if a.box:
        cmd.append("--box")
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
