#!/usr/bin/env python3
"""The restitution a case asks for is the one it gets.

Usage: restitution_asked.py DEMPACT SOURCE_DIR

1. Every law whose `restitution` parameter is the target e of a binary collision --
   linear, hertz_tti and zhang (calibrated by default), hertz_kk, hertz_lh and
   hertz_critical_ratio (calibrate: true), exact (its closed form) -- at e = 0.1, 0.3,
   0.5, 0.7 and 0.95, cohesion removal on and off, through `dempact collide` at its
   default step (t_c / 4000) and at the step `dempact run` would choose (--dt auto,
   about t_c / 50 to t_c / 70): the separation speed over the impact speed must be e
   within 0.5 %. 140 collisions, two at a time.
   Then where a contact's end falls within a step: the law whose force jumps most at
   the separation (linear without cohesion removal: its dashpot pulls with -eta d' to
   the last instant) at e = 0.1 and 0.3, at 13 steps from 0.88 to 1.12 times run's,
   again within 0.5 %.
2. `dempact check cases/pour.yaml` prints, per contact pair, the restitution a head-on
   collision of its typical particles gets at the case's step; the glass-glass value
   must match `dempact collide` run on the same collision (R*, m*, speed, step, law)
   within 0.3 %, and the asked e within 0.5 %.
"""
import concurrent.futures
import json
import math
import re
import subprocess
import sys

LAWS = {  # law: extra collide arguments
    "linear": [], "hertz_tti": [], "zhang": [], "exact": [],
    "hertz_kk": ["--calibrate"], "hertz_lh": ["--calibrate"],
    "hertz_critical_ratio": ["--calibrate"],
}
ES = [0.1, 0.3, 0.5, 0.7, 0.95]
TOLERANCE = 0.005
# The steps around run's at which the separation-phase sweep runs (fractions of it).
PHASES = [0.88 + 0.02 * k for k in range(13)]


def collide(dempact, args):
    out = subprocess.run([dempact, "collide"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"dempact collide {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def matrix(dempact):
    runs = [(law, e, coh, step) for law in LAWS for e in ES for coh in ("on", "off")
            for step in ("default", "auto")]

    def one(run):
        law, e, coh, step = run
        args = ["--law", law, "--restitution", repr(e), "--cohesion-removal", coh] + LAWS[law]
        if step == "auto":
            args += ["--dt", "auto"]
        r = collide(dempact, args)
        return run, r["restitution_out"], r["contact_time"] / r["dt"]

    failures, worst = [], 0.0
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for (law, e, coh, step), got, per in pool.map(one, runs):
            dev = got / e - 1.0
            worst = max(worst, abs(dev))
            line = (f"{law:22s} e {e:4.2f} cohesion removal {coh:3s} step {step:7s} "
                    f"({per:5.0f} steps/contact): {got:.6f} ({dev * 100:+.3f} %)")
            if abs(dev) > TOLERANCE:
                failures.append(line)
                print("FAIL " + line)
            else:
                print("     " + line)
    print(f"{len(runs)} collisions, worst {worst * 100:.3f} % (tolerance {TOLERANCE * 100} %)")
    return failures


def separation_phases(dempact):
    """linear, cohesion removal off, e 0.1 and 0.3, at steps around run's."""
    failures, worst = [], 0.0
    for e in (0.1, 0.3):
        base = ["--law", "linear", "--restitution", repr(e), "--cohesion-removal", "off"]
        dt = collide(dempact, base + ["--dt", "auto"])["dt"]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            outs = list(pool.map(lambda f: collide(dempact, base + ["--dt", repr(dt * f)]), PHASES))
        for f, r in zip(PHASES, outs):
            dev = r["restitution_out"] / e - 1.0
            worst = max(worst, abs(dev))
            if abs(dev) > TOLERANCE:
                failures.append(f"linear e {e} cohesion removal off at {f:.2f} x run's step: "
                                f"{r['restitution_out']:.6f} ({dev * 100:+.3f} %)")
                print("FAIL " + failures[-1])
    print(f"separation phases: {2 * len(PHASES)} collisions of linear without cohesion removal, "
          f"worst {worst * 100:.3f} % (tolerance {TOLERANCE * 100} %)")
    return failures


def printed_value(dempact, src):
    out = subprocess.run([dempact, "check", f"{src}/cases/pour.yaml"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"restitution glass on glass: asks ([0-9.e-]+), gets ([0-9.]+) at the step "
                  r"([0-9.e-]+) s \(head on, R\* ([0-9.e-]+) m, m\* ([0-9.e-]+) kg, "
                  r"([0-9.e-]+) m/s\)", out)
    if not m:
        return [f"dempact check printed no glass-glass restitution:\n{out}"]
    asked, got, dt, r_eff, m_eff, v0 = (float(v) for v in m.groups())
    # the same collision in collide: two identical spheres of radius 2 R*, mass 2 m*
    r = 2.0 * r_eff
    rho = 2.0 * m_eff / (4.0 / 3.0 * math.pi * r ** 3)
    import yaml
    case = yaml.safe_load(open(f"{src}/cases/pour.yaml"))
    glass = next(m for m in case["materials"] if m["name"] == "glass")
    young, poisson = float(glass["young"]), float(glass["poisson"])
    c = collide(dempact, ["--law", "hertz_tti", "--restitution", repr(asked), "--radius", repr(r),
                          "--density", repr(rho), "--young", repr(young), "--poisson",
                          repr(poisson), "--velocity", repr(v0), "--dt", repr(dt)])
    e_collide = c["restitution_out"]
    print(f"dempact check: glass on glass asks {asked}, gets {got} at {dt} s; dempact collide "
          f"on that collision: {e_collide:.6f}")
    failures = []
    if abs(got / e_collide - 1.0) > 0.003:
        failures.append(f"printed {got} against collide's {e_collide}")
    if abs(got / asked - 1.0) > TOLERANCE:
        failures.append(f"printed {got}, asked {asked}")
    return failures


def main():
    dempact, src = sys.argv[1], sys.argv[2]
    failures = matrix(dempact) + separation_phases(dempact) + printed_value(dempact, src)
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
