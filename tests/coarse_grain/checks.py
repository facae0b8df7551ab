"""What the coarse-graining tests share: a check that prints its outcome and keeps the
failures, the exit status they make, and the coarse_grain program under test."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def exit_status():
    """1 (with the count on stderr) if any check failed, else 0."""
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        return 1
    return 0


def program():
    return os.environ.get("DEMPACT_COARSE_GRAIN") or os.path.join(ROOT, "build", "tools", "coarse_grain")
