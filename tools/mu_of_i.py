#!/usr/bin/env python3
"""mu(I) and phi(I) of frictional spheres in simple shear: dempact (Lees-Edwards cell) and
LAMMPS (fix deform xz, remapped velocities) on the same particles and the same law.

Usage: .venv/bin/python tools/mu_of_i.py [--codes lammps,dempact] [--points 0.50:60,0.56:20,...]
           [--particles 1000] [--strain 6] [--blocks 10] [--out DIR] [--json FILE]
           [--figure FILE] [--dempact build/dempact] [--lmp lmp] [--keep]

THE CELL. Slightly polydisperse spheres (radius uniform in [1.125, 1.375] mm, d = 2.5 mm
mean), no gravity, in a cubic box periodic along x, y and z of side L = (N V_mean /
phi)^(1/3) (about 10 d for N = 1000): flow along x, gradient along z. The material and
the law are those of tools/lammps_packing.py, imported from it (glass-like: rho = 2500
kg/m^3, E = 1e7 Pa, nu = 0.3; Hertz with Tsuji's dashpot, e = 0.616; Mindlin tangential
spring and dashpot, particle friction mu_p = 0.5): dempact `hertz_tti` + `mindlin`,
LAMMPS `pair_style granular hertz/material ... damping tsuji tangential mindlin`.

THE SWEEP. The volume is held constant, so each point is a solid fraction phi and a shear
rate; I = gdot d / sqrt(p / rho) is measured. Below the jamming fraction of these spheres
(about 0.588) the flow is inertial and phi sets I (p ~ rho d^2 gdot^2 / I^2); the default
points' shear rates give p of 500-600 Pa there (p / E ~ 5e-5: the rigid limit). Above
it (0.59, 0.60) the packing is jammed, p is set by the overlaps (2-10 kPa) and the shear
rate sets I (down to about 1e-3). The cost is about 1 / (I gdot dt) steps per unit of
strain: the lowest I takes most of the time. gdot_for(I) gives the rate for p ~ P_TARGET.

THE INITIAL PACKING. The N spheres are placed at random in the box at the point's phi and
pushed apart (steepest descent on a harmonic overlap energy, periodic in x, y, z) until
the largest overlap is below 1e-4 d: both codes start from these positions (17 digits),
with the linear shear profile vx = gdot (z - L/2) and no spin.

THE MEASUREMENT. Each run lasts --strain units of strain (gdot t). The box stress is
sampled every 0.01 strain, the whole stress (contacts' virial plus the momentum flux of
the velocities about the flow) over the volume, compression positive: dempact's time
series `shear_stress` (-sigma_xz) and `normal_stress` (sigma_zz); LAMMPS's `compute
pressure` with `temp/profile` over 10 layers along z (the kinetic part about each layer's
mean velocity). (Not `temp/deform`: its streaming profile is gdot (z - zlo), while the
cell's starts as gdot (z - L/2), so it would count the uniform drift -gdot L / 2 along x
as kinetic stress in sigma_xx.) For both codes mu = tau / p with p = sigma_zz, the normal
stress on the shear planes, tau = -sigma_xz (LAMMPS: -P_xz; its pressure tensor is
compression positive, and the shear stress that resists u_x = gdot z is -P_xz > 0); I
uses the same p. LAMMPS's contact part alone (`compute pressure NULL virial`) gives
mu_contact beside it, and its whole stress over the mean pressure trace / 3, mu_mean.
dempact's time-series stresses are cross-checked by the box-averaged stress of its snapshots
(tools/coarse_grain --box, about one unit of strain apart, those of the kept two thirds):
box_mu = -sigma_xz / sigma_zz per snapshot, mean and standard error over the snapshots
(kinetic part about the streaming profile gdot (z - z_centre) and the box mean).
  Block averages: the first third of the samples is discarded, the rest cut into
--blocks equal blocks (default 10); the value is the mean of the block means and its
error the standard error of the block means (sd / sqrt(blocks)). mu is the ratio of the
block means of tau and p (each block's ratio of means, then averaged the same way). The
integrated autocorrelation time of tau over the kept samples is printed with each point
(tau_int, in samples), and the tool warns when a block is shorter than 2 tau_int. For an
exponentially decaying correlation, adjacent block means of length b are correlated by
about tau_int / (2 b), so the standard error from blocks of 2 tau_int is low by about
20 %, from 5 tau_int by about 10 %: read the error bars with that in mind.

THE FIT. mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I), weighted least squares on the
points' error bars (scipy.optimize.least_squares; parameters' errors from the Jacobian);
phi(I) = phi_c - a I, a straight line through the points with I >= 0.01 (below, the cell
is jammed and phi is set by the overlaps, i.e. by p / E, not by I).

Output: a table (stdout), --json FILE, and --figure FILE (matplotlib, mu(I) and phi(I)
with error bars and fits, one marker per code).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError as missing:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import venv_hint
    sys.exit(venv_hint.message("mu_of_i", missing))

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lammps_packing as lp  # noqa: E402 - the material and the law's mapping onto LAMMPS

R_MIN, R_MAX = 0.001125, 0.001375
D_MEAN = R_MIN + R_MAX
SAMPLE_STRAIN = 0.01          # strain between stress samples
P_TARGET = 3.0e3              # Pa: the pressure each point's shear rate aims at

# The sweep of docs/validation.md: (phi, shear rate 1/s). Below jamming (about 0.588) each
# rate gives p of 500-600 Pa; at 0.59 and 0.60 the packing is jammed and the rate sets I.
DEFAULT_POINTS = [(0.54, 61.3), (0.56, 35.1), (0.57, 21.9), (0.58, 8.76), (0.585, 4.38), (0.59, 2.19),
                  (0.60, 5.0), (0.60, 1.0)]


# ---- analysis -----------------------------------------------------------------------------

def block_average(x, blocks=10, discard=1.0 / 3.0):
    """Mean and standard error of x from `blocks` block means after discarding the first
    `discard` of the samples. Returns (mean, standard error, block means)."""
    x = np.asarray(x, dtype=float)
    kept = x[int(math.floor(len(x) * discard)):]
    size = len(kept) // blocks
    if size < 1:
        raise ValueError("block_average: %d samples kept, fewer than %d blocks" % (len(kept), blocks))
    means = kept[len(kept) - size * blocks:].reshape(blocks, size).mean(axis=1)
    return float(means.mean()), float(means.std(ddof=1) / math.sqrt(blocks)), means


def ratio_block_average(num, den, blocks=10, discard=1.0 / 3.0):
    """num/den per block (ratio of the block means), then mean and standard error."""
    _, _, a = block_average(num, blocks, discard)
    _, _, b = block_average(den, blocks, discard)
    r = a / b
    return float(r.mean()), float(r.std(ddof=1) / math.sqrt(blocks))


def autocorrelation_time(x, discard=1.0 / 3.0):
    """Integrated autocorrelation time (samples) of the kept part of x: 1 + 2 sum rho(k),
    summed until rho first drops below 0 (a self-consistent window)."""
    x = np.asarray(x, dtype=float)
    x = x[int(math.floor(len(x) * discard)):]
    x = x - x.mean()
    n = len(x)
    if n < 4 or not np.any(x):
        return 1.0
    f = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n]
    acf /= acf[0]
    tau = 1.0
    for k in range(1, n // 2):
        if acf[k] < 0:
            break
        tau += 2.0 * acf[k]
    return float(tau)


def mu_model(i, mu_s, mu_2, i_0):
    i = np.asarray(i, dtype=float)
    return mu_s + (mu_2 - mu_s) / (1.0 + i_0 / i)


def fit_mu(i, mu, err=None):
    """Weighted least-squares fit of mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I).
    Returns dict mu_s, mu_2, I_0 and their standard errors (from the Jacobian, scaled by
    the reduced chi^2 when it exceeds 1), chi2 and dof."""
    from scipy.optimize import least_squares
    i = np.asarray(i, dtype=float)
    mu = np.asarray(mu, dtype=float)
    w = np.ones_like(mu) if err is None else 1.0 / np.maximum(np.asarray(err, dtype=float), 1e-12)

    def res(q):
        return (mu_model(i, q[0], q[1], math.exp(q[2])) - mu) * w

    best = None
    for log_i0 in np.log([1e-3, 1e-2, 0.1, 1.0]):  # a few starts: I_0 spans decades
        r = least_squares(res, [float(mu.min()), float(mu.max()) + 0.1, log_i0], method="lm")
        if best is None or r.cost < best.cost:
            best = r
    q = best.x
    dof = max(1, len(mu) - 3)
    chi2 = 2.0 * best.cost
    try:
        cov = np.linalg.inv(best.jac.T @ best.jac) * max(1.0, chi2 / dof)
        se = np.sqrt(np.diag(cov))
    except np.linalg.LinAlgError:
        se = np.full(3, float("nan"))
    i0 = math.exp(q[2])
    return {"mu_s": float(q[0]), "mu_2": float(q[1]), "I_0": i0,
            "mu_s_err": float(se[0]), "mu_2_err": float(se[1]), "I_0_err": float(i0 * se[2]),
            "chi2": float(chi2), "dof": int(len(mu) - 3)}


PHI_FIT_MIN_I = 0.01  # below it the cell is jammed: phi is set by the overlaps, not by I


def fit_phi(i, phi, i_min=PHI_FIT_MIN_I):
    """phi = phi_c - a I (least squares over the points with I >= i_min): (phi_c, a)."""
    i, phi = np.asarray(i, dtype=float), np.asarray(phi, dtype=float)
    keep = i >= i_min
    a, b = np.polyfit(i[keep], phi[keep], 1)
    return float(b), float(-a)


# ---- the cell -----------------------------------------------------------------------------

class Point:
    def __init__(self, phi, gdot, n):
        self.phi, self.gdot, self.n = phi, gdot, n
        mean_volume = 4.0 / 3.0 * math.pi * (R_MAX ** 4 - R_MIN ** 4) / (4.0 * (R_MAX - R_MIN))
        self.side = (n * mean_volume / phi) ** (1.0 / 3.0)
        # step: a fiftieth of the Hertz contact time of two mean spheres pressed by the
        # force p d^2 (a contact of the target pressure), at most that of a collision at gdot d
        m_eff = lp.RHO * 4.0 / 3.0 * math.pi * (D_MEAN / 2) ** 3 / 2.0
        r_eff = D_MEAN / 4.0
        f = P_TARGET * D_MEAN ** 2 * 3.0   # force chains carry a few times the mean
        delta = (f / (4.0 / 3.0 * lp.E_EFF * math.sqrt(r_eff))) ** (2.0 / 3.0)
        k = 1.5 * f / delta
        t_c = math.pi * math.sqrt(m_eff / k)
        self.dt = min(t_c, lp.hertz_contact_time(R_MIN, max(gdot * D_MEAN, 1e-3))) / 50.0
        self.skin = 0.2 * R_MAX

    def label(self):
        return "phi%.3f_g%g" % (self.phi, self.gdot)


def gdot_for(i_guess):
    """The shear rate that gives p ~ P_TARGET at inertial number i_guess."""
    return i_guess * math.sqrt(P_TARGET / lp.RHO) / D_MEAN


def pack(n, side, seed, tol=1e-4, max_iter=20000):
    """n spheres (radius uniform in [R_MIN, R_MAX]) at random in a periodic cube of side
    `side`, pushed apart by steepest descent on sum (overlap)^2 until the largest overlap
    is below tol * D_MEAN."""
    from scipy.spatial import cKDTree
    rng = np.random.default_rng(seed)
    rad = rng.uniform(R_MIN, R_MAX, n)
    pos = rng.uniform(0, side, (n, 3))
    for it in range(max_iter):
        pos %= side
        pairs = cKDTree(pos, boxsize=side).query_pairs(2 * R_MAX, output_type="ndarray")
        d = pos[pairs[:, 1]] - pos[pairs[:, 0]]
        d -= side * np.round(d / side)
        dist = np.sqrt((d * d).sum(1))
        over = rad[pairs[:, 0]] + rad[pairs[:, 1]] - dist
        hit = over > 0
        if not np.any(hit) or over[hit].max() < tol * D_MEAN:
            return pos, rad
        p, d, dist, over = pairs[hit], d[hit], dist[hit], over[hit]
        push = (0.5 * 1.05 * over / np.maximum(dist, 1e-12))[:, None] * d
        move = np.zeros_like(pos)
        np.add.at(move, p[:, 1], push)
        np.add.at(move, p[:, 0], -push)
        pos += move
    raise SystemExit("mu_of_i: could not pack %d spheres at phi over %d iterations" % (n, max_iter))


def write_csv(path, pos, rad, vel):
    with open(path, "w") as f:
        f.write("x,y,z,radius,vx,vy,vz\n")
        for p, r, v in zip(pos, rad, vel):
            f.write(",".join(lp.g17(x) for x in (p[0], p[1], p[2], r, v[0], v[1], v[2])) + "\n")


def write_data(path, pos, rad, vel, side):
    with open(path, "w") as f:
        f.write("mu_of_i.py initial particles (the same as the CSV beside it)\n\n")
        f.write("%d atoms\n1 atom types\n\n" % len(rad))
        for a in "xyz":
            f.write("0 %s %slo %shi\n" % (lp.g17(side), a, a))
        f.write("0 0 0 xy xz yz\n\nAtoms # sphere\n\n")
        for k, (p, r) in enumerate(zip(pos, rad)):
            f.write("%d 1 %s %s %s %s %s\n" % (k + 1, lp.g17(2 * r), lp.g17(lp.RHO), lp.g17(p[0]),
                                               lp.g17(p[1]), lp.g17(p[2])))
        f.write("\nVelocities\n\n")
        for k, v in enumerate(vel):
            f.write("%d %s %s %s 0 0 0\n" % (k + 1, lp.g17(v[0]), lp.g17(v[1]), lp.g17(v[2])))


# ---- LAMMPS -------------------------------------------------------------------------------

LAMMPS_INPUT = """# mu_of_i.py: phi {phi}, shear rate {gdot} 1/s
units           si
atom_style      sphere
atom_modify     map array
boundary        p p p
comm_modify     vel yes
newton          off
read_data       cell.data
pair_style      granular
pair_coeff      * * hertz/material {young} {cor} {nu} damping tsuji tangential mindlin NULL {xg} {mu} limit_damping
neighbor        {skin} bin
neigh_modify    delay 0 every 1 check yes
timestep        {dt}
fix             integrate all nve/sphere
fix             shear all deform 1 xz erate {gdot} remap v flip yes
compute         tprof all temp/profile 1 1 1 z 10
compute         press all pressure tprof
compute         pvir all pressure NULL virial
fix             stress all ave/time {every} 1 {every} c_pvir[1] c_pvir[2] c_pvir[3] c_pvir[4] c_pvir[5] c_pvir[6] c_press[1] c_press[2] c_press[3] c_press[4] c_press[5] c_press[6] file stress.txt format " %.10g"
thermo          {thermo}
thermo_modify   temp tprof
run             {steps}
"""


def run_lammps(lmp, workdir, pt, strain):
    steps, every = steps_of(pt, strain)
    text = LAMMPS_INPUT.format(phi=pt.phi, gdot=lp.g17(pt.gdot), young=lp.g17(lp.YOUNG), cor=lp.g17(lp.COR),
                               nu=lp.g17(lp.NU), xg=lp.g17(lp.XGAMMAT), mu=lp.g17(lp.MU),
                               skin=lp.g17(pt.skin), dt=lp.g17(pt.dt), every=every,
                               thermo=max(1, steps // 10), steps=steps)
    with open(os.path.join(workdir, "in.shear"), "w") as f:
        f.write(text)
    t0 = time.time()
    out = subprocess.run(["nice", "-n", "5", lmp, "-in", "in.shear", "-log", "log.lammps", "-nocite",
                          "-screen", "none"], cwd=workdir, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    wall = time.time() - t0
    if out.returncode != 0:
        raise SystemExit("mu_of_i: LAMMPS failed in %s:\n%s%s" % (workdir, out.stdout[-3000:], out.stderr[-2000:]))
    a = np.loadtxt(os.path.join(workdir, "stress.txt"), comments="#", ndmin=2)
    # columns: step, then pxx, pyy, pzz, pxy, pxz, pyz (compression positive) of the
    # contact virial alone, then of the whole (kinetic part about the streaming profile)
    return {"strain": a[:, 0] * pt.dt * pt.gdot, "tau": -a[:, 11], "p": a[:, 9],
            "tau_contact": -a[:, 5], "p_contact": a[:, 3], "p_mean": (a[:, 7] + a[:, 8] + a[:, 9]) / 3.0,
            "wall": wall, "steps": steps}


# ---- dempact ------------------------------------------------------------------------------

# The material and contact blocks of lammps_packing.py's case (the law's dempact side).
_LAW = lp.DEMPACT_CASE[lp.DEMPACT_CASE.index("materials:"):lp.DEMPACT_CASE.index("walls:")]

DEMPACT_CASE = """# mu_of_i.py: phi {phi}, shear rate {gdot} 1/s
name: {name}
domain:
  min: [0, 0, 0]
  max: [{side}, {side}, {side}]
  periodic: [true, true, true]
  lees_edwards:
    shear_rate: {gdot}
time:
  end: {end}
  step: {dt}
  output_interval: {snap}
  timeseries_interval: {sample}
neighbour:
  skin: {skin}
{law}particles:
  - {{source: file, material: glass, file: cell.csv}}
"""


def steps_of(pt, strain):
    """The run's steps and the steps between stress samples (the same in both codes)."""
    every = max(1, int(round(SAMPLE_STRAIN / (pt.gdot * pt.dt))))
    samples = max(1, int(round(strain / (pt.gdot * pt.dt * every))))
    return samples * every, every


def dempact_case_text(pt, strain, name="shear"):
    law = _LAW.format(rho=lp.g17(lp.RHO), young=lp.g17(lp.YOUNG), nu=lp.g17(lp.NU), e=lp.g17(lp.E_TTI),
                      e_t=lp.g17(lp.E_T), mu=lp.g17(lp.MU))
    steps, every = steps_of(pt, strain)
    snap = max(1, steps // (every * 12)) * every       # about 12 snapshots, on sample steps
    return DEMPACT_CASE.format(phi=pt.phi, gdot=lp.g17(pt.gdot), name=name, side=lp.g17(pt.side),
                               end=lp.g17(steps * pt.dt), dt=lp.g17(pt.dt), snap=lp.g17(snap * pt.dt),
                               sample=lp.g17(every * pt.dt), skin=lp.g17(pt.skin), law=law)


def run_dempact(dempact, workdir, pt, strain):
    with open(os.path.join(workdir, "shear.yaml"), "w") as f:
        f.write(dempact_case_text(pt, strain))
    t0 = time.time()
    out = subprocess.run(["nice", "-n", "5", dempact, "run", "shear.yaml", "--output", "out", "--threads", "1",
                          "--quiet"], cwd=workdir, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    wall = time.time() - t0
    if out.returncode != 0:
        raise SystemExit("mu_of_i: dempact failed in %s (%d):\n%s" % (workdir, out.returncode, out.stderr[-3000:]))
    import h5py
    path = os.path.join(workdir, "out", "shear.h5")
    with h5py.File(path, "r", locking=False) as f:
        ts = f["timeseries"]
        t = np.asarray(ts["time"][()])
        tau = np.asarray(ts["shear_stress"][()])
        pzz = np.asarray(ts["normal_stress"][()])
    return {"strain": t * pt.gdot, "tau": tau, "p": pzz, "wall": wall,
            "steps": steps_of(pt, strain)[0], "h5": path}


def box_stresses(h5, strain_from, gdot):
    """The box-averaged stress tensor (compression positive) of each snapshot after
    strain_from, through tools/coarse_grain --box (the contact part and the kinetic part
    about the streaming profile): the cross-check of the time series. (S, 3, 3)."""
    import h5py
    import coarse_grain
    with h5py.File(h5, "r", locking=False) as f:
        times = sorted(float(g.attrs["time"]) for g in f["snapshots"].values())
    out = h5[:-3] + "_box.h5"
    tensors = []
    for t in times:
        if t * gdot >= strain_from:
            coarse_grain.run(h5, out, width=D_MEAN, box=True, time_from=t, time_to=t)
            tensors.append(coarse_grain.load(out)["stress"])
    return np.array(tensors)


# ---- the sweep ----------------------------------------------------------------------------

def measure(run, blocks):
    tau, p = run["tau"], run["p"]
    mu, mu_err = ratio_block_average(tau, p, blocks)
    pm, pe = block_average(p, blocks)[:2]
    tm, te = block_average(tau, blocks)[:2]
    t_int = autocorrelation_time(tau)
    block_len = (len(tau) - int(len(tau) / 3)) // blocks
    return {"mu": mu, "mu_err": mu_err, "p": pm, "p_err": pe, "tau": tm, "tau_err": te,
            "tau_int": t_int, "block_len": block_len}


def inertial_number(gdot, p, p_err):
    i = gdot * D_MEAN / math.sqrt(p / lp.RHO)
    return i, 0.5 * i * p_err / p


def parse_points(text):
    out = []
    for item in text.split(","):
        phi, gdot = item.split(":")
        out.append((float(phi), float(gdot)))
    return out


def run_point(code, exe, folder, phi, gdot, n, strain, blocks, seed, box_check=True):
    pt = Point(phi, gdot, n)
    work = os.path.join(folder, "%s_%s" % (code, pt.label()))
    os.makedirs(work, exist_ok=True)
    pos, rad = pack(n, pt.side, seed)
    vel = np.zeros_like(pos)
    vel[:, 0] = gdot * (pos[:, 2] - pt.side / 2.0)
    if code == "lammps":
        write_data(os.path.join(work, "cell.data"), pos, rad, vel, pt.side)
        run = run_lammps(exe, work, pt, strain)
    else:
        write_csv(os.path.join(work, "cell.csv"), pos, rad, vel)
        run = run_dempact(exe, work, pt, strain)
    m = measure(run, blocks)
    m.update({"code": code, "phi": phi, "gdot": gdot, "n": n, "strain": strain, "dt": pt.dt,
              "steps": run["steps"], "wall": run["wall"]})
    m["I"], m["I_err"] = inertial_number(gdot, m["p"], m["p_err"])
    if code == "lammps":
        m["mu_contact"], m["mu_contact_err"] = ratio_block_average(run["tau_contact"], run["p_contact"], blocks)
        m["mu_mean"], m["mu_mean_err"] = ratio_block_average(run["tau"], run["p_mean"], blocks)
        m["p_contact"] = block_average(run["p_contact"], blocks)[0]
        m["p_mean"] = block_average(run["p_mean"], blocks)[0]
    if code == "dempact" and box_check:
        # per snapshot (about one unit of strain apart): mu = -sigma_xz / sigma_zz, mean and
        # standard error over the snapshots of the kept two thirds
        s = box_stresses(run["h5"], strain / 3.0, gdot)
        mus = -s[:, 0, 2] / s[:, 2, 2]
        m["box_mu"] = float(mus.mean())
        m["box_mu_err"] = float(mus.std(ddof=1) / math.sqrt(len(mus))) if len(mus) > 1 else float("nan")
        m["box_p"] = float(s[:, 2, 2].mean())
    if m["block_len"] < 2 * m["tau_int"]:
        print("mu_of_i: warning: %s phi %.3f: blocks of %d samples, tau_int %.1f samples" %
              (code, phi, m["block_len"], m["tau_int"]), file=sys.stderr)
    return m


def table(rows):
    lines = ["code     phi    gdot(1/s)  I                    mu                 p (Pa)          "
             "tau_int/block  wall(s)"]
    for r in rows:
        lines.append("%-7s  %.3f  %8.3g  %.4f +- %.4f   %.4f +- %.4f   %8.4g +- %-6.2g  %5.1f/%-4d  %7.1f" % (
            r["code"], r["phi"], r["gdot"], r["I"], r["I_err"], r["mu"], r["mu_err"], r["p"], r["p_err"],
            r["tau_int"], r["block_len"], r["wall"]))
    return "\n".join(lines)


def figure(rows, fits, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    style = {"dempact": ("o", "C0"), "lammps": ("s", "C1")}
    for code in sorted({r["code"] for r in rows}):
        rs = [r for r in rows if r["code"] == code]
        mk, col = style.get(code, ("^", "C2"))
        i = np.array([r["I"] for r in rs])
        ax[0].errorbar(i, [r["mu"] for r in rs], xerr=[r["I_err"] for r in rs], yerr=[r["mu_err"] for r in rs],
                       fmt=mk, color=col, label=code, capsize=2)
        ax[1].errorbar(i, [r["phi"] for r in rs], xerr=[r["I_err"] for r in rs], fmt=mk, color=col,
                       label=code, capsize=2)
        if code in fits:
            f = fits[code]
            ii = np.logspace(math.log10(min(i) / 2), math.log10(max(i) * 2), 100)
            ax[0].plot(ii, mu_model(ii, f["mu_s"], f["mu_2"], f["I_0"]), "-", color=col,
                       label="%s fit: mu_s %.3f, mu_2 %.3f, I_0 %.3f" % (code, f["mu_s"], f["mu_2"], f["I_0"]))
            ax[1].plot(ii, f["phi_c"] - f["a"] * ii, "-", color=col,
                       label="%s: phi_c %.3f, a %.2f" % (code, f["phi_c"], f["a"]))
    for a, name in zip(ax, ("mu = tau / p", "phi")):
        a.set_xscale("log")
        a.set_xlabel("I = gdot d / sqrt(p / rho)")
        a.set_ylabel(name)
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--codes", default="lammps,dempact")
    ap.add_argument("--points", help="phi:gdot,... (default: %s)" % ",".join("%g:%g" % p for p in DEFAULT_POINTS))
    ap.add_argument("--particles", type=int, default=1000)
    ap.add_argument("--strain", type=float, default=6.0)
    ap.add_argument("--blocks", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="mu_of_i_runs")
    ap.add_argument("--json")
    ap.add_argument("--figure")
    ap.add_argument("--dempact", default=os.path.join(HERE, "..", "build", "dempact"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--results", help="FILE,FILE,...: no runs; the rows of earlier --json files, fitted, "
                                      "tabled and drawn together")
    ap.add_argument("--no-box-check", action="store_true",
                    help="skip the cross-check of dempact's time-series stresses by the box-averaged stress of its "
                         "snapshots (tools/coarse_grain --box)")
    a = ap.parse_args(argv)
    if a.particles < 50 or a.particles > 100000:
        print("mu_of_i: --particles %d: 50 .. 100000" % a.particles, file=sys.stderr)
        return 2
    if not (a.strain > 0) or a.blocks < 2:
        print("mu_of_i: --strain must be > 0 and --blocks >= 2", file=sys.stderr)
        return 2
    try:
        points = parse_points(a.points) if a.points else DEFAULT_POINTS
    except ValueError:
        print("mu_of_i: --points %r: phi:gdot,phi:gdot,..." % a.points, file=sys.stderr)
        return 2
    for phi, gdot in points:
        if not (0.05 < phi < 0.7) or not (gdot > 0):
            print("mu_of_i: --points: phi %g in (0.05, 0.7), shear rate %g > 0 needed" % (phi, gdot), file=sys.stderr)
            return 2
    codes = a.codes.split(",")
    exes = {"lammps": shutil.which(a.lmp) or a.lmp, "dempact": os.path.abspath(a.dempact)}
    for c in codes:
        if c not in exes:
            print("mu_of_i: --codes: %r is not lammps or dempact" % c, file=sys.stderr)
            return 2
    rows = []
    if a.results:
        for path in a.results.split(","):
            with open(path) as f:
                rows += json.load(f)["rows"]
        points, codes = [], sorted({r["code"] for r in rows})
    else:
        os.makedirs(a.out, exist_ok=True)
    for phi, gdot in points:
        for c in codes:
            r = run_point(c, exes[c], a.out, phi, gdot, a.particles, a.strain, a.blocks, a.seed, not a.no_box_check)
            rows.append(r)
            print(table([r]).splitlines()[1], flush=True)
    fits = {}
    for c in codes:
        rs = [r for r in rows if r["code"] == c]
        if len(rs) >= 4:
            f = fit_mu([r["I"] for r in rs], [r["mu"] for r in rs], [r["mu_err"] for r in rs])
            f["phi_c"], f["a"] = fit_phi([r["I"] for r in rs], [r["phi"] for r in rs])
            fits[c] = f
    print(table(rows))
    for r in rows:
        if "box_mu" in r:
            print("dempact phi %.3f: mu from the time series %.4f +- %.4f, from the snapshots' box stress "
                  "(coarse_grain) %.4f +- %.4f" % (r["phi"], r["mu"], r["mu_err"], r["box_mu"], r["box_mu_err"]))
        if "mu_contact" in r:
            print("lammps  phi %.3f: mu %.4f, of the contact part alone %.4f, over trace/3 %.4f" % (
                r["phi"], r["mu"], r["mu_contact"], r["mu_mean"]))
    for c, f in fits.items():
        print("%s fit: mu_s %.4f +- %.4f, mu_2 %.4f +- %.4f, I_0 %.4f +- %.4f (chi2 %.1f / %d); phi = %.4f - %.3f I" % (
            c, f["mu_s"], f["mu_s_err"], f["mu_2"], f["mu_2_err"], f["I_0"], f["I_0_err"], f["chi2"], f["dof"],
            f["phi_c"], f["a"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "fits": fits}, f, indent=1)
    if a.figure:
        figure(rows, fits, a.figure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
