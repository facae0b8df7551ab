#!/usr/bin/env python3
"""A granular gas cooling freely, against Haff's law: the restitution seen in a bulk flow.

Usage: .venv/bin/python tools/haff_cooling.py [--restitution 0.8] [--run-restitution E]
           [--count 1000] [--phi 0.02] [--seeds 1,2,3,4,5] [--law linear|hertz_tti]
           [--out DIR] [--json FILE] [--dempact build/dempact] [--check]

THE GAS: --count frictionless spheres (d 1 mm, 2500 kg/m^3) at solid fraction --phi in a
box periodic along all three axes, no gravity, no walls; random positions without
overlaps and Gaussian velocities (zero total momentum, <v_x^2> = 1 m^2/s^2 exactly) from
--seeds. The normal law is `linear` with a given stiffness (a constant restitution and
contact time, t_c about 0.5% of the first mean free time) or `hertz_tti` (a constant
restitution too); both at --restitution, or at --run-restitution when given (a gas that
is not the one the closed form is evaluated for: the check must then fail).

THE CLOSED FORM: for inelastic hard spheres of constant restitution e the granular
temperature theta = <|v - V|^2> / 3 of a homogeneous gas falls as
    d theta / dt = -B theta^(3/2),  theta(t) = theta_0 / (1 + B sqrt(theta_0) t / 2)^2
(Haff 1983), with, from Enskog's collision frequency omega = 4 n chi d^2 sqrt(pi theta)
and the mean energy a collision loses,
    B = (4/3) sqrt(pi) (1 - e^2) n chi d^2 (1 + 3 a2 / 16)
n the number density, chi = (1 - phi/2) / (1 - phi)^3 the pair correlation at contact
(Carnahan and Starling), and a2 = 16 (1 - e)(1 - 2 e^2) / (81 - 17 e + 30 e^2 (1 - e))
the velocity distribution's departure from a Gaussian in the cooling state (van Noije and
Ernst 1998; it moves B by 0.24% at e = 0.8). So theta^(-1/2) grows linearly in t with
slope B / 2.

THE MEASUREMENT: theta from the particles' velocities in every snapshot (50 over the run;
the mean velocity taken out), a straight line fitted to theta^(-1/2) from the time of
two collisions per particle (the random start is not yet the cooling state's structure)
to the end, B = 2 x slope, averaged over the seeds with their standard error; and the
restitution that B implies (the e for which the closed form gives the measured B).

The run lasts until the closed form has theta at theta_0 / 9 (t = 4 / (B sqrt(theta_0)),
about 18 collisions per particle at e = 0.8). At phi = 0.02 the box is about 5 mean free
paths wide, below the size where a gas of e = 0.8 forms vortices and clusters (Goldhirsch
and Zanetti 1993), so it stays homogeneous.

--check (the ctest haff_cooling) fails unless the measured B, the mean of the seeds', lies
within 4% of the closed form at --restitution: one gas of 1000 spheres scatters by about
2%, so five have a standard error near 1%, and the closed form's approximations (no
velocity correlations between colliding spheres, a2 to first order, rigid spheres) are
good to about 1% at phi = 0.02. A 20% change of the restitution (e 0.64 or 0.96 against
0.8) changes B by +64% or -78%.

References: P. K. Haff (1983), Grain flow as a fluid-mechanical phenomenon, J. Fluid Mech.
134, 401-430. T. P. C. van Noije, M. H. Ernst (1998), Velocity distributions in homogeneous
granular fluids: the free and the heated case, Granular Matter 1, 57-64. N. F. Carnahan,
K. E. Starling (1969), Equation of state for nonattracting rigid spheres, J. Chem. Phys.
51, 635-636. I. Goldhirsch, G. Zanetti (1993), Clustering instability in dissipative
gases, Phys. Rev. Lett. 70, 1619-1622.

Needs numpy and h5py: run it with the project's environment, `.venv/bin/python
tools/haff_cooling.py` (bash tools/setup.sh makes it).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

try:
    import numpy as np
    import dempact_h5
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("haff_cooling", missing))

DIAMETER, DENSITY = 1.0e-3, 2500.0
THETA0 = 1.0                 # <v_x^2> at t = 0 [m^2/s^2]
YOUNG, POISSON = 1.0e8, 0.3  # the material's (hertz_tti's stiffness)
CONTACT_TIME_SHARE = 0.005   # linear: t_c times the first collision frequency
FIT_FROM_COLLISIONS = 2.0    # per particle, before the fit starts
THETA_END = 1.0 / 9.0        # the run ends where the closed form reaches theta_0 / 9
SNAPSHOTS = 50
TOLERANCE = 0.04             # --check: |B / B_closed - 1|


def contact_chi(phi):
    """The pair correlation at contact of hard spheres (Carnahan and Starling)."""
    return (1.0 - phi / 2.0) / (1.0 - phi) ** 3


def sonine_a2(e):
    """The cooling state's fourth cumulant a2 in 3D (van Noije and Ernst 1998)."""
    return 16.0 * (1.0 - e) * (1.0 - 2.0 * e * e) / (81.0 - 17.0 * e + 30.0 * e * e * (1.0 - e))


def haff_b(e, phi, diameter=DIAMETER):
    """B of d theta / dt = -B theta^(3/2) [1/m]."""
    n = 6.0 * phi / (math.pi * diameter ** 3)
    return (4.0 / 3.0 * math.sqrt(math.pi) * (1.0 - e * e) * n * contact_chi(phi) * diameter ** 2
            * (1.0 + 3.0 * sonine_a2(e) / 16.0))


def collision_frequency(phi, theta, diameter=DIAMETER):
    """Enskog's collisions per particle per second."""
    n = 6.0 * phi / (math.pi * diameter ** 3)
    return 4.0 * n * contact_chi(phi) * diameter ** 2 * math.sqrt(math.pi * theta)


def restitution_of(b, phi, diameter=DIAMETER):
    """The e whose closed-form B is b (bisection: B falls monotonically in e)."""
    lo, hi = 0.0, 1.0
    if not haff_b(hi, phi, diameter) <= b <= haff_b(lo, phi, diameter):
        return float("nan")
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if haff_b(mid, phi, diameter) > b else (lo, mid)
    return 0.5 * (lo + hi)


def gas(count, phi, seed, diameter=DIAMETER):
    """Box edge, positions (no two closer than a diameter across the periodic faces) and
    velocities (zero total momentum, <v_x^2> exactly THETA0)."""
    edge = (count * math.pi * diameter ** 3 / 6.0 / phi) ** (1.0 / 3.0)
    rng = np.random.default_rng(seed)
    placed = np.empty((count, 3))
    k = 0
    while k < count:
        trial = rng.uniform(0.0, edge, 3)
        gap = placed[:k] - trial
        gap -= edge * np.round(gap / edge)
        if k == 0 or np.min(np.einsum("ij,ij->i", gap, gap)) > (1.01 * diameter) ** 2:
            placed[k] = trial
            k += 1
    v = rng.standard_normal((count, 3))
    v -= v.mean(axis=0)
    v *= math.sqrt(THETA0 / (np.mean(v * v)))
    return edge, placed, v


def case_text(name, law, e, phi, edge, end, csv):
    mass = DENSITY * math.pi * DIAMETER ** 3 / 6.0
    if law == "linear":
        # t_c = pi / sqrt(K / m*) (undamped) at CONTACT_TIME_SHARE of the first mean free time
        t_c = CONTACT_TIME_SHARE / collision_frequency(phi, THETA0)
        stiffness = (mass / 2.0) * (math.pi / t_c) ** 2
        params = f"{{restitution: {e!r}, stiffness: {stiffness:.6g}}}"
    else:
        params = f"{{restitution: {e!r}}}"
    return f"""# tools/haff_cooling.py: a frictionless granular gas cooling freely (Haff's law)
name: {name}
domain:
  min: [0, 0, 0]
  max: [{edge!r}, {edge!r}, {edge!r}]
  periodic: [true, true, true]
time:
  end: {end!r}
  output_interval: {end / SNAPSHOTS!r}
materials:
  - {{name: bead, density: {DENSITY!r}, young: {YOUNG!r}, poisson: {POISSON!r}}}
contacts:
  - materials: [bead, bead]
    law: {law}
    params: {params}
particles:
  - source: file
    material: bead
    file: {csv}
"""



def write_gas(work, name, law, e, count, phi, seed, end):
    edge, x, v = gas(count, phi, seed)
    csv = name + ".csv"
    with open(os.path.join(work, csv), "w") as f:
        f.write("x,y,z,radius,vx,vy,vz\n")
        for p, u in zip(x, v):
            f.write(f"{p[0]!r},{p[1]!r},{p[2]!r},{DIAMETER / 2.0!r},{u[0]!r},{u[1]!r},{u[2]!r}\n")
    path = os.path.join(work, name + ".yaml")
    with open(path, "w") as f:
        f.write(case_text(name, law, e, phi, edge, end, csv))
    return path


def temperatures(path):
    """Times and theta = <|v - V|^2> / 3 of every snapshot."""
    run = dempact_h5.Run(path)
    theta = []
    for k in range(len(run)):
        v = np.asarray(run.snapshot(index=k).velocity, dtype=float)
        v = v - v.mean(axis=0)
        theta.append(float(np.mean(v * v)))
    return np.asarray(run.times, dtype=float), np.asarray(theta)


def fit_b(times, theta, start):
    """B from the slope of theta^(-1/2) against t over t >= start."""
    use = times >= start
    if use.sum() < 3:
        raise ValueError(f"fewer than 3 snapshots after t = {start:g} s")
    slope, _ = np.polyfit(times[use], theta[use] ** -0.5, 1)
    return 2.0 * slope


def end_time(e, phi):
    """When the closed form reaches theta_0 THETA_END: (1 + B sqrt(theta_0) t / 2)^2 = 1 / THETA_END."""
    return 2.0 * (THETA_END ** -0.5 - 1.0) / (haff_b(e, phi) * math.sqrt(THETA0))


def check(b_measured, b_closed):
    """The --check criterion; a list of failures."""
    ratio = b_measured / b_closed
    if abs(ratio - 1.0) <= TOLERANCE:
        return []
    return [f"B = {b_measured:.5g} 1/m is {ratio:.4f} times the closed form's {b_closed:.5g} "
            f"(allowed: within {TOLERANCE:.0%})"]


def seed_list(text):
    try:
        seeds = [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers separated by commas, got {text!r}")
    if not seeds or len(set(seeds)) != len(seeds) or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"seeds must be distinct integers >= 0, got {text!r}")
    return seeds


def unit_interval(text):
    try:
        e = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    if not 0.0 < e < 1.0:
        raise argparse.ArgumentTypeError(f"a restitution must lie in (0, 1), got {text!r}")
    return e


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--restitution", type=unit_interval, default=0.8,
                   help="the restitution of the closed form (and of the runs; default 0.8)")
    p.add_argument("--run-restitution", type=unit_interval,
                   help="run the gas at this restitution instead (the closed form stays at "
                        "--restitution)")
    p.add_argument("--count", type=int, default=1000, help="spheres (default 1000)")
    p.add_argument("--phi", type=float, default=0.02, help="solid fraction (default 0.02)")
    p.add_argument("--seeds", type=seed_list, default=[1, 2, 3, 4, 5],
                   help="one gas per seed (default 1,2,3,4,5)")
    p.add_argument("--law", choices=("linear", "hertz_tti"), default="linear")
    p.add_argument("--out", help="keep the runs in this folder (default: a temporary one)")
    p.add_argument("--json", help="write the results to this file")
    p.add_argument("--dempact", default=os.path.join(ROOT, "build", "dempact"))
    p.add_argument("--check", action="store_true",
                   help="apply the criterion above; exit 1 if it fails")
    a = p.parse_args(argv)
    if not 2 <= a.count <= 100000:
        p.error(f"--count must lie in [2, 100000], got {a.count}")
    if not 0.0 < a.phi <= 0.2:
        p.error(f"--phi must lie in (0, 0.2] (a dilute gas), got {a.phi}")
    if not os.access(a.dempact, os.X_OK):
        p.error(f"--dempact {a.dempact}: not an executable")
    e_run = a.run_restitution if a.run_restitution is not None else a.restitution
    b_closed = haff_b(a.restitution, a.phi)
    end = end_time(a.restitution, a.phi)
    start = FIT_FROM_COLLISIONS / collision_frequency(a.phi, THETA0)
    work = a.out or tempfile.mkdtemp(prefix="haff_cooling_")
    os.makedirs(work, exist_ok=True)
    print(f"closed form at e = {a.restitution:g}, phi = {a.phi:g}: B = {b_closed:.5g} 1/m "
          f"(chi {contact_chi(a.phi):.4f}, a2 {sonine_a2(a.restitution):+.4f}); runs at "
          f"e = {e_run:g} to t = {end:.4g} s, fit from t = {start:.3g} s", flush=True)
    runs = []
    for seed in a.seeds:
        name = f"haff_{seed}"
        path = write_gas(work, name, a.law, e_run, a.count, a.phi, seed, end)
        began = time.time()
        out = subprocess.run([a.dempact, "run", path, "--output", os.path.join(work, name),
                              "--quiet"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"haff_cooling: dempact run {path} exited {out.returncode}: "
                     f"{out.stderr.strip()}")
        times, theta = temperatures(os.path.join(work, name, name + ".h5"))
        b = fit_b(times, theta, start)
        runs.append({"seed": seed, "B": b, "theta_end": float(theta[-1]),
                     "seconds": time.time() - began})
        print(f"seed {seed}: B = {b:.5g} 1/m ({b / b_closed:.4f} of the closed form), "
              f"theta at the end {theta[-1]:.4f} (closed form {THETA_END:.4f}), "
              f"{runs[-1]['seconds']:.0f} s", flush=True)
    bs = np.array([r["B"] for r in runs])
    b_mean = float(bs.mean())
    b_se = float(bs.std(ddof=1) / math.sqrt(len(bs))) if len(bs) > 1 else float("nan")
    e_seen = restitution_of(b_mean, a.phi)
    print(f"B = {b_mean:.5g} +- {b_se:.2g} 1/m: {b_mean / b_closed:.4f} of the closed form "
          f"at e = {a.restitution:g}; the restitution it implies: {e_seen:.4f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"restitution": a.restitution, "run_restitution": e_run, "law": a.law,
                       "count": a.count, "phi": a.phi, "B_closed": b_closed, "B": b_mean,
                       "B_se": b_se, "restitution_implied": e_seen, "runs": runs}, f, indent=1)
    if a.check:
        failures = check(b_mean, b_closed)
        for failure in failures:
            print("FAIL: " + failure)
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
