"""parallel: {reproducible: true} gives the same bits however the engine numbers the
particles and splits them into blocks, which is what a run split over ranks changes.

The case runs twice: on one thread with the default blocks and the particles in the
order the case creates them; and on two threads with blocks of 37 particles, every loop
split, and the particles sorted along the space-filling curve at the rebuilds
(DEMPACT_BLOCK, DEMPACT_PARALLEL_MIN, DEMPACT_REORDER_MIN: io/session/tuning_env.c). The last
snapshots must hold the same bits particle by particle (matched by id), contact by
contact (matched by their ends), in the energy books, and in every time series (energies,
dissipation, contacts, wall loads). The same two runs without the switch must differ, or
the variation tested nothing.

Usage: order_independent.py DEMPACT CASE.yaml END_TIME
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

PARTICLE_FIELDS = ["position", "velocity", "angular_velocity", "force", "torque",
                   "position_at_rebuild", "radius", "mass", "type", "kinetic_energy",
                   "rotational_energy", "n_contacts"]
ENGINE_FIELDS = ["engine/work", "engine/wall_work", "engine/wall_work_sum"]
CONTACT_FIELDS = ["normal_force_vector", "tangential_force", "tangential_spring",
                  "rolling_spring", "tangential_slip", "law_history", "impact_velocity",
                  "overlap", "ended"]

VARIANT_ENV = {"DEMPACT_BLOCK": "37", "DEMPACT_PARALLEL_MIN": "0", "DEMPACT_REORDER_MIN": "0"}


def run(dempact, case, out, end, threads, env_extra):
    env = dict(os.environ)
    for key in ("DEMPACT_BLOCK", "DEMPACT_PARALLEL_MIN", "DEMPACT_REORDER_MIN"):
        env.pop(key, None)
    env.update(env_extra)
    subprocess.run([dempact, "run", case, "--output", out, "--end-time", str(end),
                    "--threads", str(threads), "--quiet"], check=True, env=env)
    snaps = sorted(os.listdir(os.path.join(out, name_of(case) + ".d")))
    return (os.path.join(out, name_of(case) + ".d", snaps[-1]),
            os.path.join(out, name_of(case) + ".h5"))


def name_of(case):
    with open(case) as f:
        for line in f:
            if line.startswith("name:"):
                return line.split(":", 1)[1].strip()
    raise SystemExit(f"{case}: no name")


def by_id(path):
    """The particle and contact data of a snapshot, in an order set by ids."""
    with h5py.File(path, "r") as f:
        order = np.argsort(f["id"][()], kind="stable")
        data = {"id": f["id"][()][order]}
        for name in PARTICLE_FIELDS:
            data[name] = f[name][()][order]
        ends = f["contacts/id"][()]
        wall = f["contacts/wall"][()]
        corder = np.lexsort((ends[:, 1], ends[:, 0], wall))
        data["contacts/id"] = ends[corder]
        for name in CONTACT_FIELDS:
            if "contacts/" + name in f:
                data["contacts/" + name] = f["contacts/" + name][()][corder]
        data["contact count"] = len(ends)
        for name in ENGINE_FIELDS:
            data[name] = f[name][()]
    return data


def time_series(path):
    """Every time series: energies and their books, contacts, wall loads."""
    with h5py.File(path, "r") as f:
        return {"timeseries/" + name: f["timeseries"][name][()] for name in f["timeseries"]}


def differences(a, b):
    bad = [k for k in a if isinstance(a[k], np.ndarray)
           and (k not in b or a[k].shape != b[k].shape or a[k].tobytes() != b[k].tobytes())]
    if a.get("contact count") != b.get("contact count"):
        bad.append("contact count")
    return bad


def main():
    dempact, case, end = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(case) as f:
        text = f.read()
    if "parallel:" in text:
        raise SystemExit(f"{case}: give a case without a parallel: section")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for switch in (True, False):
            path = os.path.join(tmp, f"case_{switch}.yaml")
            with open(path, "w") as f:
                f.write(text)
                f.write(f"\nparallel: {{reproducible: {'true' if switch else 'false'}}}\n")
            runs = []
            for label, threads, env in (("plain", 1, {}), ("varied", 2, VARIANT_ENV)):
                snap, series = run(dempact, path, os.path.join(tmp, f"{switch}_{label}"),
                                   end, threads, env)
                runs.append((by_id(snap), time_series(series)))
            (pa, wa), (pb, wb) = runs
            results[switch] = (differences(pa, pb), differences(wa, wb), pa["contact count"])
    same, series_same, contacts = results[True]
    print(f"reproducible: {contacts} contacts at the end; snapshot fields differing: "
          f"{same or 'none'}; time series differing: {series_same or 'none'}")
    default_diff, _, _ = results[False]
    print(f"without it, fields differing: {default_diff or 'none'}")
    if contacts < 100:
        raise SystemExit("FAIL: too few contacts at the end to test anything")
    if same or series_same:
        raise SystemExit("FAIL: parallel.reproducible results depend on the numbering")
    if not default_diff:
        raise SystemExit("FAIL: the default sums gave the same bits too: the variation "
                         "does not change the order of any sum")
    print("ok")


if __name__ == "__main__":
    main()
