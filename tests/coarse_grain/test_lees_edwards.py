#!/usr/bin/env python3
"""tools/coarse_grain --box on a Lees-Edwards snapshot (docs/coarse-graining.md, "A sheared
cell"), against a virial computed by hand.

The test writes with h5py a dempact-like run of a cell 10 x 10 x 10 mm, periodic in x, y
and z, sheared at gdot = 20 1/s (domain.lees_edwards), whose one snapshot has an offset
of 3.7 mm (the image above the top z face shifted by +3.7 mm along x) and three spheres:
- i near the top face and j near the bottom, touching through the top face: j's image
  above the top face stands at x_j + offset. Their branch l is chosen first and j placed
  from it, so l is known without any image rule. The snapshot's `endpoints` hold j's
  plain periodic image (no offset), which is not j's contact image, and the minimum
  image of the plain positions is the same wrong branch: a tool that takes either gets a
  contact stress off by twice its largest component (the test says by how much);
- k touching i inside the cell;
- each sphere has the streaming velocity gdot (z - z_centre) along x plus a fluctuation;
  the kinetic stress is that of the fluctuations about their mean (about the streaming
  profile), which the streaming part (gdot L / 2 = 0.1 m/s against fluctuations of
  0.01 m/s) would otherwise swamp by a factor of about 100.

The expected box stress, (1/V) (sum_p m u'_p (x) u'_p - sum_c f_c (x) l_c), is computed
here from the chosen branches and fluctuations; the program's must equal it to 1e-12 of
its largest component. Then --profile z and --grid on the same run, whose snapshot has no
engine@lees_edwards (the offset and the height they need), must be refused (exit 2, one
line naming the run and --box, nothing written). test_lees_edwards_fields.py checks the
grid and the profile of a sheared cell.

Then a real sheared cell: dempact runs 300 spheres at phi 0.56 through half a unit of
strain in its Lees-Edwards cell, and each snapshot's box stress from coarse_grain must
equal the engine's own at the same step (the time series' shear_stress, normal_stress and
mean_stress, summed at the force evaluation with the images the engine built) within
1e-12 of the largest (1.2e-15 seen); the snapshots must hold contacts across the z
faces. About 3 s in all.
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
L = 0.010
GDOT = 20.0
OFFSET = 0.0037
R = 0.001
RHO = 2500.0
sys.path.insert(0, HERE)
from checks import check, exit_status, program  # noqa: E402


CASE = """name: le_cell
domain:
  min: [0, 0, 0]
  max: [{L}, {L}, {L}]
  periodic: [true, true, true]
  lees_edwards:
    shear_rate: {g}
""".format(L=L, g=GDOT)


def cell():
    """The three spheres, their contacts and the branches chosen for them."""
    mass = RHO * 4.0 / 3.0 * np.pi * R ** 3
    xi = np.array([0.0050, 0.0050, 0.0095])
    l_ij = np.array([0.0012, 0.0003, 0.0013])
    l_ij *= (2 * R - 1.0e-4) / np.linalg.norm(l_ij)          # overlap 0.1 mm
    image_j = xi + l_ij                                        # above the top face
    xj = image_j - np.array([OFFSET, 0.0, L])                  # the particle itself, in the cell
    xj[0] %= L
    l_ik = np.array([-0.0011, 0.0009, -0.0012])
    l_ik *= (2 * R - 0.5e-4) / np.linalg.norm(l_ik)
    xk = xi + l_ik
    pos = np.array([xi, xj, xk])
    fluct = np.array([[0.011, -0.004, 0.007], [-0.006, 0.009, -0.012], [0.002, 0.005, 0.004]])
    vel = fluct.copy()
    vel[:, 0] += GDOT * (pos[:, 2] - L / 2)
    branches = np.array([l_ij, l_ik])
    normals = branches / np.linalg.norm(branches, axis=1)[:, None]
    overlaps = 2 * R - np.linalg.norm(branches, axis=1)
    # forces on i: repulsion along -n plus a tangential part
    fn = -np.array([[0.8], [0.5]]) * normals
    t = np.cross(normals, [0.0, 1.0, 0.0])
    t /= np.linalg.norm(t, axis=1)[:, None]
    ft = np.array([[0.3], [-0.2]]) * t
    plain_j = xj.copy()                                        # the image without the offset
    plain_j[2] += L
    ends = np.array([xi, plain_j, xi, xk])
    return dict(mass=np.full(3, mass), pos=pos, vel=vel, fluct=fluct, branches=branches, normals=normals,
                overlaps=overlaps, fn=fn, ft=ft, ends=ends)


def write_run(path, c):
    with h5py.File(path, "w") as f:
        f["case_text"] = CASE
        s = f.create_group("snapshots/000000")
        s.attrs["time"] = 0.5
        s.attrs["step"] = np.int64(1000)
        s.attrs["n_particles"] = np.int64(3)
        s["id"] = np.array([1, 2, 3], dtype=np.int64)
        s["radius"] = np.full(3, R)
        s["mass"] = c["mass"]
        s["position"] = c["pos"]
        s["velocity"] = c["vel"]
        le = s.create_group("lees_edwards")
        le["offset"] = OFFSET
        le["shear_rate"] = GDOT
        k = s.create_group("contacts")
        k.attrs["n_contacts"] = np.int64(2)
        k["id"] = np.array([[1, 2], [1, 3]], dtype=np.int64)
        k["wall"] = np.zeros(2, dtype=np.uint8)
        k["ended"] = np.zeros(2, dtype=np.uint8)
        k["endpoints"] = c["ends"]
        k["point"] = c["pos"][0] + c["normals"] * (R - c["overlaps"][:, None] / 2)
        k["normal"] = c["normals"]
        k["overlap"] = c["overlaps"]
        k["normal_force"] = np.linalg.norm(c["fn"], axis=1)
        k["normal_force_vector"] = c["fn"]
        k["tangential_force"] = c["ft"]


def expected(c):
    v = L ** 3
    m = c["mass"]
    u = c["fluct"] - (m[:, None] * c["fluct"]).sum(0) / m.sum()
    kinetic = np.einsum("p,pa,pb->ab", m, u, u) / v
    f = c["fn"] + c["ft"]
    contact = -np.einsum("ca,cb->ab", f, c["branches"]) / v
    return kinetic, contact


def dempact_program():
    return os.environ.get("DEMPACT_PROGRAM") or os.path.join(ROOT, "build", "dempact")


def engine_check():
    """A real sheared cell: 300 spheres at phi 0.56 sheared by dempact's Lees-Edwards
    boundaries for half a unit of strain (tools/mu_of_i.py's cell), its snapshots' box
    stress from coarse_grain against the engine's own at the same step (the time series'
    shear_stress, normal_stress, mean_stress: snapshots fall on sample steps), which the
    engine sums at the step's force evaluation with the image branches it built itself."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import mu_of_i
    with tempfile.TemporaryDirectory() as work:
        pt = mu_of_i.Point(0.56, 35.0, 300)
        pos, rad = mu_of_i.pack(300, pt.side, 2)
        vel = np.zeros_like(pos)
        vel[:, 0] = pt.gdot * (pos[:, 2] - pt.side / 2)
        mu_of_i.write_csv(os.path.join(work, "cell.csv"), pos, rad, vel)
        with open(os.path.join(work, "shear.yaml"), "w") as f:
            f.write(mu_of_i.dempact_case_text(pt, 0.5))
        done = subprocess.run([dempact_program(), "run", "shear.yaml", "--output", "out", "--quiet"], cwd=work,
                              capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        check(done.returncode == 0, "dempact runs the sheared cell (exit %d) %s" % (done.returncode,
                                                                                 done.stderr.strip()[-300:]))
        if done.returncode != 0:
            return
        run = os.path.join(work, "out", "shear.h5")
        with h5py.File(run, "r") as f:
            ts = {k: f["timeseries"][k][()] for k in ("step", "shear_stress", "normal_stress", "mean_stress")}
            snaps = [(k, float(g.attrs["time"]), int(g.attrs["step"]), np.array(g["contacts/endpoints"][()]),
                      int(g["contacts"].attrs["n_contacts"])) for k, g in sorted(f["snapshots"].items())]
        worst, crossing, compared = 0.0, 0, 0
        for name, t, step, ends, m in snaps[1:]:
            row = np.flatnonzero(ts["step"] == step)
            if len(row) != 1:
                continue
            engine = np.array([ts["shear_stress"][row[0]], ts["normal_stress"][row[0]], ts["mean_stress"][row[0]]])
            out = os.path.join(work, "box.h5")
            done = subprocess.run([program(), run, "--out", out, "--width", "0.002", "--box", "--from", repr(t),
                                   "--to", repr(t)], capture_output=True, text=True)
            if done.returncode != 0:
                check(False, "coarse_grain --box on snapshot %s: %s" % (name, done.stderr.strip()))
                return
            with h5py.File(out, "r") as g:
                st = g["fields/stress"][()].reshape(3, 3)
            mine = np.array([-st[0, 2], st[2, 2], np.trace(st) / 3])
            worst = max(worst, np.abs(mine - engine).max() / np.abs(engine).max())
            compared += 1
            zj = ends[1::2, 2] if m else np.zeros(0)   # j's end: its image beside i
            crossing += int(np.sum((zj < 0) | (zj >= pt.side)))
        check(compared >= 10 and worst < 1e-12,
              "box stress of %d snapshots = the engine's time series at the same steps (-sigma_xz, sigma_zz, "
              "trace/3) within %.1e of the largest (1e-12 allowed)" % (
                  compared, worst))
        check(crossing > 0, "the snapshots hold %d contacts across the sliding z faces" % crossing)


def main():
    c = cell()
    kinetic, contact = expected(c)
    # the wrong branches a tool without the offset would take, to show the test can tell
    plain = c["ends"][1] - c["ends"][0]
    mini = c["pos"][1] - c["pos"][0]
    mini -= L * np.round(mini / L)
    f = c["fn"] + c["ft"]
    for name, l in (("endpoints", plain), ("plain minimum image", mini)):
        wrong = contact.copy()
        wrong += (np.outer(f[0], c["branches"][0]) - np.outer(f[0], l)) / L ** 3
        check(np.abs(wrong - contact).max() > 0.1 * np.abs(contact).max(),
              "the %s branch would change the contact stress by more than 10 %% (%.3g of the largest)" % (
                  name, np.abs(wrong - contact).max() / np.abs(contact).max()))
    with tempfile.TemporaryDirectory() as work:
        run = os.path.join(work, "le_cell.h5")
        write_run(run, c)
        out = os.path.join(work, "box.h5")
        done = subprocess.run([program(), run, "--out", out, "--width", "0.001", "--box"],
                              capture_output=True, text=True)
        check(done.returncode == 0, "coarse_grain --box on a Lees-Edwards run: exit %d %s" % (
            done.returncode, done.stderr.strip()))
        if done.returncode == 0:
            with h5py.File(out, "r") as g:
                got_k = g["fields/kinetic_stress"][()].reshape(3, 3)
                got_c = g["fields/contact_stress"][()].reshape(3, 3)
                got_s = g["fields/stress"][()].reshape(3, 3)
            scale = np.abs(contact).max()
            check(np.abs(got_c - contact).max() <= 1e-12 * scale,
                  "contact stress = -(1/V) sum f (x) l with the Lees-Edwards branch (largest difference %.2g of %.3g Pa)"
                  % (np.abs(got_c - contact).max(), scale))
            check(np.abs(got_k - kinetic).max() <= 1e-12 * np.abs(kinetic).max(),
                  "kinetic stress about the streaming profile (largest difference %.2g of %.3g Pa)" % (
                      np.abs(got_k - kinetic).max(), np.abs(kinetic).max()))
            check(np.abs(got_s - kinetic - contact).max() <= 1e-12 * scale, "stress = kinetic + contact")
        for mode in (["--profile", "z", "--bins", "10"], ["--grid", "2,2,2"]):
            bad = os.path.join(work, "bad.h5")
            done = subprocess.run([program(), run, "--out", bad, "--width", "0.001"] + mode,
                                  capture_output=True, text=True)
            msg = done.stderr.strip()
            check(done.returncode == 2 and "\n" not in msg and "--box" in msg and run in msg
                  and not os.path.exists(bad), "%s on a Lees-Edwards run refused: %s" % (mode[0], msg))
    engine_check()
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
