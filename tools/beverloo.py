#!/usr/bin/env python3
"""Beverloo's law from dempact hopper runs: W = C rho_b sqrt(g) (D - k d)^(5/2).

For each orifice diameter D it writes a copy of cases/hopper.yaml with that orifice
(the cone keeps its 60-degree half-angle), runs it with `dempact run` (or reuses a run
already in --work), and measures from the snapshots:
  - the mass left in the hopper (above the orifice) against time, and the steady
    discharge rate W as the slope of a straight line fitted from T_STEADY (the fill has
    landed and the flow is established) while at most 40% of the initial mass has left
    (the bin not yet low);
  - the bulk density rho_b of the bed: the mass of the particles whose centres lie in a
    cylinder of radius 0.6 R_bin between 1 and 3 cm above the cone's top (always inside
    the bed during the steady window), over its volume, averaged over that window.
Then it fits W^(2/5) = a D + b (a straight line: Beverloo's law with the 2/5 power),
so k = -b / (a d) and C = a^(5/2) / (rho_b sqrt(g)), d the mean particle diameter.

usage: beverloo.py --dempact build/dempact [--diameters 0.018,0.0225,0.027]
                   [--work DIR] [--threads N] [--seeds N] [--plot PNG]

--seeds N pours each orifice N times with different seeds (replicates differ by 3 to 5%
in W, which moves a four-orifice fit's C by about 0.04) and fits the mean rates.

Needs numpy and h5py: run it with the project's environment, `.venv/bin/python
tools/beverloo.py` (bash tools/setup.sh makes it).
"""
import argparse
import math
import os
import re
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError as missing:  # pragma: no cover
    import venv_hint
    sys.exit(venv_hint.message("beverloo", missing))

G = 9.81
HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "cases", "hopper.yaml")
R_BIN = 0.07
ORIFICE_Z = 0.02
HALF_ANGLE = math.radians(60.0)
T_STEADY = 0.45  # s: the fill (dropped from up to 0.29 m) has landed and formed the bed


def write_case(d_orifice, folder, seed_offset=0):
    """The hopper case with orifice d_orifice; seed_offset > 0 shifts the particle
    source's seed (a replicate: beads of the same size distribution, placed and
    poured differently)."""
    text = open(CASE).read()
    length = (R_BIN - d_orifice / 2) / math.tan(HALF_ANGLE)
    text, n1 = re.subn(r"radii: \[[^\]]*\]", f"radii: [{d_orifice / 2!r}, {R_BIN!r}]", text)
    text, n2 = re.subn(r"length: [0-9.e-]+( +# \(R_bin - D/2\))",
                       lambda m: f"length: {length!r}{m.group(1)}", text)
    text, n3 = re.subn(r"point: \[0, 0, [0-9.e-]+\]( +# from the cone's top)",
                       lambda m: f"point: [0, 0, {ORIFICE_Z + length!r}]{m.group(1)}", text)
    suffix = f"_s{seed_offset}" if seed_offset else ""
    text = re.sub(r"^name: hopper", f"name: hopper_{d_orifice * 1e3:.1f}mm{suffix}", text,
                  flags=re.M)
    text, n4 = re.subn(r"^(    seed: )(\d+)$",
                       lambda m: f"{m.group(1)}{int(m.group(2)) + seed_offset}", text,
                       flags=re.M)
    if n1 != 1 or n2 != 1 or n3 != 1 or n4 != 1 or f"radius: {R_BIN}" not in text:
        sys.exit("beverloo: cases/hopper.yaml no longer has the cone and seed lines this "
                 "tool edits")
    path = os.path.join(folder, f"hopper_{d_orifice * 1e3:.1f}mm{suffix}.yaml")
    with open(path, "w") as f:
        f.write(text)
    return path, length


def run(dempact, case, folder, threads):
    name = os.path.splitext(os.path.basename(case))[0]
    h5 = os.path.join(folder, name + ".h5")
    if os.path.exists(h5):
        return h5
    cmd = [dempact, "run", case, "--output", folder, "--quiet"]
    if threads:
        cmd += ["--threads", str(threads)]
    print("beverloo: running", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    return h5


def h5_snapshots(h5):
    """(time, positions, masses, radii) of each snapshot of a dempact run, in order."""
    with h5py.File(h5, "r") as f:
        for name in sorted(f["snapshots"].keys()):
            s = f["snapshots"][name]
            yield (float(s.attrs["time"]), np.asarray(s["position"]), np.asarray(s["mass"]),
                   np.asarray(s["radius"]))


def measure(h5, cone_length):
    return measure_snapshots(h5_snapshots(h5), cone_length, h5)


def measure_snapshots(snapshots, cone_length, label):
    """W, rho_b, the mean diameter and (t, mass, window) from (time, x, m, r) snapshots
    (tools/liggghts_hopper.py passes LIGGGHTS's dumps here)."""
    times, masses, densities = [], [], []
    top = ORIFICE_Z + cone_length
    diameters = None
    for time, x, m, r in snapshots:
        if diameters is None:
            diameters = 2 * r
        times.append(time)
        masses.append(m[x[:, 2] > ORIFICE_Z].sum())
        rr = np.hypot(x[:, 0], x[:, 1])
        probe = (rr < 0.6 * R_BIN) & (x[:, 2] > top + 0.01) & (x[:, 2] < top + 0.03)
        volume = math.pi * (0.6 * R_BIN) ** 2 * 0.02
        densities.append(m[probe].sum() / volume)
    t, mass, rho = np.array(times), np.array(masses), np.array(densities)
    left = (mass[0] - mass) / mass[0]
    # steady: the rain of the fill has formed the bed (t >= T_STEADY) and the flow is
    # established, while most of the bed is still there
    window = (left <= 0.40) & (t >= T_STEADY)
    if window.sum() < 3:
        sys.exit(f"beverloo: {label}: too few snapshots in the steady window "
                 f"(discharged fraction reached {left.max():.2f})")
    slope = np.polyfit(t[window], mass[window], 1)[0]
    return -slope, rho[window].mean(), diameters.mean(), (t, mass, window)


def fit(D, W, rho_b, d):
    """Beverloo's C and k from W^(2/5) = a D + b, and the largest relative misfit."""
    D, W = np.asarray(D), np.asarray(W)
    a_fit, b_fit = np.polyfit(D, W ** 0.4, 1)
    k = -b_fit / (a_fit * d)
    C = a_fit ** 2.5 / (rho_b * math.sqrt(G))
    predicted = C * rho_b * math.sqrt(G) * np.clip(D - k * d, 0, None) ** 2.5
    return C, k, np.max(np.abs(predicted / W - 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dempact", required=True)
    ap.add_argument("--diameters", default="0.018,0.0225,0.027")
    ap.add_argument("--work", default="beverloo_runs")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=1,
                    help="replicates per orifice, poured with different seeds; the fit "
                         "takes each orifice's mean rate (default 1)")
    ap.add_argument("--plot")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = []        # per orifice: D, mean W, rho_b, d, the first replicate's series
    per_seed = []    # per orifice: the replicates' W
    for d_orifice in [float(v) for v in a.diameters.split(",")]:
        ws, rhos, ds = [], [], []
        for seed in range(a.seeds):
            case, length = write_case(d_orifice, a.work, seed)
            h5 = run(a.dempact, case, a.work, a.threads)
            w, rho_b, d, series = measure(h5, length)
            ws.append(w)
            rhos.append(rho_b)
            ds.append(d)
            if seed == 0:
                first = series
        rows.append((d_orifice, np.mean(ws), np.mean(rhos), np.mean(ds), first))
        per_seed.append(ws)
        spread = (f" (replicates {', '.join(f'{v * 1e3:.1f}' for v in ws)})"
                  if a.seeds > 1 else "")
        print(f"D = {d_orifice * 1e3:5.1f} mm: W = {np.mean(ws) * 1e3:7.2f} g/s, rho_b = "
              f"{np.mean(rhos):6.0f} kg/m^3, d = {np.mean(ds) * 1e3:.2f} mm{spread}", flush=True)
    D = np.array([r[0] for r in rows])
    W = np.array([r[1] for r in rows])
    rho_b = np.mean([r[2] for r in rows])
    d = np.mean([r[3] for r in rows])
    C, k, misfit = fit(D, W, rho_b, d)
    print(f"Beverloo fit over {len(D)} orifices: C = {C:.3f}, k = {k:.2f} "
          f"(rho_b = {rho_b:.0f} kg/m^3, d = {d * 1e3:.2f} mm); "
          f"largest misfit {misfit * 100:.1f}%")
    if a.seeds > 1:
        # each replicate set fitted alone: how far one set of runs can throw the fit
        sets = [fit(D, [ws[s] for ws in per_seed], rho_b, d)[:2] for s in range(a.seeds)]
        cs, ks = np.array([c for c, _ in sets]), np.array([kk for _, kk in sets])
        print(f"one replicate set alone: C = {', '.join(f'{c:.3f}' for c in cs)}; "
              f"k = {', '.join(f'{kk:.2f}' for kk in ks)}; standard error of the mean "
              f"fit about C {cs.std(ddof=1) / math.sqrt(a.seeds):.3f}, "
              f"k {ks.std(ddof=1) / math.sqrt(a.seeds):.2f}")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        for d_o, w, _, _, (t, mass, window) in rows:
            ax1.plot(t, mass * 1e3, label=f"D = {d_o * 1e3:.1f} mm")
            ax1.plot(t[window], mass[window] * 1e3, "k.", ms=3)
        ax1.set_xlabel("time [s]")
        ax1.set_ylabel("mass in the hopper [g]")
        ax1.legend()
        dd = np.linspace(D.min() * 0.9, D.max() * 1.1, 50)
        ax2.plot(D * 1e3, W * 1e3, "o", label="dempact")
        ax2.plot(dd * 1e3, C * rho_b * math.sqrt(G) * np.clip(dd - k * d, 0, None) ** 2.5 * 1e3,
                 "-", label=f"Beverloo C = {C:.2f}, k = {k:.2f}")
        ax2.set_xlabel("orifice diameter D [mm]")
        ax2.set_ylabel("discharge rate W [g/s]")
        ax2.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
