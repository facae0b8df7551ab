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
3. The same case at a step 4 times finer than PAIR_RESTITUTION_MAX_STEPS (50,000) steps
   per contact (collide's contact time): `check` measures at its t_c / 50,000 and says
   the case's step is finer still; its value must be collide's at the case's own step
   within 1.5e-4 (the 4 printed digits).
4. `dempact check cases/wet_drum.yaml`: the glass-glass line (capillary adhesion) says its
   value is the law's own, without the adhesion; the glass-steel line (none) does not.
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


CHECKED = (r"restitution glass on glass: asks ([0-9.e-]+), gets ([0-9.]+) at the step "
           r"([0-9.e-]+) s \(head on, R\* ([0-9.e-]+) m, m\* ([0-9.e-]+) kg, ([0-9.e-]+) m/s\)")


def collide_like_check(dempact, src, case, asked, r_eff, m_eff, v0, dt):
    """dempact collide on check's reference collision: two identical spheres of radius
    2 R*, mass 2 m*, the case's glass, head on at v0, at the step dt."""
    r = 2.0 * r_eff
    rho = 2.0 * m_eff / (4.0 / 3.0 * math.pi * r ** 3)
    glass = next(m for m in case["materials"] if m["name"] == "glass")
    young, poisson = float(glass["young"]), float(glass["poisson"])
    return collide(dempact, ["--law", "hertz_tti", "--restitution", repr(asked), "--radius",
                             repr(r), "--density", repr(rho), "--young", repr(young),
                             "--poisson", repr(poisson), "--velocity", repr(v0), "--dt",
                             repr(dt)])


def fine_step_value(dempact, src, case, t_c):
    """check on pour.yaml at a step of t_c / 200,000 (part 3 of the docstring)."""
    import tempfile
    text = open(f"{src}/cases/pour.yaml").read()
    fine = t_c / 200000.0
    marked = "  step: auto                # chosen"
    if marked not in text:
        return [f"cases/pour.yaml has no line starting {marked!r} to set the step on"]
    with tempfile.TemporaryDirectory() as work:
        path = f"{work}/pour_fine.yaml"
        open(path, "w").write(text.replace(marked, f"  step: {fine!r}  # chosen"))
        out = subprocess.run([dempact, "check", path], capture_output=True, text=True,
                             check=True).stdout
    m = re.search(CHECKED + r", t_c / 50000: the case's step ([0-9.e-]+) s is finer still", out)
    if not m:
        return [f"dempact check at t_c / 200000 printed no coarser reference step:\n{out}"]
    asked, got, dt, r_eff, m_eff, v0, told = (float(v) for v in m.groups())
    failures = []
    if abs(told / fine - 1.0) > 1e-5:
        failures.append(f"check names the case's step {told}, the case has {fine}")
    if not dt > told:
        failures.append(f"check measured at {dt} s, not above the case's step {told} s")
    e_fine = collide_like_check(dempact, src, case, asked, r_eff, m_eff, v0, fine)["restitution_out"]
    print(f"dempact check at the step t_c / 200000: gets {got} at {dt} s (t_c / 50000); dempact "
          f"collide at the case's own step: {e_fine:.6f}")
    if abs(got - e_fine) > 1.5e-4:
        failures.append(f"at t_c / 200000 check printed {got}, collide at that step gives {e_fine}")
    return failures


def printed_value(dempact, src):
    out = subprocess.run([dempact, "check", f"{src}/cases/pour.yaml"], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(CHECKED, out)
    if not m:
        return [f"dempact check printed no glass-glass restitution:\n{out}"]
    asked, got, dt, r_eff, m_eff, v0 = (float(v) for v in m.groups())
    import yaml
    case = yaml.safe_load(open(f"{src}/cases/pour.yaml"))
    c = collide_like_check(dempact, src, case, asked, r_eff, m_eff, v0, dt)
    e_collide = c["restitution_out"]
    print(f"dempact check: glass on glass asks {asked}, gets {got} at {dt} s; dempact collide "
          f"on that collision: {e_collide:.6f}")
    failures = []
    if abs(got / e_collide - 1.0) > 0.003:
        failures.append(f"printed {got} against collide's {e_collide}")
    if abs(got / asked - 1.0) > TOLERANCE:
        failures.append(f"printed {got}, asked {asked}")
    return failures + fine_step_value(dempact, src, case, c["contact_time"])


def adhesion_named(dempact, src):
    """Part 4 of the docstring."""
    out = subprocess.run([dempact, "check", f"{src}/cases/wet_drum.yaml"], capture_output=True,
                         text=True, check=True).stdout
    lines = {k: next((l for l in out.splitlines() if f"restitution glass on {k}:" in l), "")
             for k in ("glass", "steel")}
    failures = []
    if not lines["glass"].endswith("; the law's own, without its adhesion (capillary)"):
        failures.append(f"wet_drum's glass-glass line does not name its adhesion: {lines['glass']!r}")
    if not lines["steel"] or "adhesion" in lines["steel"]:
        failures.append(f"wet_drum's glass-steel line (no adhesion): {lines['steel']!r}")
    return failures


def main():
    dempact, src = sys.argv[1], sys.argv[2]
    failures = (matrix(dempact) + separation_phases(dempact) + printed_value(dempact, src)
                + adhesion_named(dempact, src))
    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
