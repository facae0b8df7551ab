#!/usr/bin/env python3
"""The curves of the shear stage's sweep (tools/compare.py --stage shear --rates): the
runs' rows grouped per law, calibration, restitution and shear rate, and per law and
restitution the fits mu(I) = mu_s + (mu_2 - mu_s) / (1 + I_0 / I) (tools/mu_of_i.py's
fit_mu, imported) and phi(I) = phi_c - a I (docs/compare.md, "A sweep of I and e").

Rules (docs/compare.md repeats them):

- A point is the mean over the seeds of one (law, mode, e, rate), with the error of
  compare_shear_report.error_of (the larger of the seeds' and the runs' own).
- mu(I) is fitted where a law and e have points at MIN_RATES rates or more, weighted by
  the points' mu errors; its parameters' errors come from the Jacobian (fit_mu). With as
  many points as parameters the curve passes through the points and the errors are
  the points' errors carried through. A fit is "not determined" when a parameter or
  error is not finite, mu_2 <= mu_s, or a parameter's error exceeds its magnitude
  (the points do not fix it, e.g. a mu(I) that is a straight line over the range
  leaves I_0 free): the table says so instead of printing the numbers.
- phi(I) = phi_c - a I: a straight line, weighted least squares on the points' phi
  errors, the parameters' errors from the points' errors (unscaled covariance); with
  two points it passes through them.
"""

import math
import sys

try:
    import numpy as np
except ImportError as missing:  # pragma: no cover - environment problem
    import venv_hint
    sys.exit(venv_hint.message("compare_shear_fit", missing))

MIN_RATES = 3   # rates a law and e need for the mu(I) fit


def _key_value(x):
    """A row's restitution or rate as a group key: None for NaN or absent."""
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def sweep_groups(rows, order):
    """{(law, mode, e, rate): [row indices]}: order is compare_report.groups(rows) (the
    report's law and mode order); within a law and mode by e (None, the laws without a
    restitution, first) and rate."""
    out = {}
    for (law, mode), idx in order.items():
        sub = {}
        for i in idx:
            key = (law, mode, _key_value(rows[i].get("restitution")),
                   _key_value(rows[i].get("shear_rate_1_s")))
            key = key[:3] + (abs(key[3]) if key[3] is not None else None,)
            sub.setdefault(key, []).append(i)
        for key in sorted(sub, key=lambda k: (k[2] is not None, k[2] or 0, k[3] or 0)):
            out[key] = sub[key]
    return out


def curves(grouped):
    """{(law, mode, e): [(rate, row indices)] by rate}: the points of each curve."""
    out = {}
    for (law, mode, e, rate), idx in grouped.items():
        out.setdefault((law, mode, e), []).append((rate, idx))
    return out


def fit_mu(i, mu, err):
    """mu(I) fit (tools/mu_of_i.py's) with the verdict of the module's rules: the dict of
    fit_mu plus "ok" (bool) and "why" (the reason when not)."""
    import mu_of_i
    i, mu = np.asarray(i, float), np.asarray(mu, float)
    err = np.asarray(err, float)
    if not np.all(np.isfinite(err)) or np.any(err <= 0):
        err = None
    try:
        with np.errstate(all="ignore"):
            fit = mu_of_i.fit_mu(i, mu, err)
    except Exception as exc:  # the solver's own failure
        return {"ok": False, "why": f"the fit failed ({type(exc).__name__})"}
    keys = ("mu_s", "mu_2", "I_0")
    values = [fit[k] for k in keys] + [fit[k + "_err"] for k in keys]
    if not all(math.isfinite(v) for v in values):
        fit.update(ok=False, why="an error is not finite (ill-conditioned)")
    elif fit["mu_2"] <= fit["mu_s"]:
        fit.update(ok=False, why="mu_2 <= mu_s: the points do not rise with I")
    else:
        loose = [k for k in keys if fit[k + "_err"] > abs(fit[k])]
        fit.update(ok=not loose, why=(f"{', '.join(loose)} not fixed by "
                                      f"{len(i)} points (error > value)" if loose else ""))
    return fit


def fit_line(i, phi, err=None):
    """phi = phi_c - a I, weighted least squares: (phi_c, a, phi_c_err, a_err); the
    errors from err (NaN without errors or with fewer than 2 points)."""
    x, y = np.asarray(i, float), np.asarray(phi, float)
    nan = float("nan")
    if len(x) < 2 or np.ptp(x) == 0:
        return nan, nan, nan, nan
    w = np.ones_like(x) if err is None else np.asarray(err, float) ** -2.0
    if not np.all(np.isfinite(w)):
        w, have_err = np.ones_like(x), False
    else:
        have_err = err is not None
    s, sx, sy = w.sum(), (w * x).sum(), (w * y).sum()
    sxx, sxy = (w * x * x).sum(), (w * x * y).sum()
    det = s * sxx - sx * sx
    slope = (s * sxy - sx * sy) / det
    icpt = (sxx * sy - sx * sxy) / det
    if have_err:
        return float(icpt), float(-slope), math.sqrt(sxx / det), math.sqrt(s / det)
    return float(icpt), float(-slope), nan, nan


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
