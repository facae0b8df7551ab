#!/usr/bin/env python3
"""Compare the normal contact laws on one case: run it for every law at the same
restitution, several seeds each, measure each settled packing and write a report.

    .venv/bin/python tools/compare.py [CASE | --size small|full] [--laws all|a,b,..]
        [--seeds N] [--seed-offset K] [--calibrate off|on|both] [--restitution E]
        [--jobs N] [--out DIR] [--dempact PATH] [--end-time T] [--param LAW:KEY=VALUE ...]
    .venv/bin/python tools/compare.py --report-only DIR [--dempact PATH]

(.venv/ is the project's Python environment: bash tools/setup.sh makes it.)

--size small runs cases/packing_small.yaml (200 beads in a periodic cell: all 16 laws
with 3 seeds take about 250 s of CPU, a little over 2 minutes on two free cores),
--size full (the default) runs cases/packing_settle.yaml (2000 beads in a box). A CASE
given by path replaces both.

Seeds: run K (K = seed offset, 0 to N-1 by default) adds K to the `seed` of every random
particle source and inlet (an absent seed is the reader's default, 1 for a source and
1 + i for inlet i), giving N packings of the same case per law; every run has its own
folder, runs/LAW_MODE/seedK/, so no seed overwrites another. The report gives the mean and
the standard deviation over the seeds.

How each law gets the restitution E (the base case's, unless --restitution):
- laws with a `restitution` parameter take it (linear, hertz_tti, the Hertzian damping
  laws, zhang); with --calibrate on, `calibrate: true` also solves their damping
  coefficient so that a binary collision restitutes exactly E at the case's step. The
  "off" runs map E to damping as the papers do: the laws that calibrate by default
  (those with the parameter `fit`: linear, hertz_tti, zhang) get `fit: published`;
- hertz_critical_ratio without calibration: xi = sqrt(5/6) (-ln E) / sqrt(ln^2 E + pi^2),
  the Hertz damping ratio of LAMMPS and LIGGGHTS; calibrated: xi solved for E;
- hertz_kk and hertz_lh have only a dimensional coefficient: they are always calibrated
  (their "off" row is the calibrated run, marked on*);
- hertz (elastic) and kostek (plastic) have neither: one run each with their own
  parameters (kostek: area 1e-10 m^2, see LAW_DEFAULTS), marked "-".
Every contact entry of the case gets the law; friction and rolling entries are kept. The
law's other parameters (v_floor, stiffness, ...) take dempact's defaults: the comparison
sets none of its own but kostek's area (and what --param gives).

The report folder holds report.md with its SVG figures, table.csv (one row per run),
summary.csv (mean and standard deviation per law and mode), meta.json (the command, the
dempact version, the base case, run times) and runs/. The generated case files carry the
comparison's settings in their header comment and the HDF5 files keep the case text, so
`--report-only DIR` rebuilds everything from the HDF5 files alone (the asked-and-actual
restitution column reruns `dempact collide`, a fraction of a second per run).
Measurements and their conventions: tools/compare_measure.py and docs/compare.md.
"""

import argparse
import concurrent.futures
import datetime
import json
import math
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
try:
    import h5py
    import numpy as np
    import yaml
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("compare", missing))
import dempact_h5  # noqa: E402
import compare_measure as cm  # noqa: E402

BULK_MARGIN = 2.0        # bulk region: this many largest diameters from walls and surface
SIZES = {"small": os.path.join(ROOT, "cases", "packing_small.yaml"),
         "full": os.path.join(ROOT, "cases", "packing_settle.yaml")}

# parameters a law needs that the comparison does not vary (overridable by --param)
LAW_DEFAULTS = {
    # Kostek's Table 1 is for rough steel flats at MPa; with a nominal area of 1e-10 m^2
    # a glass bead's weight gives overlaps of microns (as Hertz does for these soft
    # beads) and the step stays within 2.3x of the others (the default 1e-6 m^2: 48x).
    "kostek": {"area": 1.0e-10},
}
# laws whose runs cost several times the others' (started first, so the cores end together)
SLOW_LAWS = ("kostek",)


def law_table(dempact):
    """{name: {"restitution": "plain"|"calibrate-only"|None, "calibrate": bool,
    "fit": bool}} from `dempact laws` ("fit": the law takes the parameter `fit`, whose
    default `calibrated` solves the damping for e; `published` keeps the paper's mapping)."""
    out = subprocess.run([dempact, "laws"], check=True, capture_output=True, text=True).stdout
    laws, name = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            name = line.strip()
            laws[name] = {"restitution": None, "calibrate": False, "fit": False}
        elif name:
            if line.strip().startswith("restitution "):
                laws[name]["restitution"] = "plain"
            if "only with calibrate" in line and laws[name]["restitution"]:
                laws[name]["restitution"] = "calibrate-only"
            if line.strip().startswith("calibrate: true solves"):
                laws[name]["calibrate"] = True
            if line.strip().startswith("fit ") and "published" in line:
                laws[name]["fit"] = True
    return laws


def law_runs(law, info, e, calibrate):
    """The runs of one law: a list of (mode, params, calibrate_flag). mode is the label
    of the table's calibrate column: off (the paper's e-to-damping mapping: `fit:
    published` where the law has `fit`), on, on* (calibrated because the law has no
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
    published = {"fit": "published"} if info.get("fit") else {}
    return [(m, dict(params, restitution=e, **(published if m == "off" else {})), m == "on")
            for m in want]


def mode_dir(law, mode):
    return f"{law}_{mode.replace('*', 'x').replace('-', 'none')}"


def offset_seeds(case, k):
    """Adds k to the seed of every random particle source and inlet (in place)."""
    if not k:
        return
    for item in case.get("particles", []):
        if item.get("source", "random") == "random":
            item["seed"] = int(item.get("seed", 1)) + k
    for i, item in enumerate(case.get("inlets", [])):
        item["seed"] = int(item.get("seed", 1 + i)) + k


def case_for(base, base_path, law, mode, params, calibrate, e, command, seed=0,
             end_time=None):
    """The text of the case file of one run."""
    case = json.loads(json.dumps(base))  # deep copy
    offset_seeds(case, seed)
    case["name"] = mode_dir(law, mode)
    for entry in case.get("contacts", []):
        entry["law"] = law
        entry["params"] = dict(params)  # the rest: dempact's defaults for the law
        # explicit either way, so the mode does not hang on the reader's default
        entry["calibrate"] = bool(calibrate)
    folder = os.path.dirname(os.path.abspath(base_path))
    for item in case.get("particles", []) + case.get("walls", []):
        if "file" in item and not os.path.isabs(item["file"]):
            item["file"] = os.path.join(folder, item["file"])
    meta = {"law": law, "mode": mode, "restitution": e, "seed": seed,
            "base_case": os.path.abspath(base_path), "command": command}
    if end_time is not None:
        meta["end_time"] = end_time
    head = "# written by tools/compare.py; compare: " + json.dumps(meta) + "\n"
    return head + yaml.safe_dump(case, sort_keys=False, default_flow_style=None, width=100)


def base_law(case):
    entries = case.get("contacts", [])
    return entries[0].get("law") if entries else None


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


def compare_meta(case_text):
    first = case_text.splitlines()[0] if case_text else ""
    key = "# written by tools/compare.py; compare: "
    return json.loads(first[len(key):]) if first.startswith(key) else {}


def _has_friction(case):
    return any("friction" in c for c in case.get("contacts", []))


def _box(case):
    return (np.array(case["domain"]["min"], dtype=float), np.array(case["domain"]["max"], dtype=float))


def _periodic(case):
    return tuple(bool(x) for x in case["domain"].get("periodic", [False] * 3))


class Incomplete(Exception):
    """A run that did not reach its end (killed, failed, or still running)."""


def wall_work(h5_path, snap):
    """Work the moving walls have done on the particles by this snapshot (J), from the
    documented dataset /snapshots/NNNNNN/engine/wall_work (0 when the case has no walls)."""
    with h5py.File(h5_path, "r", locking=False) as f:
        g = f["snapshots"][f"{snap.index:06d}"]
        return float(np.sum(g["engine/wall_work"][()])) if "engine/wall_work" in g else 0.0


def overburden(z, mass, g, area, z0, z1, samples=2001):
    """The weight of the particles whose centres lie above each height, averaged over
    [z0, z1], divided by the area (Pa): the vertical stress of a static packing without
    side walls (the Janssen effect makes the real one smaller beside walls)."""
    zz = np.linspace(z0, z1, samples)
    order = np.argsort(z)
    cum = np.cumsum(mass[order][::-1])[::-1]  # mass of centres at or above z[order][k]
    k = np.searchsorted(z[order], zz, side="right")
    above = np.where(k < len(z), cum[np.minimum(k, len(z) - 1)], 0.0)
    return float(np.trapz(above, zz) / (z1 - z0) * abs(g) / area)


def measure(h5_path):
    """The table row of one run, and the curves the figures need."""
    run = dempact_h5.Run(h5_path)
    case = yaml.safe_load(run.case_text)
    meta = compare_meta(run.case_text)
    end = float(meta.get("end_time", case["time"]["end"]))
    if len(run) == 0 or run.times[-1] < end - 1.5 * run.dt:
        raise Incomplete(f"it stopped at t = {run.times[-1] if len(run) else 0:g} s of {end:g} s")
    snap = run.snapshot()
    ts = run.timeseries()
    lo, hi = _box(case)
    periodic = _periodic(case)
    r = snap.radius
    pos = snap.position.copy()
    for k in range(3):  # wrap periodic axes into the domain
        if periodic[k]:
            pos[:, k] = lo[k] + np.mod(pos[:, k] - lo[k], hi[k] - lo[k])
    dmax = 2 * r.max()
    margin = BULK_MARGIN * dmax
    side = np.array([0.0 if periodic[k] else margin for k in range(2)])
    xy_lo, xy_hi = lo[:2] + side, hi[:2] - side
    surface = cm.surface_height(pos, r, xy_lo, xy_hi, dmax)
    b_lo = np.array([xy_lo[0], xy_lo[1], lo[2] + margin])
    b_hi = np.array([xy_hi[0], xy_hi[1], surface - margin])
    has_bulk = b_hi[2] > b_lo[2]
    volume = float(np.prod(b_hi - b_lo)) if has_bulk else float("nan")
    img_c, img_r = cm.periodic_images(pos, r, lo, hi, periodic)
    phi = cm.packing_fraction(img_c, img_r, b_lo, b_hi) if has_bulk else float("nan")
    # segments are clipped only along axes that are not periodic (the bulk spans them)
    clip_lo = np.array([-np.inf if periodic[k] else b_lo[k] for k in range(3)])
    clip_hi = np.array([np.inf if periodic[k] else b_hi[k] for k in range(3)])

    index = {int(i): k for k, i in enumerate(snap.id)}
    c = snap.contacts
    pairs = np.zeros((0, 2), dtype=np.int64)
    wall_of = np.zeros(0, dtype=np.int64)
    fn_pp = np.zeros(0)
    rel_overlap = np.zeros(0)
    sigma = np.full((3, 3), np.nan)
    fabric = np.full((3, 3), np.nan)
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
        n = c.normal / np.linalg.norm(c.normal, axis=1)[:, None]
        # branch: to j's centre (r_i + r_j - overlap), or to the wall contact point
        # (r_i - overlap / 2), along the normal: right across periodic faces too
        r_j = np.where(wall, 0.0, r[np.maximum(j, 0)])
        reach = np.where(wall, r[i] - 0.5 * c.overlap, r[i] + r_j - c.overlap)
        branch = reach[:, None] * n
        force = c.normal_force_vector + c.tangential_force
        if has_bulk:
            sigma, w = cm.contact_stress(pos[i], branch, force, clip_lo, clip_hi, volume)
            fabric = cm.fabric_tensor(n[~wall], w[~wall])
    bulk = cm.in_box(pos, b_lo, b_hi)
    min_contacts = 2 if _has_friction(case) else 4
    z, z_nr, ratt = cm.coordination(len(r), pairs, wall_of, bulk, min_contacts)

    t = ts["time"]
    ke = ts["kinetic_energy"]  # translational: see docs/compare.md on spin
    g = float(np.linalg.norm(case.get("gravity", [0, 0, 0])))
    if g > 0:
        scale = cm.settle_scale(len(r), snap.mass.mean(), 2 * r.mean(), g)
        settle = cm.settling_time(t, ke, cm.SETTLE_FRACTION, scale=scale)
    else:
        scale = float(ke.max())
        settle = cm.settling_time(t, ke, 1e-6)
    work = wall_work(h5_path, snap)
    books, residual, residual_rel = cm.energy_books(ts, work)
    lost = sum(books.values())

    area = (hi[0] - lo[0]) * (hi[1] - lo[1])
    floor = None
    for k, wdef in enumerate(case.get("walls", [])):
        if wdef.get("type") == "plane" and np.allclose(
                np.array(wdef["normal"], float) / np.linalg.norm(wdef["normal"]), [0, 0, 1]):
            floor = k
            break
    pressure = weight_ratio = float("nan")
    if floor is not None and "wall_force" in ts:
        tail = max(1, len(t) // 20)
        fz = -ts["wall_force"][-tail:, floor, 2].mean()  # force on the wall, downwards
        pressure = fz / area
        weight_ratio = fz / (snap.mass.sum() * g) if g > 0 else float("nan")
    p_mean, q_dev, k_ratio = cm.stress_invariants(sigma) if has_bulk else (float("nan"),) * 3
    weight_stress = (overburden(pos[:, 2], snap.mass, g, area, b_lo[2], b_hi[2])
                     if has_bulk and g > 0 else float("nan"))
    f_aniso, f_norm = cm.fabric_anisotropy(fabric) if has_bulk else (float("nan"),) * 2

    # packing fraction against height, over the bulk columns, slabs of dmax / 4
    edges = np.arange(lo[2], hi[2] + 1e-12, dmax / 4)
    phi_z = [cm.packing_fraction(img_c, img_r, [xy_lo[0], xy_lo[1], z0], [xy_hi[0], xy_hi[1], z1])
             for z0, z1 in zip(edges[:-1], edges[1:])]

    comp = compression_curve(run, case, ts)
    row = {
        "law": meta.get("law", base_law(case)),
        "calibrate": meta.get("mode", "on" if case["contacts"][0].get("calibrate") else "off"),
        "seed": int(meta.get("seed", 0)),
        "restitution": (float("nan") if meta.get("mode") == "-" else
                        meta.get("restitution", case["contacts"][0].get("params", {}).get(
                            "restitution", float("nan")))),
        "particles": len(r),
        "radius_mean_m": float(r.mean()),
        "material": _main_material(case, snap),
        "settling_time_s": settle,
        "settle_threshold_J": cm.SETTLE_FRACTION * scale if g > 0 else 1e-6 * scale,
        "phi_bulk": phi,
        "z_mean": z,
        "z_no_rattlers": z_nr,
        "rattler_fraction": ratt,
        "bulk_height_m": float(b_hi[2] - b_lo[2]),
        "sigma_xx_Pa": float(sigma[0, 0]), "sigma_yy_Pa": float(sigma[1, 1]),
        "sigma_zz_Pa": float(sigma[2, 2]), "sigma_xy_Pa": float(0.5 * (sigma[0, 1] + sigma[1, 0])),
        "sigma_xz_Pa": float(0.5 * (sigma[0, 2] + sigma[2, 0])),
        "sigma_yz_Pa": float(0.5 * (sigma[1, 2] + sigma[2, 1])),
        "p_Pa": p_mean, "q_over_p": q_dev / p_mean if p_mean else float("nan"),
        "k_ratio": k_ratio,
        "overburden_Pa": weight_stress,
        "sigma_zz_over_overburden": float(sigma[2, 2]) / weight_stress if weight_stress else float("nan"),
        "fabric_xx": float(fabric[0, 0]), "fabric_yy": float(fabric[1, 1]),
        "fabric_zz": float(fabric[2, 2]), "fabric_anisotropy": f_aniso,
        "fabric_deviator_norm": f_norm,
        "overlap_mean_rel": float(rel_overlap.mean()) if len(rel_overlap) else float("nan"),
        "overlap_max_rel": float(rel_overlap.max()) if len(rel_overlap) else float("nan"),
        "diss_damping_J": books["damping"], "diss_friction_J": books["friction"],
        "diss_rolling_J": books["rolling"], "diss_plasticity_J": books["plasticity"],
        "diss_total_J": lost,
        "frac_damping": books["damping"] / lost if lost > 0 else float("nan"),
        "frac_friction": books["friction"] / lost if lost > 0 else float("nan"),
        "frac_rolling": books["rolling"] / lost if lost > 0 else float("nan"),
        "frac_plasticity": books["plasticity"] / lost if lost > 0 else float("nan"),
        "wall_work_J": work,
        "energy_residual_J": residual,
        "energy_balance_error": residual_rel,
        "floor_pressure_Pa": pressure,
        "floor_load_over_weight": weight_ratio,
        "kinetic_end_J": float(ke[-1]),
        "rotational_end_J": float(ts["rotational_energy"][-1]),
        "impact_speed_m_s": float(math.sqrt(2 * ke.max() / snap.mass.sum())),
        "pp_contacts": int(pairs.shape[0]),
        "end_time_s": float(t[-1]),
        "dt_s": run.dt,
    }
    if comp is not None:
        row["piston_peak_stress_Pa"] = float(comp["stress"].max())
    curves = {"time": t, "ke": ke / scale, "fn": fn_pp,
              "z_mid": 0.5 * (edges[:-1] + edges[1:]), "phi_z": np.array(phi_z),
              "surface": surface, "compression": comp}
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


# ---------------------------------------------------------------- restitution


def pair_entry(case, material):
    for entry in case.get("contacts", []):
        if list(entry.get("materials", [])) == [material, material]:
            return entry
    return None


def _main_material(case, snap):
    """The material most of the particles are made of (types index the case's list)."""
    kinds, counts = np.unique(snap.type, return_counts=True)
    return case["materials"][int(kinds[np.argmax(counts)])]["name"]


def actual_restitution(dempact, case_text, material, radius, speed, dt):
    """The restitution a head-on collision of two of the case's particles (material,
    radius) at `speed` gives with the case's law, parameters and cohesion removal for
    that material pair, at the step dt. Returns (asked e or NaN, actual e, the
    `dempact collide` record)."""
    case = yaml.safe_load(case_text)
    mat = next(m for m in case["materials"] if m["name"] == material)
    entry = pair_entry(case, material)
    if entry is None:
        raise LookupError(f"no contact entry for [{material}, {material}]")
    return collide(dempact, entry, radius, mat, speed, dt)


def collide(dempact, entry, radius, mat, speed, dt):
    params = dict(entry.get("params", {}))
    cmd = [dempact, "collide", "--law", entry["law"], "--velocity", repr(float(speed)),
           "--radius", repr(float(radius)), "--density", repr(float(mat["density"])),
           "--young", repr(float(mat["young"])), "--poisson", repr(float(mat["poisson"])),
           "--dt", repr(float(dt)), "--format", "json"]
    e = params.pop("restitution", None)
    if e is not None:
        cmd += ["--restitution", repr(float(e))]
    for key, value in params.items():
        cmd += ["--param", f"{key}={value}"]
    if entry.get("calibrate"):
        cmd.append("--calibrate")
    if "cohesion_removal" in entry:
        cmd += ["--cohesion-removal", "on" if entry["cohesion_removal"] else "off"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()}")
    rec = json.loads(out.stdout)
    return (float("nan") if e is None else float(e)), float(rec["restitution_out"]), rec


# ---------------------------------------------------------------- the report


def report(out, meta=None, dempact=None):
    """Measures every run under out/runs and writes the tables and the figures."""
    import compare_report
    runs_dir = os.path.join(out, "runs")
    rows, curves = [], []
    times = (meta or {}).get("wall_times", {})
    cpus = (meta or {}).get("cpu_times", {})
    dempact = dempact or (meta or {}).get("dempact_path")
    if dempact and not os.path.exists(dempact):
        dempact = None
    for d in sorted(os.listdir(runs_dir)):
        for s in sorted(os.listdir(os.path.join(runs_dir, d))):
            folder = os.path.join(runs_dir, d, s)
            if not os.path.isdir(folder):
                continue
            name = f"{d}/{s}"
            h5 = [f for f in os.listdir(folder) if f.endswith(".h5")]
            if not h5:
                print(f"compare: {name}: no HDF5 file (the run failed: see {folder}/log.txt)",
                      file=sys.stderr)
                continue
            try:
                row, cv = measure(os.path.join(folder, h5[0]))
            except Incomplete as exc:
                print(f"compare: {name}: left out, {exc}", file=sys.stderr)
                continue
            row["restitution_asked"], row["restitution_actual"] = float("nan"), float("nan")
            if dempact:
                text = dempact_h5.Run(os.path.join(folder, h5[0])).case_text
                try:
                    _, actual, _ = actual_restitution(
                        dempact, text, row["material"], row["radius_mean_m"],
                        row["impact_speed_m_s"], row["dt_s"])
                    # asked: the comparison's e (hertz_critical_ratio gets it as its xi)
                    row["restitution_asked"], row["restitution_actual"] = row["restitution"], actual
                except (RuntimeError, LookupError, KeyError) as exc:
                    print(f"compare: {name}: no binary collision ({exc})", file=sys.stderr)
            row["wall_time_s"] = times.get(name, float("nan"))
            row["cpu_time_s"] = cpus.get(name, float("nan"))
            rows.append(row)
            curves.append(cv)
    if not rows:
        raise SystemExit(f"compare: no run to report in {runs_dir}")
    return compare_report.write(out, rows, curves, meta or {})


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case", nargs="?", help="the base case (default: --size)")
    p.add_argument("--size", choices=sorted(SIZES), default=None,
                   help="small: cases/packing_small.yaml; full (default): cases/packing_settle.yaml")
    p.add_argument("--laws", default="all")
    p.add_argument("--seeds", type=int, default=3, help="runs per law and mode (default 3)")
    p.add_argument("--seed-offset", type=int, default=0,
                   help="the first seed offset (default 0: the case's own seeds): "
                        "--seeds 2 --seed-offset 3 adds seeds 3 and 4 to a report")
    p.add_argument("--calibrate", choices=("off", "on", "both"), default="off")
    p.add_argument("--restitution", type=float)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--out")
    p.add_argument("--dempact", help="the program (default: build/dempact; with "
                   "--report-only: the one meta.json names)")
    p.add_argument("--end-time", type=float)
    p.add_argument("--param", action="append", default=[], metavar="LAW:KEY=VALUE")
    p.add_argument("--report-only", metavar="DIR")
    a = p.parse_args(argv)

    if a.report_only:
        mp = os.path.join(a.report_only, "meta.json")
        meta = json.load(open(mp)) if os.path.exists(mp) else None
        report(a.report_only, meta, a.dempact)
        print(open(os.path.join(a.report_only, "report.md")).read())
        return 0
    if a.case and a.size:
        p.error("give a CASE or --size, not both")
    case_path = a.case or SIZES[a.size or "full"]
    a.dempact = a.dempact or os.path.join(ROOT, "build", "dempact")
    if a.seeds < 1:
        p.error("--seeds must be at least 1")
    if not os.path.exists(a.dempact):
        p.error(f"--dempact {a.dempact}: no such program (build it: bash tools/setup.sh)")
    try:
        base = yaml.safe_load(open(case_path))
    except OSError as exc:
        p.error(f"{case_path}: {exc.strerror}")
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
    out = a.out or os.path.join("compare", os.path.splitext(os.path.basename(case_path))[0])
    os.makedirs(os.path.join(out, "runs"), exist_ok=True)
    command = " ".join(shlex.quote(x) for x in ["tools/compare.py"] + list(argv))
    version = subprocess.run([a.dempact, "--version"], capture_output=True, text=True).stdout.strip()
    case_text = open(case_path).read()

    jobs = []
    seeds = range(a.seed_offset, a.seed_offset + a.seeds)
    for law in laws:
        for mode, params, cal in law_runs(law, table[law], e, a.calibrate):
            for seed in seeds:
                d = os.path.join(out, "runs", mode_dir(law, mode), f"seed{seed}")
                os.makedirs(d, exist_ok=True)
                for f in os.listdir(d):  # this run's own folder only
                    os.unlink(os.path.join(d, f))
                cp = os.path.join(d, "case.yaml")
                with open(cp, "w") as f:
                    f.write(case_for(base, case_path, law, mode, params, cal, e, command, seed,
                                     a.end_time))
                jobs.append((f"{mode_dir(law, mode)}/seed{seed}", cp, d, law in SLOW_LAWS))
    jobs.sort(key=lambda j: not j[3])  # the slow laws first
    print(f"compare: {len(jobs)} runs of {case_path} ({len(seeds)} seeds) at e = {e:g}, "
          f"{a.jobs} at a time", file=sys.stderr)
    # meta.json: what each invocation into this folder did (a report may be made of runs
    # from several, e.g. --calibrate off first, on later), saved after every run
    meta_path = os.path.join(out, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    if meta and meta.get("base_case_text") != case_text:
        meta = {}  # another case: start afresh
    meta.update({"dempact": version, "dempact_path": os.path.abspath(a.dempact),
                 "base_case": os.path.abspath(case_path), "base_case_text": case_text,
                 "restitution": e})
    invocation = {"command": command, "calibrate": a.calibrate, "laws": laws,
                  "seeds": list(seeds),
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  "failed": []}
    meta.setdefault("invocations", []).append(invocation)
    for key in ("wall_times", "cpu_times"):
        meta.setdefault(key, {})
        for name, _, _, _ in jobs:
            meta[key].pop(name, None)

    def save():
        with open(meta_path + ".tmp", "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(meta_path + ".tmp", meta_path)

    save()
    failed = invocation["failed"]
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = {pool.submit(run_one, a.dempact, cp, d, a.end_time): name
                for name, cp, d, _ in jobs}
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
    invocation["runs_wall_time_s"] = time.time() - t0
    save()
    report(out, meta, a.dempact)
    invocation["wall_time_s"] = time.time() - t0
    save()
    print(open(os.path.join(out, "report.md")).read())
    print(f"compare: report in {out}/report.md ({time.time() - t0:.0f} s)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
