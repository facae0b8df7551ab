#!/usr/bin/env python3
"""The inclined chute of Silbert et al. (2001) in dempact and in LAMMPS, side by side.

L. E. Silbert, D. Ertas, G. S. Grest, T. C. Halsey, D. Levine, S. J. Plimpton (2001),
Granular flow down an inclined plane: Bagnold scaling and rheology, Phys. Rev. E 64,
051302, doi:10.1103/PhysRevE.64.051302.

Units are the paper's: diameter d = 1, mass m = 1, gravity g = 1, time sqrt(d/g). The
contact is LAMMPS's gran/hooke/history with the paper's (and LAMMPS bench/in.chute's)
values: k_n = 2e5, k_t = 2/7 k_n, gamma_n = 50, no tangential dashpot (dampflag 0),
mu = 0.5, dt = 1e-4. LAMMPS's dashpot is m* gamma_n d', so dempact's linear law gets
the coefficient eta = m* gamma_n of each pair: 25 for two grains (m* = 1/2), 50 for a
grain on the fixed base (m* = 1: a fixed particle weighs as if infinitely massive, as
LAMMPS's fix freeze makes it). The restitution these give, e = exp(-pi b / sqrt(w^2 -
b^2)) with b = gamma_n / 2 and w^2 = k_n / m*: 0.8831 between grains, 0.8387 on the base.

The chute (cases/chute.yaml, with cases/chute_base.csv and cases/chute_flow.csv, which
this tool writes with --write-case): periodic in x and y, Lx x Ly, a rough base of
fixed grains on a square lattice of spacing 1 with heights drawn in [0.25, 0.75], and
the flowing grains on a loose lattice above it, at rest. Gravity (sin theta, 0,
-cos theta), as LAMMPS's `fix gravity 1.0 chute theta`.

What it measures, from the snapshots of the window [t_end - window, t_end], in bins of
height 1 (z from the base's mean top, z_b = mean base height + 1/2):
  - phi(z): the solid fraction, each sphere's volume cut exactly by each bin;
  - v_x(z): the mean downhill velocity of the grains whose centres lie in the bin;
  - H: the flow's height, where phi falls to half its bulk value (phi_bulk: the mean
    of phi over 0.25 H < z < 0.75 H);
  - the Bagnold fit v_x(z) = A (H^a - (H - z)^a) over 1 < z < H - 1, by least squares
    in A and a (Bagnold: a = 3/2), and A at a = 3/2;
  - the flow rate Q = integral of phi v_x dz per unit width (d^2 sqrt(g d) / d^2).
These are measured over [--end - --window, --end] of a run of fixed length (default: 24
degrees, t = 200, a flow still accelerating), or, with --steady, at steady state:
tools/chute_live.py steps each code from Python (dempact through its package, LAMMPS
through its library), decides when the flow is steady (consecutive windows of --window
agreeing in mean v_x and kinetic energy) and measures there; --stop ANGLES then lowers
the steady flow through ANGLES, each stage until the layer stops or is steady (default
22 degrees with --steady; tools/chute_live.py's --help has the criteria). The codes run
at the same time, one thread each, and report their particle-steps per second. With
--speed T both codes run the chute for T at the same time, one thread each on a core of
its own, and their particle-steps per second are printed.

usage: chute.py --dempact build/dempact [--lammps lmp] [--angle 24] [--end 200]
                [--window 50] [--interval 2] [--work DIR] [--threads 1]
                [--steady [--stop 20,19,18] [chute_live.py's options]]
                [--speed T] [--json OUT] [--report JSON] [--write-case]

Needs numpy and h5py: run it with `.venv/bin/python tools/chute.py`.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("chute", missing))

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases")
LX, LY = 10.0, 5.0
NX_FLOW, NY_FLOW, NZ_FLOW = 9, 4, 25  # flowing grains: 900, about 16 d deep settled
Z_FLOW, DZ_FLOW = 1.7, 1.1
KN, GAMMA_N, MU, DT = 2.0e5, 50.0, 0.5, 1.0e-4
KT = 2.0 / 7.0 * KN
DENSITY = 6.0 / math.pi  # m = 1 for d = 1


def restitution(m_eff):
    """The closed form of a linear spring-dashpot m* x'' = -k_n x - m* gamma_n x'."""
    b = 0.5 * GAMMA_N
    return math.exp(-math.pi * b / math.sqrt(KN / m_eff - b * b))


def write_particles(folder):
    """cases/chute_base.csv (fixed) and cases/chute_flow.csv (flowing), seeded."""
    rng = np.random.default_rng(2001)
    with open(os.path.join(folder, "chute_base.csv"), "w") as f:
        f.write("x,y,z,radius\n")
        for i in range(int(LX)):
            for j in range(int(LY)):
                f.write(f"{i + 0.5!r},{j + 0.5!r},{0.25 + 0.5 * rng.random()!r},0.5\n")
    with open(os.path.join(folder, "chute_flow.csv"), "w") as f:
        f.write("x,y,z,radius\n")
        sx, sy = LX / NX_FLOW, LY / NY_FLOW
        for k in range(NZ_FLOW):
            for i in range(NX_FLOW):
                for j in range(NY_FLOW):
                    # a small jitter breaks the lattice's symmetry (no overlap: gaps > 0.1)
                    x = (i + 0.5) * sx + 0.04 * (rng.random() - 0.5)
                    y = (j + 0.5) * sy + 0.04 * (rng.random() - 0.5)
                    f.write(f"{x!r},{y!r},{Z_FLOW + k * DZ_FLOW!r},0.5\n")


def case_text(angle, end, interval, name="chute"):
    """cases/chute.yaml at chute angle `angle` (degrees), run to `end`."""
    text = open(os.path.join(CASES, "chute.yaml")).read()
    t = math.radians(angle)
    text = re.sub(r"^gravity: .*$", f"gravity: [{math.sin(t)!r}, 0, {-math.cos(t)!r}]  # {angle} degrees",
                  text, count=1, flags=re.M)
    text = re.sub(r"^  end: .*$", f"  end: {end!r}", text, count=1, flags=re.M)
    text = re.sub(r"^  output_interval: .*$", f"  output_interval: {interval!r}", text, count=1,
                  flags=re.M)
    text = re.sub(r"^name: .*$", f"name: {name}", text, count=1, flags=re.M)
    for csv in ("chute_base.csv", "chute_flow.csv"):
        text = text.replace(f"file: {csv}", f"file: {os.path.abspath(os.path.join(CASES, csv))}")
    return text


def run_dempact(exe, folder, angle, end, interval, threads, name="chute"):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".yaml")
    open(path, "w").write(case_text(angle, end, interval, name))
    start = time.monotonic()
    subprocess.run([exe, "run", path, "--output", os.path.join(folder, "out"), "--threads",
                    str(threads), "--overwrite"], check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    frames = []
    snapdir = os.path.join(folder, "out", name + ".d")
    for fname in sorted(os.listdir(snapdir)):
        with h5py.File(os.path.join(snapdir, fname), "r") as s:
            frames.append((float(s.attrs["time"]), s["type"][:], s["position"][:],
                           s["velocity"][:]))
    return frames, wall


def lammps_input(angle, end, interval, data, dump):
    steps, every = int(round(end / DT)), int(round(interval / DT))
    return f"""# the chute of tools/chute.py (Silbert et al. 2001), generated
units lj
atom_style sphere
boundary p p fm
newton off
comm_modify vel yes
read_data {data}
pair_style gran/hooke/history {KN!r} {KT!r} {GAMMA_N!r} 0.0 {MU!r} 0
pair_coeff * *
neighbor 0.1 bin
neigh_modify every 1 delay 0
timestep {DT!r}
group bottom type 2
group active subtract all bottom
neigh_modify exclude group bottom bottom
fix 1 all gravity 1.0 chute {angle!r}
fix 2 bottom freeze
fix 3 active nve/sphere
dump 1 all custom {every} {dump} id type x y z vx vy vz
dump_modify 1 sort id
thermo {every}
run {steps}
"""


def write_lammps_data(path):
    rows = []
    for kind, csv in ((2, "chute_base.csv"), (1, "chute_flow.csv")):
        a = np.loadtxt(os.path.join(CASES, csv), delimiter=",", skiprows=1, ndmin=2)
        rows += [(kind, r) for r in a]
    with open(path, "w") as f:
        f.write(f"chute of tools/chute.py\n\n{len(rows)} atoms\n2 atom types\n\n")
        f.write(f"0 {LX!r} xlo xhi\n0 {LY!r} ylo yhi\n0 60 zlo zhi\n\nAtoms # sphere\n\n")
        for n, (kind, r) in enumerate(rows, 1):
            f.write(f"{n} {kind} {2 * r[3]!r} {DENSITY!r} {r[0]!r} {r[1]!r} {r[2]!r}\n")


def run_lammps(exe, folder, angle, end, interval):
    os.makedirs(folder, exist_ok=True)
    data, dump = os.path.join(folder, "chute.data"), os.path.join(folder, "chute.dump")
    write_lammps_data(data)
    inp = os.path.join(folder, "chute.in")
    open(inp, "w").write(lammps_input(angle, end, interval, data, dump))
    start = time.monotonic()
    out = subprocess.run([exe, "-in", inp, "-log", os.path.join(folder, "log.lammps")],
                         check=True, capture_output=True, text=True, cwd=folder,
                         env=dict(os.environ, OMP_NUM_THREADS="1")).stdout
    wall = time.monotonic() - start
    loop = re.search(r"Loop time of ([0-9.eE+-]+) on", out)
    frames = []
    with open(dump) as f:
        lines = f.read().split("ITEM: TIMESTEP\n")[1:]
    for block in lines:
        part = block.split("\n")
        step = int(part[0])
        n = int(part[2])
        a = np.array([[float(v) for v in line.split()] for line in part[8:8 + n]])
        kind = np.where(a[:, 1] == 2, 1, 0)  # dempact's material index: base is 1
        frames.append((step * DT, kind, a[:, 2:5], a[:, 5:8]))
    return frames, wall, float(loop.group(1)) if loop else wall


def slab_volume(z, lo, hi, r=0.5):
    """Volume of spheres of radius r centred at heights z between the planes lo, hi."""
    a, b = np.clip(lo - z, -r, r), np.clip(hi - z, -r, r)
    prim = lambda u: math.pi * (r * r * u - u ** 3 / 3.0)
    return prim(b) - prim(a)


def profiles(frames, t_from, t_to=math.inf):
    """phi(z), v_x(z) averaged over the frames at t_from <= t <= t_to; z from the base's
    top."""
    use = [f for f in frames if t_from - 1e-9 <= f[0] <= t_to + 1e-9]
    base = [f for f in frames[:1]][0]
    zb = float(np.mean(base[2][base[1] == 1, 2])) + 0.5
    edges = np.arange(0.0, 40.0 + 1e-9, 1.0)
    phi = np.zeros(len(edges) - 1)
    vsum, count = np.zeros_like(phi), np.zeros_like(phi)
    for _, kind, x, v in use:
        z = x[kind == 0, 2] - zb
        vx = v[kind == 0, 0]
        for b in range(len(phi)):
            phi[b] += slab_volume(z, edges[b], edges[b + 1]).sum()
            inside = (z >= edges[b]) & (z < edges[b + 1])
            vsum[b] += vx[inside].sum()
            count[b] += inside.sum()
    phi /= len(use) * LX * LY * 1.0
    v = np.where(count > 0, vsum / np.maximum(count, 1), 0.0)
    return 0.5 * (edges[1:] + edges[:-1]), phi, v, len(use)


def measure(frames, window, t_end=None):
    t_end = frames[-1][0] if t_end is None else t_end
    zc, phi, v, n = profiles(frames, t_end - window, t_end)
    # H: phi falls to half the bulk value (linear between bin centres)
    top = np.nonzero(phi > 0.3)[0].max()
    bulk = float(np.mean(phi[1:top]))
    half = 0.5 * bulk
    k = top
    while k + 1 < len(phi) and phi[k + 1] >= half:
        k += 1
    h = zc[k] + (phi[k] - half) / (phi[k] - phi[k + 1]) * (zc[k + 1] - zc[k])
    bulk = float(np.mean(phi[(zc > 0.25 * h) & (zc < 0.75 * h)]))
    fit_mask = (zc > 1.0) & (zc < h - 1.0)
    z, vz = zc[fit_mask], v[fit_mask]

    def bagnold(a):
        shape = h ** a - (h - z) ** a
        amp = float(np.dot(shape, vz) / np.dot(shape, shape))
        return amp, float(np.sum((amp * shape - vz) ** 2))

    exps = np.linspace(0.8, 2.5, 341)
    best = min(exps, key=lambda a: bagnold(a)[1])
    amp15, res15 = bagnold(1.5)
    rms = math.sqrt(res15 / len(z)) / max(float(np.max(np.abs(vz))), 1e-12)
    q = float(np.sum(phi * v))  # bins of height 1
    return {"H": float(h), "phi_bulk": bulk, "bagnold_exponent": float(best),
            "A_at_1.5": amp15, "bagnold_rms_relative": rms, "flow_rate": q,
            "v_mean": float(np.sum(phi * v) / np.sum(phi)), "v_surface": float(v[k]),
            "frames": n, "z": zc[: k + 2].tolist(),
            "phi": phi[: k + 2].tolist(), "vx": v[: k + 2].tolist()}


KEYS = ("H", "phi_bulk", "bagnold_exponent", "A_at_1.5", "bagnold_rms_relative", "flow_rate",
        "v_mean", "v_surface")


def measure_with_spread(frames, window):
    """measure() over the window, and each value's spread: half the difference between
    the window's two halves (a flow still accelerating shows here as a wide spread)."""
    out = measure(frames, window)
    t_end = frames[-1][0]
    first, second = measure(frames, 0.5 * window, t_end - 0.5 * window), measure(frames, 0.5 * window)
    out["spread"] = {k: 0.5 * abs(first[k] - second[k]) for k in KEYS}
    out["halves"] = {k: [first[k], second[k]] for k in KEYS}
    return out


def gravity(angle):
    t = math.radians(angle)
    return np.array([math.sin(t), 0.0, -math.cos(t)])


def speed(dempact_exe, lammps_exe, folder, angle, end):
    """Both codes on the chute at the same time, one thread each on a core of its own
    (taskset; cores 0 and 1), so that both see the same machine: dempact writing only its
    first and last snapshots, LAMMPS no dump. Returns particle-steps per second of each
    (dempact: the whole run's wall time, its start and output included; LAMMPS: its
    loop time, which leaves its start out)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "chute_speed.yaml")
    open(path, "w").write(case_text(angle, end, end, "chute_speed"))
    data = os.path.join(folder, "chute.data")
    write_lammps_data(data)
    inp = os.path.join(folder, "speed.in")
    text = lammps_input(angle, end, end, data, os.path.join(folder, "d.dump"))
    open(inp, "w").write(text.replace("dump 1", "# dump 1").replace("dump_modify", "# dump_modify"))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    start = time.monotonic()
    d = subprocess.Popen(["taskset", "-c", "0", dempact_exe, "run", path, "--output",
                          os.path.join(folder, "out"), "--threads", "1", "--overwrite", "--quiet"],
                         env=env)
    log = os.path.join(folder, "log.lammps")
    lm = subprocess.Popen(["taskset", "-c", "1", lammps_exe, "-in", inp, "-log", log], env=env,
                          cwd=folder, stdout=subprocess.DEVNULL)
    wall = None
    while wall is None or lm.poll() is None:
        if wall is None and d.poll() is not None:
            wall = time.monotonic() - start
        time.sleep(0.05)
    if d.returncode != 0 or lm.returncode != 0:
        raise RuntimeError(f"dempact exit {d.returncode}, LAMMPS exit {lm.returncode}")
    loop = float(re.search(r"Loop time of ([0-9.eE+-]+) on", open(log).read()).group(1))
    n = NX_FLOW * NY_FLOW * NZ_FLOW + int(LX) * int(LY)
    steps = int(round(end / DT))
    return {"dempact_seconds": wall, "lammps_loop_seconds": loop,
            "dempact": n * steps / wall, "lammps": n * steps / loop}


def steady(a, extra):
    """tools/chute_live.py for dempact and (with --lammps) LAMMPS, at the same time, one
    thread each: the steady flow, its profiles, the stopping staircase and the speed."""
    codes = ["dempact"] + (["lammps"] if a.lammps else [])
    os.makedirs(a.work, exist_ok=True)
    args = ["--angle", repr(a.angle), "--window", repr(a.window), "--interval", repr(a.interval),
            "--work", a.work] + (["--stop", a.stop] if a.stop else []) + extra
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = {c: subprocess.Popen([sys.executable, os.path.join(HERE, "chute_live.py"), "--code", c,
                                 "--json", os.path.join(a.work, c + "_live.json")] + args, env=env)
            for c in codes}
    failed = [f"{c} exit {p.wait()}" for c, p in runs.items() if p.wait() != 0]
    if failed:
        raise RuntimeError(", ".join(failed))
    return {c: json.load(open(os.path.join(a.work, c + "_live.json"))) for c in codes}


def print_steady(live):
    import chute_live  # tools/, beside this file
    codes = list(live)
    print(f"{'':26s}" + "".join(f"{c:>18s}" for c in codes))
    rows = [(k, lambda r, k=k: f"{r['flow'][k]:9.4g} +-{r['flow']['spread'][k]:<7.2g}")
            for k in KEYS]
    rows += [("steady at t", lambda r: f"{r['flow']['t_steady'] or float('nan'):9.4g}{'':9s}"),
             ("particle_steps_per_second", lambda r: f"{r['particle_steps_per_second']:9.4g}"
                                                     f"{'':9s}")]
    for name, cell in rows:
        print(f"{name:26s}" + "".join(cell(live[c]) for c in codes))
    for c in codes:
        if not live[c]["flow"]["steady"]:
            print(f"{c}: NOT steady by t = {live[c]['flow']['t_end']:g}")
        for s in live[c]["stop_scan"]:
            v0, v1 = s["trace"][0][1], s["trace"][-1][1]
            fit = chute_live.relaxation(s["trace"])
            heading = (f"; heading to {fit[0]:.3g} (tau {fit[1]:.3g})" if fit else "")
            print(f"{c} at {s['angle']:g} degrees, t = {s['from']:g} to {s['to']:g}: "
                  f"{s['outcome']}, <v_x> {v0:.3g} -> {v1:.3g}, e_k {s['trace'][-1][2]:.3g}"
                  + heading)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", default=os.path.join(HERE, "..", "build", "dempact"))
    ap.add_argument("--lammps", default=None, help="LAMMPS executable (Debian: lmp)")
    ap.add_argument("--angle", type=float, default=None,
                    help="degrees (24, or 22 with --steady)")
    ap.add_argument("--end", type=float, default=200.0)
    ap.add_argument("--window", type=float, default=50.0)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--work", default="chute-work")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steady", action="store_true",
                    help="run to a steady flow and measure it there (tools/chute_live.py; "
                         "its options --t-max, --tol-v, --tol-ke, --stage-max, ... pass through)")
    ap.add_argument("--stop", default=None,
                    help="with --steady: angles to lower the steady flow through, e.g. 20,19,18")
    ap.add_argument("--speed", type=float, default=None,
                    help="time both codes side by side for this long (needs --lammps) and stop")
    ap.add_argument("--json", default=None)
    ap.add_argument("--report", default=None, metavar="JSON",
                    help="print the tables of an earlier --steady run's --json and stop")
    ap.add_argument("--write-case", action="store_true",
                    help="write cases/chute_base.csv and cases/chute_flow.csv and stop")
    a, extra = ap.parse_known_args()
    if extra and not a.steady:
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    if a.stop and not a.steady:
        ap.error("--stop needs --steady")
    if a.angle is None:
        a.angle = 22.0 if a.steady else 24.0
    if a.write_case:
        write_particles(CASES)
        return 0
    if a.report:
        try:
            r = json.load(open(a.report))
            live = {c: r[c] for c in ("dempact", "lammps") if c in r and "flow" in r[c]}
        except (OSError, ValueError, TypeError) as e:
            ap.error(f"--report {a.report}: {e}")
        if not live:
            ap.error(f"--report {a.report}: no --steady run in it")
        print(f"chute at {r['angle']:g} degrees")
        print_steady(live)
        return 0
    if a.speed:
        if not a.lammps:
            ap.error("--speed needs --lammps")
        r = speed(a.dempact, a.lammps, os.path.join(a.work, "speed"), a.angle, a.speed)
        print(f"side by side, {a.speed:g} time units at {a.angle:g} degrees, one core each: "
              f"dempact {r['dempact']:.4g} particle-steps/s (whole run: "
              f"{r['dempact_seconds']:.1f} s), LAMMPS {r['lammps']:.4g} "
              f"({r['lammps_loop_seconds']:.1f} s)")
        return 0
    if not (a.window > 0 and (a.steady or a.end > a.window) and a.interval > 0):
        ap.error(f"--end {a.end}, --window {a.window}, --interval {a.interval}: give "
                 "0 < window < end and interval > 0")
    n = NX_FLOW * NY_FLOW * NZ_FLOW + int(LX) * int(LY)
    result = {"angle": a.angle, "window": a.window, "restitution_grains": restitution(0.5),
              "restitution_base": restitution(1.0)}
    print(f"chute at {a.angle:g} degrees, {n} particles ({int(LX) * int(LY)} fixed); "
          f"e = {result['restitution_grains']:.4f} between grains, "
          f"{result['restitution_base']:.4f} on the base")
    if a.steady:
        result.update(steady(a, extra))
        print_steady({c: result[c] for c in ("dempact", "lammps") if c in result})
    else:
        result["end"] = a.end
        steps = int(round(a.end / DT))
        frames, wall = run_dempact(a.dempact, os.path.join(a.work, "dempact"), a.angle, a.end,
                                   a.interval, a.threads)
        result["dempact"] = measure_with_spread(frames, a.window)
        result["dempact"].update(wall_seconds=wall, particle_steps_per_second=n * steps / wall)
        if a.lammps:
            frames, wall, loop = run_lammps(a.lammps, os.path.join(a.work, "lammps"), a.angle,
                                            a.end, a.interval)
            result["lammps"] = measure_with_spread(frames, a.window)
            result["lammps"].update(wall_seconds=wall, loop_seconds=loop,
                                    particle_steps_per_second=n * steps / loop)
        codes = [c for c in ("dempact", "lammps") if c in result]
        print(f"t = {a.end:g}, window {a.window:g}")
        print(f"{'':26s}" + "".join(f"{c:>18s}" for c in codes))
        for key in KEYS:
            print(f"{key:26s}" + "".join(f"{result[c][key]:9.4g} +-{result[c]['spread'][key]:<7.2g}"
                                         for c in codes))
        for key in ("wall_seconds", "particle_steps_per_second"):
            print(f"{key:26s}" + "".join(f"{result[c][key]:9.4g}{'':9s}" for c in codes))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
