#!/usr/bin/env python3
"""Adhesion in the law comparison (tools/compare.py --adhesion): the option's syntax,
how it enters every contact entry of a run's case, how a refusal of `dempact check`
is laid to it, and the cohesion measures of a packing (docs/compare.md).

Only the syntax is checked here (MODEL:KEY=VALUE,...): which models, keys and values
an adhesion takes, and which normal laws take a model, is `dempact check`'s judgement
on the generated cases, the rule of the reader, not a copy of it.
"""

import math
import sys

try:
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("compare_adhesion", missing))

SYNTAX = "MODEL:KEY=VALUE[,KEY=VALUE...] (or MODEL alone)"


class AdhesionError(ValueError):
    """A --adhesion string that is not MODEL:KEY=VALUE,...; the message names it."""


def parse(spec):
    """'jkr:work=0.05' -> {"model": "jkr", "work": 0.05}. Numbers become floats, other
    words stay text (dempact check judges both)."""
    model, sep, rest = spec.partition(":")
    model = model.strip()
    if not model or "=" in model or "," in model:
        raise AdhesionError(f"--adhesion {spec}: expected {SYNTAX}")
    out = {"model": model}
    if sep and not rest.strip():
        raise AdhesionError(f"--adhesion {spec}: nothing after ':'; expected {SYNTAX}")
    for item in rest.split(",") if sep else []:
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not (eq and key and value):
            raise AdhesionError(f"--adhesion {spec}: {item.strip() or 'an empty item'!r} "
                                f"is not KEY=VALUE; expected {SYNTAX}")
        if key in out:
            what = "the model is given before ':'" if key == "model" else f"{key} is given twice"
            raise AdhesionError(f"--adhesion {spec}: {what}")
        try:
            number = float(value)
        except ValueError:
            out[key] = value
            continue
        if not math.isfinite(number):
            raise AdhesionError(f"--adhesion {spec}: {key}={value} is not a finite number")
        out[key] = number
    return out


def apply(case, adhesion):
    """Gives every contact entry of case (a mapping, in place) the adhesion; an entry's
    own adhesion is replaced: the comparison's runs all share the one it states."""
    if adhesion is None:
        return
    for entry in case.get("contacts", []):
        entry["adhesion"] = dict(adhesion)


def describe(adhesion):
    """'jkr (work 0.05)' for a report's header; 'none' without adhesion."""
    if not adhesion:
        return "none"
    keys = ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in adhesion.items() if k != "model")
    return f"{adhesion.get('model')}" + (f" ({keys})" if keys else "")


def of_case(case):
    """The adhesions of a run's case, one text per distinct one over its entries."""
    seen = []
    for entry in case.get("contacts", []):
        text = describe(entry.get("adhesion"))
        if text not in seen:
            seen.append(text)
    return "; ".join(seen) or "none"


def is_about_adhesion(msg):
    """Whether a refusal of dempact check names the adhesion of an entry."""
    return ".adhesion" in msg or "adhesion" in msg.split(":", 1)[0]


def refusal(spec, refused, laws):
    """The one-line message for the laws whose cases dempact check refused over the
    adhesion: refused is [(law, mode, message)] in the laws' order. Refused by every
    law compared, the adhesion itself is at fault (a model, key or value); by some,
    those laws cannot take it (jkr needs Hertz's spring): the call is refused naming
    them, and the laws that can."""
    names = list(dict.fromkeys(law for law, _, _ in refused))
    first = refused[0][2]
    if len(names) == len(laws):
        return f"--adhesion {spec}: {first}"
    others = [x for x in laws if x not in names]
    return (f"--adhesion {spec}: law{'s' if len(names) > 1 else ''} {', '.join(names)} "
            f"cannot take it ({names[0]}: {first}); leave "
            f"{'them' if len(names) > 1 else 'it'} out, e.g. --laws {','.join(others)}")


def cohesion_measures(contacts):
    """The cohesion of the last snapshot's contacts table (particle pairs and walls, the
    rows that hold a force: `ended` 0 or 1): the fraction held past touching (overlap
    <= 0, a JKR neck or a liquid bridge), the fraction in tension (normal force < 0,
    the adhesion pulls harder than the normal law pushes), and the number of rows."""
    if contacts is None or len(contacts) == 0:
        return {"held_past_touching": float("nan"), "tension_fraction": float("nan"),
                "contacts_measured": 0}
    live = np.ones(len(contacts.overlap), dtype=bool)
    ended = getattr(contacts, "ended", None)
    if ended is not None:
        live = np.asarray(ended) != 2
    n = int(live.sum())
    if n == 0:
        return {"held_past_touching": float("nan"), "tension_fraction": float("nan"),
                "contacts_measured": 0}
    return {"held_past_touching": float(np.count_nonzero(contacts.overlap[live] <= 0)) / n,
            "tension_fraction": float(np.count_nonzero(contacts.normal_force[live] < 0)) / n,
            "contacts_measured": n}


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
