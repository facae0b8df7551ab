#!/usr/bin/env python3
"""`dempact collide` with the tangential and rolling laws by name.

Usage: collide_friction_laws.py DEMPACT

1. The viscous tangential law, F_t = gamma_t m* v_t (below mu F_n, here never reached:
   mu = 1000): two identical spheres, I = 2/5 m R^2, m* = m/2, so the contact points'
   tangential relative speed relaxes as dv_t/dt = -F_t (2/m + 2 R^2/I) = -3.5 gamma_t v_t,
   and leaves the contact at v_t exp(-3.5 gamma_t t_c), t_c the measured contact time.
   v_t out, from the rebound's velocities and spins, must match it within 0.5 % in the
   exponent, for gamma_t = 500, 2000 and 8000 1/s. (A slow impact, 1 cm/s with 0.5 cm/s
   tangential: the line of centres then turns by under 1e-4 rad during the contact, so
   the normal force adds nothing along y.) Mindlin, the default, at the same impact must
   not match it (its spring reverses the contact points' motion).
2. --friction-model mindlin is the default bit for bit: every number of its output
   equals the output without the option (the row only adds the model's name); so is
   --rolling-model constant --rolling 0 (no torque), while --rolling 0.2 changes the
   rebound's spin of a sphere that came spinning.
3. Bad names and keys: exit 2, nothing on stdout, a message naming the option and
   listing what is known.
"""
import json
import math
import subprocess
import sys

dempact = sys.argv[1]
R = 0.01
failed = []


def check(cond, what):
    if not cond:
        failed.append(what)
        print("FAIL:", what)


def collide(*args):
    out = subprocess.run([dempact, "collide", "--law", "hertz", *args], capture_output=True,
                         text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"collide {args}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def tangential_ratio(r):
    """v_t out / v_t in of the contact points (j's relative to i's, along y)."""
    v, w = r["velocity_out"], r["spin_out"]
    out = (v[1][1] - w[1][2] * R) - (v[0][1] + w[0][2] * R)
    return out / -r["tangential_velocity"]


slow = ["--velocity", "0.01", "--tangential-velocity", "0.005", "--friction", "1000"]
for gamma in (500.0, 2000.0, 8000.0):
    r = collide(*slow, "--friction-model", "viscous", "--friction-param", f"damping={gamma}")
    check(r.get("friction_model") == "viscous", f"the row names the law: {r.get('friction_model')}")
    ratio = tangential_ratio(r)
    exponent = 3.5 * gamma * r["contact_time"]
    got = -math.log(ratio) if ratio > 0 else math.inf
    print(f"viscous gamma_t {gamma:g}: v_t out/in {ratio:.6f}, exp(-3.5 gamma_t t_c) "
          f"{math.exp(-exponent):.6f}")
    check(abs(got / exponent - 1) < 0.005,
          f"gamma_t {gamma}: exponent {got:.6g}, closed form {exponent:.6g}")
mindlin = collide(*slow)
m_ratio = tangential_ratio(mindlin)
print(f"mindlin: v_t out/in {m_ratio:.6f}")
check(abs(m_ratio - math.exp(-3.5 * 2000.0 * mindlin["contact_time"])) > 0.2,
      "mindlin's rebound is the viscous law's")

oblique = ["--velocity", "1", "--angle", "30", "--friction", "0.3"]
plain = collide(*oblique)
named = collide(*oblique, "--friction-model", "mindlin")
check(named.pop("friction_model", None) == "mindlin", "the row names mindlin")
check(named == plain, "--friction-model mindlin is not the default's bits")
no_torque = collide(*oblique, "--rolling-model", "constant", "--rolling", "0")
check(no_torque.pop("rolling_model", None) == "constant" and no_torque.pop("rolling") == 0,
      "the row names the rolling law and coefficient")
check(no_torque == plain, "--rolling 0 is not the default's bits")
# identical spheres leave an impact spinning alike (no relative rolling): spin one of them
spun = collide(*oblique, "--spin1", "0,0,50")
torque = collide(*oblique, "--spin1", "0,0,50", "--rolling-model", "constant", "--rolling", "0.2")
check(torque["spin_out"][0][2] != spun["spin_out"][0][2],
      "a rolling torque left the spin as it was")

refused = [
    (["--friction", "0.3", "--friction-model", "viscus"],
     ["--friction-model: unknown tangential law 'viscus'",
      "mindlin, linear, mindlin_deresiewicz, viscous"]),
    (["--friction", "0.3", "--friction-model", "viscous"],
     ["--friction-model viscous needs --friction-param damping=VALUE"]),
    (["--friction", "0.3", "--friction-model", "viscous", "--friction-param", "dampin=3"],
     ["--friction-param: model viscous takes no key 'dampin'; its keys are: damping"]),
    (["--friction", "0.3", "--friction-model", "viscous", "--friction-param", "damping=-1"],
     ["--friction-param: damping=-1: damping must be a number in [0, 1e+15]"]),
    (["--friction", "0.3", "--friction-param", "damping"], ["--friction-param takes KEY=VALUE"]),
    (["--friction", "0.3", "--friction-param", "static=0.1"],
     ["--friction-param: static = 0.1 is below"]),
    (["--friction", "0.3", "--friction-model", "viscous", "--friction-param", "damping=9",
      "--tangential-restitution", "0.5"],
     ["--tangential-restitution: model viscous has no tangential restitution"]),
    (["--friction", "0.3", "--friction-param", "restitution=0.4",
      "--tangential-restitution", "0.5"], ["give the tangential restitution once"]),
    (["--friction-model", "viscous", "--friction-param", "damping=9"],
     ["--friction-model needs --friction > 0"]),
    (["--rolling-model", "constan", "--rolling", "0.1"],
     ["--rolling-model: unknown rolling law 'constan'", "constant, spring, viscous, liggghts_cdt"]),
    (["--rolling", "0.1"], ["--rolling needs --rolling-model NAME (one of: constant, spring, viscous, liggghts_cdt)"]),
    (["--rolling-model", "spring"], ["--rolling-model needs --rolling MU_R"]),
    (["--rolling-model", "viscous", "--rolling", "0.1"],
     ["--rolling-model viscous needs --rolling-param damping=VALUE"]),
    (["--rolling-model", "spring", "--rolling", "0.1", "--rolling-param", "stiffness=3"],
     ["--rolling-param: model spring takes no key 'stiffness'; its keys are: damping"]),
    (["--rolling-model", "constant", "--rolling", "1.5"],
     ["--rolling: 1.5 is not a rolling resistance coefficient in [0, 1]"]),
]
for args, fragments in refused:
    out = subprocess.run([dempact, "collide", "--law", "hertz", *args], capture_output=True,
                         text=True, timeout=60)
    check(out.returncode == 2, f"{args}: exit {out.returncode}")
    check(out.stdout == "", f"{args}: printed {out.stdout!r}")
    for frag in fragments:
        check(frag in out.stderr, f"{args}: message lacks {frag!r}: {out.stderr.strip()}")
print(f"{len(refused)} refusals checked")
sys.exit(1 if failed else 0)
