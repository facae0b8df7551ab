#!/usr/bin/env python3
"""The shear stage's sweep of tools/compare.py: the shear rates (--rates) and the
restitutions (--restitution E1,E2,...) of one report, and what each run of the sweep
changes in the base case (docs/compare.md, "The shear stage", "A sweep of I and e").

Rules (docs/compare.md repeats them):

- A list option is comma-separated numbers, each finite and within the option's range
  (--rates: > 0 1/s; --restitution: (0, 1]), no empty item, no value twice, at most
  MAX_VALUES; the list is kept sorted (the order given does not matter).
- The same strain at every rate: a run at rate R ends at t_end(R) = t_ref |R_ref| / R,
  R_ref the base case's shear_rate and t_ref its time.end (or --end-time): every rate
  shears |R_ref| t_ref strain units. Its output_interval and timeseries_interval scale
  by the same factor |R_ref| / R, so every run has the same samples per strain unit
  (the steady window's blocks hold the same count). The barostat's relaxation time
  (pressure_time) and the step are the case's.
- The sign of the case's shear_rate is kept: R is a magnitude.
- A run's folder is runs/LAW_MODE[_eE][_rR]/seedK: _eE when the report holds several
  restitutions (not for the laws without one, mode -, whose runs do not depend on e:
  they run once per rate), _rR when --rates is given. Without either the layout is the
  single-point report's, runs/LAW_MODE/seedK.
"""

import math
import sys

MAX_VALUES = 20   # values in one list option


class SweepError(ValueError):
    """A list option that is not valid: the message names the option and the value."""


def parse_values(text, option, low, high=None, low_open=True):
    """The sorted floats of a comma-separated list `text` of option `option`, each in
    (low, high] (or [low, high] when not low_open; no upper bound when high is None)."""
    if text is None:
        return None
    items = text.split(",")
    if len(items) > MAX_VALUES:
        raise SweepError(f"{option} {text}: takes at most {MAX_VALUES} values")
    values = []
    rng = (("(" if low_open else "[") + f"{low:g}, " + (f"{high:g}]" if high is not None
                                                          else "inf)"))
    for item in items:
        s = item.strip()
        if not s:
            raise SweepError(f"{option} {text}: an empty value (give numbers separated by commas)")
        try:
            v = float(s)
        except ValueError:
            raise SweepError(f"{option} {text}: {s!r} is not a number")
        if not math.isfinite(v) or (v <= low if low_open else v < low) or \
                (high is not None and v > high):
            raise SweepError(f"{option} {text}: {s} is outside {rng}")
        if v in values:
            raise SweepError(f"{option} {text}: {s} is given twice")
        values.append(v)
    return sorted(values)


def end_time_for(rate, ref_rate, ref_end):
    """The end time of a run at shear rate `rate` (1/s, > 0) that shears as many strain
    units as the reference, |ref_rate| * ref_end."""
    return ref_end * abs(ref_rate) / rate


def reference(case, end_time=None):
    """(R_ref, t_ref): the base case's shear rate and its end (or --end-time)."""
    le = case["domain"]["lees_edwards"]
    t = case.get("time", {})
    return float(le["shear_rate"]), float(end_time if end_time is not None else t["end"])


def apply_rate(case, rate, end_time=None):
    """Sets a case (a dict, changed in place) to shear at `rate` (a magnitude; the case's
    sign kept) for the reference strain: time.end, output_interval and
    timeseries_interval scaled by |R_ref| / rate. Returns the run's end time."""
    ref_rate, ref_end = reference(case, end_time)
    scale = abs(ref_rate) / rate
    le = case["domain"]["lees_edwards"]
    le["shear_rate"] = math.copysign(rate, ref_rate) if ref_rate else rate
    t = case.setdefault("time", {})
    end = end_time_for(rate, ref_rate, ref_end)
    t["end"] = end
    for key in ("output_interval", "timeseries_interval"):
        if isinstance(t.get(key), (int, float)) and not isinstance(t.get(key), bool):
            t[key] = float(t[key]) * scale
    return end


def tag(value):
    """A number as a folder name's part: 20 -> 20, 0.3 -> 0.3, 2.5e-05 -> 2.5e-05."""
    return f"{value:g}"


def suffix(mode, e, rate, several_e):
    """The part of a run's folder name after LAW_MODE (see the module's rules)."""
    s = ""
    if several_e and mode != "-":
        s += f"_e{tag(e)}"
    if rate is not None:
        s += f"_r{tag(rate)}"
    return s


def variants(plans_of_e, restitutions, rates):
    """[(law, mode, params, calibrate, seeds, e, rate)]: every run group of the sweep.
    plans_of_e(e) gives the groups of one restitution (compare.py's plan_runs); the laws
    without a restitution (mode -) are planned once, with the first e, per rate."""
    out, seen = [], set()
    for e in restitutions:
        for law, mode, params, cal, seeds in plans_of_e(e):
            if mode == "-" and (law, mode) in seen:
                continue
            seen.add((law, mode))
            for rate in (rates or [None]):
                out.append((law, mode, params, cal, seeds, e, rate))
    return out


def show(values, unit=""):
    """A list option's values for a message: 0.3,0.9 (or the single value)."""
    if values is None:
        return "none"
    if isinstance(values, (int, float)):
        return f"{values:g}{unit}"
    return ",".join(f"{v:g}" for v in values) + unit


def differing(old, new, out):
    """The message for a call whose restitutions or rates differ from the report's in
    out (the marker's settings), or None. The rule: a report holds one list of each;
    a call that adds, removes or changes a value is refused (another --out, or
    --overwrite)."""
    tail = "; give another --out, or --overwrite to start the report afresh"
    if old.get("restitution") != new.get("restitution"):
        return (f"--restitution: the report in {out} gives the laws e = "
                f"{show(old.get('restitution'))}, this call {show(new.get('restitution'))}"
                + tail)
    if old.get("rates") != new.get("rates"):
        def rates(r):
            return "the case's own rate" if r is None else f"the rates {show(r)} 1/s"
        return (f"--rates: the report in {out} shears at {rates(old.get('rates'))}, "
                f"this call at {rates(new.get('rates'))}" + tail)
    return None


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
