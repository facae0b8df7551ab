#!/usr/bin/env python3
"""The message a tool gives when this Python lacks a module it needs (numpy, h5py,
matplotlib, yaml): the tools run in the project's virtual environment, which
tools/setup.sh makes over Debian's python3, so that a pyenv or conda python3 that comes
first on the PATH does not matter:

    bash tools/setup.sh                  # once: Debian packages, .venv/, build/
    .venv/bin/python tools/TOOL.py ...

In a tool:

    try:
        import h5py
        import numpy as np
    except ImportError as missing:
        import venv_hint
        sys.exit(venv_hint.message("TOOL", missing))
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _shown(path):
    """path relative to the working folder when it lies below it, else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def message(tool, exc):
    """The text for sys.exit: what is missing, which Python this is, and what to run."""
    venv = _shown(os.path.join(ROOT, ".venv", "bin", "python"))
    setup = _shown(os.path.join(ROOT, "tools", "setup.sh"))
    script = _shown(os.path.join(ROOT, "tools", tool + ".py"))
    state = ("" if os.path.exists(os.path.join(ROOT, ".venv", "bin", "python")) else
             " (it does not exist yet)")
    return (f"{tool}: {exc} (this Python is {sys.executable}).\n"
            f"  The tools need numpy, h5py, matplotlib and yaml from Debian: run `bash {setup}` "
            f"once (it installs them and makes the environment {venv}{state}), then run the "
            f"tool with it: `{venv} {script} ...`.")


def main(argv):
    import argparse
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
