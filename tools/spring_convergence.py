#!/usr/bin/env python3
"""How the tangential spring converges in dempact, LAMMPS and LIGGGHTS on the same impacts.

Usage: .venv/bin/python tools/spring_convergence.py [--dempact build/dempact] [--lmp lmp]
           [--liggghts liggghts] [--codes dempact,lammps,liggghts] [--angles 5,10]
           [--steps 20,40,80,160,320,4000,16000] [--json OUT] [--keep DIR]
           [--check-dempact TOL] [--check-halving RATIO]

Two identical alumina spheres (Chung & Ooi's test 4 material: R = 2.55 mm, 4000 kg/m^3,
E = 3.8e11 Pa, nu = 0.23) meet at V0 = 3.9 m/s along the line of centres and V0 tan(angle)
across it (issue 42's impact; `dempact collide --angle`), with Hertz's law and the Tsuji
dashpot at e = 0.98, cohesion removal, Mindlin's spring k_t = 8 G* sqrt(R* d) with its
dashpot and Coulomb friction mu = 0.092. Each code runs them at the steps dt = T / N (T
the contact time that `dempact collide` measures head on at its default step, 7.1671e-6 s),
and each is measured as engine/collide/collision.c measures: three steps after the
overlap has crossed zero, the spin of sphere 1 about z (wz1) and the tangential
restitution of the contact points, e_t = -((v1y - v2y) + R (w1z + w2z)) / (V0 tan(angle)).
The table gives wz1, e_t and each code's error against its own finest step (the largest
N); --json OUT writes all of it. --check-dempact TOL exits 1 when dempact's two finest
steps differ by more than TOL rad/s at any angle, --check-halving RATIO when dempact's
error falls by less than RATIO from any N to 2N among the steps below the two finest
(issue 42's criterion: 3 from T/20 to T/160); the peers are reported, never judged.
A peer that is missing or fails is reported with the reason, and the rest still run.

The three codes (the normal law and the spring's stiffness and dashpot are the same in
all three; they differ in the rule for a sliding contact):
  dempact   `dempact collide --law hertz_tti --restitution 0.98` (fit: calibrated: the
            dashpot factor eta / sqrt(m* K_hz) solved so that the head-on impact restitutes
            0.98) `--friction 0.092`, the spring's dashpot at e_t = e
            (models/tangential_spring.h): a Kelvin-Voigt element in series with a Coulomb
            slider. The trial force k_t xi + eta_t v_t, spring and dashpot together, is
            capped at mu F_n; while sliding the spring relaxes towards holding all of the
            capped force F through its dashpot, xi = (F + (eta_t / dt) xi_in) /
            (k_t + eta_t / dt). At the step where a sticking contact starts to
            slide, the force gets the impulse the step's trapezoid misses at that kink
            (the closing bump, docs/laws.md#the-tangential-spring-while-sliding).
  LAMMPS    tests/lammps/collide.in (pair_style granular) filled as
            tests/lammps/compare_collide.py fills it: `hertz/material E cor nu damping
            tsuji tangential mindlin NULL XGAMMAT mu limit_damping`, cor solved so that
            LAMMPS's fit alpha(cor) is dempact's calibrated factor
            (bench_compare.lammps_cor_for), XGAMMAT = compare_collide.xgammat for alumina's
            E*, G* (its dashpot then is dempact's). It caps spring + dashpot at mu F_n as
            dempact does, but resets the spring to hold the capped force minus the
            dashpot's share, xi = (F - eta_t v_t) / k_t; its contact velocity takes the
            spin times R, dempact's times R - d/2.
  LIGGGHTS  tests/liggghts/collide.in: `pair_style gran model hertz tangential history
            tangential_damping on limitForce on`, coefficientRestitution e_L =
            bench_compare.liggghts_restitution_for(dempact's calibrated factor), which
            makes its normal dashpot dempact's (tools/liggghts_hopper.py); its tangential
            dashpot is 2 sqrt(5/6) beta(e_L) sqrt(k_t m*) with beta(e_L) = factor / sqrt(5),
            0.4 % above dempact's beta(0.98). It slides when the spring force k_t |xi|
            alone exceeds mu F_n, and then sets the force to mu F_n along the spring,
            xi = F / k_t, and drops the dashpot; while it sticks the force k_t xi +
            eta_t v_t is not capped (LIGGGHTS 3.8.0, tangential_model_history.h).
  lammps_reset (only when --codes names it) tests/lammps/mindlin_reference.py, the
            third integration of compare_collide.py, with dempact's rules except LAMMPS's
            reset: what that one rule does to the convergence.
All three start the spheres 0.01 R apart, offset along y so that their centres line up
on x at first touch, and integrate with velocity Verlet.

Needs Debian's lammps (lmp, pair_style granular) and liggghts packages for the peers.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "lammps"))
import bench_compare  # noqa: E402
import compare_collide as cc  # noqa: E402

LAMMPS_TEMPLATE = os.path.join(ROOT, "tests", "lammps", "collide.in")
LIGGGHTS_TEMPLATE = os.path.join(ROOT, "tests", "liggghts", "collide.in")

# The impact (issue 42; Chung & Ooi test 4's alumina)
R, RHO, YOUNG, NU = 0.00255, 4000.0, 3.8e11, 0.23
V0, E, MU = 3.9, 0.98, 0.092
GAP = 0.01 * R                     # engine/collide/collision.c
MASS = RHO * 4.0 / 3.0 * math.pi * R ** 3
E_EFF = 1.0 / (2.0 * (1.0 - NU * NU) / YOUNG)
G_EFF = 1.0 / (2.0 * (2.0 - NU) / (YOUNG / (2.0 * (1.0 + NU))))
MATERIAL = ["--radius", cc.g17(R), "--density", cc.g17(RHO), "--young", cc.g17(YOUNG),
            "--poisson", cc.g17(NU), "--law", "hertz_tti", "--restitution", cc.g17(E),
            "--velocity", cc.g17(V0)]
CODES = ("dempact", "lammps", "liggghts")
EXTRA_CODES = ("lammps_reset",)
STEPS = (20, 40, 80, 160, 320, 4000, 16000)


def dempact_json(dempact, args):
    cmd = [dempact, "collide"] + MATERIAL + args + ["--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), out.returncode, out.stderr.strip()))
    return json.loads(out.stdout)


def tangential_speed(angle):
    return V0 * math.tan(math.radians(angle))


def rebound(angle, vy1, vy2, wz1, wz2, e):
    """The measured quantities from sphere 1's and 2's rebound."""
    slip = (vy1 - vy2) + R * (wz1 + wz2)
    return {"wz1": wz1, "e_t": -slip / tangential_speed(angle), "e": e}


def run_dempact(dempact, angle, dt):
    r = dempact_json(dempact, ["--friction", cc.g17(MU), "--angle", cc.g17(angle),
                               "--dt", cc.g17(dt)])
    v, w = r["velocity_out"], r["spin_out"]
    return rebound(angle, v[0][1], v[1][1], w[0][2], w[1][2], r["restitution_out"])


def run_reference(angle, dt, factor):
    """mindlin_reference.py with dempact's rules (its closing bump too) but LAMMPS's reset
    after sliding."""
    import mindlin_reference
    alpha = cc.alpha_tsuji(bench_compare.lammps_cor_for(factor))
    r = mindlin_reference.collide(R, RHO, E_EFF, G_EFF, V0, tangential_speed(angle), (0.0, 0.0),
                                  alpha, cc.beta_of(E), MU, dt, reset="lammps",
                                  closing_impulse="force")
    return rebound(angle, r["vy1"], r["vy2"], r["wz1"], r["wz2"], r["e"])


def template_subs(angle, dt, steps, trace):
    vt = tangential_speed(angle)
    return {"BOX": cc.g17(20 * R), "X0": cc.g17(R + GAP / 2), "Y0": cc.g17(0.5 * vt * GAP / V0),
            "DIAMETER": cc.g17(2 * R), "DENSITY": cc.g17(RHO), "HALF_V0": cc.g17(V0 / 2),
            "HALF_VT": cc.g17(vt / 2), "SKIN": cc.g17(0.2 * R), "DT": cc.g17(dt),
            "TRACE": trace, "STEPS": str(steps)}


def run_peer(code, binary, template, extra, angle, dt, steps, workdir, index):
    trace = os.path.join(workdir, "%s_trace%02d.txt" % (code, index))
    subs = template_subs(angle, dt, steps, trace)
    subs.update(extra)
    command = [binary, "-nocite"] if code == "lammps" else [binary]
    cc.run_template(command, template, subs, os.path.join(workdir, "%s_in%02d" % (code, index)),
                    workdir, MASS, name="LAMMPS" if code == "lammps" else "LIGGGHTS")
    m = cc.measure(trace, MU, V0)
    os.remove(trace)
    return rebound(angle, m["vy1"], m["vy2"], m["wz1"], m["wz2"], m["e"])


def mappings(factor):
    """Each peer's arguments for dempact's calibrated dashpot factor (the docstring)."""
    cor = bench_compare.lammps_cor_for(factor)
    alpha = cc.alpha_tsuji(cor)
    xg = cc.xgammat(cc.beta_of(E), alpha, E_EFF, G_EFF)
    coeff = ("hertz/material %s %s %s damping tsuji tangential mindlin NULL %s %s limit_damping"
             % (cc.g17(YOUNG), cc.g17(cor), cc.g17(NU), cc.g17(xg), cc.g17(MU)))
    e_l = bench_compare.liggghts_restitution_for(factor)
    return {
        "lammps": {"SPIN1": "0 0 0", "SPIN2": "0 0 0", "PAIR_COEFF": coeff},
        "liggghts": {"YOUNG": cc.g17(YOUNG), "POISSON": cc.g17(NU), "RESTITUTION": cc.g17(e_l),
                     "FRICTION": cc.g17(MU)},
        "summary": {"dempact_factor": factor, "lammps_cor": cor, "lammps_alpha": alpha,
                    "lammps_xgammat": xg, "lammps_pair_coeff": coeff, "liggghts_restitution": e_l,
                    "dempact_beta_t": cc.beta_of(E), "liggghts_beta_t": factor / math.sqrt(5.0)}}


def peer_ready(code, binary):
    """None if the peer can run, else why not."""
    path = shutil.which(binary)
    if path is None:
        return "'%s' not found (Debian's %s package)" % (binary, "lammps" if code == "lammps"
                                                           else "liggghts")
    if code == "lammps":
        styles = subprocess.run([path, "-h"], capture_output=True, text=True).stdout
        if "granular" not in styles:
            return "%s has no pair_style granular" % path
    return None


def positive_list(text, name, kind):
    try:
        values = [kind(v) for v in text.split(",")]
    except ValueError:
        values = []
    if not values or any(not (v > 0) or not math.isfinite(v) for v in values):
        raise ValueError("%s %r: give positive %ss separated by commas" % (name, text, kind.__name__))
    return values


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dempact", default=os.path.join(ROOT, "build", "dempact"))
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--liggghts", default="liggghts")
    ap.add_argument("--codes", default=",".join(CODES), help="which codes to run (default all three)")
    ap.add_argument("--angles", default="5,10", help="impact angles from the line of centres [deg]")
    ap.add_argument("--steps", default=",".join(map(str, STEPS)),
                    help="the N of dt = T / N; errors are against the largest")
    ap.add_argument("--json", default=None, help="write the results to this file")
    ap.add_argument("--keep", default=None, help="leave the peers' inputs in this folder")
    ap.add_argument("--check-dempact", type=float, default=None, metavar="TOL",
                    help="exit 1 if dempact's two finest steps differ by more than TOL rad/s")
    ap.add_argument("--check-halving", type=float, default=None, metavar="RATIO",
                    help="exit 1 if dempact's error falls by less than RATIO from N to 2N "
                         "(the steps below the two finest)")
    a = ap.parse_args(argv)
    try:
        a.codes = a.codes.split(",")
        bad = [c for c in a.codes if c not in CODES + EXTRA_CODES]
        if bad or not a.codes:
            raise ValueError("--codes %r: each one of %s" % (",".join(a.codes),
                                                             ", ".join(CODES + EXTRA_CODES)))
        a.angles = positive_list(a.angles, "--angles", float)
        if any(v >= 90 for v in a.angles):
            raise ValueError("--angles: each below 90 degrees")
        a.steps = sorted(set(positive_list(a.steps, "--steps", int)))
        if len(a.steps) < 2:
            raise ValueError("--steps %r: give at least two" % ",".join(map(str, a.steps)))
        if a.check_dempact is not None and not (a.check_dempact > 0):
            raise ValueError("--check-dempact %g: give a positive tolerance" % a.check_dempact)
        if a.check_halving is not None and not (a.check_halving > 0):
            raise ValueError("--check-halving %g: give a positive ratio" % a.check_halving)
        if (a.check_dempact is not None or a.check_halving is not None) and "dempact" not in a.codes:
            raise ValueError("--check-dempact and --check-halving need dempact among --codes")
        if "dempact" in a.codes and not os.access(a.dempact, os.X_OK):
            raise ValueError("--dempact %s: not an executable (build it: bash tools/setup.sh)" % a.dempact)
    except ValueError as why:
        print("spring_convergence: %s" % why, file=sys.stderr)
        sys.exit(2)
    return a


def check_halving(per_angle, steps, angles, ratio):
    """1 unless the error falls by at least `ratio` from each N to 2N among steps (and
    there is such a pair at every angle); prints each verdict."""
    pairs = [(n, 2 * n) for n in steps if 2 * n in steps]
    status = 0 if pairs else 1
    if not pairs:
        print("FAIL: --check-halving needs steps N and 2N below the two finest")
    for angle in angles:
        rows = per_angle.get(str(angle), {})
        for n, m in pairs:
            if str(n) not in rows or str(m) not in rows:
                print("FAIL: dempact did not run %g deg at N = %d and %d" % (angle, n, m))
                status = 1
                continue
            fall = abs(rows[str(n)]["error"]) / max(abs(rows[str(m)]["error"]), 1e-300)
            verdict = "ok" if fall >= ratio else "FAIL"
            print("%s: dempact at %g deg, N = %d to %d: the error falls %.2f-fold (at least %g)"
                  % (verdict, angle, n, m, fall, ratio))
            status = status if fall >= ratio else 1
    return status


def table(results, steps, angles):
    lines = ["%-12s %5s %7s %16s %10s %11s" % ("code", "angle", "N", "wz1 [rad/s]", "e_t",
                                               "error [rad/s]")]
    for code, per_angle in results.items():
        for angle in angles:
            rows = per_angle.get(str(angle), {})
            for n in steps:
                r = rows.get(str(n))
                if r is None:
                    continue
                lines.append("%-12s %5g %7d %16.10g %10.6f %+11.3e" % (code, angle, n, r["wz1"],
                                                                      r["e_t"], r["error"]))
    return "\n".join(lines)


def main(argv=None):
    a = parse(argv)
    # T and the calibrated factor: dempact head on at its default step
    head_on = dempact_json(a.dempact, ["--calibrate"])
    t_c = head_on["contact_time"]
    factor = next(iter(head_on["calibrated"].values()))
    maps = mappings(factor)
    print("alumina R = %g m, V0 = %g m/s, e = %g, mu = %g; T = %.6g s (dempact, head on, T/4000); "
          "dempact's damping factor %.8g" % (R, V0, E, MU, t_c, factor))
    print("LAMMPS: pair_coeff * * %s" % maps["summary"]["lammps_pair_coeff"])
    print("LIGGGHTS: coefficientRestitution %.10g (beta_t %.6g; dempact's %.6g)"
          % (maps["summary"]["liggghts_restitution"], maps["summary"]["liggghts_beta_t"],
             maps["summary"]["dempact_beta_t"]), flush=True)

    unable = {}
    binaries = {"lammps": a.lmp, "liggghts": a.liggghts}
    templates = {"lammps": LAMMPS_TEMPLATE, "liggghts": LIGGGHTS_TEMPLATE}
    for code in a.codes:
        if code in binaries:
            why = peer_ready(code, binaries[code])
            if why:
                unable[code] = why
    workdir = a.keep or tempfile.mkdtemp(prefix="dempact_springconv_")
    os.makedirs(workdir, exist_ok=True)
    results = {}
    index = 0
    try:
        for code in a.codes:
            if code in unable:
                continue
            results[code] = {}
            for angle in a.angles:
                rows = {}
                for n in a.steps:
                    dt = t_c / n
                    steps = int(math.ceil((GAP / V0 + 2.0 * t_c) / dt))
                    index += 1
                    try:
                        if code == "dempact":
                            r = run_dempact(a.dempact, angle, dt)
                        elif code == "lammps_reset":
                            r = run_reference(angle, dt, factor)
                        else:
                            r = run_peer(code, shutil.which(binaries[code]), templates[code],
                                         maps[code], angle, dt, steps, workdir, index)
                    except RuntimeError as why:
                        unable.setdefault(code, []).append("%g deg, N = %d: %s"
                                                           % (angle, n, str(why).splitlines()[0]))
                        continue
                    r["dt"] = dt
                    rows[str(n)] = r
                    print("%-12s %5g deg N = %6d  wz1 = %.10g rad/s  e_t = %.6f"
                          % (code, angle, n, r["wz1"], r["e_t"]), flush=True)
                finest = rows.get(str(a.steps[-1]))
                for r in rows.values():
                    r["error"] = r["wz1"] - finest["wz1"] if finest else float("nan")
                results[code][str(angle)] = rows
    finally:
        if not a.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    print()
    print(table(results, a.steps, a.angles))
    for code, why in unable.items():
        print("%s did not run%s" % (code, ": " + why if isinstance(why, str) else
                                    " every impact:\n  " + "\n  ".join(why)))
    status = 0
    if a.check_dempact is not None:
        fine, finer = str(a.steps[-2]), str(a.steps[-1])
        for angle in a.angles:
            rows = results.get("dempact", {}).get(str(angle), {})
            if fine not in rows or finer not in rows:
                print("FAIL: dempact did not run %g deg at N = %s and %s" % (angle, fine, finer))
                status = 1
                continue
            gap = abs(rows[fine]["wz1"] - rows[finer]["wz1"])
            verdict = "ok" if gap <= a.check_dempact else "FAIL"
            print("%s: dempact at %g deg, N = %s against %s: wz1 differs by %.3g rad/s (limit %g)"
                  % (verdict, angle, fine, finer, gap, a.check_dempact))
            if gap > a.check_dempact:
                status = 1
    if a.check_halving is not None:
        status = max(status, check_halving(results.get("dempact", {}), a.steps[:-2], a.angles,
                                           a.check_halving))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"impact": {"radius": R, "density": RHO, "young": YOUNG, "poisson": NU,
                                  "velocity": V0, "restitution": E, "friction": MU},
                       "contact_time": t_c, "angles": a.angles, "steps": a.steps,
                       "mapping": maps["summary"], "results": results,
                       "not_run": unable}, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
