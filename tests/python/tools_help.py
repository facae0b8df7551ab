#!/usr/bin/env python3
"""Every tools/*.py runs in the project's environment whatever python3 comes first on
the PATH, and says what to do where its modules are missing.

    .venv/bin/python tests/python/tools_help.py

1. A PATH whose first python3 (and python) is a stand-in that fails: `.venv/bin/python
   tools/X.py --help` must exit 0 and print argparse's usage for every tool (a tool that
   runs a `python3` of the PATH, or needs a module the environment lacks, fails here).
   A tool whose shebang names pvpython runs with /usr/bin/pvpython instead.
2. With the .venv's bin first on the PATH (as `source .venv/bin/activate` does), every
   tool runs through its own `#!/usr/bin/env python3` line.
3. A Python without numpy and h5py (Debian's python3 with -S: no site-packages): a tool
   that needs them at start exits non-zero with a message naming tools/setup.sh and
   .venv/bin/python, not a traceback; one that does not need them for --help exits 0.
"""

import glob
import os
import stat
import subprocess
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOOLS = sorted(glob.glob(os.path.join(ROOT, "tools", "*.py")))
VENV = os.path.join(ROOT, ".venv", "bin", "python")
PVPYTHON = "/usr/bin/pvpython"


def shebang(path):
    with open(path) as f:
        first = f.readline()
    return first[2:].strip() if first.startswith("#!") else ""


def interpreter(path):
    return PVPYTHON if "pvpython" in shebang(path) else VENV


class ToolsHelp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="tools_help_")
        fake = os.path.join(cls.tmp.name, "bin")
        os.makedirs(fake)
        for name in ("python3", "python"):
            p = os.path.join(fake, name)
            with open(p, "w") as f:
                f.write("#!/bin/sh\necho 'the first python3 on the PATH was run' >&2\nexit 97\n")
            os.chmod(p, 0o755)
        cls.env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", ""),
                       MPLBACKEND="Agg")
        cls.env.pop("PYTHONPATH", None)
        cls.env.pop("PYTHONHOME", None)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_venv_exists(self):
        self.assertTrue(os.access(VENV, os.X_OK), f"{VENV} missing: run bash tools/setup.sh")
        out = subprocess.run([VENV, "-c", "import sys; print(sys.prefix != sys.base_prefix, "
                              "sys.base_prefix)"], capture_output=True, text=True)
        self.assertEqual(out.stdout.split(), ["True", "/usr"], "not a venv over Debian's python3")

    def test_tools_found(self):
        names = {os.path.basename(p) for p in TOOLS}
        self.assertTrue({"compare.py", "compare_measure.py", "dempact_h5.py"} <= names, names)

    def test_help_through_venv(self):
        for tool in TOOLS:
            with self.subTest(tool=os.path.basename(tool)):
                py = interpreter(tool)
                if py == PVPYTHON and not os.path.exists(PVPYTHON):
                    self.fail(f"{tool} needs {PVPYTHON}")
                p = subprocess.run([py, tool, "--help"], capture_output=True, text=True,
                                   env=self.env, cwd=self.tmp.name, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr[-2000:])
                self.assertIn("usage:", p.stdout.lower(), p.stdout[-500:])

    def test_help_through_shebang(self):
        env = dict(self.env, PATH=os.path.dirname(VENV) + os.pathsep + self.env["PATH"])
        for tool in TOOLS:
            if interpreter(tool) != VENV:
                continue
            with self.subTest(tool=os.path.basename(tool)):
                self.assertEqual(shebang(tool), "/usr/bin/env python3")
                self.assertTrue(os.stat(tool).st_mode & stat.S_IXUSR, f"{tool} is not executable")
                p = subprocess.run([tool, "--help"], capture_output=True, text=True, env=env,
                                   cwd=self.tmp.name, timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr[-2000:])
                self.assertIn("usage:", p.stdout.lower())

    def test_missing_modules_explained(self):
        bare = ["/usr/bin/python3", "-S"]
        p = subprocess.run(bare + ["-c", "import numpy"], capture_output=True)
        self.assertNotEqual(p.returncode, 0, "-S should hide numpy; the test cannot run")
        refused = 0
        for tool in TOOLS:
            if interpreter(tool) != VENV:
                continue
            with self.subTest(tool=os.path.basename(tool)):
                p = subprocess.run(bare + [tool, "--help"], capture_output=True, text=True,
                                   env=self.env, cwd=self.tmp.name, timeout=120)
                if p.returncode == 0:
                    self.assertIn("usage:", p.stdout.lower())
                    continue
                refused += 1
                self.assertNotIn("Traceback", p.stderr, p.stderr)
                self.assertIn("tools/setup.sh", p.stderr)
                self.assertIn(".venv/bin/python", p.stderr)
        self.assertGreater(refused, 3)  # the tools that load numpy/h5py at start


if __name__ == "__main__":
    unittest.main()
