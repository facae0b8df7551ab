#!/usr/bin/env python3
"""Compare the normal contact laws on one case: run it for every law at the same
restitution, several seeds each, measure each settled packing and write a report.

    .venv/bin/python tools/compare.py [CASE | [--stage packing|shear] --size small|full]
        [--laws all|a,b,..]
        [--seeds N] [--seed-offset K] [--calibrate off|on|both] [--restitution E[,E2,..]]
        [--rates R1,R2,..]
        [--jobs N] [--out DIR [--overwrite]] [--dempact PATH] [--end-time T]
        [--param LAW:KEY=VALUE ...] [--adhesion MODEL:KEY=VALUE,...]
    .venv/bin/python tools/compare.py --report-only DIR [--dempact PATH]

(.venv/ is the project's Python environment: bash tools/setup.sh makes it.)

--size small runs cases/packing_small.yaml (200 beads in a periodic cell: all 16 laws
with 3 seeds take about 250 s of CPU, a little over 2 minutes on two free cores),
--size full (the default) runs cases/packing_settle.yaml (2000 beads in a box). A CASE
given by path replaces both.

--stage shear (the packing stage is the default) shears each law's beads in a
Lees-Edwards cell at an imposed pressure, cases/shear_small.yaml with --size small (500
beads, 0.3 s, about 12 s of CPU a run) or cases/shear_cell.yaml (1000 beads, 0.5 s),
and measures the steady flow over the last half of each run: mu = tau / p, the solid
fraction phi, the inertial number I, the coordination Z and the shares of the shear's
work that the normal dashpot, friction, rolling and plasticity dissipate, each mean
± standard error over the seeds (tools/compare_shear.py). A CASE with
domain.lees_edwards is of the shear stage; --stage names the stage of --size and must
agree with a CASE's. The shear stage gives the laws with the parameter v_floor
sqrt(2 g d_min) (the engine's floor for the same beads under gravity: its 1 mm/s
without gravity stops exact and hunt_crossley); --param LAW:v_floor=V replaces it.
--rates 5,20,80 (the shear stage's) runs every law at each shear rate (1/s) for the
same strain: a run at rate R ends at t_end R_ref / R (R_ref, t_end: the case's rate and
end, or --end-time), its output intervals scaled alike; the report gives mu(I) and
phi(I) per law and their fits. --restitution 0.3,0.9 (the shear stage's) runs every
law at each e into the same report; hertz and kostek, without a restitution, run once
(tools/compare_sweep.py).

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
Every contact entry of the case gets the law; friction, rolling and adhesion entries are
kept. --adhesion jkr:work=0.05 (a model and its keys, as a case's `adhesion:` mapping)
gives every entry that adhesion, replacing an entry's own; a law whose cases `dempact
check` refuses with it (jkr needs Hertz's spring: linear, kostek) refuses the call,
naming the laws to leave out. The report's header states the adhesion, and its packing
table the fractions of contacts held past touching and in tension. The law's other
parameters (v_floor, stiffness, ...) take dempact's defaults: the comparison sets none
of its own but kostek's area (and what --param gives).

The report folder holds report.md with its SVG figures, table.csv (one row per run),
summary.csv (mean and standard deviation per law and mode), meta.json (the command, the
dempact version, the base case, run times), runs/ and compare-report.json, the marker
written first that makes the folder a report of compare.py and holds the settings its
runs share (the base case, e or the list of e, the rates, --end-time, the laws'
parameters, the adhesion).

The folder (docs/compare.md, "The report folder's rules"): --out must be new, empty or a
report of compare.py; a folder holding anything else is refused unless --overwrite,
which replaces only the report's own names there. Into its own report, a call keeps
every complete run (dempact exited 0 and the run's done.json was written) and makes the
rest from scratch: the same command finishes a killed report, and more --seeds or other
--laws add runs. A call whose base case, --restitution (or its list), --rates,
--end-time, --param or --adhesion differ from the report's is refused, naming the
argument; --overwrite starts the report afresh.
Ctrl-C (SIGINT) and SIGTERM stop the runs (each writes a last snapshot) and exit 130 and
143, keeping the complete ones. Bad arguments: one line on stderr and exit 2, nothing
written; a run that failed: exit 1.

The generated case files carry the comparison's settings in their header comment and
the HDF5 files keep the case text, so `--report-only DIR` rebuilds everything from the
HDF5 files of the complete runs alone (the asked-and-actual restitution column reruns
`dempact collide`, a fraction of a second per run).
Measurements and their conventions: tools/compare_measure.py and docs/compare.md.
"""

import signal
import sys

if __name__ == "__main__":  # a stop before main() takes over: nothing is written yet
    def _early_stop(signum, frame):
        sys.stderr.write(f"compare.py: stopped by {signal.Signals(signum).name}; nothing "
                         "written\n")
        sys.stderr.flush()
        import os
        os._exit(128 + signum)
    signal.signal(signal.SIGINT, _early_stop)
    signal.signal(signal.SIGTERM, _early_stop)

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

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
import compare_folder as cf  # noqa: E402
import compare_measure as cm  # noqa: E402
import compare_runs as crs  # noqa: E402
import compare_adhesion as cad  # noqa: E402
import compare_shear as cs  # noqa: E402
import compare_sweep as sweep  # noqa: E402

BULK_MARGIN = 2.0        # bulk region: this many largest diameters from walls and surface
# the base case of each stage and size
STAGES = {"packing": {"small": os.path.join(ROOT, "cases", "packing_small.yaml"),
                      "full": os.path.join(ROOT, "cases", "packing_settle.yaml")},
          "shear": {"small": os.path.join(ROOT, "cases", "shear_small.yaml"),
                    "full": os.path.join(ROOT, "cases", "shear_cell.yaml")}}
SIZES = STAGES["packing"]

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
    "fit": bool, "params": [names]}} from `dempact laws` ("fit": the law takes the
    parameter `fit`, whose default `calibrated` solves the damping for e; `published`
    keeps the paper's mapping)."""
    out = subprocess.run([dempact, "laws"], check=True, capture_output=True, text=True).stdout
    return parse_law_table(out)


def parse_law_table(text):
    """law_table from the text of `dempact laws`."""
    laws, name = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            name = line.strip()
            laws[name] = {"restitution": None, "calibrate": False, "fit": False, "params": []}
        elif name:
            param = re.match(r"^  ([A-Za-z_][A-Za-z0-9_]*)\s+default ", line)
            if param:
                laws[name]["params"].append(param.group(1))
            if line.strip().startswith("restitution "):
                laws[name]["restitution"] = "plain"
            if "only with calibrate" in line and laws[name]["restitution"]:
                laws[name]["restitution"] = "calibrate-only"
            if line.strip().startswith("calibrate: true solves"):
                laws[name]["calibrate"] = True
                laws[name]["solves"] = line.split("solves", 1)[1].split()[0]
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


def plan_runs(laws, table, e, calibrate, user_params, seeds):
    """[(law, mode, params, calibrate flag, seeds)]: the runs of a comparison, every law's
    modes (law_runs) with its --param values, each for every seed. Both stages plan
    alike: the stage is the base case's."""
    plans = []
    for law in laws:
        for mode, params, cal in law_runs(law, table[law], e, calibrate):
            params.update({k: v for (lw, k), v in user_params.items() if lw == law})
            plans.append((law, mode, params, cal, list(seeds)))
    return plans


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
             end_time=None, adhesion=None, rate=None, name=None):
    """The text of the case file of one run (adhesion: --adhesion's mapping, or None
    to keep the entries' own; rate: the shear rate of a --rates sweep, or None for the
    case's own; name: the run's folder, LAW_MODE by default)."""
    case = json.loads(json.dumps(base))  # deep copy
    offset_seeds(case, seed)
    case["name"] = name or mode_dir(law, mode)
    if rate is not None:  # the sweep's end for the same strain (tools/compare_sweep.py)
        end_time = sweep.apply_rate(case, rate, end_time)
    for entry in case.get("contacts", []):
        entry["law"] = law
        entry["params"] = dict(params)  # the rest: dempact's defaults for the law
        # explicit either way, so the mode does not hang on the reader's default
        entry["calibrate"] = bool(calibrate)
    cad.apply(case, adhesion)
    folder = os.path.dirname(os.path.abspath(base_path))
    for item in case.get("particles", []) + case.get("walls", []):
        if "file" in item and not os.path.isabs(item["file"]):
            item["file"] = os.path.join(folder, item["file"])
    meta = {"law": law, "mode": mode, "restitution": e, "seed": seed,
            "base_case": os.path.abspath(base_path)}
    if command is not None:
        meta["command"] = command
    if end_time is not None:
        meta["end_time"] = end_time
    if rate is not None:
        meta["rate"] = rate
    head = "# written by tools/compare.py; compare: " + json.dumps(meta) + "\n"
    return head + yaml.safe_dump(case, sort_keys=False, default_flow_style=None, width=100)


def base_law(case):
    entries = case.get("contacts", [])
    return entries[0].get("law") if entries else None


def run_identity(case_text):
    """The SHA-256 of a run's case without the command line in its header: two calls
    that would write the same case make the same run."""
    head, _, body = case_text.partition("\n")
    meta = compare_meta(head)
    meta.pop("command", None)
    return cf.sha256_text(json.dumps(meta, sort_keys=True) + "\n" + body)


def run_argv(dempact, case_path, out_dir, end_time):
    cmd = [dempact, "run", case_path, "--output", out_dir, "--threads", "1", "--quiet"]
    if end_time is not None:
        cmd += ["--end-time", repr(float(end_time))]
    return cmd


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


def run_identity_columns(meta, case):
    """A run's law, calibration, seed and restitution asked, for its table row (from the
    run's marker, else from its case)."""
    return {
        "law": meta.get("law", base_law(case)),
        "calibrate": meta.get("mode", "on" if case["contacts"][0].get("calibrate") else "off"),
        "seed": int(meta.get("seed", 0)),
        "restitution": (float("nan") if meta.get("mode") == "-" else
                        meta.get("restitution", case["contacts"][0].get("params", {}).get(
                            "restitution", float("nan")))),
    }


def measure(h5_path):
    """The table row of one run, and the curves the figures need."""
    run = dempact_h5.Run(h5_path)
    case = yaml.safe_load(run.case_text)
    meta = compare_meta(run.case_text)
    end = float(meta.get("end_time", case["time"]["end"]))
    if len(run) == 0 or run.times[-1] < end - 1.5 * run.dt:
        raise Incomplete(f"it stopped at t = {run.times[-1] if len(run) else 0:g} s of {end:g} s")
    if cs.is_shear(case):
        return measure_shear(run, case, meta)
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
        **run_identity_columns(meta, case),
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
        "adhesion": cad.of_case(case),
        **cad.cohesion_measures(c),
        "end_time_s": float(t[-1]),
        "dt_s": run.dt,
    }
    if comp is not None:
        row["piston_peak_stress_Pa"] = float(comp["stress"].max())
        for j, (target, when, stress, strain) in enumerate(comp["holds"], 1):
            row[f"hold{j}_target_Pa"] = target
            row[f"hold{j}_time_s"] = when
            row[f"hold{j}_stress_Pa"] = stress
            row[f"hold{j}_strain"] = strain
    curves = {"time": t, "ke": ke / scale, "fn": fn_pp,
              "z_mid": 0.5 * (edges[:-1] + edges[1:]), "phi_z": np.array(phi_z),
              "surface": surface, "compression": comp}
    return row, curves


def measure_shear(run, case, meta):
    """The shear stage's row of one run (tools/compare_shear.py) with the columns every
    row has; impact_speed_m_s is the shear's speed across one mean diameter, rate d,
    the speed of the binary collision behind e actual."""
    material = _main_material(case, run.snapshot())
    row, curves = cs.measure(run, case, material)
    head = {
        "stage": "shear",
        **run_identity_columns(meta, case),
        "particles": int(run.n_particles[-1]),
        "radius_mean_m": 0.5 * row["diameter_mean_m"],
        "material": material,
        "adhesion": cad.of_case(case),
    }
    tail = {"impact_speed_m_s": abs(row["shear_rate_1_s"]) * row["diameter_mean_m"],
            "end_time_s": float(run.times[-1]), "dt_s": run.dt}
    return {**head, **row, **tail}, curves


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


def servo_holds(wall, area):
    """The stresses a servo wall's schedule holds (docs/case-file.md#servo-walls-wallsservo): each
    stretch between two entries of the same target, and the last entry's target to the end
    (time None). [(end time or None, target stress Pa)]; a force is taken over `area` (the
    servo's own area when it gives one)."""
    sv = wall.get("servo")
    if not sv:
        return []
    a = float(sv.get("area", area))

    def stress(e):
        return float(e["stress"]) if "stress" in e else float(e["force"]) / a

    targets = sv.get("targets") or [{"time": 0.0, **{k: sv[k] for k in ("stress", "force")
                                                      if k in sv}}]
    holds = [(float(b["time"]), stress(b)) for a_, b in zip(targets, targets[1:])
             if stress(a_) == stress(b) and float(b["time"]) > float(a_["time"])]
    return holds + [(None, stress(targets[-1]))]


def compression_curve(run, case, ts, onset=0.01):
    """Stress against strain for a case with a moving wall named `piston`: stress = the
    load the particles put on the piston along its normal / the domain's cross-section;
    strain = the piston's travel since the stress first passed `onset` x its largest
    value (the touch: it differs from law to law, as the beds settle to different
    heights) / the piston's height above the floor then. The piston's position is the
    time series' wall_displacement (a servo piston's travel), or in outputs without it
    its velocity or motion schedule's. A servo piston's held stresses after the touch
    (servo_holds) give the loop at the same pressures for every law: `holds`, a list of
    (target Pa, time s, measured stress Pa, strain) at each hold's end."""
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
    shift = ts.get("wall_displacement")
    if shift is not None and np.isfinite(shift[:, k, :]).all():
        position = np.array(w["point"], dtype=float) + shift[:, k, :]
    else:
        position = piston_position(w, t)
    height = position @ -n  # its height above the origin, along -normal
    stress = ts["wall_force"][:, k, :] @ (-n) / area  # the particles push along -n
    if not (stress.max() > 0):
        return None
    touch = int(np.nonzero(stress >= onset * stress.max())[0][0])
    gap0 = height[touch] - lo @ -n  # above the domain's face behind it (the floor)
    strain = (height[touch] - height) / gap0
    keep = np.arange(len(t)) >= touch
    holds = []
    for end, target in servo_holds(w, area):
        at = len(t) - 1 if end is None else int(np.searchsorted(t, end - 1e-9 * max(end, 1.0)))
        if at <= touch or at >= len(t) or target <= 0:
            continue
        holds.append((target, float(t[at]), float(stress[at]), float(strain[at])))
    return {"strain": strain, "stress": stress, "moving": keep, "holds": holds}


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
    radius) at `speed` gives with the case's law, parameters, cohesion removal and
    adhesion for that material pair, at the step dt. Returns (asked e or NaN, actual e,
    the `dempact collide` record)."""
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
    adhesion = dict(entry.get("adhesion") or {})
    if adhesion:  # the collision with the pair's pull: a slow one may stick (e = 0)
        cmd += ["--adhesion", str(adhesion.pop("model"))]
        for key, value in adhesion.items():
            cmd += ["--adhesion-param", f"{key}={value}"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {out.stderr.strip()}")
    rec = json.loads(out.stdout)
    return (float("nan") if e is None else float(e)), float(rec["restitution_out"]), rec


# ---------------------------------------------------------------- the report


class ReportError(Exception):
    """No run of the folder could be measured."""


def report(out, meta=None, dempact=None, version=None):
    """Measures every complete run under out/runs and writes the tables and figures.
    A run is complete when its done.json says so (tools/compare_folder.py); the others
    are named on stderr and left out."""
    import compare_report
    rows, curves = [], []
    meta = meta or {}
    dempact = dempact or meta.get("dempact_path")
    if dempact and not os.path.exists(dempact):
        dempact = None
    for name, folder, done in cf.run_folders(out):
        if done is None or done.get("status") != 0 or not isinstance(done.get("h5"), str):
            print(f"compare.py: {name}: left out, it did not complete (see {folder}/log.txt)",
                  file=sys.stderr)
            continue
        if version and done.get("dempact") != version:
            print(f"compare.py: {name}: made by {done.get('dempact')}, not {version}",
                  file=sys.stderr)
        h5 = os.path.join(folder, done["h5"])
        try:
            row, cv = measure(h5)
        except Incomplete as exc:
            print(f"compare.py: {name}: left out, {exc}", file=sys.stderr)
            continue
        except Exception as exc:  # a damaged or foreign file: named, left out
            print(f"compare.py: {name}: left out, {h5} cannot be measured: "
                  f"{type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        row["restitution_asked"], row["restitution_actual"] = float("nan"), float("nan")
        if dempact:
            text = dempact_h5.Run(h5).case_text
            try:
                _, actual, _ = actual_restitution(
                    dempact, text, row["material"], row["radius_mean_m"],
                    row["impact_speed_m_s"], row["dt_s"])
                # asked: the comparison's e (hertz_critical_ratio gets it as its xi)
                row["restitution_asked"], row["restitution_actual"] = row["restitution"], actual
            except Exception as exc:
                print(f"compare.py: {name}: no binary collision ({exc})", file=sys.stderr)
        row["wall_time_s"] = float(done.get("wall_time_s", float("nan")))
        row["cpu_time_s"] = float(done.get("cpu_time_s", float("nan")))
        rows.append(row)
        curves.append(cv)
    if not rows:
        raise ReportError(f"no run in {os.path.join(out, cf.RUNS)} could be measured")
    if rows[0].get("stage") == "shear":
        import compare_shear_report
        return compare_shear_report.write(out, rows, curves, meta)
    return compare_report.write(out, rows, curves, meta)


# ---------------------------------------------------------------- the arguments


class UsageError(Exception):
    """Bad input: one line naming the argument, exit status 2, nothing written."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parser():
    p = Parser(prog="compare.py", description=__doc__.split("\n\n")[0],
               epilog="\n\n".join(__doc__.split("\n\n")[1:]),
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("case", nargs="?", help="the base case (default: --stage and --size)")
    p.add_argument("--stage", choices=sorted(STAGES), default=None,
                   help="packing (default): the settling packing; shear: the steady "
                        "simple shear of a Lees-Edwards cell (mu, phi, I, the dissipation "
                        "split); a CASE with domain.lees_edwards is of the shear stage")
    p.add_argument("--size", choices=sorted(SIZES), default=None,
                   help="small: cases/packing_small.yaml (--stage shear: cases/shear_small.yaml); "
                        "full (default): cases/packing_settle.yaml (cases/shear_cell.yaml)")
    p.add_argument("--laws", help="all (default) or a comma-separated list of laws")
    p.add_argument("--seeds", type=int, help=f"runs per law and mode (default 3, at most {MAX_SEEDS})")
    p.add_argument("--seed-offset", type=int,
                   help="the first seed offset (default 0: the case's own seeds): "
                        "--seeds 2 --seed-offset 3 adds seeds 3 and 4 to a report")
    p.add_argument("--calibrate", choices=("off", "on", "both"))
    p.add_argument("--restitution", metavar="E[,E2,..]",
                   help="the e every law is given (default: the base case's); several, "
                        "comma-separated, in the shear stage: every law at each")
    p.add_argument("--rates", metavar="R1,R2,..",
                   help="the shear stage's shear rates (1/s, > 0): every law at each, for "
                        "the case's strain (end time t_end R_ref / R); default: the "
                        "case's own rate")
    p.add_argument("--jobs", type=int, help="runs at a time (default: the number of cores)")
    p.add_argument("--out", help="the report folder (default compare/CASE)")
    p.add_argument("--overwrite", action="store_true",
                   help="write into a folder that holds something other than this tool's "
                        "report (replacing only the report's own names), or start the "
                        "tool's report in --out afresh")
    p.add_argument("--dempact", help="the program (default: build/dempact; with "
                   "--report-only: the one meta.json names)")
    p.add_argument("--end-time", type=float)
    p.add_argument("--param", action="append", metavar="LAW:KEY=VALUE")
    p.add_argument("--adhesion", metavar="MODEL:KEY=VALUE,...",
                   help="every contact entry gets this adhesion (replacing its own), e.g. "
                        "jkr:work=0.05 or capillary:volume=1e-12,surface_tension=0.072; "
                        "models and keys: dempact laws --adhesion")
    p.add_argument("--report-only", metavar="DIR")
    return p


MAX_SEEDS = 1000
MAX_JOBS = 256
ANSWER_TIMEOUT = 60.0   # s: `dempact --version` and `dempact laws`
CHECK_TIMEOUT = 600.0   # s: `dempact check` of a case (it makes the particles)


def dempact_answers(dempact, what="--dempact"):
    """(version, law table) of the program, or UsageError saying why it does not run."""
    if not os.path.exists(dempact):
        hint = " (build it: bash tools/setup.sh)" if what == "--dempact" and \
            os.path.abspath(dempact) == os.path.join(ROOT, "build", "dempact") else ""
        raise UsageError(f"{what} {dempact}: no such program{hint}")
    if os.path.isdir(dempact):
        raise UsageError(f"{what} {dempact}: is a folder, not a program")
    outs = []
    for args in (["--version"], ["laws"]):
        try:
            p = subprocess.run([dempact] + args, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, timeout=ANSWER_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise UsageError(f"{what} {dempact}: `{' '.join(args)}` did not answer in "
                             f"{ANSWER_TIMEOUT:g} s")
        except (OSError, ValueError) as exc:
            raise UsageError(f"{what} {dempact}: does not run: {getattr(exc, 'strerror', None) or exc}")
        except UnicodeDecodeError:
            raise UsageError(f"{what} {dempact}: is not dempact (its output is not text)")
        if p.returncode != 0:
            raise UsageError(f"{what} {dempact}: `{' '.join(args)}` exits {p.returncode}")
        outs.append(p.stdout)
    version = outs[0].strip()
    if not version.startswith("dempact "):
        raise UsageError(f"{what} {dempact}: is not dempact (--version printed "
                         f"{version.splitlines()[0][:60] if version else 'nothing'!r})")
    # the program itself, not only its version number: a rebuilt dempact makes new runs
    try:
        with open(dempact, "rb") as f:
            version += " (sha256 " + cf.hashlib.sha256(f.read()).hexdigest()[:16] + ")"
    except OSError as exc:
        raise UsageError(f"{what} {dempact}: cannot be read: {exc.strerror}")
    table = parse_law_table(outs[1])
    if not table:
        raise UsageError(f"{what} {dempact}: `laws` lists no law")
    return version, table


def parse_laws(text, table):
    if text is None or text == "all":
        return list(table)
    laws = [x.strip() for x in text.split(",")]
    for law in laws:
        if not law:
            raise UsageError(f"--laws {text}: an empty name (laws are separated by single commas)")
        if law not in table:
            raise UsageError(f"--laws: unknown law {law!r}; laws: {', '.join(table)}")
    for law in laws:
        if laws.count(law) > 1:
            raise UsageError(f"--laws: {law} is given {laws.count(law)} times")
    return laws


def parse_param(spec, table, laws):
    """LAW:KEY=VALUE into (law, key, value); value a number, or a word for the
    parameters that take one (fit, stiffness_formula): dempact check judges it."""
    law, sep, kv = spec.partition(":")
    key, sep2, value = kv.partition("=")
    law, key, value = law.strip(), key.strip(), value.strip()
    if not (sep and sep2 and law and key and value):
        raise UsageError(f"--param {spec}: expected LAW:KEY=VALUE")
    if law not in table:
        raise UsageError(f"--param {spec}: unknown law {law!r}; laws: {', '.join(table)}")
    if law not in laws:
        raise UsageError(f"--param {spec}: {law} is not among the laws compared "
                         f"({', '.join(laws)})")
    names = table[law]["params"]
    own = {"restitution": "--restitution", "fit": "--calibrate"}
    if law == "hertz_critical_ratio":
        own["xi"] = "--restitution and --calibrate (xi follows from e)"
    if table[law].get("solves"):
        own.setdefault(table[law]["solves"], "--calibrate (calibration solves it)")
    if key in own:
        raise UsageError(f"--param {spec}: the comparison sets {key} itself, through {own[key]}")
    if key not in names:
        have = ", ".join(names) if names else "none"
        raise UsageError(f"--param {spec}: law {law} has no parameter {key!r}; its "
                         f"parameters: {have}")
    try:
        number = float(value)
    except ValueError:
        return law, key, value
    if not math.isfinite(number):
        raise UsageError(f"--param {spec}: {value} is not a finite number")
    return law, key, number


def read_case(path):
    """The base case as a mapping, or UsageError naming the file."""
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a folder, not a case file")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read: {exc.strerror}")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a case file (not UTF-8 text)")
    try:
        case = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        why = getattr(exc, "problem", None) or "not YAML"
        raise UsageError(f"{path}{where}: not a case file: {why}")
    if not isinstance(case, dict):
        raise UsageError(f"{path}: not a case file (a YAML mapping of keys such as domain, "
                         "materials, contacts)")
    return text, case


def dempact_check(dempact, case_path):
    """None if `dempact check` takes the case, else its message (one line)."""
    try:
        p = subprocess.run([dempact, "check", case_path], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=CHECK_TIMEOUT, errors="replace")
    except subprocess.TimeoutExpired:
        return f"dempact check did not end in {CHECK_TIMEOUT:g} s"
    except OSError as exc:
        return f"dempact check does not run: {exc.strerror}"
    if p.returncode == 0:
        return None
    lines = [x.strip() for x in p.stderr.splitlines() if x.strip()]
    named = [x for x in lines if case_path in x]
    msg = (named or lines or [f"dempact check exits {p.returncode}"])[0]
    return msg


def referenced_files(case, case_path):
    """The files a case names (particle CSV files, STL walls), as absolute paths."""
    folder = os.path.dirname(os.path.abspath(case_path))
    found = []
    for key in ("particles", "walls"):
        items = case.get(key)
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("file"), str):
                found.append(os.path.join(folder, item["file"]))
    return found


def case_digest(text, case, case_path):
    """SHA-256 of the case's text and of every file it names."""
    parts = [text]
    for path in referenced_files(case, case_path):
        try:
            with open(path, "rb") as f:
                parts.append(path + "\n" + cf.hashlib.sha256(f.read()).hexdigest())
        except OSError as exc:
            raise UsageError(f"{case_path}: {path}: cannot be read: {exc.strerror}")
    return cf.sha256_text("\n".join(parts))


def check_generated(dempact, plans, case_of, a, given):
    """`dempact check` on the case of the first seed of every law and mode (and of the
    last seed once), cut at --end-time, before anything is written; a refusal names the
    argument that caused it where it can."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="compare_check_") as tmp:
        seeds = sorted({plans[0][4][0], plans[0][4][-1]})
        checks = [(law, mode, params, cal, seed, e, rate) for k, (law, mode, params, cal, _,
                                                                  e, rate) in
                  enumerate(plans) for seed in (seeds if k == 0 else seeds[:1])]
        refused = []  # (law, mode, message): the adhesion refused, every law checked
        for n, (law, mode, params, cal, seed, e, rate) in enumerate(checks):
            case = yaml.safe_load(case_of(law, mode, params, cal, seed, e, rate))
            if a.end_time is not None and rate is None:  # a sweep's case has its end
                case.setdefault("time", {})["end"] = a.end_time
            path = os.path.join(tmp, f"{mode_dir(law, mode)}_{n}_seed{seed}.yaml")
            with open(path, "w") as f:
                yaml.safe_dump(case, f, sort_keys=False)
            msg = dempact_check(dempact, path)
            if msg is None:
                continue
            msg = msg.split(path, 1)[-1].lstrip(":0123456789 ")
            if given.get("adhesion") and cad.is_about_adhesion(msg):
                refused.append((law, mode, msg))
                continue
            keys = [k for (lw, k) in given["params"] if lw == law]
            for k in keys:
                if f"params.{k} " in msg or f"params.{k}:" in msg:
                    raise UsageError(f"--param {law}:{k}={given['params'][(law, k)]}: {msg}")
            if "restitution" in msg and a.restitution is not None:
                raise UsageError(f"--restitution {a.restitution}: {msg} (law {law})")
            if "time.end" in msg and a.end_time is not None:
                raise UsageError(f"--end-time {a.end_time:g}: {msg}")
            if rate is not None and ("shear_rate" in msg or "time." in msg):
                raise UsageError(f"--rates {a.rates}: at {rate:g} 1/s: {msg}")
            if "seed" in msg and seed:
                raise UsageError(f"--seed-offset/--seeds: seed offset {seed}: {msg}")
            raise UsageError(f"{given['case']}: with law {law} (calibrate {mode}): {msg}")
        if refused:
            raise UsageError(cad.refusal(given["adhesion"], refused,
                                         list(dict.fromkeys(p[0] for p in plans))))


def differing_setting(old, new, out, case_arg):
    """The message for a call whose settings differ from the report's in out, or None."""
    tail = "; give another --out, or --overwrite to start the report afresh"
    if old.get("case_sha256") != new["case_sha256"]:
        same = old.get("case") == new["case"]
        return (f"{case_arg}: the report in {out} is of "
                + ("another version of this case (its text or a file it names differs)"
                   if same else f"another case ({old.get('case')})") + tail)
    differ = sweep.differing(old, new, out)  # --restitution and --rates
    if differ:
        return differ
    if old.get("end_time") != new["end_time"]:
        def cut(t):
            return "the case's end" if t is None else f"{t:g} s"
        return (f"--end-time: the report in {out} cuts its runs at {cut(old.get('end_time'))}, "
                f"this call at {cut(new['end_time'])}" + tail)
    if old.get("adhesion") != new.get("adhesion"):
        return (f"--adhesion: the report in {out} was made with "
                f"{cad.describe(old.get('adhesion'))}, this call with "
                f"{cad.describe(new.get('adhesion'))}" + tail)
    if old.get("params") != new["params"]:
        def show(ps):
            return ", ".join(f"{law}:{k}={v}" for law in sorted(ps or {})
                             for k, v in sorted(ps[law].items())) or "none"
        return (f"--param: the report in {out} was made with {show(old.get('params'))}, "
                f"this call with {show(new['params'])}" + tail)
    return None


# ---------------------------------------------------------------- the command


def report_only(a, given):
    extra = [k for k, v in given.items() if v and k not in ("report_only", "dempact")]
    if extra:
        raise UsageError(f"--report-only rebuilds a report from its runs and takes only "
                         f"--dempact (not {extra[0]})")
    out = a.report_only
    if not os.path.lexists(out):
        raise UsageError(f"--report-only {out}: no such folder")
    if not os.path.isdir(out):
        raise UsageError(f"--report-only {out}: is a file, not a folder")
    if cf.read_marker(out) is None:
        raise UsageError(f"--report-only {out}: not a report of compare.py (no {cf.MARKER})")
    try:
        fd = cf.lock(out)
    except cf.FolderError as exc:
        raise UsageError(str(exc).replace("--out", "--report-only"))
    if not any(done for _, _, done in cf.run_folders(out)):
        raise UsageError(f"--report-only {out}: no complete run to report")
    meta = cf.read_json(os.path.join(out, "meta.json")) or {}
    version = None
    if a.dempact:
        version, _ = dempact_answers(a.dempact)
    elif meta.get("dempact_path") and os.path.exists(meta["dempact_path"]):
        try:
            version, _ = dempact_answers(meta["dempact_path"], "meta.json's dempact")
        except UsageError:
            meta["dempact_path"] = None
    cf.remove_stale_temporaries(out)
    WROTE[0] = "report"
    report(out, meta, a.dempact, version)
    os.close(fd)
    show_report(out)
    return 0


def show_report(out):
    try:
        with open(os.path.join(out, "report.md")) as f:
            sys.stdout.write(f.read())
        sys.stdout.flush()
    except BrokenPipeError:  # `compare.py ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv):
    crs.catch_stop_signals()
    p = parser()
    a = p.parse_args(argv)
    given = {k: v is not None and v is not False and v != [] for k, v in vars(a).items()}
    if a.report_only is not None:
        return report_only(a, given)

    # ---- every argument checked before anything is written
    for option, value in (("CASE", a.case), ("--out", a.out), ("--dempact", a.dempact)):
        if value == "":
            raise UsageError(f"{option}: an empty path")
    if a.case and a.size:
        raise UsageError("give a CASE or --size, not both")
    case_path = a.case or STAGES[a.stage or "packing"][a.size or "full"]
    seeds_n = 3 if a.seeds is None else a.seeds
    offset = 0 if a.seed_offset is None else a.seed_offset
    if not 1 <= seeds_n <= MAX_SEEDS:
        raise UsageError(f"--seeds {seeds_n}: takes 1 to {MAX_SEEDS}")
    if not 0 <= offset <= 2 ** 31:
        raise UsageError(f"--seed-offset {offset}: takes 0 to {2 ** 31}")
    jobs_n = min(os.cpu_count() or 1, MAX_JOBS) if a.jobs is None else a.jobs
    if not 1 <= jobs_n <= MAX_JOBS:
        raise UsageError(f"--jobs {jobs_n}: takes 1 to {MAX_JOBS}")
    if a.end_time is not None and not (math.isfinite(a.end_time) and a.end_time > 0):
        raise UsageError(f"--end-time {a.end_time}: takes a time > 0 s")
    try:
        restitutions = sweep.parse_values(a.restitution, "--restitution", 0.0, 1.0)
        rates = sweep.parse_values(a.rates, "--rates", 0.0)
    except sweep.SweepError as exc:
        raise UsageError(str(exc))
    dempact = a.dempact or os.path.join(ROOT, "build", "dempact")
    version, table = dempact_answers(dempact)
    laws = parse_laws(a.laws, table)
    defaults = {law: dict(v) for law, v in LAW_DEFAULTS.items()}
    user_params, raw_params = {}, {}
    for spec in a.param or []:
        law, key, value = parse_param(spec, table, laws)
        if (law, key) in user_params:
            raise UsageError(f"--param {spec}: {law}:{key} is given twice")
        user_params[(law, key)] = value
        raw_params[(law, key)] = spec.partition("=")[2].strip()
        defaults.setdefault(law, {})[key] = value
    try:
        adhesion = None if a.adhesion is None else cad.parse(a.adhesion)
    except cad.AdhesionError as exc:
        raise UsageError(str(exc))
    text, base = read_case(case_path)
    stage = "shear" if cs.is_shear(base) else "packing"
    if a.stage is not None and a.stage != stage:
        raise UsageError(f"--stage {a.stage}: {case_path} " + (
            "has no domain.lees_edwards, which the shear stage shears" if a.stage == "shear"
            else "is a shear cell (domain.lees_edwards): give --stage shear"))
    if stage != "shear" and rates is not None:
        raise UsageError(f"--rates {a.rates}: the packing stage has no shear rate "
                         "(--rates is the shear stage's: --stage shear)")
    if stage != "shear" and restitutions is not None and len(restitutions) > 1:
        raise UsageError(f"--restitution {a.restitution}: several restitutions in one "
                         "report are the shear stage's (--stage shear); give one")
    msg = dempact_check(dempact, case_path)
    if msg is not None:
        raise UsageError(msg if msg.startswith(case_path) else f"{case_path}: {msg}")
    stage_params = {}  # the shear stage's own parameters, under --param's
    floor = cs.v_floor(base) if stage == "shear" else None
    for law in laws if floor else []:
        if "v_floor" in table[law]["params"] and (law, "v_floor") not in user_params:
            stage_params[(law, "v_floor")] = floor
            defaults.setdefault(law, {})["v_floor"] = floor
    if not isinstance(base.get("contacts"), list) or not base["contacts"]:
        raise UsageError(f"{case_path}: has no contacts entry for the laws to take")
    e = restitutions[0] if restitutions else None
    if e is None:
        first = base["contacts"][0].get("params") or {}
        try:
            e = float(first.get("restitution", 0.5))
        except (TypeError, ValueError):
            e = 0.5
        if not 0 < e <= 1:
            e = 0.5
    restitutions = restitutions or [e]
    several_e = len(restitutions) > 1
    calibrate = a.calibrate or "off"
    seeds = list(range(offset, offset + seeds_n))
    command = " ".join(shlex.quote(x) for x in ["tools/compare.py"] + list(argv))
    abs_case = os.path.abspath(case_path)

    def run_name(law, mode, e_run, rate):
        return mode_dir(law, mode) + sweep.suffix(mode, e_run, rate, several_e)

    def case_of(law, mode, params, cal, seed, e_run, rate, cmd=None):
        return case_for(base, case_path, law, mode, params, cal, e_run, cmd, seed, a.end_time,
                        adhesion, rate, run_name(law, mode, e_run, rate))

    plans = sweep.variants(lambda e_run: plan_runs(
        laws, table, e_run, calibrate, {**stage_params, **user_params}, seeds),
        restitutions, rates)
    check_generated(dempact, plans, case_of,
                    a, {"params": raw_params, "case": case_path, "adhesion": a.adhesion})
    settings = {"case": abs_case, "case_sha256": case_digest(text, base, case_path),
                "restitution": restitutions if several_e else e, "end_time": a.end_time,
                "params": {law: dict(sorted(v.items())) for law, v in sorted(defaults.items())}}
    if adhesion is not None:  # absent otherwise: the markers of reports without it
        settings["adhesion"] = adhesion
    if rates is not None:  # absent otherwise: the single-rate reports' markers
        settings["rates"] = rates
    settings = json.loads(json.dumps(settings))  # as the marker will hold them
    out = a.out or os.path.join("compare", os.path.splitext(os.path.basename(case_path))[0])

    # ---- the folder: refused, or locked and taken
    try:
        fd = cf.lock(out) if os.path.isdir(out) else None
        state, info = cf.classify(out)
        if state == "foreign" and not a.overwrite:
            own, other = info
            what = (f"{', '.join(own[:3])}{', ...' if len(own) > 3 else ''}, which compare.py "
                    f"did not write (its reports start with {cf.MARKER})" if own else
                    f"{', '.join(other[:3])}{', ...' if len(other) > 3 else ''}, not a report "
                    "of compare.py")
            raise UsageError(f"--out {out}: holds {what}; give a new or empty folder, or "
                             "--overwrite to replace only the report's own files there")
        if state == "own" and not a.overwrite:
            differ = differing_setting(info["settings"], settings, out, case_path)
            if differ:
                raise UsageError(differ)
        if state in ("foreign", "own"):
            cf.check_replaceable(out)
        if fd is None:
            os.makedirs(out, exist_ok=True)
            fd = cf.lock(out)
            state, info = cf.classify(out)
            if state not in ("empty", "own"):
                raise UsageError(f"--out {out}: another process wrote into it meanwhile")
    except cf.FolderError as exc:
        raise UsageError(str(exc))
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot be written: {exc.strerror}")

    # ---- writing starts: the marker first
    fresh = state != "own" or a.overwrite
    if state == "own" and a.overwrite:
        cf.start_afresh(out)
    cf.remove_stale_temporaries(out)
    meta_path = os.path.join(out, "meta.json")
    meta = {} if fresh else (cf.read_json(meta_path) or {})
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    marker = {"written_by": cf.TOOL, "settings": settings,
              "created": created if fresh else info.get("created", created),
              "command": command if fresh else info.get("command", command)}
    cf.atomic_write(os.path.join(out, cf.MARKER), json.dumps(marker, indent=1) + "\n")
    WROTE[0] = True
    os.makedirs(os.path.join(out, cf.RUNS), exist_ok=True)

    jobs, kept, end_of = [], [], {}
    for law, mode, params, cal, run_seeds, e_run, rate in plans:
        for seed in run_seeds:
            name = f"{run_name(law, mode, e_run, rate)}/seed{seed}"
            folder = os.path.join(out, cf.RUNS, *name.split("/"))
            case_text = case_of(law, mode, params, cal, seed, e_run, rate, command)
            identity = run_identity(case_text)
            end_of[name] = compare_meta(case_text).get("end_time")
            complete, _ = cf.run_complete(folder, identity, version)
            if complete and not a.overwrite:
                kept.append(name)
            else:
                # the slow laws and the low rates (the longest runs) first
                jobs.append((name, folder, case_text, identity,
                             (law in SLOW_LAWS, rate or 0.0)))
    jobs.sort(key=lambda j: (not j[4][0], j[4][1]))
    what = f"{len(jobs)} runs to make" + (f", {len(kept)} complete kept" if kept else "")
    print(f"compare.py: {what} of {case_path} ({len(seeds)} seeds) at e = "
          f"{sweep.show(restitutions)}" + (f", rates {sweep.show(rates)} 1/s" if rates else "")
          + ", "
          f"{jobs_n} at a time, into {out}", file=sys.stderr)
    meta.update({"dempact": version, "dempact_path": os.path.abspath(dempact),
                 "base_case": abs_case, "base_case_text": text, "restitution": e,
                 "stage": stage})
    if several_e or rates:
        meta.update({"restitutions": restitutions, "rates": rates})
    invocation = {"command": command, "calibrate": calibrate, "laws": laws, "seeds": seeds,
                  "date": created, "kept": kept, "failed": []}
    meta.setdefault("invocations", []).append(invocation)

    def save():
        times = {"wall_times": {}, "cpu_times": {}}
        for name, _, done in cf.run_folders(out):
            if done and done.get("status") == 0:
                times["wall_times"][name] = done.get("wall_time_s")
                times["cpu_times"][name] = done.get("cpu_time_s")
        meta.update(times)
        cf.atomic_write(meta_path, json.dumps(meta, indent=1))

    save()

    def prepare(job):
        name, folder, case_text, identity, _ = job
        cf.remove(folder)
        if os.path.lexists(os.path.dirname(folder)) and not os.path.isdir(os.path.dirname(folder)):
            cf.remove(os.path.dirname(folder))  # runs/LAW_MODE: the tool's name
        os.makedirs(folder)
        cf.atomic_write(os.path.join(folder, "case.yaml"), case_text)
        return (run_argv(dempact, os.path.join(folder, "case.yaml"), folder, end_of[name]),
                os.path.join(folder, "log.txt"))

    def finished(job, status, wall, cpu):
        name, folder, case_text, identity, _ = job
        if status == 0:
            h5 = name.split("/")[0] + ".h5"  # the case's name is its LAW_MODE folder
            cf.atomic_write(os.path.join(folder, cf.DONE), json.dumps(
                {"status": 0, "identity": identity, "dempact": version, "h5": h5,
                 "wall_time_s": wall, "cpu_time_s": cpu,
                 "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(
                     timespec="seconds")}, indent=1) + "\n")
            print(f"compare.py: {name}: done in {wall:.0f} s ({cpu:.0f} s of CPU)",
                  file=sys.stderr)
        elif status > 128 and crs.stop_signal():
            print(f"compare.py: {name}: stopped", file=sys.stderr)
        else:
            invocation["failed"].append(name)
            print(f"compare.py: {name}: FAILED (exit {status}; see {folder}/log.txt)",
                  file=sys.stderr)
        save()

    t0 = time.time()
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
    stopped = crs.run_all(jobs, jobs_n, prepare, finished, env)
    invocation["runs_wall_time_s"] = time.time() - t0
    save()
    if stopped:
        raise crs.Stopped(stopped)
    try:
        report(out, meta, dempact, version)
    except ReportError as exc:
        print(f"compare.py: {exc}", file=sys.stderr)
        return 1
    invocation["wall_time_s"] = time.time() - t0
    save()
    os.close(fd)
    show_report(out)
    print(f"compare.py: report in {out}/report.md ({time.time() - t0:.0f} s)", file=sys.stderr)
    return 1 if invocation["failed"] else 0


WROTE = [False]  # the marker is written: a stop keeps what completed


def entry(argv):
    """main() with the promised ends: exit 2 and one line for bad input, 128 + N after
    signal N, 1 and one line when the disk refuses a write; never a traceback for those."""
    try:
        return main(argv)
    except UsageError as exc:
        print(f"compare.py: {exc}", file=sys.stderr)
        return 2
    except crs.Stopped as exc:
        name = signal.Signals(exc.signum).name
        print(f"compare.py: stopped by {name}; " + {
            False: "nothing written",
            True: "the runs that completed are kept, and the same command makes the others",
            "report": "each file of the report is whole, as it was or rewritten"}[WROTE[0]],
            file=sys.stderr)
        return 128 + exc.signum
    except OSError as exc:
        where = exc.filename or ""
        print(f"compare.py: {where}{': ' if where else ''}{exc.strerror or exc}",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(entry(sys.argv[1:]))
