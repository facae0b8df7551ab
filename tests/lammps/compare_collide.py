#!/usr/bin/python3
"""dempact against LAMMPS: the same head-on binary collision in both codes.

Usage: compare_collide.py --dempact PATH [--lmp lmp] [--tolerance 0.005]
                          [--cases NAME,...] [--keep DIR] [--list]

Two identical steel spheres (R = 0.01 m, 7800 kg/m^3, E = 2e11 Pa, nu = 0.3) meet head on
at V0 = 1 m/s in `units si`. dempact runs `dempact collide --format json`; LAMMPS runs
tests/lammps/collide.in with the mapped `pair_style granular` law and prints overlap,
force and velocities every step. Both are measured the same way (engine/collision.c):

  contact start / end  the overlap crosses zero, interpolated linearly within the step
  peak force           largest |F| on sphere 1 over the steps in contact
  restitution          (v2 - v1) / V0, three steps after separation

Both codes use the same step, about 1/10000 of the Hertz contact time. Every mapped case
must agree within --tolerance (relative, default 0.5 %) in restitution, contact time and
peak force; exit status 1 otherwise, or if LAMMPS is missing. A negative control (LAMMPS's
tsuji and dempact's hertz_tti given the same nominal e) must differ by more than the
tolerance, so the check cannot pass vacuously.

THE MAPPINGS (LAMMPS 29 Sep 2021, src/GRANULAR/pair_granular.cpp)

LAMMPS's normal force for `hertz/material E eta_n0 nu` is
    F = E_L d sqrt(R* d) + eta_n0 * D * d',     E_L = 4/3 E*,  1/E* = 2 (1 - nu^2) / E
(two spheres of one material; the code's vnnr is -d'), so its elastic part is dempact's
K_hz d^(3/2) with K_hz = 4/3 E* sqrt(R*) exactly. `hooke kn eta_n0` is F = kn d + eta_n0 D d'.
The damping model picks D:
    velocity       D = 1
    mass_velocity  D = m*
    viscoelastic   D = m* a,          a = sqrt(R* d)        (the contact radius)
    tsuji          D = sqrt(m* E_L a) = sqrt(m* K_hz) d^(1/4), and for tsuji the given
                   eta_n0 is a restitution cor that LAMMPS turns into
                   alpha(cor) = 1.2728 - 4.2783 cor + 11.087 cor^2 - 22.348 cor^3
                                + 27.467 cor^4 - 18.022 cor^5 + 4.8218 cor^6
`limit_damping` sets a negative total normal force to 0: dempact's cohesion removal.
Without it (LAMMPS's default) the dashpot may pull: dempact's cohesion_removal off.

    dempact law            LAMMPS                                   exact mapping
    hertz                  hertz/material E 0 nu, damping velocity   identical
    hertz_lh  eta          hertz/material, damping mass_velocity     eta_n0 = eta
    hertz_kk  eta          hertz/material, damping viscoelastic      eta_n0 = eta / (m* sqrt(R*))
    hertz_tti e            hertz/material, damping tsuji, cor        f(e) = alpha(cor), with
                                                                     f(e) = -2.2664 ln e / sqrt(ln^2 e + 10.1354):
                                                                     e = exp(-a sqrt(10.1354 / (2.2664^2 - a^2))), a = alpha(cor)
    hertz_critical_ratio xi  hertz/material, damping tsuji, cor       xi sqrt(8 m* E* sqrt(R*)) = xi sqrt(6) sqrt(m* K_hz):
                                                                     xi = alpha(cor) / sqrt(6)
    linear K eta           hooke K eta, damping velocity             stiffness = K, damping = eta (given)

hertz_kk's mapping holds for one pair size only (LAMMPS's prefactor scales with m* sqrt(R*),
dempact's eta is a constant): exact in this monodisperse collision, not in a polydisperse
bed. Laws that map only approximately and are left out of the exact comparison: `linear`
with a stiffness formula (K and eta follow each contact's impact speed; LAMMPS's hooke is
one K for all), and every law whose dashpot scales with the impact speed (hunt_crossley and
the family-3 laws, zhang) or that is rate independent (kostek): LAMMPS has no such model.

Note what the mapping of hertz_tti shows: LAMMPS's tsuji fit alpha(cor) is about
f(cor) / sqrt(2), so LAMMPS's `tsuji 0.5` damps like dempact's `hertz_tti` at e = 0.616 and
restitutes 0.646 (limit_damping) where hertz_tti 0.5 restitutes 0.550.

MINDLIN (friction) -- the place for it: the engine has friction (engine/friction.h), but
`dempact collide` cannot set it yet, so there is no Mindlin case below. What it takes:
an oblique collision (same spheres, a tangential relative speed at impact) against LAMMPS's
    hertz/material E eta_n0 nu damping tsuji tangential mindlin NULL XGAMMAT MU
(NULL: k_t = 8 G* a, a = sqrt(R* d), 1/G* = 2 (2 - nu) / G, G = E / (2 (1 + nu)); the
tangential dashpot is XGAMMAT times the normal one, eta_t = XGAMMAT alpha(cor) sqrt(m* K_hz)
d^(1/4); the Coulomb limit is MU |F_n|, F_n the total normal force, with one coefficient for
sticking and sliding). dempact's Mindlin (engine/friction.h) uses
eta_t = 2 sqrt(5/6) beta sqrt(k_t m*), beta = -ln e_t / sqrt(ln^2 e_t + pi^2), so
XGAMMAT = 2 sqrt(5/6) beta sqrt(8 G*) / (alpha(cor) sqrt(4/3 E*)) maps it exactly for a pair
of one material (both cap the tangential force at mu times the normal force after the
clamp, LAMMPS with limit_damping). It needs from `dempact collide`: a friction coefficient
and an impact angle (or tangential speed) on the command line, and the rebound's tangential
velocity
and angular velocity in its JSON (the quantities to compare, with the contact time and
peak normal and tangential forces); and here: a case with "mindlin": True whose LAMMPS
trace also prints vy and omegaz of both atoms. See MINDLIN_TODO below.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "collide.in")

# The collision: dempact collide's defaults, written out so LAMMPS gets the same.
R, RHO, YOUNG, NU, V0 = 0.01, 7800.0, 2e11, 0.3, 1.0
GAP = 0.01 * R                     # engine/collision.c starts the spheres 0.01 R apart
MASS = RHO * 4.0 / 3.0 * math.pi * R ** 3
M_EFF, R_EFF = MASS / 2.0, R / 2.0
E_EFF = 1.0 / (2.0 * (1.0 - NU * NU) / YOUNG)
K_HZ = 4.0 / 3.0 * E_EFF * math.sqrt(R_EFF)


def hertz_contact_time(v0):
    """2 x 1.4716 d_max / v0 (undamped Hertz), as dempact estimates it."""
    d_max = (15.0 * M_EFF * v0 * v0 / (16.0 * E_EFF * math.sqrt(R_EFF))) ** 0.4
    return 2.0 * 1.4716 * d_max / v0


T_HERTZ = hertz_contact_time(V0)
DT = T_HERTZ / 10000.0


def alpha_tsuji(cor):
    """LAMMPS's tsuji damping prefactor from its restitution argument (pair_granular.cpp)."""
    c = cor
    return (1.2728 - 4.2783 * c + 11.087 * c ** 2 - 22.348 * c ** 3 + 27.467 * c ** 4
            - 18.022 * c ** 5 + 4.8218 * c ** 6)


def tti_restitution_for(factor):
    """The e that makes dempact's hertz_tti factor -2.2664 ln e / sqrt(ln^2 e + 10.1354)
    equal `factor`: factor^2 (L^2 + 10.1354) = 2.2664^2 L^2, L = ln e < 0."""
    return math.exp(-factor * math.sqrt(10.1354 / (2.2664 ** 2 - factor ** 2)))


def tti_factor(e):
    le = math.log(e)
    return -2.2664 * le / math.sqrt(le * le + 10.1354)


def g17(x):
    return "%.17g" % x


def lmp_hertz(eta_n0, damping, limit):
    return ("hertz/material %s %s %s damping %s tangential linear_nohistory 0 0%s"
            % (g17(YOUNG), g17(eta_n0), g17(NU), damping, " limit_damping" if limit else ""))


def make_cases():
    """Each case: dempact arguments, the LAMMPS pair_coeff, and the mapping in words."""
    cases = []

    def add(name, law, dem_args, coeff, mapping, removal, control=False):
        cases.append({"name": name, "law": law, "dempact": ["--law", law] + dem_args +
                      ["--cohesion-removal", "on" if removal else "off"],
                      "lammps": coeff, "mapping": mapping, "control": control})

    add("hertz", "hertz", [], lmp_hertz(0.0, "velocity", False),
        "hertz/material E 0 nu (no damping)", False)

    for cor, removal in ((0.5, True), (0.5, False), (0.2, True)):
        a = alpha_tsuji(cor)
        e = tti_restitution_for(a)
        add("hertz_tti e=%.4f/%s" % (e, "on" if removal else "off"), "hertz_tti",
            ["--restitution", g17(e)], lmp_hertz(cor, "tsuji", removal),
            "tsuji %g: alpha = %.6f = f(e) at e = %.6f" % (cor, a, e), removal)

    a = alpha_tsuji(0.3)
    xi = a / math.sqrt(6.0)
    add("hertz_critical_ratio xi=%.4f" % xi, "hertz_critical_ratio", ["--param", "xi=" + g17(xi)],
        lmp_hertz(0.3, "tsuji", False), "tsuji 0.3: xi = alpha / sqrt(6) = %.6f" % xi, False)

    eta_n0 = 1.2e8                      # LAMMPS viscoelastic prefactor [1/(m^(1/2) s)]: e near 0.5
    eta_kk = eta_n0 * M_EFF * math.sqrt(R_EFF)
    for removal in (True, False):
        add("hertz_kk/%s" % ("on" if removal else "off"), "hertz_kk",
            ["--param", "eta=" + g17(eta_kk)], lmp_hertz(eta_n0, "viscoelastic", removal),
            "viscoelastic %g: eta = eta_n0 m* sqrt(R*) = %.6g" % (eta_n0, eta_kk), removal)

    eta_lh = 2.0e4                      # LAMMPS mass_velocity prefactor [1/s]
    for removal in (True, False):
        add("hertz_lh/%s" % ("on" if removal else "off"), "hertz_lh",
            ["--param", "eta=" + g17(eta_lh)], lmp_hertz(eta_lh, "mass_velocity", removal),
            "mass_velocity %g: eta = eta_n0" % eta_lh, removal)

    kn, eta = 5.0e7, 400.0              # N/m, N s/m
    for removal in (True, False):
        add("linear/%s" % ("on" if removal else "off"), "linear",
            ["--param", "stiffness=" + g17(kn), "--param", "damping=" + g17(eta)],
            "hooke %s %s damping velocity tangential linear_nohistory 0 0%s"
            % (g17(kn), g17(eta), " limit_damping" if removal else ""),
            "hooke %g %g: stiffness = kn, damping = eta_n0" % (kn, eta), removal)

    # Negative control: the same nominal e in both codes is NOT the same law.
    add("control: tti 0.5 vs tsuji 0.5", "hertz_tti", ["--restitution", "0.5"],
        lmp_hertz(0.5, "tsuji", True), "unmapped: nominal e = cor = 0.5", True, control=True)
    return cases


# MINDLIN_TODO: once `dempact collide` takes friction, add here a case
#   {"name": "mindlin", "mindlin": True, "dempact": [..., "--friction", "0.5", "--angle", ...],
#    "lammps": "hertz/material E cor nu damping tsuji tangential mindlin NULL XGAMMAT 0.5"}
# with XGAMMAT from the docstring, start the spheres with a tangential speed (set atom vy),
# print vy, omegaz of both atoms in collide.in's trace, and compare the rebound's tangential
# velocity and spin as well.


def run_dempact(dempact, case):
    cmd = [dempact, "collide"] + case["dempact"] + ["--velocity", g17(V0), "--dt", g17(DT),
                                                   "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr))
    r = json.loads(out.stdout)
    return {"e": r["restitution_out"], "tc": r["contact_time"], "peak": r["peak_force"],
            "overlap": r["max_overlap"]}


def run_lammps(lmp, case, workdir, index):
    trace = os.path.join(workdir, "trace%02d.txt" % index)
    steps = int(math.ceil((GAP / V0 + 3.0 * T_HERTZ) / DT))
    subs = {"BOX": g17(20 * R), "X0": g17(R + GAP / 2), "DIAMETER": g17(2 * R),
            "DENSITY": g17(RHO), "HALF_V0": g17(V0 / 2), "PAIR_COEFF": case["lammps"],
            "SKIN": g17(0.2 * R), "DT": g17(DT), "TRACE": trace, "STEPS": str(steps)}
    with open(TEMPLATE) as f:
        text = f.read()
    for k, v in subs.items():
        text = text.replace("@%s@" % k, v)
    left = re.findall(r"@[A-Z0-9_]+@", text.split("\n", 4)[-1])
    if left:
        raise RuntimeError("collide.in: unfilled placeholders %s" % left)
    inp = os.path.join(workdir, "in%02d.collide" % index)
    with open(inp, "w") as f:
        f.write(text)
    out = subprocess.run([lmp, "-in", inp, "-log", "none", "-nocite"], capture_output=True,
                         text=True, cwd=workdir)
    if out.returncode != 0:
        raise RuntimeError("LAMMPS failed on %s:\n%s%s" % (inp, out.stdout[-3000:], out.stderr[-2000:]))
    mass = None
    for line in out.stdout.splitlines():
        if line.startswith("dempact-check mass"):
            mass = float(line.split()[-1])
    if mass is None or abs(mass / MASS - 1) > 1e-12:
        raise RuntimeError("LAMMPS's sphere mass %r is not %r: density or diameter mismatch" % (mass, MASS))
    return measure(trace)


def crossing(t0, d0, t1, d1):
    return t0 + (t1 - t0) * (0.0 - d0) / (d1 - d0)


def measure(trace):
    """engine/collision.c's measurement, on LAMMPS's per-step trace."""
    rows = []
    with open(trace) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append([float(v) for v in line.split()])
    t_start, t_end, peak, overlap, separated = None, None, 0.0, 0.0, 0
    prev = rows[0]
    for row in rows[1:]:
        _, t, d, f, v1, v2 = row
        if d > 0.0:
            if t_start is None:
                t_start = crossing(prev[1], prev[2], t, d)
            peak = max(peak, abs(f))
            overlap = max(overlap, d)
        elif t_start is not None:
            if separated == 0:
                t_end = crossing(prev[1], prev[2], t, d)
            separated += 1
            if separated == 3:
                return {"e": (v2 - v1) / V0, "tc": t_end - t_start, "peak": peak, "overlap": overlap}
        prev = row
    raise RuntimeError("%s: the spheres %s" % (trace, "never touched" if t_start is None else "did not separate"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dempact", required=True)
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--tolerance", type=float, default=0.005)
    ap.add_argument("--cases", default="", help="comma-separated name prefixes")
    ap.add_argument("--keep", default="", help="leave LAMMPS inputs and traces in this folder")
    ap.add_argument("--list", action="store_true", help="print the cases and mappings, run nothing")
    args = ap.parse_args()

    cases = make_cases()
    if args.cases:
        wanted = args.cases.split(",")
        cases = [c for c in cases if any(c["name"].startswith(w) for w in wanted)]
    if args.list:
        for c in cases:
            print("%-34s dempact %s\n%-34s LAMMPS  pair_coeff * * %s\n%-34s mapping %s"
                  % (c["name"], " ".join(c["dempact"]), "", c["lammps"], "", c["mapping"]))
        return 0
    lmp = shutil.which(args.lmp)
    if lmp is None:
        print("FAIL: LAMMPS executable '%s' not found: install Debian's lammps package "
              "(apt-get install lammps; tools/setup.sh does)" % args.lmp)
        return 1
    styles = subprocess.run([lmp, "-h"], capture_output=True, text=True).stdout
    if "granular" not in styles:
        print("FAIL: %s has no pair_style granular (GRANULAR package missing)" % lmp)
        return 1
    if not os.access(args.dempact, os.X_OK):
        print("FAIL: %s is not an executable" % args.dempact)
        return 1

    workdir = args.keep or tempfile.mkdtemp(prefix="dempact_lammps_")
    os.makedirs(workdir, exist_ok=True)
    print("steel spheres R = %g m, V0 = %g m/s, dt = %.6g s (Hertz contact time %.6g s / 10000), "
          "tolerance %g %%" % (R, V0, DT, T_HERTZ, 100 * args.tolerance))
    header = "%-32s %-8s %12s %12s %9s" % ("case", "quantity", "dempact", "LAMMPS", "rel diff")
    print(header)
    print("-" * len(header))
    failed = []
    try:
        for k, case in enumerate(cases):
            dem = run_dempact(args.dempact, case)
            lam = run_lammps(lmp, case, workdir, k)
            worst = 0.0
            for q, label in (("e", "e"), ("tc", "t_c [s]"), ("peak", "F_max [N]")):
                rel = abs(dem[q] - lam[q]) / abs(lam[q])
                worst = max(worst, rel)
                print("%-32s %-8s %12.7g %12.7g %9.2e" % (case["name"] if q == "e" else "", label,
                                                          dem[q], lam[q], rel))
            print("%-32s %s" % ("", case["mapping"]))
            if case["control"]:
                if worst <= args.tolerance:
                    failed.append(case["name"] + " (control agreed: the check is vacuous)")
            elif worst > args.tolerance:
                failed.append(case["name"])
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if failed:
        print("FAIL: " + "; ".join(failed))
        return 1
    print("every mapped law agrees with LAMMPS within %g %%%s" % (
        100 * args.tolerance,
        "; the unmapped control does not" if any(c["control"] for c in cases) else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
