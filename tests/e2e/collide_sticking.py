#!/usr/bin/env python3
"""Sticking of adhesive elastic spheres through `dempact collide --adhesion jkr`.

Usage: collide_sticking.py DEMPACT

Two identical elastic spheres (law hertz, no damping) with JKR adhesion. The contact
forms at touching and breaks at its reach: the energy a collision loses is the area of
JKR's loop, W = integral of |F_JKR| dd from the reach to d = 0, computed here by
quadrature of Johnson's parametric curve (independently of the engine and of the
closed form 4.2098 pi w a_c^2 the docs give, which it is checked against):
    d(a) = a^2/R* - sqrt(2 pi w a / E*),  F(a) = 4 E* a^3 / (3 R*) - sqrt(8 pi w E* a^3),
a from a_c (the reach, dd/da = 0) to a_1 (d = 0). The energy balance then gives
    V_s = sqrt(2 W / m*),   e(V) = sqrt(1 - V_s^2 / V^2) for V > V_s, stuck below
(Thornton & Ning 1998's criterion for elastic adhesive spheres).

1. A sweep --velocity 0.5Vs:5Vs:9 (geometric): stuck (restitution 0, stuck: true) below
   V_s, bouncing above, e within TOL of the formula; each bouncing speed below 3 V_s
   again at half the step, its error at most 0.7 of the full step's -- the step's
   discretisation is the only error the formula does not hold.
2. 0.98 V_s stuck, 1.05 V_s bouncing (e = 0.305 there, within TOL).
3. A damped law (hertz_tti, restitution 0.9) with the same jkr: 1.05 V_s sticks (its
   dashpot takes energy besides the loop); its sticking velocity by bisection, printed.
4. Without --adhesion the row has no "stuck" key; bad adhesion input: exit 2, nothing on
   stdout.
Runs: 9 + 4 (halved step) + 2 + 2 + 6 (bisection) + 1 collisions, fixed (nothing
generated at random), about 8 s on one core.
"""
import json
import math
import subprocess
import sys

dempact = sys.argv[1]
# 1 mm spheres of a soft glassy polymer, w = 0.1 J/m^2: V_s about 4 mm/s
R, RHO, YOUNG, NU, WORK = 1e-3, 2500.0, 1e8, 0.3, 0.1
# TOL: at the default step (t_c / 4000) e differs from the formula by at most 1.5e-6
# (1.05 to 5 V_s); the snap-in at touching and the break at the reach fall inside a step,
# an error of order dt: halving the step cuts it to 0.24-0.53 of itself (checked below,
# as at most 0.7). TOL is about 3 times the largest error seen.
TOL = 5e-6
failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


def collide(*args, law="hertz", adhesion=True):
    cmd = [dempact, "collide", "--law", law, "--radius", str(R), "--density", str(RHO),
           "--young", str(YOUNG), "--poisson", str(NU), *args]
    if adhesion:
        cmd += ["--adhesion", "jkr", "--adhesion-param", f"work={WORK}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise SystemExit(f"collide {args}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


# ---- the closed form, by quadrature of Johnson's curve ------------------------------
E_STAR = YOUNG / (2.0 * (1.0 - NU * NU))
R_STAR = R / 2.0
M_STAR = RHO * 4.0 / 3.0 * math.pi * R ** 3 / 2.0
A_C = (math.pi * WORK * R_STAR ** 2 / (8.0 * E_STAR)) ** (1.0 / 3.0)
A_1 = (2.0 * math.pi * WORK * R_STAR ** 2 / E_STAR) ** (1.0 / 3.0)  # d(a_1) = 0


def d_of(a):
    return a * a / R_STAR - math.sqrt(2.0 * math.pi * WORK * a / E_STAR)


def dd_da(a):
    return 2.0 * a / R_STAR - 0.5 * math.sqrt(2.0 * math.pi * WORK / (E_STAR * a))


def f_of(a):
    return 4.0 * E_STAR * a ** 3 / (3.0 * R_STAR) - math.sqrt(8.0 * math.pi * WORK * E_STAR * a ** 3)


def loop_work(n=4000):
    """integral of |F| dd over a in [a_c, a_1] (composite Simpson, n even)"""
    h = (A_1 - A_C) / n
    g = lambda a: abs(f_of(a)) * dd_da(a)
    s = g(A_C) + g(A_1) + sum((4 if k % 2 else 2) * g(A_C + k * h) for k in range(1, n))
    return s * h / 3.0


W = loop_work()
check(abs(loop_work(2000) - W) < 1e-9 * W, "the quadrature converged")
check(abs(d_of(A_C) + 3.0 * A_C ** 2 / R_STAR) < 1e-9 * A_C ** 2 / R_STAR,
      "the reach is -3 a_c^2 / R*")
coeff = W / (math.pi * WORK * A_C ** 2)
check(abs(coeff - 4.2098) < 1e-4, f"W / (pi w a_c^2) = {coeff:.6f}, docs: 4.2098")
V_S = math.sqrt(2.0 * W / M_STAR)
F_C = 1.5 * math.pi * WORK * R_STAR
const = V_S / (F_C ** 5 / (E_STAR ** 2 * R_STAR * M_STAR ** 3)) ** (1.0 / 6.0)
check(abs(const - 1.0348) < 1e-4, f"V_s / (F_c^5/(E*^2 R* m*^3))^(1/6) = {const:.5f}, docs: 1.0348")
print(f"W = {W:.6e} J = {coeff:.6f} pi w a_c^2; V_s = {V_S:.6e} m/s = {const:.5f} "
      f"(F_c^5/(E*^2 R* m*^3))^(1/6)")


def e_formula(v):
    return math.sqrt(1.0 - (V_S / v) ** 2) if v > V_S else 0.0


# ---- 1. the sweep --------------------------------------------------------------------
rows = collide("--velocity", f"{0.5 * V_S!r}:{5 * V_S!r}:9")
check(len(rows) == 9, "9 rows")
print(f"{'V/V_s':>8} {'stuck':>6} {'e':>12} {'formula':>12} {'e(dt/2)':>12}")
for r in rows:
    v = r["velocity"]
    half = ""
    if v < V_S:
        check(r["stuck"] and r["restitution_out"] == 0.0, f"stuck at {v / V_S:.3f} V_s")
    else:
        e, ef = r["restitution_out"], e_formula(v)
        check(not r["stuck"] and abs(e - ef) < TOL, f"e {e} vs {ef} at {v / V_S:.3f} V_s")
        if v < 3 * V_S:  # the halved step where the loop matters most
            e2 = collide("--velocity", repr(v), "--dt", repr(r["dt"] / 2))["restitution_out"]
            check(abs(e2 - ef) <= 0.7 * abs(e - ef),
                  f"halving dt at {v / V_S:.3f} V_s: |{e2} - {ef}| > 0.7 |{e} - {ef}|")
            half = f"{e2:12.8f}"
    print(f"{v / V_S:8.3f} {str(r['stuck']):>6} {r['restitution_out']:12.8f} "
          f"{e_formula(v):12.8f} {half}")

# ---- 2. either side of V_s ---------------------------------------------------------
r = collide("--velocity", repr(0.98 * V_S))
check(r["stuck"] and r["restitution_out"] == 0.0, "0.98 V_s sticks")
r = collide("--velocity", repr(1.05 * V_S))
check(not r["stuck"] and abs(r["restitution_out"] - e_formula(1.05 * V_S)) < TOL,
      f"1.05 V_s: e {r['restitution_out']} vs {e_formula(1.05 * V_S)}")
print(f"0.98 V_s: stuck; 1.05 V_s: e = {r['restitution_out']:.8f} "
      f"(formula {e_formula(1.05 * V_S):.8f})")

# ---- 3. a damped law sticks wider ----------------------------------------------------
damped = ("--restitution", "0.9")
check(collide("--velocity", repr(1.05 * V_S), *damped, law="hertz_tti")["stuck"],
      "hertz_tti e = 0.9 with jkr sticks at 1.05 V_s")
lo, hi = V_S, 10 * V_S
check(not collide("--velocity", repr(hi), *damped, law="hertz_tti")["stuck"],
      "hertz_tti e = 0.9 with jkr bounces at 10 V_s")
for _ in range(6):
    mid = math.sqrt(lo * hi)
    if collide("--velocity", repr(mid), *damped, law="hertz_tti")["stuck"]:
        lo = mid
    else:
        hi = mid
print(f"hertz_tti (e = 0.9) with jkr: sticks below {lo / V_S:.3f}..{hi / V_S:.3f} V_s "
      f"({lo:.4e}..{hi:.4e} m/s)")

# ---- 4. without adhesion, and bad input ----------------------------------------------
check("stuck" not in collide("--velocity", "0.01", adhesion=False),
      "no stuck key without --adhesion")
for bad in (["--adhesion", "glue"], ["--adhesion-param", "work=1"], ["--adhesion", "jkr"],
            ["--adhesion", "jkr", "--adhesion-param", "work=0"],
            ["--adhesion", "jkr", "--adhesion-param", "work=1", "--law", "linear"],
            ["--velocity", "1:0:3"], ["--velocity", "1:2:3", "--sweep", "0.5:0.9:2"]):
    out = subprocess.run([dempact, "collide", "--law", "hertz", *bad], capture_output=True,
                         text=True, timeout=60)
    check(out.returncode == 2 and out.stdout == "" and
          ("--adhesion" in out.stderr or "--velocity" in out.stderr),
          f"{bad}: exit {out.returncode}, {out.stderr.strip()}")

if failed:
    sys.exit(f"{len(failed)} check(s) failed")
print("ok")
