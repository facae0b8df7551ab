#!/usr/bin/env python3
"""The tangential and rolling springs in the step (docs/laws.md, "The step of the springs"),
through `dempact check` and `dempact run` on a small packing of 40 steel beads:

1. a linear tangential spring of 1e12 N/m (10^5 times Mindlin's there): `check` says
   friction.stiffness sets the limit; run at the automatic step, its energy residual is
   within the default (Mindlin) run's order; and run at the default's step
   (check_step: false, the step the program chose before the springs were counted) it is
   far larger, which shows the comparison can fail;
2. rolling: a constant torque with coefficient 1e5 is refused naming
   rolling.coefficient, its value and the range; a rolling spring with damping 100 sets
   the limit (named), a given step above it is refused naming rolling.damping, and run
   at the automatic step its residual is within the default's order, where at the
   default's step the watchdog stops it;
3. property: random friction and rolling settings, log-uniform over (and a little beyond)
   their accepted ranges, with an automatic or a given step, on a case of 8 beads: every
   `check` either exits 0 printing a finite stable limit no smaller than a given step, or
   exits 2 naming the contact entry's key (or time.step) and the limit. Hypothesis,
   50 examples, derandomized.

Usage: spring_step.py DEMPACT
"""
import math
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

PACKING = """name: {name}
domain: {{min: [0, 0, 0], max: [0.04, 0.04, 0.06], periodic: [true, true, false]}}
gravity: [0, 0, -9.81]
time: {{end: 0.01, output_interval: 0.005{step}}}
materials:
  - {{name: steel, density: 7800, young: 2.0e11, poisson: 0.3}}
contacts:
  - materials: [steel, steel]
    law: hertz_tti
    params: {{restitution: 0.5}}
    friction: {{{friction}}}
{rolling}walls:
  - {{name: floor, type: plane, material: steel, point: [0, 0, 0], normal: [0, 0, 1]}}
particles:
  - {{source: random, material: steel, region: {{min: [0, 0, 0], max: [0.04, 0.04, 0.03]}}, count: 40, radius: 0.004, velocity: [0.2, 0, -0.5], seed: 3}}
"""

TINY = """name: tiny
domain: {{min: [0, 0, 0], max: [0.02, 0.02, 0.02]}}
gravity: [0, 0, -9.81]
time: {{end: 0.01{step}}}
materials:
  - {{name: glass, density: 2500, young: 1.0e8, poisson: 0.25}}
contacts:
  - materials: [glass, glass]
    law: hertz_tti
    params: {{restitution: 0.5}}
    friction: {{{friction}}}
{rolling}walls:
  - {{name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}}
particles:
  - {{source: lattice, material: glass, region: {{min: [0.004, 0.004, 0.004], max: [0.012, 0.012, 0.012]}}, radius: 0.002}}
"""

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def write(folder, template, name, friction, rolling=None, step=None):
    text = template.format(name=name, friction=friction,
                           rolling=f"    rolling: {{{rolling}}}\n" if rolling else "",
                           step=f", step: {step}" if step else "")
    path = os.path.join(folder, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def run(dempact, args):
    r = subprocess.run([dempact] + args, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout + r.stderr


def limit_line(out):
    """(step, limit, what sets it) from check's time line."""
    m = re.search(r"step ([0-9.e+-]+) s \(stable limit ([0-9.e+-]+|inf|nan) s, set by (.*?)"
                  r"(; EXCEEDED.*)?\), \d+ steps", out)
    return (float(m.group(1)), float(m.group(2)), m.group(3)) if m else None


def residual(dempact, folder, path):
    """Exit status, step and max |energy residual| / dissipated of a run."""
    name = os.path.basename(path)[:-5]
    status, out = run(dempact, ["run", path, "--output", os.path.join(folder, name),
                                "--threads", "1", "--quiet"])
    if status != 0:
        return status, out, math.nan
    with h5py.File(os.path.join(folder, name, name + ".h5"), "r") as f:
        ts = {k: np.asarray(v[()]) for k, v in f["timeseries"].items()}
    lost = sum(float(ts["dissipated_" + k][-1])
               for k in ("damping", "friction", "rolling", "plasticity"))
    return status, out, float(np.max(np.abs(ts["energy_residual"]))) / lost


def stiff_spring(dempact, folder):
    print("1. a tangential spring of 1e12 N/m")
    stiff = "coefficient: 0.5, model: linear, stiffness: 1e12"
    default = write(folder, PACKING, "default", "coefficient: 0.5")
    status, out = run(dempact, ["check", default])
    step = limit_line(out)[0]
    k12 = write(folder, PACKING, "k12", stiff)
    status, out = run(dempact, ["check", k12])
    line = limit_line(out)
    check(status == 0 and line and "contacts[0].friction.stiffness = 1e+12" in line[2]
          and line[0] <= 0.5 * line[1] and line[0] < step,
          f"check: the spring sets the limit and the automatic step is at most half of it "
          f"({line})")
    given_step = write(folder, PACKING, "k12_given", stiff, step=repr(step))
    status, out = run(dempact, ["check", given_step])
    check(status == 2 and re.search(r"k12_given.yaml:\d+: contacts\[0\]\.friction\.stiffness = "
                                    r"1e\+12: the tangential spring .* stable for a step up to "
                                    r"[0-9.e+-]+ s .*; time.step = [0-9.e+-]+ s is above it",
                                    out) is not None,
          "check refuses the default's step, naming friction.stiffness and the limit")
    old = write(folder, PACKING, "k12_old", stiff, step=f"{step!r}, check_step: false")
    status, out = run(dempact, ["check", old])
    check(status == 0 and "EXCEEDED" in out, "check_step: false lets the default's step through")
    base = residual(dempact, folder, default)
    new = residual(dempact, folder, k12)
    before = residual(dempact, folder, old)
    print(f"      energy residual / dissipated: default {base[2]:.3g}, 1e12 at the automatic "
          f"step {new[2]:.3g}, 1e12 at the default's step {before[2]:.3g}")
    check(base[0] == 0 and new[0] == 0 and new[2] <= 10 * base[2],
          "1e12 at its automatic step: residual within 10 times the default's")
    check(before[0] != 0 or before[2] >= 30 * base[2],
          "1e12 at the default's step: residual above 30 times the default's (the control)")


def rolling(dempact, folder):
    print("2. rolling settings that blew up")
    path = write(folder, PACKING, "constant_1e5", "coefficient: 0.5",
                 "model: constant, coefficient: 1e5")
    status, out = run(dempact, ["check", path])
    check(status == 2 and re.search(r"constant_1e5.yaml:\d+: contacts\[0\]\.rolling\.coefficient"
                                    r" = 1e5 is out of range \[0, 1\]", out) is not None,
          "constant torque, coefficient 1e5: refused naming rolling.coefficient, the value "
          "and the range: " + out.strip().splitlines()[-1][:200])
    spring = "model: spring, coefficient: 0.1"
    default = write(folder, PACKING, "roll_default", "coefficient: 0.5", spring)
    status, out = run(dempact, ["check", default])
    step = limit_line(out)[0]
    damped = write(folder, PACKING, "roll_100", "coefficient: 0.5", spring + ", damping: 100")
    status, out = run(dempact, ["check", damped])
    line = limit_line(out)
    check(status == 0 and line and "rolling dashpot of contacts[0].rolling.damping = 100"
          in line[2], f"damping 100: check names it as what sets the limit ({line})")
    given_step = write(folder, PACKING, "roll_100_given", "coefficient: 0.5",
                       spring + ", damping: 100", step=repr(step))
    status, out = run(dempact, ["check", given_step])
    check(status == 2 and re.search(r"roll_100_given.yaml:\d+: contacts\[0\]\.rolling\.damping "
                                    r"= 100: the rolling dashpot .* stable for a step up to "
                                    r"[0-9.e+-]+ s", out) is not None,
          "damping 100 at the default's step: refused naming rolling.damping and the limit")
    base = residual(dempact, folder, default)
    new = residual(dempact, folder, damped)
    print(f"      energy residual / dissipated: damping 0.3 {base[2]:.3g}, damping 100 at the "
          f"automatic step {new[2]:.3g}")
    check(base[0] == 0 and new[0] == 0 and new[2] <= 10 * base[2],
          "damping 100 at its automatic step: runs, residual within 10 times the default's")
    forced = write(folder, PACKING, "roll_100_forced", "coefficient: 0.5",
                   spring + ", damping: 100", step=f"{step!r}, check_step: false")
    status, out, _ = residual(dempact, folder, forced)
    check(status == 4 and "gaining energy" in out,
          "damping 100 at the default's step (check_step: false): the watchdog stops it "
          "(the control)")


log_uniform = lambda lo, hi: st.floats(math.log10(lo), math.log10(hi)).map(lambda x: 10.0 ** x)


@st.composite
def settings_case(draw):
    model = draw(st.sampled_from(["mindlin", "linear", "mindlin_deresiewicz", "viscous"]))
    friction = {"coefficient": draw(log_uniform(1e-3, 1e7)), "model": model}
    if model == "linear":
        friction["stiffness"] = draw(log_uniform(1e-2, 1e17))
    if model == "viscous":
        friction["damping"] = draw(log_uniform(1e-2, 1e17))
    elif draw(st.booleans()):
        friction["restitution"] = draw(log_uniform(1e-6, 1.0))
    roll = draw(st.sampled_from([None, "constant", "spring", "viscous"]))
    rolling = None
    if roll:
        rolling = {"model": roll, "coefficient": draw(log_uniform(1e-4, 10.0))}
        if roll == "viscous" or (roll == "spring" and draw(st.booleans())):
            rolling["damping"] = draw(log_uniform(1e-3, 1e4))
    step = draw(st.one_of(st.none(), log_uniform(1e-9, 1e-4)))
    return friction, rolling, step


def mapping(d):
    return ", ".join(f"{k}: {v!r}" if isinstance(v, float) else f"{k}: {v}" for k, v in d.items())


def property_test(dempact, folder):
    print("3. random friction and rolling settings through check")
    seen = {"good": 0, "refused": 0}

    @settings(max_examples=50, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(settings_case())
    def each(case):
        friction, rolling, step = case
        path = write(folder, TINY, "tiny", mapping(friction), mapping(rolling) if rolling else None,
                     step=repr(step) if step else None)
        status, out = run(dempact, ["check", path])
        what = f"{friction} {rolling} step {step}: exit {status}: {out.strip()[-300:]}"
        if status == 0:
            seen["good"] += 1
            line = limit_line(out)
            assert line and math.isfinite(line[1]) and line[1] > 0, what
            assert step is None or step <= line[1], what
            assert line[0] <= line[1], what
        else:
            seen["refused"] += 1
            assert status == 2, what
            assert re.search(r"tiny\.yaml:\d+: (contacts\[0\]\.(friction|rolling)(\.\w+)?|time\.step"
                             r"|time\.end)\b", out), what
            assert re.search(r"out of range \[|up to [0-9.e+-]+ s|stable limit [0-9.e+-]+ s|"
                             r"must be above|is below|steps of", out), what
            assert "nan" not in out.lower() or "nan" in str(case).lower(), what

    try:
        each()
        check(True, f"50 settings: {seen['good']} good with a finite limit, {seen['refused']} "
                    "refused naming their key and limit")
    except AssertionError as e:
        check(False, "property: " + str(e)[:2000])


def main():
    dempact = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        stiff_spring(dempact, folder)
        rolling(dempact, folder)
        property_test(dempact, folder)
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("all checks passed")


if __name__ == "__main__":
    main()
