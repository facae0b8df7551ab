#!/usr/bin/env python3
"""When a snapshot holds the contact forces (docs/output.md, contacts@forces_recorded),
through `dempact run` on tests/data/e2e/blow_up_pair.yaml: two steel balls meet head on
with a step far above the stable limit, and the watchdog stops the run at the first step
in contact (step 2, between the snapshots every 100 steps).

1. As the case is: step 2 did not record the pairs' forces. The watchdog's last snapshot
   holds the contact (ids 0 and 1, its overlap from the positions) with NaN forces and
   says so (contacts@forces_recorded 0), while the first snapshot (step 0, recorded)
   says 1; the message names the deepest contact and prints no force for it.
2. With a snapshot due at step 2 (output_interval 2e-4 s): the step records, the last
   snapshot says forces_recorded 1, and its contact's force on i is the force on
   particle i, minus it on j: without gravity the contact is each ball's only force, so
   the two agree to within the rounding of the snapshot's split of the force into its
   normal and tangential parts (the particles' forces are summed by the force loop, the
   contact's is the recorded one). The message names the strongest contact with its
   force.

No generated inputs: two runs of two spheres, a second each.

Usage: unrecorded_forces.py DEMPACT CASE
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def run(dempact, case, out):
    p = subprocess.run([dempact, "run", case, "--output", out, "--quiet"], capture_output=True,
                       text=True)
    assert p.returncode == 4, f"exit status {p.returncode}, expected 4 (watchdog)\n{p.stderr}"
    return p.stderr


def snapshots(out):
    h5 = os.path.join(out, "blow_up_pair.h5")
    f = h5py.File(h5, "r")
    return f, [f["snapshots"][k] for k in sorted(f["snapshots"])]


def contact_force(c, r):
    return c["normal_force_vector"][r] + c["tangential_force"][r]


def main():
    dempact, case = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        # 1. stopped after a step that did not record
        out = os.path.join(tmp, "as_is")
        log = run(dempact, case, out)
        m = re.search(r"watchdog: step (\d+)", log)
        assert m and int(m.group(1)) == 2, f"the watchdog did not stop at step 2:\n{log}"
        assert "its deepest contact: with particle 1" in log, log
        contact = log.split("deepest contact:", 1)[1].split(";", 1)[0]
        assert "force" not in contact, f"an unrecorded contact's force is printed: {contact}"
        f, snaps = snapshots(out)
        with f:
            first, last = snaps[0], snaps[-1]
            assert int(first.attrs["step"]) == 0 and int(last.attrs["step"]) == 2
            assert int(first["contacts"].attrs["forces_recorded"]) == 1
            c = last["contacts"]
            assert int(c.attrs["forces_recorded"]) == 0, "the watchdog's snapshot claims its forces"
            assert int(c.attrs["n_contacts"]) == 1
            assert sorted(c["id"][0]) == [0, 1] and c["wall"][0] == 0
            x = last["position"][()]
            r = 0.005
            overlap = 2 * r - np.linalg.norm(x[1] - x[0])
            assert c["overlap"][0] == overlap and overlap > 0, (c["overlap"][0], overlap)
            for name in ("normal_force", "normal_force_vector", "tangential_force"):
                assert np.all(np.isnan(c[name][()])), f"{name} is not NaN: {c[name][()]}"
            print(f"1. stopped at step 2 unrecorded: overlap {overlap:.4g} m, forces NaN, "
                  "forces_recorded 0 (step 0: 1)")

        # 2. the same with a snapshot due at step 2
        with open(case) as src:
            text = src.read().replace("output_interval: 0.01", "output_interval: 2.0e-4")
        assert "2.0e-4" in text
        case2 = os.path.join(tmp, "blow_up_pair.yaml")
        with open(case2, "w") as dst:
            dst.write(text)
        with open(os.path.join(os.path.dirname(case), "blow_up_pair.csv")) as src, \
                open(os.path.join(tmp, "blow_up_pair.csv"), "w") as dst:
            dst.write(src.read())
        out = os.path.join(tmp, "due")
        log = run(dempact, case2, out)
        assert re.search(r"its strongest contact: with particle 1, [^;]*, force [0-9.e+]+ N", log), log
        f, snaps = snapshots(out)
        with f:
            last = snaps[-1]
            c = last["contacts"]
            assert int(last.attrs["step"]) == 2 and int(c.attrs["forces_recorded"]) == 1
            ids = list(last["id"][()])
            i, j = (ids.index(k) for k in c["id"][0])
            force = last["force"][()]
            fc = contact_force(c, 0)
            assert np.all(np.isfinite(fc)) and np.linalg.norm(fc) > 1e3, fc
            # the force on i is the contact's, on j minus it (up to the rounding of
            # splitting it into its normal and tangential parts and adding them again)
            assert np.allclose(force[i], fc, rtol=1e-12, atol=0), (force[i], fc)
            assert np.allclose(force[j], -fc, rtol=1e-12, atol=0), (force[j], fc)
            print(f"2. stopped at step 2 recorded: contact force {fc} N = particle {ids[i]}'s, "
                  f"minus particle {ids[j]}'s")


if __name__ == "__main__":
    main()
