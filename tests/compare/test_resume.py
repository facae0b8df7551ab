#!/usr/bin/env python3
"""tools/compare.py resumes a killed report and keeps the user's files (the rules of
docs/compare.md, "The report folder's rules").

Resume: a report of two laws, one run at a time; compare.py is killed (SIGKILL) while
the second run goes on, so the first run is complete and the second is not. The same
command again
- makes only the unfinished run ("1 runs to make, 1 complete kept") and leaves every file
  of the finished run as it was: same content, same inode, same modification time;
- the unfinished run ends complete (its done.json, its HDF5 file reaching the end time),
  and the report has one row per law;
- the runs' processes ended with the killed compare.py (none is left writing).
Then: a run whose completion record is removed, or cut in half, is made again (a new
HDF5 file, the same end to the bit) while the other is kept; a call with another --restitution, --end-time or
--param is refused (exit 2, one line naming the argument, nothing changed); one with
other --laws or more --seeds adds runs and keeps the complete ones; the same dempact
program at another path keeps every run, a changed executable makes them again.

Stop: Ctrl-C as a terminal sends it (SIGINT to compare.py's process group) while runs go
on: exit 130, one last line "compare.py: stopped by SIGINT ...", no traceback, no run
process left, and the run that completed before is kept by the next call.

The user's files: a folder holding the user's report.md, table.csv, meta.json and
notes.txt is refused without --overwrite (exit 2, one line naming them, every file as it
was); with --overwrite the report's own files are written and notes.txt stays as it is;
a second call (the tool's report now) keeps notes.txt; --overwrite on the tool's own
report starts it afresh (new runs) and still keeps notes.txt; a report.md that is a
folder is refused even with --overwrite.

    .venv/bin/python tests/compare/test_resume.py --dempact build/dempact
"""

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_cli import COMPARE, ROOT, TINY, file_state, run_compare, tree_digest  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import compare_folder as cf  # noqa: E402
import dempact_h5  # noqa: E402

DEMPACT = None
END = 0.1  # s: long enough (a second or so per run) to kill the tool during the second


def processes_writing(path):
    """Pids of processes whose command line names path."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if path.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def wait_until(condition, timeout=60.0):
    t0 = time.time()
    while not condition():
        if time.time() - t0 > timeout:
            return False
        time.sleep(0.01)
    return True


def folder_states(folder):
    """file_state of every file below folder."""
    out = {}
    for base, _, files in os.walk(folder):
        for name in files:
            full = os.path.join(base, name)
            out[os.path.relpath(full, folder)] = file_state(full)
    return out


def rows(out):
    with open(os.path.join(out, "table.csv")) as f:
        return list(csv.DictReader(f))


class Resume(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="compare_resume_")
        cls.out = os.path.join(cls.tmp, "report")
        cls.args = ["--size", "small", "--laws", "hertz_tti,hertz", "--seeds", "1",
                    "--end-time", str(END), "--jobs", "1", "--out", cls.out,
                    "--dempact", DEMPACT]
        cls.first = os.path.join(cls.out, "runs", "hertz_tti_off", "seed0")
        cls.second = os.path.join(cls.out, "runs", "hertz_none", "seed0")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_1_killed_then_resumed(self):
        p = subprocess.Popen([sys.executable, COMPARE] + self.args, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        started = wait_until(lambda: os.path.exists(os.path.join(self.first, cf.DONE)) and
                             os.path.exists(os.path.join(self.second, "log.txt")))
        p.kill()
        p.communicate()
        self.assertTrue(started, "the second run did not start")
        self.assertFalse(os.path.exists(os.path.join(self.second, cf.DONE)),
                         "the second run ended before the kill: make END longer")
        # its run ends with it (SIGTERM from the kernel: a last snapshot, exit 143)
        self.assertTrue(wait_until(lambda: not processes_writing(self.out)),
                        "a run of the killed compare.py goes on")
        kept = folder_states(self.first)
        rc, _, err = run_compare(self.args)
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("1 runs to make, 1 complete kept", err)
        self.assertEqual(folder_states(self.first), kept, "the finished run was touched")
        done = cf.read_json(os.path.join(self.second, cf.DONE))
        self.assertEqual(done["status"], 0)
        run = dempact_h5.Run(os.path.join(self.second, done["h5"]))
        self.assertGreaterEqual(run.times[-1], END - 1.5 * run.dt)
        self.assertEqual(sorted(r["law"] for r in rows(self.out)), ["hertz", "hertz_tti"])
        with open(os.path.join(self.out, "meta.json")) as f:
            meta = json.load(f)
        self.assertEqual(sorted(meta["cpu_times"]), ["hertz_none/seed0", "hertz_tti_off/seed0"])

    def test_2_lost_completion_record(self):
        for damage in ("remove", "cut"):
            with self.subTest(damage=damage):
                path = os.path.join(self.second, cf.DONE)
                if damage == "remove":
                    os.unlink(path)
                else:
                    text = open(path).read()
                    with open(path, "w") as f:
                        f.write(text[:len(text) // 2])
                kept = folder_states(self.first)
                h5 = os.path.join(self.second, "hertz_none.h5")
                old = file_state(h5)
                old_end = dempact_h5.Run(h5).snapshot().position
                rc, _, err = run_compare(self.args)
                self.assertEqual(rc, 0, err)
                self.assertIn("1 runs to make, 1 complete kept", err)
                self.assertEqual(folder_states(self.first), kept)
                new = file_state(h5)
                self.assertNotEqual(new, old, "the run was not made again")
                # the same case again: the same end, to the bit
                self.assertEqual(dempact_h5.Run(h5).snapshot().position.tobytes(),
                                 old_end.tobytes())
                self.assertEqual(cf.read_json(path)["status"], 0)

    def test_3_other_arguments(self):
        before = tree_digest(self.out)
        for extra, named in ((["--restitution", "0.6"], "--restitution"),
                             (["--end-time", "0.05"], "--end-time"),
                             (["--param", "hertz_tti:fit=published"], "--param hertz_tti:fit"),
                             (["--laws", "hertz,hunt_crossley", "--param",
                               "hunt_crossley:v_floor=0.1"], "--param")):
            with self.subTest(extra=extra):
                rc, _, err = run_compare(self.args + extra)
                self.assertEqual(rc, 2, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertTrue(err.startswith(f"compare.py: {named}"), err)
                self.assertEqual(tree_digest(self.out), before)
        # another law and a second seed: added, the complete runs kept
        kept = folder_states(self.first)
        rc, _, err = run_compare(self.args + ["--laws", "hertz_tti,hunt_crossley",
                                              "--seeds", "2", "--end-time", str(END)])
        self.assertEqual(rc, 0, err)
        self.assertIn("3 runs to make, 1 complete kept", err)
        self.assertEqual(folder_states(self.first), kept)
        self.assertEqual(len(rows(self.out)), 5)  # hertz seed0 from before, 4 of this call


    def test_4_another_program(self):
        # the same program elsewhere: its runs are kept; a changed one makes them again
        same = os.path.join(self.tmp, "same", "dempact")
        changed = os.path.join(self.tmp, "changed", "dempact")
        for path in (same, changed):
            os.makedirs(os.path.dirname(path))
            shutil.copy2(DEMPACT, path)
        with open(changed, "ab") as f:
            f.write(b"\0")  # still runs; another executable all the same
        args = self.args[:-1]
        kept = folder_states(self.first)
        rc, _, err = run_compare(args + [same])
        self.assertEqual(rc, 0, err)
        self.assertIn("0 runs to make, 2 complete kept", err)
        self.assertEqual(folder_states(self.first), kept)
        rc, _, err = run_compare(args + [changed])
        self.assertEqual(rc, 0, err)
        self.assertIn("2 runs to make", err)
        self.assertNotIn("complete kept", err)


class Stop(unittest.TestCase):
    def test_ctrl_c(self):
        with tempfile.TemporaryDirectory(prefix="compare_stop_") as tmp:
            out = os.path.join(tmp, "report")
            args = ["--size", "small", "--laws", "hertz_tti,hertz", "--seeds", "1",
                    "--end-time", "0.3", "--jobs", "1", "--out", out, "--dempact", DEMPACT]
            first = os.path.join(out, "runs", "hertz_tti_off", "seed0")
            second = os.path.join(out, "runs", "hertz_none", "seed0")
            p = subprocess.Popen([sys.executable, COMPARE] + args, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
            started = wait_until(lambda: os.path.exists(os.path.join(first, cf.DONE)) and
                                 os.path.exists(os.path.join(second, "log.txt")))
            os.killpg(p.pid, signal.SIGINT)  # a terminal's Ctrl-C
            try:
                _, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                self.fail("compare.py did not end after SIGINT")
            self.assertTrue(started)
            self.assertEqual(p.returncode, 130, err)
            self.assertNotIn("Traceback", err)
            self.assertTrue(err.splitlines()[-1].startswith("compare.py: stopped by SIGINT"), err)
            self.assertEqual(processes_writing(out), [])
            self.assertFalse(os.path.exists(os.path.join(second, cf.DONE)))
            kept = folder_states(first)
            rc, _, err = run_compare(args)
            self.assertEqual(rc, 0, err)
            self.assertIn("1 runs to make, 1 complete kept", err)
            self.assertEqual(folder_states(first), kept)


class UserFiles(unittest.TestCase):
    def test_user_report_survives(self):
        with tempfile.TemporaryDirectory(prefix="compare_user_") as tmp:
            out = os.path.join(tmp, "mine")
            os.makedirs(out)
            mine = {"report.md": "# my notes on the laws\n", "table.csv": "law,phi\nx,0.6\n",
                    "meta.json": "{\"author\": \"me\"}\n", "notes.txt": "keep me\n"}
            for name, text in mine.items():
                with open(os.path.join(out, name), "w") as f:
                    f.write(text)
            args = TINY + ["--laws", "hertz_tti", "--out", out, "--dempact", DEMPACT]
            before = tree_digest(tmp)
            rc, _, err = run_compare(args)
            self.assertEqual(rc, 2, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            for name in ("report.md", "table.csv", "meta.json", "--overwrite"):
                self.assertIn(name, err)
            self.assertEqual(tree_digest(tmp), before, "a refused call changed the folder")

            notes = tree_digest(os.path.join(out, "notes.txt"))
            rc, _, err = run_compare(args + ["--overwrite"])
            self.assertEqual(rc, 0, err)
            self.assertIsNotNone(cf.read_marker(out))
            with open(os.path.join(out, "report.md")) as f:
                self.assertTrue(f.read().startswith("# Contact-law comparison"))
            self.assertEqual(tree_digest(os.path.join(out, "notes.txt")), notes)

            run_h5 = os.path.join(out, "runs", "hertz_tti_off", "seed0", "hertz_tti_off.h5")
            made = file_state(run_h5)
            rc, _, err = run_compare(args)  # the tool's report now: taken as it is
            self.assertEqual(rc, 0, err)
            self.assertEqual(file_state(run_h5), made)
            self.assertEqual(tree_digest(os.path.join(out, "notes.txt")), notes)

            rc, _, err = run_compare(args + ["--overwrite"])  # afresh: the runs made again
            self.assertEqual(rc, 0, err)
            self.assertNotEqual(file_state(run_h5)[1:], made[1:])
            self.assertEqual(tree_digest(os.path.join(out, "notes.txt")), notes)

    def test_report_md_is_a_folder(self):
        with tempfile.TemporaryDirectory(prefix="compare_user_") as tmp:
            out = os.path.join(tmp, "mine")
            os.makedirs(os.path.join(out, "report.md"))
            with open(os.path.join(out, "report.md", "draft.txt"), "w") as f:
                f.write("draft\n")
            before = tree_digest(tmp)
            rc, _, err = run_compare(TINY + ["--laws", "hertz_tti", "--out", out, "--overwrite",
                                             "--dempact", DEMPACT])
            self.assertEqual(rc, 2, err)
            self.assertIn("report.md is a folder", err)
            self.assertEqual(tree_digest(tmp), before)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--dempact", required=True)
    a, rest = ap.parse_known_args()
    DEMPACT = os.path.abspath(a.dempact)
    unittest.main(argv=[sys.argv[0]] + rest)
