#!/usr/bin/env python3
"""dempact bench against LAMMPS and LIGGGHTS on the same settled bed.

Usage: .venv/bin/python tools/bench_compare.py [--dempact build/dempact] [--particles N[,N...]] [--steps S]
           [--workload frictionless|mindlin|jkr|capillary] [--work W] [--restitution E] [--young Y] [--poisson NU]
           [--radius R] [--density RHO] [--threads 1,2] [--ranks 1,2] [--keep DIR]
           [--reuse] [--json FILE] [--rounds R]

For each N: `dempact bench --particles N --steps 0 --write-data bed.data` builds the bed
(engine/population/bed.h) and writes it in LAMMPS's data format; then dempact (`bench --load`, 1 and
2 threads), LAMMPS (`mpirun -np 1` and `-np 2`, processor grid `* * 1`, so 2 ranks split
the wide, flat bed side by side into equal halves) and LIGGGHTS (1 and 2 ranks) each run S
steps of that same file with the same law, material, step, skin, gravity and neighbour
rule (rebuild when a sphere has moved half the skin: LAMMPS's `delay 0 every 1 check
yes`, which is dempact's). It prints particle-steps per second (N S / the timed loop:
dempact's step loop, LAMMPS's and LIGGGHTS's "Loop time", setup excluded in all three),
the ratio of dempact to each run on the same number of cores, contacts per particle as
each code counts them at the end (particle-particle pairs, twice; as a check that all
three hold the same bed), and peak resident memory per particle (dempact: the whole
process; the others: the largest process times the number of ranks).
--rounds R runs all of it R times in turn on the same bed (dempact, LAMMPS, LIGGGHTS,
dempact, ...), so that a shared machine's changes of speed touch every code alike, and
ends with the median speeds and the median of the rounds' ratios.

Installs nothing: it needs Debian's lammps (lmp, mpirun) and liggghts packages. Runs
that are missing are reported as such. Measurements mean something only on a quiet
machine: the load average is printed before each run, and a warning when it is above
--max-load besides this script's own job.

THE MAPPING (frictionless workload: dempact's default law hertz_tti, cohesion removal on)
dempact:  F = K_hz d^(3/2) + f(e) sqrt(m* K_hz) d^(1/4) d',  K_hz = 4/3 E* sqrt(R*),
          f(e) = -2.2664 ln e / sqrt(ln^2 e + 10.1354), a negative F set to 0.
LAMMPS:   pair_style granular, hertz/material E cor nu damping tsuji limit_damping:
          F = 4/3 E* a d + alpha(cor) sqrt(m* 4/3 E* a) d', a = sqrt(R* d), i.e. the same
          law with alpha(cor) = 1.2728 - 4.2783 cor + ... + 4.8218 cor^6 in place of f(e):
          cor is solved (bisection; alpha falls monotonically on [0, 1]) so that
          alpha(cor) = f(e). tangential linear_nohistory 0 0: no tangential force.
          The floor: fix wall/gran granular with the same coefficients, except E: this
          LAMMPS (29 Sep 2021) uses E* = E / (2 (1 - nu)) for a wall instead of
          E / (2 (1 - nu^2)), so the wall gets E_wall = E (1 - nu) / (1 - nu^2) = E / (1 + nu)
          (the factor is measured by a drop test, probe_lammps_wall(), not assumed).
LIGGGHTS: pair_style gran model hertz tangential no_history limitForce on:
          F = 4/3 Y* sqrt(R* d) d + 2 sqrt(5/6) (-beta) sqrt(2 Y* sqrt(R* d) m*) d',
          beta = ln e_L / sqrt(ln^2 e_L + pi^2); with K_hz = 4/3 Y* sqrt(R*) the dashpot is
          sqrt(5) (-beta) sqrt(m* K_hz) d^(1/4) d', so f(e) = -sqrt(5) ln e_L / sqrt(ln^2 e_L
          + pi^2), solved: ln e_L = -f pi / sqrt(5 - f^2). Coefficient of friction 0, the
          floor a wall/gran primitive zplane with the same model (LIGGGHTS's wall E* is right).
Both mappings are checked on a binary collision: tests/lammps/compare_collide.py for
LAMMPS (agreement 1e-5 to 7e-5), and by hand for LIGGGHTS (restitution, contact time and
peak force within 3e-5; see the README).

MINDLIN workload (--workload mindlin, friction 0.5): `dempact bench --friction 0.5` (the
engine's Mindlin, engine/step/friction.h: k_t = 8 G* sqrt(R* d), eta_t = 2 sqrt(5/6) beta_t
sqrt(k_t m*), beta_t = -ln e_t / sqrt(ln^2 e_t + pi^2), e_t = the law's e; Coulomb limit
mu F_n, F_n the normal force after cohesion removal; one coefficient for sticking and
sliding); LIGGGHTS `tangential history`, coefficientFriction 0.5, which is the same model
with beta from e_L (0.49971 against dempact's 0.5: the tangential dashpots differ by
0.06 %); LAMMPS `tangential mindlin NULL XGAMMAT 0.5` (k_t = 8 G* a, tangential dashpot
XGAMMAT times the normal one) with XGAMMAT = 2 sqrt(5/6) beta_t sqrt(8 G*) /
(alpha(cor) sqrt(4/3 E*)), which makes it dempact's (checked on oblique collisions in
tests/lammps/compare_collide.py); the floor gets 8 G* as a number, because NULL is not
8 G* for a wall (tools/lammps_packing.py measures it on an oblique impact).

JKR workload (--workload jkr, frictionless, work of adhesion W, --work, default 0.2 J/m^2:
the pull-off 3/2 pi W R* of two beads, 4.7e-4 N, is 4.6 times a bead's weight, the floor's
9.2 times): `dempact bench --adhesion jkr --adhesion-param work=W --cohesion-removal off`
on the spheres' and the floor's contacts (hertz_tti's elastic part is Hertz's, which jkr
needs); LAMMPS `jkr E cor nu gamma damping tsuji tangential linear_history 0 0 0` for the
pairs and the floor (E_wall for the floor, as above), gamma = W / 2: LAMMPS's cohesion is
the surface energy, W = 2 gamma for like surfaces (tests/lammps/compare_adhesion.py and
docs/validation.md, "Adhesion against LAMMPS", map it line by line). What differs:
LAMMPS refuses limit_damping with jkr, so its dashpot may pull, hence dempact's cohesion
removal off; LAMMPS's tsuji dashpot takes its stiffness from the JKR contact radius,
dempact's from Hertz's sqrt(R* d+); LAMMPS lets a JKR contact go at the largest pull
(d = -3^(1/3) a_c^2 / R*), dempact at its reach (d = -3 a_c^2 / R*), so dempact keeps a
few more pairs in tension; `linear_history 0 0 0` rather than linear_nohistory, with
which LAMMPS's jkr stops on a neighbour-history overflow. LIGGGHTS is not run: it has no
JKR (its cohesion models sjkr and sjkr2 pull with a constant per contact area, another
law). Each round also runs dempact's frictionless workload on the same bed ("dempact-0"):
the ratio dempact / dempact-0 is the adhesive run's speed over the plain one's, the cost
of adhesion.

CAPILLARY workload (--workload capillary, frictionless): liquid bridges of water,
`dempact bench --adhesion capillary` with volume --bridge-volume (default 4e-12 m^3, 0.1 %
of a bead), contact angle 0, surface tension 0.072 N/m, viscosity 1e-3 Pa s and roughness
1e-5 m (the pull-off 4 pi gamma R* of two beads is 4.4 times a bead's weight; a bridge
ruptures at a gap of V^(1/3), 0.08 diameters). dempact alone:
neither LAMMPS nor LIGGGHTS's Debian build has a liquid-bridge model; its ratio to
dempact-0 as for jkr.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# ---- the mapped laws --------------------------------------------------------------------


def tti_factor(e):
    le = math.log(e)
    return -2.2664 * le / math.sqrt(le * le + 10.1354)


def lammps_alpha(cor):
    """LAMMPS's tsuji prefactor from its restitution argument (pair_granular.cpp)."""
    c = cor
    return (1.2728 - 4.2783 * c + 11.087 * c ** 2 - 22.348 * c ** 3 + 27.467 * c ** 4
            - 18.022 * c ** 5 + 4.8218 * c ** 6)


def lammps_cor_for(factor):
    lo, hi = 0.0, 1.0
    if not lammps_alpha(hi) <= factor <= lammps_alpha(lo):
        raise SystemExit("bench_compare: damping factor %g is outside LAMMPS's tsuji range [%g, %g]"
                         % (factor, lammps_alpha(hi), lammps_alpha(lo)))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if lammps_alpha(mid) > factor:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def liggghts_restitution_for(factor):
    return math.exp(-factor * math.pi / math.sqrt(5.0 - factor * factor))


def beta(e):
    le = math.log(e)
    return -le / math.sqrt(le * le + math.pi ** 2)


def g17(x):
    return "%.17g" % x


# ---- running things ------------------------------------------------------------------------


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_measured(cmd, cwd, env=None, log=None):
    """Runs cmd; returns (exit status, stdout text, peak RSS in bytes of its largest process)."""
    out_path = os.path.join(cwd, (log or "run") + ".out")
    with open(out_path, "w") as out:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path) as f:
        text = f.read()
    return p.returncode, text, usage.ru_maxrss * 1024


def mpirun_prefix(mpirun, ranks):
    cmd = [mpirun, "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if ranks > (os.cpu_count() or 1):  # more ranks than cores: OpenMPI refuses unless asked
        cmd.append("--oversubscribe")
    return cmd + ["-x", "OMP_NUM_THREADS=1"]


LOOP_RE = re.compile(r"Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps with (\d+) atoms")


def parse_loop(text):
    m = LOOP_RE.search(text)
    if not m:
        return None
    return float(m.group(1)), int(m.group(3)), int(m.group(4))


def parse_final_thermo(text):
    """The last thermo row: step atoms zavg ke (as the inputs below print it)."""
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)\s*$", text, re.M)
    return [float(v) for v in rows[-1]] if rows else None


# ---- inputs ------------------------------------------------------------------------------------

LAMMPS_INPUT = """# dempact bench_compare: LAMMPS on dempact's bed ({workload})
units           si
atom_style      sphere
atom_modify     map array
boundary        p p f
comm_modify     vel yes
processors      * * 1
read_data       {data}
neighbor        {skin} bin
neigh_modify    delay 0 every 1 check yes
pair_style      granular
pair_coeff      * * {pair}
fix             floor all wall/gran granular {wall} zplane {zlo} NULL
fix             gravity all gravity {gravity} vector 0 0 -1
fix             integrate all nve/sphere
timestep        {dt}
compute         z all contact/atom
compute         zavg all reduce ave c_z
compute         ke all ke
thermo_style    custom step atoms c_zavg c_ke
thermo          {steps}
run             {steps}
"""

LIGGGHTS_INPUT = """# dempact bench_compare: LIGGGHTS on dempact's bed ({workload})
atom_style      granular
atom_modify     map array
boundary        p p f
newton          off
communicate     single vel yes
units           si
hard_particles  yes
processors      * * 1
read_data       {data}
neighbor        {skin} bin
neigh_modify    delay 0
fix             m1 all property/global youngsModulus peratomtype {young}
fix             m2 all property/global poissonsRatio peratomtype {poisson}
fix             m3 all property/global coefficientRestitution peratomtypepair 1 {restitution}
fix             m4 all property/global coefficientFriction peratomtypepair 1 {friction}
pair_style      gran model hertz tangential {tangential} limitForce on
pair_coeff      * *
fix             floor all wall/gran model hertz tangential {tangential} primitive type 1 zplane {zlo} limitForce on
fix             gravity all gravity {gravity} vector 0 0 -1
fix             integrate all nve/sphere
timestep        {dt}
compute         z all contact/atom
compute         zavg all reduce ave c_z
compute         ke all ke
thermo_style    custom step atoms c_zavg c_ke
thermo          {steps}
run             {steps}
"""

PROBE_INPUT = """units si
atom_style sphere
atom_modify map array
boundary f f f
comm_modify vel yes
region box block -1 1 -1 1 0 1 units box
create_box 1 box
create_atoms 1 single 0 0 {z0} units box
set type 1 diameter {diameter}
set type 1 density {density}
set atom 1 vz -{v0}
pair_style granular
pair_coeff * * hertz/material {young} 0 {poisson} damping velocity tangential linear_nohistory 0 0
fix floor all wall/gran granular hertz/material {young} 0 {poisson} damping velocity tangential linear_nohistory 0 0 zplane 0.0 NULL
fix integrate all nve/sphere
timestep {dt}
variable d equal {radius}-z[1]
fix trace all print 1 "$(v_d:%.17g)" file {trace} screen no
run {steps}
"""


def probe_lammps_wall(lmp, workdir, young, poisson):
    """The E* LAMMPS's wall/gran granular hertz/material really uses, over the right one
    E / (2 (1 - nu^2)), from the largest overlap of an undamped drop (Hertz:
    d_max = (15 m v^2 / (16 E* sqrt(R)))^(2/5), so E* = 15 m v^2 / (16 sqrt(R) d_max^(5/2)))."""
    radius, density, v0 = 0.01, 7800.0, 1.0
    mass = density * 4.0 / 3.0 * math.pi * radius ** 3
    e_right = young / (2.0 * (1.0 - poisson ** 2))
    d_est = (15 * mass * v0 ** 2 / (16 * e_right * math.sqrt(radius))) ** 0.4
    t_c = 2 * 1.4716 * d_est / v0
    dt = t_c / 20000.0
    trace = os.path.join(workdir, "probe_wall.txt")
    text = PROBE_INPUT.format(z0=g17(radius * 1.001), diameter=g17(2 * radius), density=g17(density),
                              v0=g17(v0), young=g17(young), poisson=g17(poisson), dt=g17(dt),
                              radius=g17(radius), trace=trace,
                              steps=int((0.001 * radius / v0 + 3 * t_c) / dt))
    inp = os.path.join(workdir, "in.probe_wall")
    with open(inp, "w") as f:
        f.write(text)
    subprocess.run([lmp, "-in", inp, "-log", "none", "-screen", "none"], cwd=workdir, check=True)
    with open(trace) as f:
        d_max = max(float(l) for l in f if not l.startswith("#"))
    e_used = 15 * mass * v0 ** 2 / (16 * math.sqrt(radius) * d_max ** 2.5)
    return e_used / e_right


# ---- one bed ----------------------------------------------------------------------------------------


def dempact_settings_args(a):
    """The law and material flags (sizes and density come from the data file)."""
    return ["--law", "hertz_tti", "--restitution", g17(a.restitution), "--young", g17(a.young),
            "--poisson", g17(a.poisson), "--gravity", g17(a.gravity), "--cohesion-removal", "on"] + \
        (["--dt", g17(a.dt)] if a.dt else []) + (["--skin", g17(a.skin)] if a.skin else [])


def workload_args(a):
    """dempact bench's flags for the workload beside the law's (dempact_settings_args)."""
    if a.workload == "mindlin":
        return ["--friction", "0.5"]
    if a.workload == "jkr":
        return ["--adhesion", "jkr", "--adhesion-param", "work=" + g17(a.work),
                "--cohesion-removal", "off"]
    if a.workload == "capillary":
        return ["--adhesion", "capillary"] + [
            arg for kv in ("volume=" + g17(a.bridge_volume), "contact_angle=0",
                           "surface_tension=0.072", "viscosity=1e-3", "roughness=1e-5")
            for arg in ("--adhesion-param", kv)]
    return []


def compare_one(a, n, workdir, results):
    data = os.path.join(workdir, "bed_%d.data" % n)
    base = dempact_settings_args(a)
    if not (a.reuse and os.path.exists(data)):
        print("building a bed of %d spheres (dempact bench --steps 0 --write-data) ..." % n, flush=True)
        t0 = time.time()
        rc, text, _ = run_measured([a.dempact, "bench", "--particles", str(n), "--steps", "0",
                                    "--write-data", data, "--overwrite", "--format", "json", "--quiet",
                                    "--radius", g17(a.radius), "--density", g17(a.density)] + base,
                                   workdir, log="build_%d" % n)
        if rc != 0:
            raise SystemExit("bench_compare: building the bed failed:\n" + text)
        print("  built in %.0f s" % (time.time() - t0), flush=True)
    steps = a.steps or max(20, min(2000, int(2e8 / n)))
    row = {"particles": n, "steps": steps, "workload": a.workload, "runs": []}
    results.append(row)

    def note(code, procs, rate, contacts, mem, extra=""):
        run = {"code": code, "procs": procs, "particle_steps_per_second": rate,
               "contacts_per_particle": contacts, "peak_bytes_per_particle": mem, "note": extra}
        row["runs"].append(run)
        print("  %-9s %d  %12s  %8s  %10s  %s" % (
            code, procs, "%.4g" % rate if rate else "-", "%.3f" % contacts if contacts else "-",
            "%.0f" % mem if mem else "-", extra), flush=True)

    def run_ranks(code, binary, mpirun, inp, detail):
        """Runs a LAMMPS-style input on each rank count of --ranks and notes the rate;
        detail: the run's settings for the note."""
        for ranks in a.ranks:
            load = load_average()
            log = "%s_%d_%d" % (code.lower(), n, ranks)
            rc, text, rss = run_measured(mpirun_prefix(mpirun, ranks) + [binary, "-in", inp, "-log", "none"],
                                         workdir, log=log)
            loop = parse_loop(text)
            if rc != 0 or not loop:
                note(code, ranks, None, None, None, "failed: see %s/%s.out" % (workdir, log))
                continue
            thermo = parse_final_thermo(text)
            lost = "" if thermo and int(thermo[1]) == n else " ATOMS LOST"
            note(code, ranks, n * loop[1] / loop[0], thermo[2] if thermo else None, rss * ranks / n,
                 "load %.2f, %s%s" % (load, detail, lost))

    print("N = %d, %d steps, workload %s" % (n, steps, a.workload))
    print("  %-9s %s  %12s  %8s  %10s  %s" % ("code", "p", "p-steps/s", "Z pairs", "bytes/part", "notes"))

    # dempact, which also tells the settings everyone runs with; with adhesion also its
    # frictionless run (dempact-0), the same bed without the adhesion
    settings = None
    adhesive = a.workload in ("jkr", "capillary")
    for code, extra in [("dempact", workload_args(a))] + ([("dempact-0", [])] if adhesive else []):
        for threads in a.threads:
            load = load_average()
            cmd = [a.dempact, "bench", "--load", data, "--steps", str(steps), "--threads", str(threads),
                   "--format", "json", "--quiet"] + base + extra
            rc, text, _ = run_measured(cmd, workdir, log="%s_%d_%d" % (code, n, threads))
            if rc != 0:
                note(code, threads, None, None, None, "refused: " + text.strip().splitlines()[-1][:150])
                continue
            r = json.loads(text[text.index("{"):])
            if code == "dempact":
                settings = r["settings"]
            note(code, threads, r["particle_steps_per_second"], r["pair_contacts_per_particle_end"],
                 r["peak_memory_bytes_per_particle"], "load %.2f" % load)
    if settings is None:  # refused (mindlin): take the settings from a zero-step run
        rc, text, _ = run_measured([a.dempact, "bench", "--load", data, "--steps", "0", "--format",
                                    "json", "--quiet"] + base, workdir, log="settings_%d" % n)
        if rc != 0:
            raise SystemExit("bench_compare: dempact bench --load %s failed:\n%s" % (data, text))
        settings = json.loads(text[text.index("{"):])["settings"]
    with open(data) as f:
        f.readline()
        header = "".join(f.readline() for _ in range(8))
    zlo = float(re.search(r"(\S+)\s+\S+\s+zlo zhi", header).group(1))

    e = settings["params"]["restitution"]
    young, poisson = settings["young"], settings["poisson"]
    factor = tti_factor(e)
    common = {"data": data, "skin": g17(settings["skin"]), "dt": g17(settings["dt"]),
              "gravity": g17(settings["gravity"]), "zlo": g17(zlo), "steps": steps,
              "workload": a.workload}

    lmp = shutil.which(a.lmp)
    mpirun = shutil.which(a.mpirun)
    if a.workload == "capillary":
        note("LAMMPS", 0, None, None, None, "not run: LAMMPS has no liquid-bridge model")
    elif lmp and mpirun:
        cor = lammps_cor_for(factor)
        if "wall_factor" not in a.__dict__:
            a.wall_factor = probe_lammps_wall(lmp, workdir, young, poisson)
        young_wall = young / a.wall_factor
        if a.workload == "mindlin":
            e_eff = young / (2 * (1 - poisson ** 2))
            g_eff = young / (2 * (1 + poisson)) / (2 * (2 - poisson))
            xgammat = 2 * math.sqrt(5.0 / 6.0) * beta(e) * math.sqrt(8 * g_eff) / \
                (lammps_alpha(cor) * math.sqrt(4.0 / 3.0 * e_eff))
            tangential = "tangential mindlin NULL %s 0.5" % g17(xgammat)
            # NULL is not 8 G* for a wall (tools/lammps_packing.py measures it): give it
            wall_tangential = "tangential mindlin %s %s 0.5" % (g17(8 * g_eff), g17(xgammat))
        else:
            tangential = wall_tangential = "tangential linear_nohistory 0 0"
        if a.workload == "jkr":  # gamma = W / 2; no limit_damping, which LAMMPS refuses with jkr
            gamma = a.work / 2.0
            pair = "jkr %s %s %s %s damping tsuji tangential linear_history 0 0 0" % (
                g17(young), g17(cor), g17(poisson), g17(gamma))
            wall = "jkr %s %s %s %s damping tsuji tangential linear_history 0 0 0" % (
                g17(young_wall), g17(cor), g17(poisson), g17(gamma))
        else:
            pair = "hertz/material %s %s %s damping tsuji %s limit_damping" % (
                g17(young), g17(cor), g17(poisson), tangential)
            wall = "hertz/material %s %s %s damping tsuji %s limit_damping" % (
                g17(young_wall), g17(cor), g17(poisson), wall_tangential)
        inp = os.path.join(workdir, "in.lammps_%s" % a.workload)
        with open(inp, "w") as f:
            f.write(LAMMPS_INPUT.format(pair=pair, wall=wall, **common))
        run_ranks("LAMMPS", lmp, mpirun, inp, "cor %.6f, wall E %.6g" % (cor, young_wall))
    else:
        note("LAMMPS", 0, None, None, None, "not run: %s not found" % (a.lmp if not lmp else a.mpirun))

    lig = shutil.which(a.liggghts)
    if adhesive:
        note("LIGGGHTS", 0, None, None, None, "not run: no %s model (see the docstring)" % a.workload)
    elif lig and mpirun:
        e_l = liggghts_restitution_for(factor)
        inp = os.path.join(workdir, "in.liggghts_%s" % a.workload)
        with open(inp, "w") as f:
            f.write(LIGGGHTS_INPUT.format(young=g17(young), poisson=g17(poisson), restitution=g17(e_l),
                                          friction="0.5" if a.workload == "mindlin" else "0.0",
                                          tangential="history" if a.workload == "mindlin" else "no_history",
                                          **common))
        run_ranks("LIGGGHTS", lig, mpirun, inp, "e %.6f" % e_l)
    else:
        note("LIGGGHTS", 0, None, None, None, "not run: %s not found" % (a.liggghts if not lig else a.mpirun))

    # ratios on the same number of cores
    dem = {r["procs"]: r["particle_steps_per_second"] for r in row["runs"]
           if r["code"] == "dempact" and r["particle_steps_per_second"]}
    for r in row["runs"]:
        if r["code"] != "dempact" and r["particle_steps_per_second"] and r["procs"] in dem:
            r["dempact_ratio"] = dem[r["procs"]] / r["particle_steps_per_second"]
            print("  dempact / %s on %d core%s: %.2f" % (r["code"], r["procs"], "s" if r["procs"] > 1 else "",
                                                        r["dempact_ratio"]))


def report_medians(rows):
    """The median over the rounds (rows) of each code's speed on each number of cores,
    and of the rounds' ratios dempact / code (each taken within its round, where the
    codes ran minutes apart at most)."""
    speeds, ratios = {}, {}
    for row in rows:
        for r in row["runs"]:
            key = (r["code"], r["procs"])
            if r["particle_steps_per_second"]:
                speeds.setdefault(key, []).append(r["particle_steps_per_second"])
            if r.get("dempact_ratio"):
                ratios.setdefault(key, []).append(r["dempact_ratio"])
    print("medians over %d rounds (particle-steps per second; dempact / code, each round's):" % len(rows))
    for key in sorted(speeds):
        line = "  %-9s %d  %12.4g" % (key[0], key[1], statistics.median(speeds[key]))
        if key in ratios:
            line += "  dempact / %s %.2f (rounds: %s)" % (
                key[0], statistics.median(ratios[key]), ", ".join("%.2f" % x for x in ratios[key]))
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dempact", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "..", "build", "dempact"))
    ap.add_argument("--particles", default="100000", help="comma-separated sizes")
    ap.add_argument("--steps", type=int, default=0, help="0: 2e8 / N, between 20 and 2000")
    ap.add_argument("--workload", choices=("frictionless", "mindlin", "jkr", "capillary"),
                    default="frictionless")
    ap.add_argument("--work", type=float, default=0.2, help="jkr's work of adhesion [J/m^2]")
    ap.add_argument("--bridge-volume", type=float, default=4e-12,
                    help="capillary's liquid volume per bridge [m^3]")
    ap.add_argument("--restitution", type=float, default=0.5)
    ap.add_argument("--young", type=float, default=1e7)
    ap.add_argument("--poisson", type=float, default=0.25)
    ap.add_argument("--radius", type=float, default=0.001)
    ap.add_argument("--density", type=float, default=2500.0)
    ap.add_argument("--gravity", type=float, default=9.81)
    ap.add_argument("--dt", type=float, default=0.0, help="0: dempact bench's default")
    ap.add_argument("--skin", type=float, default=0.0, help="0: dempact bench's default")
    ap.add_argument("--threads", default="1,2", help="dempact thread counts")
    ap.add_argument("--ranks", default="1,2", help="LAMMPS and LIGGGHTS MPI rank counts")
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--liggghts", default="liggghts")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--keep", default="", help="work in this folder and leave the beds, inputs and logs")
    ap.add_argument("--reuse", action="store_true", help="reuse a bed already in --keep's folder")
    ap.add_argument("--max-load", type=float, default=0.5)
    ap.add_argument("--json", default="", help="also write the results here")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every code this many times, in turn (the same bed), and report the "
                         "median speed of each and the median of the rounds' ratios")
    a = ap.parse_args()
    a.threads = [int(t) for t in a.threads.split(",")]
    a.ranks = [int(r) for r in a.ranks.split(",")]
    a.dempact = os.path.abspath(a.dempact)
    if not os.access(a.dempact, os.X_OK):
        raise SystemExit("bench_compare: %s is not an executable (build dempact first)" % a.dempact)
    workdir = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="dempact_bench_")
    os.makedirs(workdir, exist_ok=True)
    load = load_average()
    print("load average %.2f at the start%s" % (load, "  WARNING: above %.2f, the timings are not "
                                                 "trustworthy" % a.max_load if load > a.max_load else ""))
    results = []
    if a.rounds < 1:
        raise SystemExit("bench_compare: --rounds takes a whole number from 1, not %d" % a.rounds)
    try:
        for n in [int(float(v)) for v in a.particles.split(",")]:
            rows = []
            reuse = a.reuse
            for k in range(a.rounds):
                if a.rounds > 1:
                    print("round %d of %d" % (k + 1, a.rounds), flush=True)
                compare_one(a, n, workdir, rows)
                a.reuse = True  # the next rounds run the same bed
            a.reuse = reuse
            results.extend(rows)
            if a.rounds > 1:
                report_medians(rows)
    finally:
        if not a.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
