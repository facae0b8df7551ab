#!/usr/bin/env python3
"""tools/coarse_grain --profile z and --grid on a steady sheared cell (docs/coarse-graining.md,
"A sheared cell"): the fields through the sliding z faces.

dempact shears 300 spheres at phi 0.56 (tools/mu_of_i.py's cell: a periodic cube of side
L = 16.4 mm, 6.6 mean diameters d, Lees-Edwards at gdot = 35 1/s, constant volume) through
12 units of strain with 120 snapshots (about 11 s). The first 2 units are left out (the
transient); the window holds 100 snapshots. Profiles along z of 40 bins, Gaussian kernel
w = d/2, whose cutoff 3w = 1.5 d reaches through the faces from the 9 bins next to each.

1. v_x(z) is linear with slope gdot: the least-squares slope of the window's profile
   within 5 % of the imposed rate. The slope's standard error over 5 blocks of 2 units of
   strain is about 1.1 % (printed): 5 % is about 4.5 errors. (The mean gradient over one
   period is gdot exactly, v_x(top) = v_x(bottom) + U through the faces; a fit over z
   weighs the middle less than the faces, so it tells a profile bent at the faces.)
2. Momentum balance in steady simple shear, d(sigma_xz)/dz = 0: tau = -sigma_xz(z)
   uniform, every bin within 5 % of the profile's mean (1.4 % seen: the bins' statistical
   error is 1 to 3 %). And on one snapshot the profile's mean over its bins equals the box
   average (--box, the virial) for every linear field: the contact stress, density and
   fabric to 1e-8 of the largest with Lucy's kernel on 400 bins (the bins' sum of a
   kernel is its integral to the midpoint rule's error, O(h^4) for Lucy's: 1e-11 seen)
   and 2e-4 with the Gaussian (cut off at 3w, a jump of W(3w) = 0.0044/w there: the sum
   is off by h W(3w) = 1.5e-4 at most for any one particle; 1.3e-5 seen). The kinetic
   stress is about the local mean u(z) of the velocity less the streaming profile, the
   box's about the box mean u_box: the profile's trace is the smaller, by the spread of
   the local mean, (1/H) int rho |u - u_box|^2 dz (2 to 17 % of the box's trace from one
   snapshot to the next). That spread, taken from the profile's own density and velocity,
   accounts for the difference within 1 % of the box's trace (it is exact but for the
   kernel's first moment over a density gradient: 0.2 % seen), and the profile's whole
   stress plus it is the box's within 1e-3 of the largest.
3. No jump at the faces: v_x, density, tau and sigma_zz in the bins next to the faces
   against the interior. The step from the top bin through the face to the bottom one,
   v_x(bottom) + U - v_x(top), within 2 % of U of the interior's mean step; density, tau,
   sigma_zz in the two face bins within 4 % of the interior's mean (bins 3w and more from
   the faces; 2.5 % seen in the density's layering).
4. The offset: the same particles cut into a cell by other faces (the bottom half of the
   last snapshot moved up to its images, x + offset, z + H, v_x + U, then z - H/2: the
   faces now at the former mid-height) are the same infinite sheared packing, so a grid
   (8 x 8 x 16, w = d/2) of the new cell equals the old one's upper half, shifted by H/2:
   where the old grid's kernel reaches through the top face onto images shifted by the
   offset, the new one's sees the particles themselves, inside. Every field within 1e-9
   of its largest.
5. The height (a barostat moves it): the last snapshot and it again stretched along z by
   1.25 (engine@lees_edwards's height too) as one window: its points at the fractions of
   the mean height, its profile the mean of each snapshot's at the same fractions z/H to
   1e-12, and its density summed over the bins (M/2A)(1/h_1 + 1/h_2) to 1e-8 (Lucy's
   kernel, 400 bins): each snapshot's bins span its own height.

A tool that ignores the offset (images at x, z +- H) fails 4; one that takes the images
with the velocity unshifted fails 1 and 3; one that treats z as a plain periodic axis
fails 1 and 3; one without images through z fails 2 and 3 (docs/coarse-graining.md, "How
it is checked", has the numbers). About 25 s.
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from checks import check, exit_status, program  # noqa: E402

GDOT, PHI, N, STRAIN, SNAPSHOTS, SKIP = 35.0, 0.56, 300, 12.0, 120, 2.0


def dempact_program():
    return os.environ.get("DEMPACT_PROGRAM") or os.path.join(ROOT, "build", "dempact")


def shear_run(work):
    """The sheared cell's run file, its side and the steady window's first time."""
    import lammps_packing as lp
    import mu_of_i
    pt = mu_of_i.Point(PHI, GDOT, N)
    pos, rad = mu_of_i.pack(N, pt.side, 2)
    vel = np.zeros_like(pos)
    vel[:, 0] = pt.gdot * (pos[:, 2] - pt.side / 2)
    mu_of_i.write_csv(os.path.join(work, "cell.csv"), pos, rad, vel)
    steps, every = mu_of_i.steps_of(pt, STRAIN)
    snap = max(1, steps // (every * SNAPSHOTS)) * every
    text = re.sub(r"output_interval: .*", "output_interval: %s" % lp.g17(snap * pt.dt),
                  mu_of_i.dempact_case_text(pt, STRAIN))
    with open(os.path.join(work, "shear.yaml"), "w") as f:
        f.write(text)
    done = subprocess.run([dempact_program(), "run", "shear.yaml", "--output", "out", "--quiet"], cwd=work,
                          capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if done.returncode != 0:
        sys.exit("dempact failed on the sheared cell (exit %d): %s" % (done.returncode, done.stderr[-500:]))
    return os.path.join(work, "out", "shear.h5"), pt.side, mu_of_i.D_MEAN


def fields(run, out, *args):
    done = subprocess.run([program(), run, "--out", out] + [str(a) for a in args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("coarse_grain %s: %s" % (" ".join(map(str, args)), done.stderr.strip()))
    out_f = {}
    with h5py.File(out, "r") as f:
        for k, v in f["fields"].items():
            a = np.asarray(v[()])
            out_f[k] = a.reshape(a.shape[:-1] + (3, 3)) if a.shape and a.shape[-1] == 9 else a
        for k, v in f["coordinates"].items():
            out_f[k] = np.asarray(v[()])
    return out_f


def profile_checks(run, work, side, d, t0, times):
    w = d / 2
    p = fields(run, os.path.join(work, "p.h5"), "--width", w, "--profile", "z", "--bins", 40, "--from", t0)
    z, vx = p["z"], p["velocity"][:, 0]
    u_speed = GDOT * side
    slope, icpt = np.polyfit(z, vx, 1)
    blocks = [b for b in np.array_split(times[times >= t0], 5)]
    block_slopes = []
    for b in blocks:
        q = fields(run, os.path.join(work, "q.h5"), "--width", w, "--profile", "z", "--bins", 40, "--from", b[0],
                   "--to", b[-1])
        block_slopes.append(np.polyfit(q["z"], q["velocity"][:, 0], 1)[0])
    se = np.std(block_slopes, ddof=1) / np.sqrt(len(block_slopes))
    check(abs(slope / GDOT - 1) < 0.05,
          "1. v_x(z) slope %.3f 1/s = shear rate %.1f within 5 %% (%.2f %%; standard error over 5 blocks %.2f %%)"
          % (slope, GDOT, 100 * (slope / GDOT - 1), 100 * se / GDOT))
    tau = -p["stress"][:, 0, 2]
    check(np.abs(tau / tau.mean() - 1).max() < 0.05,
          "2. tau(z) = -sigma_xz uniform: every bin within 5 %% of its mean %.2f Pa (%.2f %% at most)"
          % (tau.mean(), 100 * np.abs(tau / tau.mean() - 1).max()))
    # 3. the faces
    h = z[1] - z[0]
    steps = np.diff(vx)
    face_step = vx[0] + u_speed - vx[-1]
    check(abs(face_step - steps.mean()) < 0.02 * u_speed,
          "3. v_x through the faces: v(bottom) + U - v(top) = %.4f m/s, the interior's step %.4f m/s "
          "(%.2f %% of U = %.3f m/s; 2 %% allowed)" % (face_step, steps.mean(),
                                                     100 * abs(face_step - steps.mean()) / u_speed, u_speed))
    inner = (z > z[0] - h / 2 + 3 * w) & (z < z[-1] + h / 2 - 3 * w)
    for name, f in (("density", p["density"]), ("tau", tau), ("sigma_zz", p["stress"][:, 2, 2])):
        dev = max(abs(f[0] / f[inner].mean() - 1), abs(f[-1] / f[inner].mean() - 1))
        check(dev < 0.04, "3. %s in the bins next to the faces within 4 %% of the interior's mean (%.2f %%)"
              % (name, 100 * dev))


def box_identity(run, work, d, t):
    for kernel, bins, tol in (("lucy", 400, 1e-8), ("gauss", 400, 2e-4)):
        p = fields(run, os.path.join(work, "p.h5"), "--width", d / 2, "--kernel", kernel, "--profile", "z", "--bins",
                   bins, "--from", t, "--to", t)
        b = fields(run, os.path.join(work, "b.h5"), "--width", d / 2, "--kernel", kernel, "--box", "--from", t,
                   "--to", t)
        for name in ("contact_stress", "density", "fabric"):
            err = np.abs(p[name].mean(0) - b[name]).max() / np.abs(b[name]).max()
            check(err < tol, "2. %s %d bins: the profile's mean %s = the box's within %.0e (%.1e)"
                  % (kernel, bins, name, tol, err))
        # the kinetic stresses differ by the local mean's spread about the box's mean
        # (docstring, 2): (1/H) int rho (u - u_box) (x) (u - u_box) dz, u = v - gdot (z - z_c) e_x
        u = p["velocity"].copy()
        u[:, 0] -= GDOT * p["z"]
        rho = p["density"]
        spread = u - (rho[:, None] * u).sum(0) / rho.sum()
        between = np.einsum("k,ka,kb->ab", rho, spread, spread) / len(rho)
        kp, kb = np.trace(p["kinetic_stress"].mean(0)), np.trace(b["kinetic_stress"])
        check(kp <= kb and abs(kb - kp - np.trace(between)) < 0.01 * kb,
              "2. %s: the profile's mean kinetic stress trace %.4f Pa <= the box's %.4f, less by the local "
              "mean's spread %.4f Pa within 1 %% of the box's (%.2f %%)"
              % (kernel, kp, kb, np.trace(between), 100 * abs(kb - kp - np.trace(between)) / kb))
        err = np.abs(p["stress"].mean(0) + between - b["stress"]).max() / np.abs(b["stress"]).max()
        check(err < 1e-3, "2. %s: the profile's mean stress + that spread = the box's within 1e-3 (%.1e)"
              % (kernel, err))


def relabel(run, out):
    """The last snapshot of run cut by faces at its mid-height, written as a run of one
    snapshot: returns nothing; out holds it."""
    with h5py.File(run, "r") as f, h5py.File(out, "w") as g:
        f.copy(f["case_text"], g, "case_text")
        name = sorted(f["snapshots"])[-1]
        f.copy(f["snapshots"][name], g, "snapshots/000000")
        s = g["snapshots/000000"]
        state = f["snapshots"][name]["engine"].attrs["lees_edwards"]
        offset, height = state[0], state[7]
        side = float(re.search(r"max: \[([^,]+),", g["case_text"][()].decode()).group(1))
        pos = np.array(s["position"][()])
        vel = np.array(s["velocity"][()])
        k = np.floor(pos[:, 2] / height)               # into the cell through the faces
        pos[:, 2] -= k * height
        pos[:, 0] -= k * offset
        vel[:, 0] -= k * GDOT * height
        low = pos[:, 2] < height / 2                   # the lower half: up to its images
        pos[low, 2] += height
        pos[low, 0] += offset
        vel[low, 0] += GDOT * height
        pos[:, 2] -= height / 2
        pos[:, 0] %= side
        s["position"][...] = pos
        s["velocity"][...] = vel
        return int(low.sum())


def offset_check(run, work, d):
    moved = os.path.join(work, "moved.h5")
    n_low = relabel(run, moved)
    with h5py.File(run, "r") as f:
        t = float(f["snapshots"][sorted(f["snapshots"])[-1]].attrs["time"])
    a = fields(run, os.path.join(work, "ga.h5"), "--width", d / 2, "--grid", "8,8,16", "--from", t, "--to", t)
    b = fields(moved, os.path.join(work, "gb.h5"), "--width", d / 2, "--grid", "8,8,16")
    worst = {}
    for name in ("density", "momentum_density", "contact_stress", "kinetic_stress", "fabric"):
        upper, lower = a[name][8:], b[name][:8]
        worst[name] = np.abs(upper - lower).max() / np.abs(a[name]).max()
    check(max(worst.values()) < 1e-9,
          "4. a grid of the cell cut at mid-height (%d particles moved to their images) = the original's upper half: "
          "%s" % (n_low, ", ".join("%s %.1e" % kv for kv in worst.items())))


def height_check(run, work, d):
    """5. The height rule on two snapshots of different heights: the last one, and it again
    stretched along z by 1.25 about the bottom face (as the barostat moves the particles)
    with engine@lees_edwards's height 1.25 H."""
    two = os.path.join(work, "two.h5")
    stretch = 1.25
    with h5py.File(run, "r") as f, h5py.File(two, "w") as g:
        f.copy(f["case_text"], g, "case_text")
        name = sorted(f["snapshots"])[-1]
        f.copy(f["snapshots"][name], g, "snapshots/000000")
        f.copy(f["snapshots"][name], g, "snapshots/000001")
        b = g["snapshots/000001"]
        b.attrs["time"] = b.attrs["time"] + 1e-3
        state = np.array(b["engine"].attrs["lees_edwards"])
        height = state[7]
        state[7] *= stretch
        b["engine"].attrs["lees_edwards"] = state
        b["position"][:, 2] = b["position"][:, 2] * stretch
        mass = float(np.sum(b["mass"][()]))
        side = float(re.search(r"max: \[([^,]+),", g["case_text"][()].decode()).group(1))
    got = {}
    with h5py.File(two, "r") as f:
        ta, tb = (float(f["snapshots"][k].attrs["time"]) for k in ("000000", "000001"))
    for key, window in (("a", ["--from", ta, "--to", ta]), ("b", ["--from", tb, "--to", tb]), ("ab", ["--from", ta])):
        out = os.path.join(work, "h%s.h5" % key)
        got[key] = fields(two, out, "--width", d / 2, "--kernel", "lucy", "--profile", "z", "--bins", 400, *window)
        with h5py.File(out, "r") as f:
            got[key]["box_heights"] = f["box_heights"][()]
    ab = got["ab"]
    n = len(ab["z"])
    mean_h = height * (1 + stretch) / 2
    coords = np.abs(ab["z"] - (np.arange(n) + 0.5) / n * mean_h).max() / height
    check(coords < 1e-14 and np.allclose(ab["box_heights"], [height, stretch * height], rtol=1e-15, atol=0),
          "5. two heights H and %.2f H: the points at the fractions (k + 1/2)/n of their mean (%.1e), "
          "/box_heights = both" % (stretch, coords))
    diff = max(np.abs(ab[k] - (got["a"][k] + got["b"][k]) / 2).max() / np.abs(ab[k]).max()
               for k in ("density", "contact_stress", "momentum_density"))
    check(diff < 1e-12, "5. the window's profile = the mean of each snapshot's at the same fractions z/H (%.1e)" % diff)
    # each snapshot's bins span its own height: sum_k rho_k h_s A = M for each
    total = ab["density"].sum() * side * side
    expect = mass / 2 * (n / height + n / (stretch * height))
    check(abs(total / expect - 1) < 1e-8, "5. sum of the window's density over its bins = (M / 2A)(1/h_1 + 1/h_2) "
          "(%.1e): each snapshot's bins span its own height" % abs(total / expect - 1))


def main():
    with tempfile.TemporaryDirectory() as work:
        run, side, d = shear_run(work)
        with h5py.File(run, "r") as f:
            times = np.array(sorted(float(g.attrs["time"]) for g in f["snapshots"].values()))
        t0 = times[times * GDOT >= SKIP][0]
        profile_checks(run, work, side, d, t0, times)
        box_identity(run, work, d, times[-1])
        offset_check(run, work, d)
        height_check(run, work, d)
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
