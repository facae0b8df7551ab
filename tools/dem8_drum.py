#!/usr/bin/env python3
"""DEM8 case 2, the bidisperse rotating drum, in dempact, LIGGGHTS and LAMMPS side by side.

usage: dem8_drum.py write-case [--out cases/dem8_drum.yaml]
       dem8_drum.py run [--end-time 5] [--interval 0.1] [--settle 0.5] [--work DIR]
           [--codes dempact,liggghts[,lammps]] [--one-after-other] [--reuse-settle]
           [--dempact build/dempact] [--liggghts liggghts] [--lmp lmp] [--json OUT]
           [--check-band 0.10]

The benchmark (Dosta et al. 2024, Computer Physics Communications 296, 109066, case 2;
Yade's examples/DEM2020Benchmark/Case2_rotating_drum.py): a steel drum, radius 0.1 m about
the y axis, 0.06 m deep (y in [-0.03, 0.03]), both end caps turning with it at 2 rad/s,
right-handed about +y (the wall at +x moves down); gravity -9.81 along z. Two materials:
  M1: r = 1 mm, E 1 GPa, nu 0.2, rho 2500 kg/m^3, 30,000 particles (on top);
  M2: r = 2 mm, E 0.5 GPa, nu 0.2, rho 2000 kg/m^3, 8,000 particles (below);
  steel: E 210 GPa, nu 0.2, rho 7200.
(The Yade script reads the particles from the published file; 30,000 and 8,000 are the
counts other reproductions state.)
Hertz-Mindlin with (restitution e, friction mu) per pair: M1-M1 0.5/0.3, M1-M2 0.45/0.2,
M2-M2 0.4/0.4, M1-steel and M2-steel 0.4/0.2; no rolling resistance. Reported: the
number of M1 and of M2 particles in zone 1 (x < 0, z > 0) and zone 2 (x > 0, z < 0)
against time for 5 s (the Yade script's zones and sense of rotation).

The law, mapped (the same in every code here):
  normal: 4/3 E* sqrt(R*) d^(3/2) with the dashpot of Yade's MindlinPhys and LIGGGHTS'
      `model hertz`, gamma = 2 sqrt(5/6) beta sqrt(2 E* sqrt(R* d) m*), beta =
      -ln e / sqrt(ln^2 e + pi^2). dempact's hertz_critical_ratio is
      xi sqrt(8 m* E* sqrt(R*)) d^(1/4) d', the same force at xi = sqrt(5/6) beta;
      no clipping of the dashpot's pull (dempact cohesion_removal: false, LIGGGHTS
      limitForce off, its default);
  tangential: Mindlin's history spring 8 G* sqrt(R* d), Coulomb cap mu F_n, no
      tangential dashpot (Yade's MindlinPhys has none unless `es` is given: dempact's
      hertz_critical_ratio gives its spring none, LIGGGHTS gets tangential_damping off).
The step is 1.5e-6 s (the organisers' step for M1; 0.18 of M1's Rayleigh time).

Filling. The benchmark starts from published settled positions (a download from the
organisers, not reachable from this machine). Here the bed is layered as the benchmark's
is: M2 on a simple cubic lattice (spacing 1.05 d) in the lowest rows of the drum, M1 on
a lattice above it, every centre at least r + 0.5 mm inside the drum (the case file);
`run --settle S` (default 0.5 s) lets it fall and settle for S seconds in dempact with
the drum at rest, and every code starts turning the drum from those settled positions
at t = 0, as the benchmark does. --settle 0 starts every code from the lattice itself;
--reuse-settle takes DIR/dempact/M1.csv and M2.csv of an earlier run instead. The
settle's last kinetic energy is printed (0.1 s leaves 0.013 J: the lattice still falls).

`run` writes DIR/dempact/ (the case, its output), DIR/liggghts/ and DIR/lammps/ (data
file, meshes, input, dumps), runs the codes at the same time on one core each
(OMP_NUM_THREADS=1, nice 5; --one-after-other runs them in turn), and prints their zone
counts at every --interval and at the end side by side, and each code's time and
particle-steps per second (steps x particles / seconds of the whole process, wall and
CPU; on a shared machine the CPU time is the one to compare). --json OUT writes the
table and timings. --check-band B exits 1 unless (a) every report of each code counts
all 38,000 particles inside the drum and (b) from t >= 1 s on, each zone's count of M1
and of M2, averaged over the reports, differs between dempact and LIGGGHTS by at most B
of their mean (a stated criterion, not a band derived from seed-to-seed spreads; see
docs/validation.md#dem8-drum). Exit status 2 for a bad argument (nothing run), 77 when
a peer's executable is missing (ctest's skip), 1 when a code fails or the check does.

LIGGGHTS' walls are STL meshes: the barrel with --facets facets around (default 200;
vertices on a radius R (pi/N)/sin(pi/N), so the facets' mean distance from the axis is R
and they depart from the circle by at most 6 um, 0.6% of an M1 radius) and the two caps
as triangle fans; all three turn with `fix move/mesh rotate`. dempact's are a cylinder
and two planes turning about their normal.

LAMMPS (Debian's lmp, 29 Sep 2021; --codes dempact,liggghts,lammps) expresses the case
too: pair_style granular hertz/material with its tsuji dashpot at alpha(cor) = sqrt(5)
beta(e) (the same dashpot), Mindlin without a tangential dashpot, and the drum as a
cylinder region whose barrel and ends turn (region rotate) under fix wall/gran/region,
one fix per material because a wall fix takes one E*; E is given as LAMMPS needs it to
make each pair's E* (tools/dem8_peers.py, lammps_lines()). What differs per contact (the
spin's lever arm, the velocity the force sees) is listed in tools/lammps_packing.py.
All three codes turn the drum the same way: in 0.02 s the particles next to the
barrel's bottom move 1.21-1.23 mm towards -x in each.

The tool's parts: tools/dem8_setup.py (the numbers, the mapping, the lattice, the case
text), tools/dem8_peers.py (LIGGGHTS' and LAMMPS' inputs and dumps), this file (running,
counting, the check).

Needs numpy and h5py: run it with the project's environment, `.venv/bin/python
tools/dem8_drum.py` (bash tools/setup.sh makes it), and Debian's liggghts.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("dem8_drum", missing))

from dem8_setup import (CODES, DT, HALF_DEPTH, N_TOTAL, OMEGA, R_DRUM,  # noqa: E402
                        case_text, file_sources, lattice_rows, n_steps, particle_sources)
from dem8_peers import liggghts_reports, write_lammps, write_liggghts  # noqa: E402


# ---- dempact -------------------------------------------------------------------------------

def dempact_reports(h5):
    with h5py.File(h5, "r") as f:
        for key in sorted(f["snapshots"].keys()):
            s = f["snapshots"][key]
            yield (float(s.attrs["time"]), np.asarray(s["position"]),
                   np.asarray(s["radius"]) < 1.5e-3)


def snapshot(h5, which):
    with h5py.File(h5, "r") as f:
        keys = sorted(f["snapshots"].keys())
        s = f["snapshots"][keys[which]]
        return np.asarray(s["position"]), np.asarray(s["radius"])


def run_dempact(a, folder, particles, end, interval, omega, tag):
    os.makedirs(folder, exist_ok=True)
    case = os.path.join(folder, tag + ".yaml")
    with open(case, "w") as f:
        f.write(case_text(particles, end, interval, omega))
    return [a.dempact, "run", case, "--output", folder, "--quiet", "--overwrite",
            "--threads", "1"], os.path.join(folder, "dem8_drum.h5")   # named by the case's name


def write_csvs(folder, x, r):
    os.makedirs(folder, exist_ok=True)
    for name, keep in (("M1", r < 1.5e-3), ("M2", r >= 1.5e-3)):
        np.savetxt(os.path.join(folder, name + ".csv"), np.column_stack([x[keep], r[keep]]),
                   delimiter=",", header="x,y,z,radius", comments="", fmt="%.17g")


# ---- counting ------------------------------------------------------------------------------

def zone_counts(x, small):
    z1 = (x[:, 0] < 0) & (x[:, 2] > 0)
    z2 = (x[:, 0] > 0) & (x[:, 2] < 0)
    inside = ((x[:, 0] ** 2 + x[:, 2] ** 2 < R_DRUM ** 2) & (np.abs(x[:, 1]) < HALF_DEPTH))
    return {"zone1_M1": int((z1 & small).sum()), "zone1_M2": int((z1 & ~small).sum()),
            "zone2_M1": int((z2 & small).sum()), "zone2_M2": int((z2 & ~small).sum()),
            "inside": int(inside.sum())}


def table(reports):
    """{step: counts}: keyed by step, the one clock both codes share."""
    return {int(round(t / DT)): zone_counts(x, s) for t, x, s in reports}


def bad_input(message):
    print("dem8_drum: " + message, file=sys.stderr)
    sys.exit(2)


def timed(cmd, cwd, log):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = open(os.path.join(cwd, log), "w")
    return subprocess.Popen(["nice", "-n", "5"] + cmd, cwd=cwd, stdout=out,
                            stderr=subprocess.STDOUT, env=env), time.time()


def cmd_run(a):
    work = os.path.abspath(a.work)
    codes = a.codes.split(",")
    for c in codes:
        if c not in CODES:
            bad_input(f"--codes: unknown code {c!r} (dempact, liggghts, lammps)")
    for c, exe in (("liggghts", a.liggghts), ("lammps", a.lmp)):
        if c in codes and not shutil.which(exe):
            print(f"dem8_drum: {exe} not found (--{'lmp' if c == 'lammps' else c}): skipped")
            sys.exit(77)
    folders = {c: os.path.join(work, c) for c in CODES}
    dem_dir = folders["dempact"]
    os.makedirs(dem_dir, exist_ok=True)
    if a.settle > 0:
        if not (a.reuse_settle and os.path.exists(os.path.join(dem_dir, "M2.csv"))):
            cmd, h5 = run_dempact(a, os.path.join(work, "settle"),
                                  particle_sources(lattice_rows()), a.settle, a.settle, 0.0,
                                  "settle")
            print(f"dem8_drum: settling the bed for {a.settle} s (dempact, drum at rest)",
                  flush=True)
            subprocess.run(["nice", "-n", "5"] + cmd, check=True,
                           env=dict(os.environ, OMP_NUM_THREADS="1"))
            x, r = snapshot(h5, -1)
            write_csvs(dem_dir, x, r)
            with h5py.File(h5, "r") as f:
                ke = f["timeseries/kinetic_energy"][-1] if "timeseries" in f else float("nan")
            print(f"dem8_drum: settled bed: kinetic energy {ke:.3g} J at {a.settle} s", flush=True)
        particles = file_sources(dem_dir)
    else:
        particles = particle_sources(lattice_rows())
    interval = min(a.interval, a.end_time)
    every = int(round(interval / DT))
    cmd, h5 = run_dempact(a, dem_dir, particles, a.end_time, every * DT, OMEGA, "dem8_drum")
    # the initial positions all codes start from: dempact's first snapshot of a one-step run
    probe = os.path.join(work, "initial")
    pcmd, ph5 = run_dempact(a, probe, particles, DT, DT, OMEGA, "initial")
    subprocess.run(pcmd, check=True)
    x0, r0 = snapshot(ph5, 0)
    n = len(r0)
    commands = {"dempact": cmd}
    if "liggghts" in codes:
        write_liggghts(folders["liggghts"], x0, r0, a.end_time, every, a.facets)
        commands["liggghts"] = [a.liggghts, "-in", "in.drum"]
    if "lammps" in codes:
        write_lammps(folders["lammps"], x0, r0, a.end_time, every)
        commands["lammps"] = [a.lmp, "-in", "in.drum"]
    order = [c for c in CODES if c in codes]
    procs, seconds, cpu = {}, {}, {}

    def finish(code):
        p, t0 = procs[code]
        _, status, usage = os.wait4(p.pid, 0)      # the child's own CPU time (nice execs it)
        p.returncode = os.waitstatus_to_exitcode(status)
        seconds[code], cpu[code] = time.time() - t0, usage.ru_utime + usage.ru_stime
        if p.returncode != 0:
            for q, _ in procs.values():
                if q.poll() is None:
                    q.kill()
            sys.exit(f"dem8_drum: {code} failed (exit {p.returncode}), see its screen.txt")

    for code in order:
        procs[code] = timed(commands[code], folders[code], "screen.txt")
        print(f"dem8_drum: {code} running ({n} particles, {a.end_time} s)", flush=True)
        if a.one_after_other:
            finish(code)
    for code in order:
        if code not in seconds:
            finish(code)
    steps = n_steps(a.end_time)
    tables = {}
    if "dempact" in codes:
        tables["dempact"] = table(dempact_reports(h5))
    for code in ("liggghts", "lammps"):
        if code in codes:
            tables[code] = table(liggghts_reports(folders[code]))
    times = sorted(set().union(*[set(t) for t in tables.values()]))
    keys = ("zone1_M1", "zone1_M2", "zone2_M1", "zone2_M2", "inside")
    print("\nDEM8 drum: particles per zone (zone 1: x < 0, z > 0; zone 2: x > 0, z < 0)")
    print("%8s " % "t [s]" + " ".join("%*s" % (max(21, 7 * len(order)), k) for k in keys))
    width = max(21, 7 * len(order))
    print("%8s " % "" + " ".join("%*s" % (width, " / ".join(c[:3] for c in order)) for _ in keys))
    for t in times:
        cells = []
        for k in keys:
            cells.append("%*s" % (width, " / ".join(str(tables[c][t][k]) if t in tables[c] else "-"
                                                      for c in order)))
        print("%8.6f " % (t * DT) + " ".join(cells))
    print("\nwall time (whole process, one core each%s):"
          % ("" if a.one_after_other else ", run at the same time"))
    speed, speed_cpu = {}, {}
    for code in order:
        speed[code] = n * steps / seconds[code]
        speed_cpu[code] = n * steps / cpu[code]
        print(f"  {code:9s} wall {seconds[code]:8.1f} s, {speed[code]:.3g} particle-steps/s; "
              f"CPU {cpu[code]:8.1f} s, {speed_cpu[code]:.3g} particle-steps/s "
              f"(5 s benchmark: {N_TOTAL * 5 / DT / speed_cpu[code] / 3600:.1f} h of CPU)")
    result = {"particles": n, "step": DT, "steps": steps, "end_time": a.end_time,
              "settle": a.settle, "seconds": seconds, "cpu_seconds": cpu,
              "particle_steps_per_s": speed, "particle_steps_per_cpu_s": speed_cpu,
              "counts": {c: {("%.9g" % (t * DT)): v for t, v in tab.items()}
                         for c, tab in tables.items()}}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    if a.check_band is not None:
        sys.exit(check(tables, a.check_band))


def check(tables, band):
    """0 if every report keeps all particles in the drum and the codes' zone counts,
    averaged over t >= 1 s, are within band of each other; else 1 (and why)."""
    bad = []
    for code, tab in tables.items():
        for t, v in tab.items():
            if v["inside"] != N_TOTAL:
                bad.append(f"{code} at t = {t * DT:.6g} s: {v['inside']} of {N_TOTAL} particles in the drum")
    if "dempact" in tables and "liggghts" in tables:
        late = [t for t in tables["dempact"] if t * DT >= 1.0 and t in tables["liggghts"]]
        if not late:
            bad.append("no common report at t >= 1 s")
        for k in ("zone1_M1", "zone1_M2", "zone2_M1", "zone2_M2"):
            if not late:
                break
            m = [np.mean([tables[c][t][k] for t in late]) for c in ("dempact", "liggghts")]
            ref = 0.5 * (m[0] + m[1])
            ok = abs(m[0] - m[1]) <= band * ref
            print(f"check {k}: dempact {m[0]:.1f}, LIGGGHTS {m[1]:.1f} over t >= 1 s: "
                  f"{abs(m[0] - m[1]) / max(ref, 1e-300):.3f} of their mean "
                  f"({'within' if ok else 'outside'} {band})")
            if not ok:
                bad.append(k)
    for b in bad:
        print("dem8_drum: FAIL: " + b)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    w = sub.add_parser("write-case", help="write the dempact case")
    w.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "..", "cases", "dem8_drum.yaml"))
    r = sub.add_parser("run", help="run dempact and LIGGGHTS and compare the zone counts")
    r.add_argument("--end-time", type=float, default=5.0)
    r.add_argument("--interval", type=float, default=0.1)
    r.add_argument("--settle", type=float, default=0.5)
    r.add_argument("--work", default="dem8_drum_work")
    r.add_argument("--codes", default="dempact,liggghts")
    r.add_argument("--one-after-other", action="store_true")
    r.add_argument("--dempact", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "build", "dempact"))
    r.add_argument("--liggghts", default="liggghts")
    r.add_argument("--lmp", default="lmp")
    r.add_argument("--reuse-settle", action="store_true")
    r.add_argument("--facets", type=int, default=200)
    r.add_argument("--json")
    r.add_argument("--check-band", type=float)
    a = ap.parse_args()
    if a.what == "write-case":
        with open(a.out, "w") as f:
            f.write(case_text(particle_sources(lattice_rows()), 5.0, 0.1))
        print(f"dem8_drum: wrote {a.out}")
        return
    for k in ("end_time", "interval"):
        if not getattr(a, k) > 0:
            bad_input(f"--{k.replace('_', '-')} must be > 0 (got {getattr(a, k)})")
    if a.settle < 0:
        bad_input(f"--settle must be >= 0 (got {a.settle})")
    if a.check_band is not None and not a.check_band > 0:
        bad_input(f"--check-band must be > 0 (got {a.check_band})")
    cmd_run(a)


if __name__ == "__main__":
    main()
