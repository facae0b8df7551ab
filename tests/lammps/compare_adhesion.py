#!/usr/bin/env python3
"""dempact against LAMMPS: adhesive head-on collisions of two spheres, JKR and DMT.

Usage: compare_adhesion.py --dempact PATH [--lmp lmp] [--keep DIR]

Two identical spheres (R = 1 mm, E = 1e7 Pa, nu = 0.3, 1500 kg/m^3, work of adhesion
w = 0.05 J/m^2) meet head on at speeds from 0.5 to 10 times JKR's sticking speed V_s, with
an elastic normal law and adhesion, in `units si`. dempact runs a case it writes (law
`hertz`, `adhesion: {model: jkr|dmt, work: w}`), stepped by the Python package, whose
steps are `dempact run`'s to the bit: the test also runs `dempact run` on the case and
requires its last snapshot's velocities to be the package's, bit for bit. LAMMPS runs
tests/lammps/adhesion_collide.in with the mapped `pair_style granular` law. Both record
every step (overlap, force, velocities, after the whole step), and one function measures
both traces:

  restitution  (v2 - v1) / V once the pair has held no force for 20 steps, moving apart;
               0 if it has not parted after 3 ms (a stuck pair oscillates about 3.7
               times in that time)
  largest pull the largest -F after the turn (the first step the pair opens)
  curve        the worst gap between F and the closed-form force at the same overlap
  (the last two over the contact's inner steps: in contact, but not its first or last
  step, where dempact applies the force whose impulse is right over the part of the step
  in contact, engine/step/contact_ends.h, rather than the law's at the step's overlap)

Units below: a_c^3 = pi w R*^2 / (8 E*), l = a_c^2 / R* (overlap), pi w R* (force) and
pi w R* l = pi w a_c^2 (energy); x = sqrt(a / a_c), on JKR's stable branch d / l = x^4 - 4x,
F_JKR / (pi w R*) = x^6 / 6 - x^3 (docs/physics.md, "Adhesion").

THE MAPPING (LAMMPS 29 Sep 2021, Debian's 20220106 build; src/GRANULAR/pair_granular.cpp)

    dempact                         LAMMPS pair_coeff
    law hertz, adhesion jkr, w      jkr E 0 nu gamma damping velocity tangential linear_history 0 0 0
    law hertz, adhesion dmt, w      dmt E 0 nu gamma damping velocity tangential linear_history 0 0 0
                                    gamma = w / 2

  E*      LAMMPS's normal_coeffs[0] = 4/3 mix_stiffnessE(E, E, nu, nu) = 4/3 E*, with
          1/E* = 2 (1 - nu^2) / E, dempact's E*; its jkr takes E = 3/4 of that, E*.
  w       LAMMPS's cohesion is the surface energy gamma, w = 2 gamma for like surfaces:
          its jkr's force is normal_coeffs[0] a^3 / R* - 2 pi a^2 sqrt(4 gamma E* / (pi a))
          = 4 E* a^3 / (3 R*) - sqrt(16 pi gamma E* a^3), JKR's with w = 2 gamma, and its
          contact radius solves d = a^2 / R* - sqrt(4 pi gamma a / E*) in closed form; its
          dmt is 4/3 E* sqrt(R* d) d - 4 pi gamma R* = Hertz - 2 pi w R*. The curve check
          holds every inner step of LAMMPS's trace within 3e-14 of JKR's and DMT's curves
          with w = 2 gamma; gamma = w misses them by 1.3 pi w R* (jkr) and 2 pi w R* (dmt).
  damping `damping velocity` with coefficient 0: the dashpot -0 * 1 * d' is 0 exactly;
          dempact's `hertz` has none. LAMMPS refuses `limit_damping` with jkr and dmt
          (they pull by design); dempact's cohesion removal clips the law's dashpot alone,
          never the adhesion.
  tangential  a head-on impact has none; `linear_history 0 0 0` rather than
          `linear_nohistory`: with jkr and no history value LAMMPS's fix NEIGH_HISTORY asks
          its page for 0 values per partner, gets NULL, and stops the run at its end with
          "Neighbor history overflow, boost neigh_modify one" (exit 1).

WHERE THE CODES DIFFER, AND WHY (pair_granular.cpp, PairGranular::compute)

  Forming: both at touching, d > 0 (LAMMPS: rsq < radsum^2 while the pair's touch flag is
  0), with a jump of the force from 0 to -4/3 pi w R* (JKR) or -2 pi w R* (DMT).

  Breaking (JKR): LAMMPS keeps a touching pair while rsq < (radsum - delta_pulloff)^2 with
  a^3 = 9 pi gamma R*^2 / (4 E*) = 9 pi w R*^2 / (8 E*), x = 3^(1/3), and delta_pulloff
  its overlap, -3^(1/3) l = -1.442 l: the point of the largest pull, 3/2 pi w R*, where
  the force drops to 0 (the pull-off of a contact under a controlled load). dempact
  follows the stable branch to d = -3 l, where dd/da = 0 (the break when the overlap,
  not the load, is what the contact is given: docs/physics.md) and lets go at
  -5/6 pi w R*. LAMMPS's loop gives up W_L = (12/5 4^(1/3) - 6/5 3^(1/3)) pi w a_c^2
  = 2.07906 pi w a_c^2, dempact's W = (2/5 + 12/5 4^(1/3)) pi w a_c^2 = 4.20976 pi w a_c^2:
  LAMMPS's sticking speed is sqrt(W_L / W) = 0.70276 of dempact's. An elastic pair with
  kinetic energy m* V^2 / 2 at touching keeps m* V^2 / 2 - W when it parts, so
      e = sqrt(1 - V_s^2 / V^2)        V_s = sqrt(2 W / m*)     dempact
      e = sqrt(1 - V_sL^2 / V^2)       V_sL = sqrt(2 W_L / m*)   LAMMPS
  and below its own sticking speed each code keeps the pair, oscillating for ever
  (0.8 V_s: dempact sticks, LAMMPS rebounds at e = 0.478). Each code is held to its own
  closed form. The largest pull is 3/2 pi w R* in both whenever the pair parts.

  DMT: a constant pull while d > 0 in both, so an elastic collision gives back all it
  took: e = 1 at every speed, no sticking. dempact gives 1 within 2e-7; LAMMPS 0.99998 to
  1.0006 (and above 1): the force jumps by 2 pi w R* at touching and at parting, and
  velocity Verlet applies the jump for a whole step.

  The steps at the jumps: LAMMPS applies each jump's force for a whole step whatever part
  of the step the pair was in contact, an impulse error of at most F dt / 2 at each jump
  (a step's force acts from half a step before it to half a step after; the contact
  began, or ended, anywhere within the step), first order in dt (e moves 3.6 to 4.8 times less at dt / 4). The test
  bounds it by F v dt of energy at each jump (F the jump, v the speed there: 4/3 pi w R*
  at V and 3/2 pi w R* at e V for JKR, 2 pi w R* at both for DMT), which moves e by at
  most dE / (m* V^2 e): LAMMPS must lie within that bound of its closed form. dempact
  applies at a contact's first step and at the step before it parts the force whose
  impulse is right over the part in contact (engine/step/contact_ends.h): second order,
  the rest is velocity Verlet's (omega dt)^2 ~ 2e-6; it must lie within 1e-4 (it does
  within 1.6e-6).

Also required: the force on every inner step within 1e-9 (relative, or of pi w R* where
the force is smaller) of the closed-form curve at the step's overlap, in both codes
(both are within 5e-14); the largest pull within 0.2 % of the closed form: 3/2 pi w R*
(JKR, parted or swinging past x = 3^(1/3)), the pull at the tensile turning point of a
stuck pair that swings less far (0.5 V_s: 1.45740, where the loop's energy from
touching equals m* V^2 / 2), 2 pi w R* (DMT, less the Hertz force of its first inner step,
0.13 % at 10 V_s). Exit status 1 on any failure, or if LAMMPS, h5py or the dempact
package is missing. 16 collisions, each run by the package, `dempact run` and LAMMPS:
about 10 s.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "adhesion_collide.in")

# The spheres and the surfaces.
R, RHO, YOUNG, NU, WORK = 1e-3, 1500.0, 1e7, 0.3, 0.05
MASS = RHO * 4.0 / 3.0 * math.pi * R ** 3
M_EFF, R_EFF = MASS / 2.0, R / 2.0
E_EFF = YOUNG / (2.0 * (1.0 - NU * NU))          # 1/E* = 2 (1 - nu^2) / E
K_HZ = 4.0 / 3.0 * E_EFF * math.sqrt(R_EFF)
A_C = (math.pi * WORK * R_EFF ** 2 / (8.0 * E_EFF)) ** (1.0 / 3.0)
L = A_C * A_C / R_EFF                             # JKR's unit of overlap; dempact's reach -3 L
FORCE = math.pi * WORK * R_EFF                    # the unit of force, pi w R*
ENERGY = FORCE * L                                # the unit of energy, pi w R* L = pi w a_c^2
X_TOUCH, X_PULL = 4.0 ** (1.0 / 3.0), 3.0 ** (1.0 / 3.0)   # x = sqrt(a / a_c) at d = 0, at the largest pull


def jkr_u(x):
    """integral of F_JKR dd from x = 1 (d = -3 L), up to a constant, in pi w R* L"""
    return x ** 10 / 15.0 - 2.0 * x ** 7 / 3.0 + x ** 4


# The work of the loop a contact formed at d = 0 gives up before it lets go: dempact lets go
# at d = -3 L (x = 1), LAMMPS at the largest pull (x = 3^(1/3), d = -3^(1/3) L).
W_DEMPACT = (jkr_u(1.0) - jkr_u(X_TOUCH)) * ENERGY       # (2/5 + 12/5 4^(1/3)) = 4.20976
W_LAMMPS = (jkr_u(X_PULL) - jkr_u(X_TOUCH)) * ENERGY     # (12/5 4^(1/3) - 6/5 3^(1/3)) = 2.07906
V_STICK = math.sqrt(2.0 * W_DEMPACT / M_EFF)
V_STICK_LAMMPS = math.sqrt(2.0 * W_LAMMPS / M_EFF)

SPEEDS = (0.5, 0.8, 1.1, 1.5, 2.0, 3.0, 5.0, 10.0)       # in V_s (dempact's)
DT = 1e-7                                                 # s, both codes
GAP = 0.5 * L                                             # the surfaces' gap at t = 0
MAX_TIME = 3e-3                                           # s: a stuck pair oscillates 3.7 times
QUIET = 20                                                # steps without force: apart


def g17(x):
    return "%.17g" % x


def jkr_x(delta):
    """the root x >= 1 of x^4 - 4x = delta (bisection, to the last bit)"""
    delta = np.asarray(delta, dtype=float)
    lo = np.ones_like(delta)
    hi = 2.0 + (2.0 * np.abs(delta)) ** 0.25
    for _ in range(120):
        mid = 0.5 * (lo + hi)
        below = mid ** 4 - 4.0 * mid < delta
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def theory_force(model, d):
    """The normal force [pi w R*] at overlap d [m]: JKR's F_JKR = x^6/6 - x^3 on its stable
    branch, DMT's Hertz minus 2 pi w R* (d > 0)."""
    if model == "jkr":
        x = jkr_x(np.asarray(d) / L)
        return x ** 6 / 6.0 - x ** 3
    return K_HZ * np.maximum(d, 0.0) ** 1.5 / FORCE - 2.0


def theory(model, code, v):
    """(restitution, largest pull [pi w R*] after the turn) of an elastic collision at v."""
    if model == "dmt":
        return 1.0, 2.0
    w = W_DEMPACT if code == "dempact" else W_LAMMPS
    kinetic = 0.5 * M_EFF * v * v
    e = math.sqrt(1.0 - w / kinetic) if kinetic > w else 0.0
    # the tensile turning point: where the loop's energy from touching equals the kinetic
    # energy at touching; past x = 3^(1/3) (the largest pull) the pull is 3/2
    target = jkr_u(X_TOUCH) + kinetic / ENERGY
    if target >= jkr_u(X_PULL):
        return e, 1.5
    lo, hi = X_PULL, X_TOUCH
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if jkr_u(mid) > target:
            lo = mid
        else:
            hi = mid
    x = 0.5 * (lo + hi)
    return e, -(x ** 6 / 6.0 - x ** 3)


def lammps_bound(model, code, v, e):
    """How far first-order impulses at the force's jumps may move e (LAMMPS only): velocity
    Verlet applies the force of the first step in contact and of the last step before
    the break for a whole step, whatever part of it the contact lasted: at most F dt of
    impulse at each jump, at most F v dt of energy (F the jump, v the speed there). Then
    e^2 = 1 - (W + dE) / (m* v^2 / 2) moves by at most dE / (m* v^2 e)."""
    if code == "dempact":
        return None
    f_in, f_out = (4.0 / 3.0, 1.5) if model == "jkr" else (2.0, 2.0)
    if e == 0.0:
        return 0.0
    de = FORCE * DT * (f_in * v + f_out * e * v)
    return de / (M_EFF * v * v * e)


# ---- dempact -------------------------------------------------------------------------

CASE = """# written by tests/lammps/compare_adhesion.py: two spheres head on, elastic {model}
name: pair
domain: {{min: [-0.01, -0.01, -0.01], max: [0.01, 0.01, 0.01]}}
time: {{end: {end}, step: {dt}, output_interval: 0}}
materials:
  - {{name: powder, density: {rho}, young: {young}, poisson: {nu}}}
contacts:
  - materials: [powder, powder]
    law: hertz
    adhesion: {{model: {model}, work: {work}}}
particles:
  - {{source: file, material: powder, file: pair.csv}}
"""


def write_case(folder, model, v, steps):
    x0 = R + GAP / 2.0
    with open(os.path.join(folder, "pair.csv"), "w") as f:
        f.write("x,y,z,radius,vx,vy,vz\n")
        f.write("%s,0,0,%s,%s,0,0\n" % (g17(-x0), g17(R), g17(v / 2.0)))
        f.write("%s,0,0,%s,%s,0,0\n" % (g17(x0), g17(R), g17(-v / 2.0)))
    case = os.path.join(folder, "pair.yaml")
    with open(case, "w") as f:
        f.write(CASE.format(model=model, end=g17(steps * DT), dt=g17(DT), rho=g17(RHO),
                            young=g17(YOUNG), nu=g17(NU), work=g17(WORK)))
    return case


def trace_dempact(folder, model, v):
    """Steps the case with the Python package (`dempact run`'s step, bit for bit) and
    records each step: overlap, normal force on sphere 1 (> 0 repulsive), v2 - v1 along
    x. Stops QUIET steps after the pair parted, or at MAX_TIME."""
    import dempact
    max_steps = int(math.ceil(MAX_TIME / DT))
    case = write_case(folder, model, v, max_steps)
    sim = dempact.Simulation(case)
    d, fn, vrel = [], [], []
    quiet, touched = 0, False
    while len(d) < max_steps:
        sim.step(1)
        x, vel, f = sim.positions, sim.velocities, sim.forces
        i, j = (0, 1) if x[0, 0] < x[1, 0] else (1, 0)
        d.append(2.0 * R - (x[j, 0] - x[i, 0]))
        fn.append(-f[i, 0])
        vrel.append(vel[j, 0] - vel[i, 0])
        touched = touched or fn[-1] != 0.0
        quiet = quiet + 1 if (touched and fn[-1] == 0.0) else 0
        if quiet >= QUIET:
            break
    final = {int(k): sim.velocities[n].copy() for n, k in enumerate(sim.ids)}
    return np.array(d), np.array(fn), np.array(vrel), final


def run_dempact(exe, folder, model, v, steps):
    """`dempact run` on the same case, as long as the trace: its last snapshot's
    velocities, by particle id."""
    import h5py
    case = write_case(folder, model, v, steps)
    out = os.path.join(folder, "out")
    cmd = [exe, "run", case, "--output", out, "--threads", "1", "--quiet", "--overwrite"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr))
    with h5py.File(os.path.join(out, "pair.h5"), "r") as h:
        snaps = h["snapshots"]
        last = snaps[sorted(snaps.keys())[-1]]
        step = int(last.attrs["step"])
        return step, {int(k): vel for k, vel in zip(last["id"][()], last["velocity"][()])}


# ---- LAMMPS --------------------------------------------------------------------------

def lammps_coeff(model):
    """pair_coeff for the mapped law: E, damping 0 (velocity: no dashpot), nu, and the
    cohesion LAMMPS calls the surface energy gamma = w / 2; a tangential model with history
    and no stiffness, damping or friction (with no history LAMMPS's jkr stops at the end
    of the run: fix NEIGH_HISTORY asks its page for 0 values, which it reports as an
    overflow)."""
    return ("%s %s 0 %s %s damping velocity tangential linear_history 0 0 0"
            % (model, g17(YOUNG), g17(NU), g17(WORK / 2.0)))


def trace_lammps(lmp, folder, model, v, steps):
    trace = os.path.join(folder, "trace.txt")
    subs = {"BOX": g17(20 * R), "X0": g17(R + GAP / 2.0), "DIAMETER": g17(2 * R),
            "DENSITY": g17(RHO), "HALF_V0": g17(v / 2.0), "PAIR_COEFF": lammps_coeff(model),
            "SKIN": g17(0.2 * R), "DT": g17(DT), "TRACE": trace, "STEPS": str(steps)}
    with open(TEMPLATE) as f:
        text = f.read()
    for k, val in subs.items():
        text = text.replace("@%s@" % k, val)
    inp = os.path.join(folder, "in.adhesion")
    with open(inp, "w") as f:
        f.write(text)
    p = subprocess.run([lmp, "-in", inp, "-log", "none", "-nocite"], capture_output=True,
                       text=True, cwd=folder)
    if p.returncode != 0:
        raise RuntimeError("LAMMPS failed on %s:\n%s%s" % (inp, p.stdout[-3000:], p.stderr[-2000:]))
    mass = [float(s.split()[-1]) for s in p.stdout.splitlines() if s.startswith("dempact-check mass")]
    if not mass or abs(mass[0] / MASS - 1.0) > 1e-12:
        raise RuntimeError("LAMMPS's sphere mass %r is not %r" % (mass, MASS))
    rows = np.loadtxt(trace, comments="#")
    rows = rows[1:]                       # step 0: the setup, before any step
    return rows[:, 1], -rows[:, 2], rows[:, 4] - rows[:, 3]


# ---- the measurement, the same on both traces -----------------------------------------

def measure(model, v, d, fn, vrel):
    """restitution (0 if the pair has not parted for QUIET steps at the end, moving apart),
    the largest pull after the turn and the worst gap to the force curve, both over the
    contact's inner steps: the steps in contact but its first and last, where a code may
    apply a force other than the law's at that overlap (dempact's impulse-exact ends)."""
    held = np.nonzero(fn != 0.0)[0]
    if len(held) == 0:
        raise RuntimeError("the spheres never touched")
    parted = held[-1] < len(fn) - QUIET and vrel[-1] > 0.0 and d[-1] < 0.0
    e = vrel[-1] / v if parted else 0.0
    inner = held[1:-1] if parted else held[1:]
    turn = held[0] + int(np.argmax(vrel[held[0]:] > 0.0))
    after = inner[inner >= turn]
    pull = float(np.max(-fn[after])) / FORCE
    curve = theory_force(model, d[inner])
    gap = np.abs(fn[inner] / FORCE - curve) / np.maximum(np.abs(curve), 1.0)
    return {"e": e, "parted": parted, "pull": pull, "curve": float(np.max(gap)),
            "steps": len(fn), "dmin": float(np.min(d[inner])) / L}


# ---- the comparison ------------------------------------------------------------------

CURVE_TOLERANCE = 1e-9      # the force at an inner step against the closed form [relative]
E_TOLERANCE_DEMPACT = 1e-4  # second order in dt: (omega dt)^2 ~ 2e-6 at 10 V_s
PULL_TOLERANCE = 2e-3       # the sampled maximum of a smooth peak / DMT's Hertz at the first inner step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dempact", required=True)
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--keep", default="", help="leave cases, inputs and traces in this folder")
    args = ap.parse_args()
    lmp = shutil.which(args.lmp)
    if lmp is None:
        print("FAIL: LAMMPS executable '%s' not found: install Debian's lammps package" % args.lmp)
        return 1
    if not os.access(args.dempact, os.X_OK):
        print("FAIL: %s is not an executable" % args.dempact)
        return 1
    try:
        import dempact  # noqa: F401
        import h5py  # noqa: F401
    except ImportError as exc:
        print("FAIL: %s: run with the project's .venv/bin/python (bash tools/setup.sh)" % exc)
        return 1

    workdir = args.keep or tempfile.mkdtemp(prefix="dempact_lammps_adhesion_")
    os.makedirs(workdir, exist_ok=True)
    print("two spheres R = %g m, E = %g Pa, nu = %g, %g kg/m^3, w = %g J/m^2 (LAMMPS gamma = %g); "
          "dt = %g s" % (R, YOUNG, NU, RHO, WORK, WORK / 2, DT))
    print("a_c = %.6g m, a_c^2/R* = %.6g m, pi w R* = %.6g N; V_s = %.6g m/s (dempact, "
          "W = 4.20976 pi w a_c^2), %.6g m/s = %.5f V_s (LAMMPS, W = 2.07906 pi w a_c^2)"
          % (A_C, L, FORCE, V_STICK, V_STICK_LAMMPS, V_STICK_LAMMPS / V_STICK))
    failed = []
    try:
        for model in ("jkr", "dmt"):
            print()
            head = "%-4s %6s | %-9s %9s %9s %8s %9s %9s | %-9s %9s %9s %8s %9s %9s" % (
                model, "V/V_s", "dempact e", "theory", "|diff|", "pull", "theory", "curve",
                "LAMMPS e", "theory", "bound", "pull", "theory", "curve")
            print(head)
            print("-" * len(head))
            for k, mult in enumerate(SPEEDS):
                v = mult * V_STICK
                folder = os.path.join(workdir, "%s_%02d" % (model, k))
                os.makedirs(folder, exist_ok=True)
                d, fn, vrel, final = trace_dempact(folder, model, v)
                res = {"dempact": measure(model, v, d, fn, vrel)}
                step, cli = run_dempact(args.dempact, folder, model, v, len(fn))
                if step != len(fn) or any(not np.array_equal(cli[i], final[i]) for i in final):
                    failed.append("%s %g V_s: `dempact run` ends at step %d with velocities %s, the "
                                  "Python package's step at %d with %s (rerun tools/setup.sh?)"
                                  % (model, mult, step, cli, len(fn), final))
                d, fn, vrel = trace_lammps(lmp, folder, model, v, len(fn))
                res["lammps"] = measure(model, v, d, fn, vrel)
                cells = []
                for code in ("dempact", "lammps"):
                    r = res[code]
                    e_th, pull_th = theory(model, code, v)
                    bound = lammps_bound(model, code, v, e_th)
                    tol = E_TOLERANCE_DEMPACT if bound is None else bound
                    name = "%s %s %g V_s" % (code, model, mult)
                    if abs(r["e"] - e_th) > tol or (e_th == 0.0) != (not r["parted"]):
                        failed.append("%s: e = %.7f, the closed form %.7f (tolerance %.1e)"
                                      % (name, r["e"], e_th, tol))
                    if abs(r["pull"] - pull_th) > PULL_TOLERANCE * pull_th:
                        failed.append("%s: largest pull %.6f pi w R*, the closed form %.6f"
                                      % (name, r["pull"], pull_th))
                    if r["curve"] > CURVE_TOLERANCE:
                        failed.append("%s: the force is %.1e off the closed-form curve"
                                      % (name, r["curve"]))
                    cells.append("%9.6f %9.6f %9.1e %8.5f %9.5f %9.1e" % (
                        r["e"], e_th, abs(r["e"] - e_th) if bound is None else bound,
                        r["pull"], pull_th, r["curve"]))
                print("%-4s %6.2f | %s | %s" % ("", mult, cells[0], cells[1]))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print()
    if failed:
        print("FAIL:\n  " + "\n  ".join(failed))
        return 1
    print("both codes follow the closed forms: the force on every inner step within %g of the "
          "JKR / DMT curve, e within %g (dempact) and within the first-order bound (LAMMPS), "
          "the largest pull within %g" % (CURVE_TOLERANCE, E_TOLERANCE_DEMPACT, PULL_TOLERANCE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
