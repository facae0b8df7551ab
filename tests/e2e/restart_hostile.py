#!/usr/bin/env python3
"""Hostile restart files, generated: every one must be refused cleanly.

usage: restart_hostile.py DEMPACT CASE [--count N] [--seed S] [--ranks R]

Runs CASE to three output intervals (its output holds every kind of restart data),
then builds N (default 300) broken copies of that output from the seed S (default 1):
each copy gets one to three hostile edits drawn from the generators below (attributes
out of range, not finite, inconsistent with each other or with the dataset sizes; an
unknown layout; datasets of the wrong shape or type, missing, or with values out of
range; links to other files; a case text or time series that is not the run's; inlet
and outlet states that would make the engine work forever). Each copy is restarted
from with `dempact run CASE --restart COPY --output NEW`, which must exit with status 2,
print a message naming the restart file, leave no sanitizer report, die of no signal,
and write nothing (NEW must not exist afterwards). Prints how many edits of each kind
were made. Under AddressSanitizer (.ci/run's second pass) this also checks that no edit
makes the reader touch memory it should not.

With --ranks R (an MPI build) the case sums by id (a copy with parallel.reproducible)
and each copy is restarted from on R ranks (mpirun) too, where each rank checks the
whole file and restores its share of it: the same exit status and the same message as
one process, and nothing written."""
import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

INF, NAN = float("inf"), float("nan")


class Output:
    """A copy of the base output: NAME.h5 and NAME.d/."""

    def __init__(self, folder, name):
        self.index = os.path.join(folder, name + ".h5")
        self.snapdir = os.path.join(folder, name + ".d")
        with h5py.File(self.index, "r") as f:
            self.count = len(f["snapshots"])
            self.dt = float(f.attrs["dt"])

    def snapshot(self, k):
        return os.path.join(self.snapdir, f"{k:06d}.h5")

    def last(self):
        return self.snapshot(self.count - 1)


def set_attr(path, obj, name, value, dtype=None):
    with h5py.File(path, "r+") as f:
        o = f[obj]
        if dtype is None:
            dtype = o.attrs[name].dtype if name in o.attrs else None
        o.attrs.create(name, value, dtype=dtype)


def del_attr(path, obj, name):
    with h5py.File(path, "r+") as f:
        del f[obj].attrs[name]


def edit_dataset(path, name, fn):
    """Replaces dataset `name` by fn(its values), same dtype."""
    with h5py.File(path, "r+") as f:
        d = f[name]
        v = np.array(d[()])
        attrs = dict(d.attrs)
        new = fn(v)
        del f[name]
        f.create_dataset(name, data=new)
        for k, a in attrs.items():
            f[name].attrs[k] = a


def set_element(rng, path, name, value, column=None):
    def fn(v):
        if v.size == 0:
            raise Skip()
        r = rng.randrange(v.shape[0])
        if v.ndim == 1:
            v[r] = value
        else:
            v[r, rng.randrange(v.shape[1]) if column is None else column] = value
        return v
    edit_dataset(path, name, fn)


class Skip(Exception):
    """The edit does not apply to this output (e.g. no contacts): draw another."""


def rows(path, name):
    with h5py.File(path, "r") as f:
        return f[name].shape[0] if name in f else 0


# ------------------------------------------------------------------- generators
# Each takes (rng, out) and breaks the output for sure.

def bad_format(rng, out):
    set_attr(out.index, "/", "format", rng.choice([0, 1, 4, 7, -1, 2**31 - 1]), dtype="<i4")


def no_format(rng, out):
    del_attr(out.index, "/", "format")


def bad_dt(rng, out):
    dt = out.dt
    set_attr(out.index, "/", "dt", rng.choice([NAN, INF, -INF, -dt, 0.0, 1e300, 1e3 * dt, 1e-7 * dt,
                                               dt * (1 + 1e-6), dt * (1 - 1e-6)]))


def no_dt(rng, out):
    del_attr(out.index, "/", "dt")


def bad_wall_names(rng, out):
    with h5py.File(out.index, "r+") as f:
        names = list(f.attrs["wall_names"])
        if rng.random() < 0.5:
            del f.attrs["wall_names"]
        else:
            f.attrs.create("wall_names", names + ["extra"], dtype=h5py.string_dtype())


def bad_case_text(rng, out):
    with h5py.File(out.index, "r+") as f:
        text = f["case_text"][()]
        text = text.decode() if isinstance(text, bytes) else str(text)
        del f["case_text"]
        how = rng.randrange(5)
        if how == 0:
            f["case_text"] = text.replace("restitution: 0.5", "restitution: 0.55")
        elif how == 1:
            f["case_text"] = np.arange(3)
        elif how == 2:
            f.create_dataset("case_text", data=[text, text], dtype=h5py.string_dtype())
        elif how == 3:  # the right text, but a variable-length string (the global heap)
            f.create_dataset("case_text", data=text, dtype=h5py.string_dtype())
        # how == 4: deleted


def bad_timeseries(rng, out):
    with h5py.File(out.index, "r+") as f:
        ts = f["timeseries"]
        n = len(ts["time"])
        how = rng.randrange(9)
        if how == 0:
            del f["timeseries"]
        elif how == 1:
            del ts[rng.choice(["time", "step", "kinetic_energy", "n_contacts", "wall_force"])]
        elif how == 2:
            name = rng.choice(["step", "elastic_energy", "max_overlap"])
            v = ts[name][()][: n - 1]
            del ts[name]
            ts[name] = v
        else:
            name, value = [("time", NAN), ("time", INF), ("time", 1e300), ("step", -5),
                           ("n_contacts", -1), ("kinetic_energy", INF)][how - 3]
            v = ts[name][()]
            v[rng.randrange(1, n)] = value
            ts[name][...] = v


def decreasing_steps(rng, out):
    with h5py.File(out.index, "r+") as f:
        s = f["timeseries/step"][()]
        k = rng.randrange(1, len(s))
        s[k] = s[k - 1] - 1
        f["timeseries/step"][...] = s


def bad_link(rng, out):
    k = rng.randrange(out.count)
    name = f"/snapshots/{k:06d}"
    stem = os.path.basename(out.snapdir)
    with h5py.File(out.index, "r+") as f:
        del f[name]
        how = rng.randrange(6)
        if how == 0:
            f[name] = h5py.ExternalLink("/etc/passwd", "/")
        elif how == 1:
            f[name] = h5py.ExternalLink(f"../{stem}/{k:06d}.h5", "/")
        elif how == 2:
            f[name] = h5py.ExternalLink(f"{stem}/{(k + 1) % out.count:06d}.h5", "/")
        elif how == 3:
            f[name] = h5py.ExternalLink(f"{stem}/{k:06d}.h5", "/engine")
        elif how == 4:
            f[name] = h5py.SoftLink("/timeseries")
        else:
            f[name] = h5py.ExternalLink(f"{stem}/{k:06d}.h5", "/")
            os.unlink(out.snapshot(k))


def bad_step(rng, out):
    k = rng.randrange(1, out.count)
    path = out.snapshot(k)
    with h5py.File(path, "r") as f:
        step = int(f.attrs["step"])
    with h5py.File(out.snapshot(k - 1), "r") as f:
        before = int(f.attrs["step"])
    set_attr(path, "/", "step", rng.choice([2**62, -1, -2**62, before, step + 1, step - 1]), dtype="<i8")


def bad_time(rng, out):
    k = rng.randrange(1, out.count)
    path = out.snapshot(k)
    with h5py.File(path, "r") as f:
        t = float(f.attrs["time"])
    set_attr(path, "/", "time", rng.choice([NAN, INF, -1.0, 1e300, t * (1 + 1e-6), -t]))


def bad_counts(rng, out):
    path = out.snapshot(rng.randrange(out.count))
    with h5py.File(path, "r") as f:
        n, m = int(f.attrs["n_particles"]), int(f["contacts"].attrs["n_contacts"])
    if rng.random() < 0.5:
        set_attr(path, "/", "n_particles", rng.choice([n + 1, n - 1, -1, 2**40, 2**62]), dtype="<i8")
    else:
        set_attr(path, "/contacts", "n_contacts", rng.choice([m + 1, -5, 2**40]), dtype="<i8")


def bad_particle_value(rng, out):
    path = out.last()
    name, values = rng.choice([
        ("position", [NAN, INF, -INF, 1e300, -1e300, 10.0]),
        ("velocity", [NAN, INF, 1e300, 1e12]),
        ("angular_velocity", [NAN, -INF, 1e300, 1e15]),
        ("force", [NAN, INF, 1e300]),
        ("torque", [NAN, INF, 1e300]),
        ("position_at_rebuild", [NAN, -INF, 1e300, 10.0]),
        ("radius", [NAN, INF, -1e-3, 0.0, 1.0]),
        ("mass", [NAN, 0.0, -1.0, INF]),
        ("id", [-1, 2**40, 2**62]),
        ("type", [-1, 99, 2**30]),
    ])
    set_element(rng, path, name, rng.choice(values))


def duplicate_id(rng, out):
    def fn(v):
        a, b = rng.sample(range(len(v)), 2)
        v[a] = v[b]
        return v
    edit_dataset(out.last(), "id", fn)


def bad_contact_value(rng, out):
    path = out.last()
    if rows(path, "contacts/id") == 0:
        raise Skip()
    name, values, column = rng.choice([
        ("contacts/id", [-1, 10**9, 2**62], None),
        ("contacts/wall", [2, 7, 255], None),
        ("contacts/slot", [-1, 2**40], None),
        ("contacts/ended", [3, 7, 255], None),
        ("contacts/law_history", [NAN, INF], None),
        ("contacts/tangential_spring", [NAN, -INF], None),
        ("contacts/rolling_spring", [INF], None),
        ("contacts/impact_velocity", [NAN], None),
        ("contacts/tangential_slip", [3.0, -1.0, 0.5, NAN], 0),
        ("contacts/tangential_slip", [NAN, INF], 1),
    ])
    set_element(rng, path, name, rng.choice(values), column)


def wall_contact_of_no_wall(rng, out):
    path = out.last()
    with h5py.File(path, "r+") as f:
        wall = f["contacts/wall"][()]
        ids = f["contacts/id"][()]
        hits = np.nonzero(wall)[0]
        if len(hits) == 0:
            raise Skip()
        ids[rng.choice(hits), 1] = rng.choice([2, 3, 99, -1])
        f["contacts/id"][...] = ids


def bad_shape_or_type(rng, out):
    path = out.last()
    name = rng.choice(["position", "velocity", "id", "radius", "contacts/id", "contacts/slot", "engine/work",
                       "vertex_index", "walls/triangles"])
    with h5py.File(path, "r+") as f:
        v = f[name][()]
        del f[name]
        how = rng.randrange(4)
        if how == 0 and name != "vertex_index":  # a row more (vertex_index may be longer)
            f[name] = np.concatenate([v, v[:1]]) if len(v) else np.zeros((1,) + v.shape[1:], v.dtype)
        elif how == 1 and v.ndim == 2:  # a column fewer
            f[name] = v[:, :-1]
        elif how == 2:  # strings
            f.create_dataset(name, data=["x"] * max(len(v), 1), dtype=h5py.string_dtype())
        elif how == 3 and len(v) > 1:
            f[name] = v[:-1]
        # else: deleted


def wrong_number_type(rng, out):
    """A dataset the .xmf files read stored with another number type (ParaView would read
    its bytes as the documented type)."""
    path = out.snapshot(rng.randrange(out.count))
    name, dtype = rng.choice([("position", np.float32), ("radius", np.int64), ("id", np.float64),
                              ("type", np.int64), ("vertex_index", np.int32), ("contacts/normal_force", np.float32),
                              ("contacts/wall", np.int32), ("walls/triangles", np.int32),
                              ("walls/vertices", np.float32), ("n_contacts", np.int64)])
    with h5py.File(path, "r+") as f:
        v = f[name][()]
        del f[name]
        f[name] = v.astype(dtype)


def scrambled_vertex_index(rng, out):
    path = out.snapshot(rng.randrange(out.count))
    def fn(v):
        v[rng.randrange(len(v))] = rng.choice([-1, 10**6, len(v)])
        return v
    edit_dataset(path, "vertex_index", fn)


def missing_group(rng, out):
    with h5py.File(out.last(), "r+") as f:
        del f[rng.choice(["contacts", "engine", "position", "velocity", "contacts/slot", "engine/inlets"])]


def bad_engine(rng, out):
    path = out.last()
    with h5py.File(path, "r") as f:
        t = float(f.attrs["time"])
    how = rng.randrange(6)
    if how == 0:
        set_attr(path, "/engine", "next_id", rng.choice([-1, 0, 2**40, 2**62]), dtype="<i8")
    elif how == 1:
        set_attr(path, "/engine", "rebuild_wall_time", rng.choice([INF, -INF, -1.0, t + 1.0, 1e300]))
    else:
        name = ["engine/work", "engine/wall_work", "engine/wall_work_sum", "engine/work"][how - 2]
        set_element(rng, path, name, rng.choice([NAN, INF, -INF]))


# engine/inlets and engine/outlets: one row per inlet (outlet) with named members
# (io/output/population_h5.h); older files held the engine's bytes of the same states (uint8),
# which a restart still reads: a state cut short is written that way.
INLET = struct.Struct("<Qdddqqd")


def bad_inlet(rng, out):
    path = out.last()
    with h5py.File(path, "r+") as f:
        states = f["engine/inlets"][()]
        assert len(states) == 1, "the case has one inlet"
        how = rng.randrange(7)
        field, value = [("owed", rng.choice([1e18, NAN, -1.0, 1e9])),
                        ("rate", float(states["rate"][0]) * rng.choice([2.0, 0.5, 1e12])),
                        ("next_time", rng.choice([NAN, -1.0, INF, 1e300])),
                        ("inserted", rng.choice([-1, 2**62])),
                        ("failed", -rng.randrange(1, 10)),
                        ("mass_inserted", rng.choice([NAN, -1.0, INF])),
                        (None, None)][how]
        if field:
            states[field][0] = value
            f["engine/inlets"][...] = states
            return
        data = INLET.pack(*(states[n][0].item() for n in states.dtype.names))[:-8]
        attrs = dict(f["engine/inlets"].attrs)
        del f["engine/inlets"]
        f["engine/inlets"] = np.frombuffer(data, dtype=np.uint8)
        for k, a in attrs.items():
            f["engine/inlets"].attrs[k] = a


def bad_outlet(rng, out):
    path = out.last()
    with h5py.File(path, "r+") as f:
        states = f["engine/outlets"][()]
        if rng.random() < 0.5:
            states["removed"][0] = rng.choice([-1, 2**62])
        else:
            states["mass_removed"][0] = rng.choice([NAN, -1.0, INF])
        f["engine/outlets"][...] = states


def not_hdf5(rng, out):
    target = rng.choice([out.index, out.last()])
    with open(target, "r+b") as f:
        if rng.random() < 0.5:
            f.truncate(rng.randrange(0, 600))
        else:
            f.seek(0)
            f.write(b"not HDF5 at all\n")


GENERATORS = [bad_format, no_format, bad_dt, no_dt, bad_wall_names, bad_case_text, bad_timeseries,
              decreasing_steps, bad_link, bad_step, bad_time, bad_counts, bad_particle_value, duplicate_id,
              bad_contact_value, wall_contact_of_no_wall, bad_shape_or_type, wrong_number_type,
              scrambled_vertex_index, missing_group, bad_engine,
              bad_inlet, bad_outlet, not_hdf5]


def legacy_states_restart(a, base, name, work, env, interval):
    """The base output with its inlet and outlet states rewritten as older files held them
    (the engine's bytes, uint8) restarts to the same bits as the table form."""
    legacy = os.path.join(work, "legacy")
    shutil.copytree(base, legacy)
    with h5py.File(Output(legacy, name).last(), "r+") as f:
        for k in ("engine/inlets", "engine/outlets"):
            states, attrs = f[k][()], dict(f[k].attrs)
            assert states.dtype.names, f"{k} is not a table of states"
            del f[k]
            f[k] = np.frombuffer(states.tobytes(), dtype=np.uint8)
            for n, v in attrs.items():
                f[k].attrs[n] = v
    finals = []
    for src, dst in ((base, "from_table"), (legacy, "from_bytes")):
        dst = os.path.join(work, dst)
        subprocess.run([a.dempact, "run", a.case, "--restart", os.path.join(src, name + ".h5"), "--output",
                        dst, "--quiet", "--end-time", str(4 * interval)], env=env, check=True)
        with h5py.File(Output(dst, name).last(), "r") as f:
            finals.append((f["id"][()], f["position"][()], f["velocity"][()], f["engine/inlets"][()]))
    for x, y in zip(*finals):
        if x.tobytes() != y.tobytes():
            sys.exit("FAIL: a restart from the states as bytes differs from one from the table")
    print(f"the states as bytes restart like the table: {len(finals[0][0])} particles bit-identical")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dempact")
    p.add_argument("case")
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ranks", type=int, default=0)
    a = p.parse_args()
    mpirun = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--mca", "odls_base_sigkill_timeout", "0",
              "-np", str(a.ranks)]
    name = next(l.split(":", 1)[1].strip() for l in open(a.case) if l.startswith("name:"))
    interval = float(next(l.split("output_interval:")[1].split("}")[0].split(",")[0]
                          for l in open(a.case) if "output_interval:" in l))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    counts = {g.__name__: 0 for g in GENERATORS}
    with tempfile.TemporaryDirectory() as work:
        if a.ranks:
            summing = os.path.join(work, os.path.basename(a.case))
            with open(summing, "w") as f:
                f.write("parallel: {reproducible: true}\n" + open(a.case).read())
            a.case = summing
        base = os.path.join(work, "base")
        subprocess.run([a.dempact, "run", a.case, "--output", base, "--quiet", "--end-time", str(3 * interval)],
                       check=True, env=env)
        # the base output restarts: the edits, not the file, make the refusals
        r = subprocess.run([a.dempact, "run", a.case, "--restart", os.path.join(base, name + ".h5"), "--output",
                            os.path.join(work, "check"), "--quiet", "--end-time", str(3.5 * interval)],
                           env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: the unbroken output does not restart: {r.stderr}")
        legacy_states_restart(a, base, name, work, env, interval)
        made = 0
        attempt = 0
        while made < a.count:
            attempt += 1
            rng = random.Random(a.seed * 1000003 + attempt)
            copy = os.path.join(work, f"copy{made}")
            shutil.copytree(base, copy)
            out = Output(copy, name)
            edits = []
            try:
                for _ in range(rng.choice([1, 1, 1, 2, 3])):
                    g = rng.choice(GENERATORS)
                    g(rng, out)
                    edits.append(g.__name__)
            except Skip:
                if not edits:
                    shutil.rmtree(copy)
                    continue
            except (OSError, KeyError, ValueError, TypeError, AttributeError):  # an edit made the next impossible
                if not edits:
                    raise
            new = os.path.join(work, f"new{made}")
            r = subprocess.run([a.dempact, "run", a.case, "--restart", out.index, "--output", new, "--quiet"],
                               env=env, capture_output=True, text=True, timeout=120)
            what = f"copy {made} (seed {a.seed}, attempt {attempt}, edits {', '.join(edits)})"
            if r.returncode < 0:
                sys.exit(f"FAIL: {what}: dempact died of signal {-r.returncode}\n{r.stderr}")
            if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
                sys.exit(f"FAIL: {what}: sanitizer report\n{r.stderr}")
            if r.returncode != 2:
                sys.exit(f"FAIL: {what}: exit status {r.returncode}, expected 2\n{r.stderr}")
            if out.index not in r.stderr:
                sys.exit(f"FAIL: {what}: the message does not name {out.index}:\n{r.stderr}")
            if os.path.exists(new):
                sys.exit(f"FAIL: {what}: the refused restart wrote {new}")
            if a.ranks:
                m = subprocess.run(mpirun + [a.dempact, "run", a.case, "--restart", out.index, "--output", new,
                                             "--quiet"], env=env, capture_output=True, text=True, timeout=120)
                first, first_m = r.stderr.split("\n")[0], m.stderr.split("\n")[0]
                if m.returncode != r.returncode or first_m != first:
                    sys.exit(f"FAIL: {what}: on {a.ranks} ranks exit {m.returncode} with\n  {first_m}\n"
                             f"one process: exit {r.returncode} with\n  {first}")
                if os.path.exists(new):
                    sys.exit(f"FAIL: {what}: the refused restart on {a.ranks} ranks wrote {new}")
            for e in edits:
                counts[e] += 1
            shutil.rmtree(copy)
            made += 1
    print(f"{made} hostile restart files (seed {a.seed}), each refused with exit 2 and a message naming it"
          + (f", on {a.ranks} ranks too with the same message" if a.ranks else "")
          + ", nothing written; edits: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
