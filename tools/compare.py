#!/usr/bin/env python3
"""Compare the normal contact laws on one case: run it once per law at the same
restitution, then measure each settled packing and write a report folder.

    /usr/bin/python3 tools/compare.py cases/packing_settle.yaml [--laws all|a,b,..]
        [--calibrate off|on|both] [--restitution E] [--jobs N] [--out DIR]
        [--dempact PATH] [--end-time T] [--param LAW:KEY=VALUE ...] [--seed-offset K]
    /usr/bin/python3 tools/compare.py --report-only DIR

How each law gets the restitution E (the base case's, unless --restitution):
- laws with a `restitution` parameter take it (linear, hertz_tti, the Hertzian damping
  laws, zhang); with --calibrate on, `calibrate: true` also solves their damping
  coefficient so that a binary collision restitutes exactly E;
- hertz_critical_ratio without calibration: xi = sqrt(5/6) (-ln E) / sqrt(ln^2 E + pi^2),
  the Hertz damping ratio of LAMMPS and LIGGGHTS; calibrated: xi solved for E;
- hertz_kk and hertz_lh have only a dimensional coefficient: they are always calibrated
  (their "off" row is the calibrated run, marked on*);
- hertz (elastic) and kostek (plastic) have neither: one run each with their own
  parameters (kostek: area 1e-10 m^2, see LAW_DEFAULTS), marked "-".
Every contact entry of the case gets the law; friction and rolling entries are kept.

The report folder holds runs/LAW_MODE/ (the generated case, the HDF5 file, the log),
table.csv, table.md, the PNG plots and meta.json (the command, the dempact version, the
base case). The generated case files carry the comparison's settings in their header
comment, and the HDF5 files keep the case text, so `--report-only DIR` rebuilds the
table and the plots from the HDF5 files alone. Measurements: see tools/compare_measure.py
and the README ("Comparing the laws").
"""

import argparse
import concurrent.futures
import csv
import datetime
import json
import math
import os
import shlex
import subprocess
import sys
import time

import h5py
import numpy as np

try:
    import yaml
except ImportError as exc:  # pragma: no cover - message for a machine without PyYAML
    raise ImportError("tools/compare.py needs PyYAML (Debian: apt-get install python3-yaml; "
                      "run it with /usr/bin/python3)") from exc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dempact_h5  # noqa: E402
import compare_measure as cm  # noqa: E402

SETTLE_FRACTION = 1e-6   # settled: translational kinetic energy below this x its peak, for good
BULK_MARGIN = 2.0        # bulk region: this many largest diameters from walls and surface

# parameters a law needs that the comparison does not vary (overridable by --param)
LAW_DEFAULTS = {
    # Kostek's Table 1 is for rough steel flats at MPa; with a nominal area of 1e-10 m^2
    # a glass bead's weight gives overlaps of microns (as Hertz does for these soft
    # beads) and the step stays within 2.3x of the others (the default 1e-6 m^2: 48x).
    "kostek": {"area": 1.0e-10},
}


def law_table(dempact):
    """{name: {"restitution": "plain"|"calibrate-only"|None, "calibrate": bool}} from
    `dempact laws`."""
    out = subprocess.run([dempact, "laws"], check=True, capture_output=True, text=True).stdout
    laws, name, lines = {}, None, []
    for line in out.splitlines() + [""]:
        if line and not line.startswith(" "):
            name, lines = line.strip(), []
            laws[name] = {"restitution": None, "calibrate": False}
        elif name:
            lines.append(line)
            if line.strip().startswith("restitution "):
                laws[name]["restitution"] = "plain"
            if "only with calibrate" in line and laws[name]["restitution"]:
                laws[name]["restitution"] = "calibrate-only"
            if line.strip().startswith("calibrate: true solves"):
                laws[name]["calibrate"] = True
    return laws


def law_runs(law, info, e, calibrate):
    """The runs of one law: a list of (mode, params, calibrate_flag). mode is the label
    of the table's calibrate column: off, on, on* (calibrated because the law has no
    other way to reach E) or - (the law has no restitution)."""
    params = dict(LAW_DEFAULTS.get(law, {}))
    want = {"off": ["off"], "on": ["on"], "both": ["off", "on"]}[calibrate]
    if info["restitution"] is None:  # hertz, kostek
        return [("-", params, False)]
    if info["restitution"] == "calibrate-only":
        if law == "hertz_critical_ratio" and "off" in want:
            runs = [("off", dict(params, xi=math.sqrt(5 / 6) * -math.log(e)
                                 / math.sqrt(math.log(e) ** 2 + math.pi ** 2)), False)]
            if "on" in want:
                runs.append(("on", dict(params, restitution=e), True))
            return runs
        return [("on" if "on" in want else "on*", dict(params, restitution=e), True)]
    return [(m, dict(params, restitution=e), m == "on") for m in want]


def case_for(base, base_path, law, mode, params, calibrate, e, command, seed_offset=0,
             end_time=None):
    """The text of the case file of one run."""
    case = json.loads(json.dumps(base))  # deep copy
    if seed_offset:  # random sources and inlets (which have no `source`)
        for item in case.get("particles", []) + case.get("inlets", []):
            if item.get("source", "random") == "random":
                item["seed"] = int(item.get("seed", 0)) + seed_offset
    case["name"] = f"{law}_{mode.replace('*', 'x').replace('-', 'none')}"
    for entry in case.get("contacts", []):
        entry["law"] = law
        entry["params"] = dict(params)
        entry.pop("calibrate", None)
        if calibrate:
            entry["calibrate"] = True
    folder = os.path.dirname(os.path.abspath(base_path))
    for item in case.get("particles", []) + case.get("walls", []):
        if "file" in item and not os.path.isabs(item["file"]):
            item["file"] = os.path.join(folder, item["file"])
    meta = {"law": law, "mode": mode, "restitution": e, "base_case": os.path.abspath(base_path),
            "command": command}
    if end_time is not None:
        meta["end_time"] = end_time
    head = "# written by tools/compare.py; compare: " + json.dumps(meta) + "\n"
    return head + yaml.safe_dump(case, sort_keys=False, default_flow_style=None, width=100)


def run_one(dempact, case_path, out_dir, end_time):
    cmd = [dempact, "run", case_path, "--output", out_dir, "--threads", "1", "--quiet"]
    if end_time is not None:
        cmd += ["--end-time", str(end_time)]
    t0 = time.time()
    with open(os.path.join(out_dir, "log.txt"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                env=dict(os.environ, OMP_NUM_THREADS="1",
                                         OMP_WAIT_POLICY="passive"))
        _, status, usage = os.wait4(proc.pid, 0)  # the run's own CPU time
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.time() - t0, usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------- measurements


def _compare_meta(case_text):
    first = case_text.splitlines()[0] if case_text else ""
    key = "# written by tools/compare.py; compare: "
    return json.loads(first[len(key):]) if first.startswith(key) else {}


def _has_friction(case):
    return any("friction" in c for c in case.get("contacts", []))


def _box(case):
    return (np.array(case["domain"]["min"], dtype=float), np.array(case["domain"]["max"], dtype=float))


class Incomplete(Exception):
    """A run that did not reach its end (killed, failed, or still running)."""


def measure(h5_path):
    """The table row of one run, and the curves the plots need."""
    run = dempact_h5.Run(h5_path)
    case = yaml.safe_load(run.case_text)
    meta = _compare_meta(run.case_text)
    end = float(meta.get("end_time", case["time"]["end"]))
    if len(run) == 0 or run.times[-1] < end - 1.5 * run.dt:
        raise Incomplete(f"it stopped at t = {run.times[-1] if len(run) else 0:g} s of {end:g} s")
    snap = run.snapshot()
    ts = run.timeseries()
    lo, hi = _box(case)
    r = snap.radius
    pos = snap.position
    dmax = 2 * r.max()
    margin = BULK_MARGIN * dmax
    xy_lo, xy_hi = lo[:2] + margin, hi[:2] - margin
    surface = cm.surface_height(pos, r, xy_lo, xy_hi, dmax)
    b_lo = np.array([xy_lo[0], xy_lo[1], lo[2] + margin])
    b_hi = np.array([xy_hi[0], xy_hi[1], surface - margin])
    phi = cm.packing_fraction(pos, r, b_lo, b_hi) if b_hi[2] > b_lo[2] else float("nan")

    # contacts: ids -> indices
    index = {int(i): k for k, i in enumerate(snap.id)}
    c = snap.contacts
    pairs = np.zeros((0, 2), dtype=np.int64)
    wall_of = np.zeros(0, dtype=np.int64)
    fn_pp = np.zeros(0)
    rel_overlap = np.zeros(0)
    if c is not None and len(c):
        wall = c.wall.astype(bool)
        i = np.array([index[int(x)] for x in c.id[:, 0]], dtype=np.int64)
        j = np.array([index[int(x)] if not w else -1 for x, w in zip(c.id[:, 1], wall)],
                     dtype=np.int64)
        pairs = np.stack([i[~wall], j[~wall]], axis=1)
        wall_of = i[wall]
        fn_pp = c.normal_force[~wall]
        rmin = r[i].copy()
        rmin[~wall] = np.minimum(r[i[~wall]], r[j[~wall]])
        rel_overlap = c.overlap / rmin
    bulk = cm.in_box(pos, b_lo, b_hi)
    min_contacts = 2 if _has_friction(case) else 4
    z, z_nr, ratt = cm.coordination(len(r), pairs, wall_of, bulk, min_contacts)
    counts = cm.contact_counts(len(r), pairs, wall_of)
    below4 = float((counts[bulk] < 4).mean()) if bulk.any() else float("nan")

    t = ts["time"]
    # translational only: a sphere spinning about its contact normal keeps its spin (no
    # twisting resistance), which leaves plateaus of rotational energy in a still packing
    ke = ts["kinetic_energy"]
    settle = cm.settling_time(t, ke, SETTLE_FRACTION)
    diss = {k: float(ts[f"dissipated_{k}"][-1]) for k in ("damping", "friction", "plasticity", "rolling")}
    total0 = (ts["kinetic_energy"][0] + ts["rotational_energy"][0] + ts["gravitational_energy"][0]
              + ts["elastic_energy"][0])
    total = (ts["kinetic_energy"][-1] + ts["rotational_energy"][-1] + ts["gravitational_energy"][-1]
             + ts["elastic_energy"][-1] + sum(diss.values()))
    diss_sum = sum(diss.values())
    # moving walls (a piston) put work in: /snapshots/N/engine/wall_work
    with h5py.File(h5_path, "r", locking=False) as f:
        g = f["snapshots"][f"{snap.index:06d}"]
        wall_work = float(np.sum(g["engine/wall_work"][()])) if "engine/wall_work" in g else 0.0
    balance = ((total - total0 - wall_work) / (diss_sum + abs(wall_work))
               if diss_sum > 0 else float("nan"))

    # floor pressure: the plane facing +z (mean over the last 5% of the samples)
    area = (hi[0] - lo[0]) * (hi[1] - lo[1])
    floor = None
    for k, w in enumerate(case.get("walls", [])):
        if w.get("type") == "plane" and np.allclose(np.array(w["normal"], float) / np.linalg.norm(w["normal"]), [0, 0, 1]):
            floor = k
            break
    pressure = weight_ratio = float("nan")
    if floor is not None and "wall_force" in ts:
        tail = max(1, len(t) // 20)
        fz = -ts["wall_force"][-tail:, floor, 2].mean()  # force on the wall, downwards
        pressure = fz / area
        g = abs(case.get("gravity", [0, 0, 0])[2])
        weight_ratio = fz / (snap.mass.sum() * g) if g > 0 else float("nan")

    # packing fraction against height, in the bulk columns, slabs of dmax / 4
    edges = np.arange(lo[2], hi[2] + 1e-12, dmax / 4)
    phi_z = []
    for z0, z1 in zip(edges[:-1], edges[1:]):
        phi_z.append(cm.packing_fraction(pos, r, [xy_lo[0], xy_lo[1], z0], [xy_hi[0], xy_hi[1], z1]))

    contacts_pp = pairs.shape[0]
    comp = compression_curve(run, case, ts)
    row = {
        "law": meta.get("law", case["contacts"][0]["law"]),
        "calibrate": meta.get("mode", "on" if case["contacts"][0].get("calibrate") else "off"),
        "restitution": (float("nan") if meta.get("mode") == "-" else
                        meta.get("restitution", case["contacts"][0].get("params", {}).get("restitution", float("nan")))),
        "particles": len(r),
        "settling_time_s": settle,
        "phi_bulk": phi,
        "z_mean": z,
        "z_no_rattlers": z_nr,
        "rattler_fraction": ratt,
        "below_4_contacts": below4,
        "overlap_mean_rel": float(rel_overlap.mean()) if len(rel_overlap) else float("nan"),
        "overlap_max_rel": float(rel_overlap.max()) if len(rel_overlap) else float("nan"),
        "diss_damping_J": diss["damping"],
        "diss_friction_J": diss["friction"],
        "diss_plasticity_J": diss["plasticity"],
        "diss_rolling_J": diss["rolling"],
        "floor_pressure_Pa": pressure,
        "floor_load_over_weight": weight_ratio,
        "energy_balance_error": balance,
        "kinetic_end_J": float(ts["kinetic_energy"][-1]),
        "rotational_end_J": float(ts["rotational_energy"][-1]),
        "pp_contacts": contacts_pp,
        "end_time_s": float(t[-1]),
        "dt_s": run.dt,
    }
    if comp is not None:
        row["piston_peak_stress_Pa"] = float(comp["stress"].max())
    curves = {"time": t, "ke": ke, "fn": fn_pp, "z_mid": 0.5 * (edges[:-1] + edges[1:]),
              "phi_z": np.array(phi_z), "surface": surface, "bulk": (b_lo, b_hi),
              "compression": comp}
    return row, curves


def piston_position(wall, t):
    """Where a wall's `point` is at the times t, from its velocity or motion schedule (as
    the engine: each segment's velocity times the time spent in it, rest after the last)."""
    p0 = np.array(wall["point"], dtype=float)
    t = np.asarray(t, dtype=float)
    if "motion" not in wall:
        return p0 + np.outer(t, np.array(wall.get("velocity", [0, 0, 0]), dtype=float))
    shift = np.zeros((len(t), 3))
    start = 0.0
    for seg in wall["motion"]:
        d = float(seg["duration"])
        v = np.array(seg["velocity"], dtype=float)
        shift += np.outer(np.clip(t - start, 0.0, d), v)
        start += d
    return p0 + shift


def compression_curve(run, case, ts, onset=0.01):
    """Stress against strain for a case with a moving wall named `piston`: stress = the
    load the particles put on the piston along its normal / the domain's cross-section;
    strain = the piston's travel since the stress first passed `onset` x its largest
    value (the touch: it differs from law to law, as the beds settle to different
    heights) / the piston's height above the floor then."""
    walls = case.get("walls", [])
    names = [w.get("name") for w in walls]
    if "piston" not in names or "wall_force" not in ts:
        return None
    k = names.index("piston")
    w = walls[k]
    n = np.array(w["normal"], dtype=float)
    n /= np.linalg.norm(n)
    lo, hi = _box(case)
    area = (hi[0] - lo[0]) * (hi[1] - lo[1])
    t = ts["time"]
    height = piston_position(w, t) @ -n  # its height above the origin, along -normal
    stress = ts["wall_force"][:, k, :] @ (-n) / area  # the particles push along -n
    if not (stress.max() > 0):
        return None
    touch = int(np.nonzero(stress >= onset * stress.max())[0][0])
    gap0 = height[touch] - lo @ -n  # above the domain's face behind it (the floor)
    strain = (height[touch] - height) / gap0
    keep = np.arange(len(t)) >= touch
    return {"strain": strain, "stress": stress, "moving": keep}


# ---------------------------------------------------------------- the report

COLUMNS = [
    ("law", "law", "{}"), ("calibrate", "calibrate", "{}"), ("restitution", "e", "{:g}"),
    ("settling_time_s", "settling time (s)", "{:.3f}"), ("phi_bulk", "phi bulk", "{:.4f}"),
    ("z_mean", "Z", "{:.3f}"), ("z_no_rattlers", "Z (no rattlers)", "{:.3f}"),
    ("rattler_fraction", "rattlers", "{:.3f}"), ("below_4_contacts", "< 4 contacts", "{:.3f}"), ("overlap_mean_rel", "mean overlap / r", "{:.2e}"),
    ("overlap_max_rel", "max overlap / r", "{:.2e}"), ("diss_damping_J", "E damping (J)", "{:.3e}"),
    ("diss_friction_J", "E friction (J)", "{:.3e}"), ("diss_plasticity_J", "E plasticity (J)", "{:.3e}"),
    ("floor_pressure_Pa", "floor pressure (Pa)", "{:.1f}"),
    ("floor_load_over_weight", "floor load / weight", "{:.3f}"),
    ("energy_balance_error", "energy balance", "{:.1e}"), ("cpu_time_s", "CPU (s)", "{:.0f}"),
]


def _fmt(fmt, v):
    if isinstance(v, float) and not math.isfinite(v):
        return "-"
    return fmt.format(v)


def write_report(out, rows, curves, meta):
    order = {"off": 0, "-": 1, "on*": 2, "on": 3}
    idx = sorted(range(len(rows)), key=lambda k: (order.get(rows[k]["calibrate"], 9), rows[k]["law"]))
    rows = [rows[k] for k in idx]
    curves = [curves[k] for k in idx]
    keys = list(dict.fromkeys(k for row in rows for k in row))
    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in keys})
    end = max(r["end_time_s"] for r in rows)
    lines = ["| " + " | ".join(h for _, h, _ in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = []
        for k, _, fmt in COLUMNS:
            v = row[k]
            if k == "settling_time_s" and not math.isfinite(v):
                cells.append(f"> {row['end_time_s']:.2f}")
            else:
                cells.append(_fmt(fmt, v))
        lines.append("| " + " | ".join(cells) + " |")
    notes = [
        "",
        f"Settling time: translational kinetic energy below {SETTLE_FRACTION:g} x its peak for "
        "the rest of the run, 10 samples at least ('> T': not by the end). Bulk: centres and volumes in the box "
        f"{BULK_MARGIN:g} largest diameters from the side walls, the floor and the free surface "
        "(spheres cut exactly). Z: contacts (particles and walls) per bulk particle; rattlers: "
        "fewer than 2 contacts with friction (4 without), removed iteratively; < 4 contacts: "
        "the fraction of bulk particles below d + 1 = 4 contacts, whatever the friction. Overlap / r: "
        "over every contact, r the smaller radius. Energies: dissipated by the end of the run. "
        "Floor pressure: floor load over the box's cross-section, last 5% of the run. "
        "Energy balance: (E(end) + dissipated - E(0) - W) / (dissipated + |W|), E = kinetic + "
        "rotational + gravitational + elastic, W the work of moving walls. CPU: the run's CPU time (one thread). "
        "calibrate: on* = calibrated because the law has no restitution parameter; - = the law "
        "has no restitution (hertz, kostek).",
    ]
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines + notes) + "\n")
    plots(out, rows, curves)
    return rows


def _label(row):
    return f"{row['law']} ({row['calibrate']})"


def plots(out, rows, curves):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cmap = plt.get_cmap("tab20")
    laws = sorted({r["law"] for r in rows})
    colour = {law: cmap(k % 20) for k, law in enumerate(laws)}
    style = {"off": "-", "-": "-", "on*": "--", "on": "--"}

    fig, ax = plt.subplots(figsize=(10, 6))
    for row, cv in zip(rows, curves):
        ax.semilogy(cv["time"], np.maximum(cv["ke"], 1e-300), style[row["calibrate"]],
                    color=colour[row["law"]], lw=1, label=_label(row))
    peak = max(cv["ke"].max() for cv in curves)
    ax.axhline(peak * SETTLE_FRACTION, color="k", lw=0.5, ls=":")
    ax.set_ylim(peak * 1e-9, peak * 3)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("translational kinetic energy (J)")
    ax.set_title("Kinetic energy (dotted: the settling threshold)")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "kinetic_energy.png"), dpi=120)
    plt.close(fig)

    has = {r["calibrate"] for r in rows}
    modes = [m for m in ("off", "on") if m in has] or ["off"]
    panel = {"off": ("off", "-", "on*"), "on": ("on", "-", "on*")}
    for name, draw, xlabel, ylabel in (
            ("force_distribution.png", "fn", "f / <f>", "P(f / <f>)"),
            ("packing_fraction_height.png", "phi", "packing fraction", "height (m)")):
        fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 5), squeeze=False)
        for ax, m in zip(axes[0], modes):
            for row, cv in zip(rows, curves):
                cal = row["calibrate"]
                if cal not in panel[m]:
                    continue
                if draw == "fn":
                    f = cv["fn"][cv["fn"] > 0]
                    if len(f) < 10:
                        continue
                    h, e = np.histogram(f / f.mean(), bins=np.linspace(0, 6, 31), density=True)
                    ax.semilogy(0.5 * (e[1:] + e[:-1]), np.where(h > 0, h, np.nan), style[cal],
                                color=colour[row["law"]], lw=1, label=_label(row))
                else:
                    ax.plot(cv["phi_z"], cv["z_mid"], style[cal], color=colour[row["law"]], lw=1,
                            label=_label(row))
            if draw == "phi":
                tops = [cv["surface"] for cv in curves if np.isfinite(cv["surface"])]
                if tops:
                    ax.set_ylim(0, 1.2 * max(tops))
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.set_title(f"calibrate {m}")
            ax.legend(fontsize=6)
        if draw == "fn":
            fig.suptitle("Normal contact forces between particles, final snapshot")
        else:
            fig.suptitle("Packing fraction against height (bulk columns, slabs of d_max / 4)")
        fig.tight_layout()
        fig.savefig(os.path.join(out, name), dpi=120)
        plt.close(fig)

    if any(cv["compression"] is not None for cv in curves):
        fig, ax = plt.subplots(figsize=(8, 6))
        for row, cv in zip(rows, curves):
            cc = cv["compression"]
            if cc is None:
                continue
            mv = cc["moving"]
            ax.plot(cc["strain"][mv], cc["stress"][mv], style[row["calibrate"]],
                    color=colour[row["law"]], lw=1, label=_label(row))
        ax.set_xlabel("strain (piston travel / initial gap)")
        ax.set_ylabel("stress (piston load / area, Pa)")
        ax.set_title("Load, unload, reload")
        ax.legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(os.path.join(out, "stress_strain.png"), dpi=120)
        plt.close(fig)


def report(out, meta=None):
    """Measures every run under out/runs and writes the table and the plots."""
    runs_dir = os.path.join(out, "runs")
    rows, curves = [], []
    times = (meta or {}).get("wall_times", {})
    cpus = (meta or {}).get("cpu_times", {})
    for d in sorted(os.listdir(runs_dir)):
        h5 = [f for f in os.listdir(os.path.join(runs_dir, d)) if f.endswith(".h5")]
        if not h5:
            print(f"compare: {d}: no HDF5 file (the run failed: see {runs_dir}/{d}/log.txt)",
                  file=sys.stderr)
            continue
        try:
            row, cv = measure(os.path.join(runs_dir, d, h5[0]))
        except Incomplete as exc:
            print(f"compare: {d}: left out, {exc}", file=sys.stderr)
            continue
        row["wall_time_s"] = times.get(d, float("nan"))
        row["cpu_time_s"] = cpus.get(d, float("nan"))
        rows.append(row)
        curves.append(cv)
    if not rows:
        raise SystemExit(f"compare: no run to report in {runs_dir}")
    return write_report(out, rows, curves, meta)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case", nargs="?")
    p.add_argument("--laws", default="all")
    p.add_argument("--calibrate", choices=("off", "on", "both"), default="off")
    p.add_argument("--restitution", type=float)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out")
    p.add_argument("--dempact", default=os.path.join(HERE, "..", "build", "dempact"))
    p.add_argument("--end-time", type=float)
    p.add_argument("--param", action="append", default=[], metavar="LAW:KEY=VALUE")
    p.add_argument("--seed-offset", type=int, default=0,
                   help="add this to the seed of every random particle source and inlet "
                        "(another packing of the same case, for the spread between seeds)")
    p.add_argument("--report-only", metavar="DIR")
    a = p.parse_args(argv)

    if a.report_only:
        mp = os.path.join(a.report_only, "meta.json")
        meta = json.load(open(mp)) if os.path.exists(mp) else None
        rows = report(a.report_only, meta)
        print(open(os.path.join(a.report_only, "table.md")).read())
        return 0
    if not a.case:
        p.error("give a CASE (or --report-only DIR)")
    base = yaml.safe_load(open(a.case))
    e = a.restitution
    if e is None:
        e = float(base.get("contacts", [{}])[0].get("params", {}).get("restitution", 0.5))
    if not 0 < e <= 1:
        p.error("--restitution must be in (0, 1]")
    for spec in a.param:
        try:
            law, kv = spec.split(":", 1)
            k, v = kv.split("=", 1)
            LAW_DEFAULTS.setdefault(law, {})[k] = float(v)
        except ValueError:
            p.error(f"--param {spec}: expected LAW:KEY=VALUE")
    table = law_table(a.dempact)
    laws = list(table) if a.laws == "all" else a.laws.split(",")
    for law in laws:
        if law not in table:
            p.error(f"unknown law {law}; laws: {', '.join(table)}")
    out = a.out or os.path.join("compare", os.path.splitext(os.path.basename(a.case))[0])
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    command = " ".join(shlex.quote(x) for x in ["tools/compare.py"] + list(argv))
    version = subprocess.run([a.dempact, "--version"], capture_output=True, text=True).stdout.strip()

    jobs = []
    for law in laws:
        for mode, params, cal in law_runs(law, table[law], e, a.calibrate):
            d = os.path.join(out, "runs", f"{law}_{mode.replace('*', 'x').replace('-', 'none')}")
            os.makedirs(d, exist_ok=True)
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
            cp = os.path.join(d, "case.yaml")
            with open(cp, "w") as f:
                f.write(case_for(base, a.case, law, mode, params, cal, e, command, a.seed_offset,
                                 a.end_time))
            jobs.append((os.path.basename(d), cp, d))
    print(f"compare: {len(jobs)} runs of {a.case} at e = {e:g}, {a.jobs} at a time", file=sys.stderr)
    # meta.json: what each invocation into this folder did (a report may be made of runs
    # from several, e.g. --calibrate off first, on later), saved after every run
    meta_path = os.path.join(out, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    if meta and meta.get("base_case_text") != open(a.case).read():
        meta = {}  # another case: start afresh
    meta.update({"dempact": version, "dempact_path": os.path.abspath(a.dempact),
                 "base_case": os.path.abspath(a.case), "base_case_text": open(a.case).read(),
                 "restitution": e})
    invocation = {"command": command, "calibrate": a.calibrate, "laws": laws,
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "failed": []}
    meta.setdefault("invocations", []).append(invocation)
    for key in ("wall_times", "cpu_times"):
        meta.setdefault(key, {})
        for name, _, _ in jobs:
            meta[key].pop(name, None)

    def save():
        with open(meta_path + ".tmp", "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(meta_path + ".tmp", meta_path)

    save()
    failed = invocation["failed"]
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = {pool.submit(run_one, a.dempact, cp, d, a.end_time): name for name, cp, d in jobs}
        for fut in concurrent.futures.as_completed(futs):
            name = futs[fut]
            rc, dt, cpu = fut.result()
            meta["wall_times"][name] = dt
            meta["cpu_times"][name] = cpu
            print(f"compare: {name}: {'done' if rc == 0 else f'FAILED (exit {rc})'} in {dt:.0f} s "
                  f"({cpu:.0f} s of CPU)", file=sys.stderr)
            if rc != 0:
                failed.append(name)
            save()
    invocation["wall_time_s"] = time.time() - t0
    save()
    report(out, meta)
    print(open(os.path.join(out, "table.md")).read())
    print(f"compare: report in {out} ({time.time() - t0:.0f} s)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
