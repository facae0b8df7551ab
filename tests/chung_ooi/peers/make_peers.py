#!/usr/bin/env python3
"""Runs the impacts of Chung & Ooi tests 5, 6 and 8 in LIGGGHTS and LAMMPS and writes
peers.json beside this script, which run_benchmark.py reads to tell a check that misses the
reference curve but matches both peers (peer-matched) from one where dempact is alone.

Usage: make_peers.py [--liggghts liggghts] [--lmp lmp] [--steps-per-contact 4000]
                     [--tests 5,6,8] [--out peers.json] [--keep DIR]

Every impact is run_benchmark.impact_data(test, material, a) for every abscissa of the
reference curves of the full sweep (test 5: x = v_t / (mu v_n); tests 6 and 8: the slip
speed of the contact point), with the law the three codes share (run_benchmark.py,
peer_normal_law): Hertz + the Tsuji dashpot alpha sqrt(m* K_hz) d^(1/4) d' (alpha solved
for e; none for e = 1), the total normal force floored at 0, Mindlin's no-slip tangential
spring k_t = 8 G* sqrt(R* d) with the Coulomb limit mu F_n, no tangential dashpot.

LIGGGHTS 3.8.0 (Debian's liggghts):
  pair_style gran model hertz tangential history tangential_damping off limitForce on, and
  the plane fix wall/gran ... primitive type 2 zplane 0 with the same model; the plane is
  atom type 2 with E = 1e20 (dempact's rigid wall) and the sphere's nu. Its normal law is
  4/3 Y* sqrt(R* d) d + sqrt(5) (-beta(e_L)) sqrt(m* K_hz) d^(1/4) d', beta(e) =
  ln e / sqrt(ln^2 e + pi^2), so e_L = exp(-alpha pi / sqrt(5 - alpha^2)) gives alpha;
  k_t = 8 G* sqrt(R* d); Y*, G* mixed from E, nu of both sides as dempact does.
LAMMPS (Debian's lmp, 7 Jan 2022):
  pair_style granular, pair_coeff * * hertz K_N COR tangential mindlin K_T 0 MU damping
  tsuji limit_damping, the plane fix wall/gran granular with the same arguments zplane 0
  NULL. `hertz` takes K_N = 4/3 E* and `mindlin` K_T = 8 G* as numbers (E*, G* of the
  pair or of sphere and rigid plane, run_benchmark.pair_moduli; LAMMPS's own mixing for
  hertz/material on a wall is not dempact's, tools/bench_compare.py), the tangential
  dashpot factor 0; COR is solved so that LAMMPS's tsuji fit alpha(COR) is alpha
  (tools/bench_compare.lammps_cor_for).

Both integrate with velocity Verlet (fix nve/sphere) at dt = t_c / steps-per-contact
(t_c the elastic Hertz contact time at the normal speed) from the same positions, speeds and
spins to the same end as dempact's case (touch + 4 t_c, 1.25 t_c for e = 1), and print the
final velocities and spins. Each impact is also run at twice the step; the larger of the two
codes' changes of each measured quantity is stored as "step_change" (convergence).
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
import run_benchmark as rb  # noqa: E402
import bench_compare  # noqa: E402


def g17(x):
    return "%.17g" % x


def box(imp):
    parts = imp["particles"]
    lo = [min(p["x"][k] - 2 * p["r"] for p in parts) for k in range(3)]
    hi = [max(p["x"][k] + 2 * p["r"] for p in parts) for k in range(3)]
    if imp["plane"]:
        lo[2] = -0.5 * parts[0]["r"]
    return lo, hi


def moduli(imp):
    """E*, G* of the contact: sphere and rigid plane (E = 1e20, the sphere's nu), or the
    two spheres."""
    parts = imp["particles"]
    if imp["plane"]:
        rho, young, nu = rb.MATERIALS[parts[0]["mat"]]
        g = young / (2 * (1 + nu))
        g_w = rb.RIGID_YOUNG / (2 * (1 + nu))
        e_star = 1.0 / ((1 - nu * nu) / young + (1 - nu * nu) / rb.RIGID_YOUNG)
        g_star = 1.0 / ((2 - nu) / g + (2 - nu) / g_w)
        return e_star, g_star
    return rb.pair_moduli(parts[0]["mat"], parts[1]["mat"])


def steps_for(imp, spc):
    dt = imp["t_c"] / spc
    return dt, int(math.ceil(imp["end"] / dt))


def liggghts_input(imp, dt, steps, alpha, folder):
    parts = imp["particles"]
    lo, hi = box(imp)
    young, nu = rb.MATERIALS[parts[0]["mat"]][1:]
    e_l = bench_compare.liggghts_restitution_for(alpha) if alpha > 0 else 1.0
    with open(os.path.join(folder, "atoms.data"), "w") as f:
        f.write(f"LIGGGHTS data\n\n{len(parts)} atoms\n2 atom types\n\n")
        for k, ax in enumerate("xyz"):
            f.write(f"{g17(lo[k])} {g17(hi[k])} {ax}lo {ax}hi\n")
        f.write("\nAtoms\n\n")
        for i, p in enumerate(parts, 1):
            rho = rb.MATERIALS[p["mat"]][0]
            f.write(f"{i} 1 {g17(2 * p['r'])} {g17(rho)} {' '.join(g17(c) for c in p['x'])}\n")
        f.write("\nVelocities\n\n")
        for i, p in enumerate(parts, 1):
            f.write(f"{i} {' '.join(g17(c) for c in (*p['v'], *p['w']))}\n")
    mu = imp["mu"]
    model = "model hertz tangential history"
    settings = "tangential_damping off limitForce on"
    lines = ["atom_style granular", "atom_modify map array", "boundary f f f", "newton off",
             "communicate single vel yes", "units si", "hard_particles yes",
             "read_data atoms.data",
             f"neighbor {g17(0.5 * min(p['r'] for p in parts))} bin", "neigh_modify delay 0",
             f"fix m1 all property/global youngsModulus peratomtype {g17(young)} {g17(rb.RIGID_YOUNG)}",
             f"fix m2 all property/global poissonsRatio peratomtype {g17(nu)} {g17(nu)}",
             f"fix m3 all property/global coefficientRestitution peratomtypepair 2 "
             + " ".join([g17(e_l)] * 4),
             f"fix m4 all property/global coefficientFriction peratomtypepair 2 "
             + " ".join([g17(mu)] * 4),
             f"pair_style gran {model} {settings}", "pair_coeff * *", f"timestep {g17(dt)}"]
    if imp["plane"]:
        lines.append(f"fix plane all wall/gran {model} primitive type 2 zplane 0.0 {settings}")
    lines.append("fix integrate all nve/sphere")
    out = []
    for i in range(1, len(parts) + 1):
        for q in ("vx", "vy", "vz", "omegax", "omegay", "omegaz"):
            lines.append(f"variable {q}{i} equal {q}[{i}]")
            out.append("${%s%d}" % (q, i))
    lines.append(f'fix result all print {steps} "RESULT {" ".join(out)}" screen yes')
    lines.append(f"run {steps}")
    return "\n".join(lines) + "\n"


def lammps_input(imp, dt, steps, alpha):
    parts = imp["particles"]
    lo, hi = box(imp)
    e_star, g_star = moduli(imp)
    cor = bench_compare.lammps_cor_for(alpha) if alpha > 0 else 1.0
    damping = "damping tsuji" if alpha > 0 else "damping velocity"
    # hertz K_N DAMP: for tsuji DAMP is the restitution LAMMPS maps to alpha; for plain
    # Hertz (e = 1) the velocity dashpot with coefficient 0
    coeffs = (f"hertz {g17(4.0 / 3.0 * e_star)} {g17(cor if alpha > 0 else 0.0)} "
              f"tangential mindlin {g17(8.0 * g_star)} 0.0 {g17(imp['mu'])} {damping} limit_damping")
    lines = ["units si", "atom_style sphere", "atom_modify map array", "boundary f f f",
             "comm_modify vel yes",
             f"region box block {g17(lo[0])} {g17(hi[0])} {g17(lo[1])} {g17(hi[1])} "
             f"{g17(lo[2])} {g17(hi[2])} units box", "create_box 1 box"]
    for i, p in enumerate(parts, 1):
        rho = rb.MATERIALS[p["mat"]][0]
        lines += [f"create_atoms 1 single {' '.join(g17(c) for c in p['x'])} units box",
                  f"set atom {i} diameter {g17(2 * p['r'])}", f"set atom {i} density {g17(rho)}",
                  f"set atom {i} vx {g17(p['v'][0])} vy {g17(p['v'][1])} vz {g17(p['v'][2])}",
                  f"set atom {i} omega {' '.join(g17(c) for c in p['w'])}"]
    lines += ["pair_style granular", f"pair_coeff * * {coeffs}",
              f"neighbor {g17(0.5 * min(p['r'] for p in parts))} bin",
              "neigh_modify delay 0 every 1 check yes"]
    if imp["plane"]:
        lines.append(f"fix plane all wall/gran granular {coeffs} zplane 0.0 NULL")
    lines += ["fix integrate all nve/sphere", f"timestep {g17(dt)}",
              "compute om all property/atom omegax omegay omegaz", "thermo 1000000000"]
    out = []
    for i in range(1, len(parts) + 1):
        for k, q in enumerate("xyz"):
            out.append(f"$(v{q}[{i}]:%.17g)")
        for k in range(3):
            lines.append(f"variable w{i}{k} equal c_om[{i}][{k + 1}]")
            out.append(f"$(v_w{i}{k}:%.17g)")
    lines.append(f'fix result all print {steps} "RESULT {" ".join(out)}" screen yes')
    lines.append(f"run {steps}")
    return "\n".join(lines) + "\n"


def run(cmd, text, folder, n):
    with open(os.path.join(folder, "in.run"), "w") as f:
        f.write(text)
    proc = subprocess.run(cmd + ["-in", "in.run", "-log", "none"], cwd=folder,
                          capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    rows = [line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("RESULT")]
    if proc.returncode != 0 or not rows:
        raise SystemExit(f"make_peers: {cmd[0]} failed in {folder}:\n{proc.stdout[-1500:]}\n"
                         f"{proc.stderr[-1500:]}")
    vals = [float(v) for v in rows[-1]]
    v = [vals[6 * i:6 * i + 3] for i in range(n)]
    w = [vals[6 * i + 3:6 * i + 6] for i in range(n)]
    return v, w


def impacts(tests):
    """Every impact of the full sweep of tests 5, 6 and 8 (the abscissae of both curves)."""
    out = {}
    for test in tests:
        mats = ["steel", "polyethylene"] if test == "5" else ["al_alloy", "nylon"]
        for mat in mats:
            whats = ("psi2", "omega") if test == "5" else ("beta", "recoil")
            for what in whats:
                for x, _ in rb.REF[(test, what, mat)]:
                    if test == "5":
                        a = x
                    else:
                        a = 3.5 * 0.4 * 1.5 * 0.2 / x if what == "beta" else x * 0.2
                    out[rb.impact_key(test, mat, a)] = rb.impact_data(test, mat, a)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--liggghts", default="liggghts")
    ap.add_argument("--lmp", default="lmp")
    ap.add_argument("--steps-per-contact", type=int, default=4000)
    ap.add_argument("--tests", default="5,6,8")
    ap.add_argument("--out", default=os.path.join(HERE, "peers.json"))
    ap.add_argument("--keep", default=None, help="keep the inputs in this folder")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="chung_peers_")
    os.makedirs(work, exist_ok=True)
    versions = {}
    for code, cmd in (("liggghts", args.liggghts), ("lammps", args.lmp)):
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Version}",
                               "liggghts" if code == "liggghts" else "lammps"],
                              capture_output=True, text=True)
        versions[code] = f"{cmd} (Debian package {proc.stdout.strip() or 'unknown'})"
    result = {"made_by": "tests/chung_ooi/peers/make_peers.py", "codes": versions,
              "steps_per_contact": args.steps_per_contact, "impacts": {}}
    todo = impacts([t.strip() for t in args.tests.split(",")])
    for n, (key, imp) in enumerate(sorted(todo.items())):
        alpha = rb.tsuji_alpha(imp["e"]) if imp["e"] < 1.0 else 0.0
        entry = {"impact": {"a": imp["a"], "e": imp["e"], "mu": imp["mu"], "plane": imp["plane"],
                            "end": imp["end"], "t_c": imp["t_c"],
                            "particles": [dict(p, material=rb.MATERIALS[p["mat"]])
                                          for p in imp["particles"]]},
                 "alpha": alpha}
        for code in rb.PEER_CODES:
            got = {}
            for spc in (args.steps_per_contact, args.steps_per_contact // 2):
                dt, steps = steps_for(imp, spc)
                folder = os.path.join(work, re.sub(r"[^A-Za-z0-9_.]", "_", f"{code}_{key}_{spc}"))
                os.makedirs(folder, exist_ok=True)
                if code == "liggghts":
                    text = liggghts_input(imp, dt, steps, alpha, folder)
                    v, w = run([args.liggghts], text, folder, len(imp["particles"]))
                else:
                    text = lammps_input(imp, dt, steps, alpha)
                    v, w = run([args.lmp], text, folder, len(imp["particles"]))
                got[spc] = (v, w, rb.impact_measure(imp, v, w))
            v, w, measured = got[args.steps_per_contact]
            coarse = got[args.steps_per_contact // 2][2]
            entry[code] = {"velocity": v, "angular_velocity": w, "measured": measured,
                           "step_change": {q: abs(measured[q] - coarse[q]) for q in measured}}
        result["impacts"][key] = entry
        print(f"[{n + 1}/{len(todo)}] {key}: " + "; ".join(
            f"{c} " + ", ".join(f"{q} {entry[c]['measured'][q]:.6g}" for q in entry[c]["measured"])
            for c in rb.PEER_CODES), flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"make_peers: wrote {args.out} ({len(todo)} impacts)")


if __name__ == "__main__":
    main()
