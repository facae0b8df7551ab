"""What the coarse-graining tests share: a check that prints its outcome and keeps the
failures, and the coarse_grain program under test."""
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def program():
    return os.environ.get("DEMPACT_COARSE_GRAIN") or os.path.join(ROOT, "build", "tools", "coarse_grain")
