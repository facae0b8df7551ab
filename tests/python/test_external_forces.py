"""External loads from Python (Simulation.set_external_loads; engine/step/external_loads.h),
checked against closed forms and the energy balance:

- a sphere under gravity in a Stokes drag F = -c (v - u), c = 3 pi mu d, applied each
  step through the API, reaches the terminal velocity u + m g / c (no buoyancy: the
  drag alone against the weight), follows v_t (1 - e^(-t/tau)), tau = m / c, on the
  way, and the drag's work booked is the closed form's along that path;
- a constant force and torque on a free sphere do the work F.dx + T^2 t^2 / (2 I)
  (velocity Verlet is exact for a constant acceleration) and spin it up as T t / I,
  whether or not the contacts exert torques (with and without friction);
- the output's energy_residual stays at rounding with the drag, and a bouncing sphere
  pulled down by a load m g instead of gravity leaves the residual gravity leaves;
- loads follow the particles by id through an outlet's removal, and a particle an inlet
  inserts carries none;
- bad arrays are refused with a dempact.Error naming the argument and the problem, and
  change nothing.
"""
import math

import h5py
import numpy as np
import pytest

import dempact

G = 9.81
RADIUS = 0.005


def write_case(folder, name, rows, gravity=-G, friction=False, law="hertz", extra="", step="auto"):
    """A case of soft spheres (rows: x, y, z, vx, vy, vz) in a 2 m box over a floor."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{name}.csv", "w") as f:
        f.write("x,y,z,radius,vx,vy,vz\n")
        for x, y, z, vx, vy, vz in rows:
            f.write(f"{x},{y},{z},{RADIUS},{vx},{vy},{vz}\n")
    contact = f"law: {law}" + (", friction: {coefficient: 0.5}" if friction else "")
    (folder / f"{name}.yaml").write_text(f"""name: {name}
domain: {{min: [-1, -1, -1], max: [1, 1, 1]}}
gravity: [0, 0, {gravity}]
time: {{end: 1.0, step: {step}, output_interval: 0.01}}
materials:
  - {{name: soft, density: 2500, young: 1.0e7, poisson: 0.25}}
contacts:
  - {{materials: [soft, soft], {contact}}}
walls:
  - {{name: floor, type: plane, material: soft, point: [0, 0, -1], normal: [0, 0, 1]}}
particles:
  - {{source: file, material: soft, file: {name}.csv}}
{extra}""")
    return folder / f"{name}.yaml"


def residual(h5):
    """The energy balance's residual and the magnitudes it is a residual of, at the
    output's last sample."""
    with h5py.File(h5, "r") as f:
        ts = f["timeseries"]
        return float(ts["energy_residual"][-1]), float(ts["kinetic_energy"][-1]), \
            float(ts["gravitational_energy"][-1])


def test_stokes_drag_terminal_velocity(tmp_path):
    """Terminal velocity u + m g / (3 pi mu d), and the approach to it. The drag is set
    from v(t_n) before each step and acts over the step: dv/dt = g - (v - u) / tau by
    explicit Euler, v_n - v_t = (v_0 - v_t) (1 - dt/tau)^n. Its fixed point is v_t
    exactly; the transient left after 15 tau is below e^-15 = 3e-7 of v_t, hence 1e-6.
    On the way, (1 - h)^n differs from e^(-n h) (h = dt/tau, 1/280 here) by at most
    about (n h) h / 2 e^(-n h) <= h / 2 e^-1 at t = tau: the tolerance there is h v_t."""
    sim = dempact.Simulation(write_case(tmp_path, "drop", [(0, 0, 0.5, 0, 0, 0)]))
    m, d = sim.masses[0], 2 * sim.radii[0]
    tau = 0.004
    mu = m / (3 * math.pi * d * tau)                      # 1.39 Pa s: glycerol-like
    c = 3 * math.pi * mu * d
    u = np.array([0.02, 0.0, 0.0])                        # the fluid's velocity
    v_t = u + np.array([0.0, 0.0, -m * G / c])            # -0.039 m/s along z
    h = sim.dt / tau
    assert h < 0.01
    at_tau = None
    for k in range(int(math.ceil(15 * tau / sim.dt))):
        sim.set_external_loads(-c * (sim.velocities - u))
        sim.step()
        if at_tau is None and sim.time >= tau:
            at_tau = (sim.time, sim.velocities[0].copy())
    t, v = at_tau
    expect = v_t * (1 - math.exp(-t / tau))
    assert np.all(np.abs(v - expect) <= h * np.abs(v_t)), (v, expect)
    v = sim.velocities[0]
    print(f"terminal velocity {v} m/s, closed form {v_t} m/s, dt/tau = {h:.4g}")
    assert np.all(np.abs(v - v_t) <= 1e-6 * np.linalg.norm(v_t)), (v, v_t)
    # the books: the drag's work is booked, and the balance closes to rounding
    work = sim.external_work
    assert work < 0                                        # the drag takes energy out
    path = sim.write_snapshot(tmp_path / "out")
    r, kinetic, potential = residual(path)
    print(f"external work {work:.6g} J, energy residual {r:.3g} J")
    assert abs(r) <= 1e-9 * abs(work)
    # and it is the drag's work on v(t) = v_t (1 - e^(-t/tau)), -c integral of (v - u).v
    # dt, to first order in dt/tau: with a = v_t - u and S = t / tau,
    # W = -c tau [a.v_t S - (a.v_t + |v_t|^2)(1 - e^-S) + |v_t|^2 (1 - e^-2S) / 2]
    S, a = sim.time / tau, v_t - u
    closed = -c * tau * (a @ v_t * S - (a @ v_t + v_t @ v_t) * (1 - math.exp(-S))
                         + v_t @ v_t * (1 - math.exp(-2 * S)) / 2)
    print(f"drag work {work:.8g} J, closed form {closed:.8g} J")
    assert abs(work - closed) <= h * abs(closed)
    assert sim.driven


@pytest.mark.parametrize("friction", [False, True])
def test_constant_load_work_and_spin(tmp_path, friction):
    """A constant force F and torque T on a free sphere (with gravity, thrown): x(t) =
    x0 + v0 t + (g + F/m) t^2 / 2 and w(t) = T t / I, I = 2/5 m r^2, which velocity
    Verlet follows exactly (to rounding); the work booked is F.(x - x0) + T^2 t^2 /
    (2 I). Without friction the contacts exert no torque and the engine turns no spin
    unless an external torque asks it to; with friction it always does."""
    x0, v0 = np.array([0.1, -0.2, 0.3]), np.array([0.25, -0.5, 1.5])
    sim = dempact.Simulation(write_case(tmp_path, "throw", [(*x0, *v0)], friction=friction))
    m, r = sim.masses[0], sim.radii[0]
    inertia = 0.4 * m * r * r
    F, T = np.array([[3e-3, -1e-3, 2e-3]]), np.array([[1e-7, 0.0, -2e-7]])
    sim.set_external_loads(F, T)
    sim.step(2000)
    t = sim.time
    g = np.array([0.0, 0.0, -G])
    x = x0 + v0 * t + (g + F[0] / m) * t * t / 2
    w = T[0] * t / inertia
    assert np.allclose(sim.positions[0], x, rtol=0, atol=1e-12)
    assert np.allclose(sim.angular_velocities[0], w, rtol=1e-10, atol=0)
    work = F[0] @ (x - x0) + T[0] @ T[0] * t * t / (2 * inertia)
    print(f"work booked {sim.external_work:.12g} J, closed form {work:.12g} J, spin {w} rad/s")
    assert abs(sim.external_work - work) <= 1e-10 * abs(work)
    # the forces reported are the weight and the load; cleared, the weight alone
    assert np.allclose(sim.forces[0], m * g + F[0], rtol=1e-14, atol=0)
    sim.clear_external_loads()
    assert np.allclose(sim.forces[0], m * g, rtol=1e-14, atol=0)
    assert np.allclose(sim.torques[0], 0.0, rtol=0, atol=1e-20)
    spin = sim.angular_velocities[0].copy()
    booked = sim.external_work
    sim.step(100)
    assert np.array_equal(sim.angular_velocities[0], spin)   # no torque: the spin stays
    assert sim.external_work == booked                       # no load: no work
    path = sim.write_snapshot(tmp_path / "out")
    res, kinetic, potential = residual(path)
    assert abs(res) <= 1e-9 * abs(work)


def test_frictionless_run_reports_zero_torques(tmp_path):
    """Where nothing can exert a torque (no friction, no external torque) the engine holds
    no torques (engine/population/particles.h); every torque reported is then 0, in the
    package and in the snapshot's torque dataset (N x 3, as with friction), while the
    spheres collide with each other and the floor."""
    rows = [(0.0, 0.0, -0.99, 0.0, 0.0, -0.5), (0.003, 0.0, -0.975, 0.0, 0.0, -1.0)]
    sim = dempact.Simulation(write_case(tmp_path, "bump", rows))
    sim.step(3000)
    assert sim.torques.shape == (2, 3)
    assert np.array_equal(sim.torques, np.zeros((2, 3)))
    assert np.all(sim.velocities[:, 0] != 0.0)   # the oblique contact pushed them sideways
    sim.write_snapshot(tmp_path / "out")
    snapshots = sorted((tmp_path / "out" / "bump.d").glob("*.h5"))   # one file each
    assert snapshots
    for snapshot in snapshots:
        with h5py.File(snapshot, "r") as f:
            assert f["torque"].shape == (2, 3) and f["torque"].dtype == np.float64
            assert not f["torque"][()].any()


def test_load_like_gravity_leaves_gravity_residual(tmp_path):
    """A sphere bouncing on the floor (Hertz, elastic: the residual is the integrator's
    error through the contacts) under gravity, and the same without gravity pulled down
    by a load m g set once: the same motion, and the load's work booked as gravity's
    potential energy is, so the same residual."""
    rows = [(0.0, 0.0, -1 + RADIUS + 0.002, 0.0, 0.0, -0.3)]
    a = dempact.Simulation(write_case(tmp_path / "a", "bounce", rows, step=1e-5))
    b = dempact.Simulation(write_case(tmp_path / "b", "bounce", rows, gravity=0.0, step=1e-5))
    assert a.dt == b.dt
    b.set_external_loads(np.array([[0.0, 0.0, -G]]) * b.masses[:, None])
    n = int(0.05 / a.dt)
    a.step(n)
    b.step(n)
    assert abs(a.positions[0, 2] - b.positions[0, 2]) <= 1e-12
    ra, _, _ = residual(a.write_snapshot(tmp_path / "a" / "out"))
    rb, kinetic, _ = residual(b.write_snapshot(tmp_path / "b" / "out"))
    print(f"residual with gravity {ra:.4g} J, with the load m g {rb:.4g} J "
          f"(load's work {b.external_work:.4g} J)")
    assert ra != 0.0
    assert abs(rb - ra) <= 1e-6 * abs(ra) + 1e-15


def test_loads_follow_particles_by_id(tmp_path):
    """Four spheres far apart with a different load each, by id; an outlet takes
    particle 1 at the first step and an inlet adds more: every particle keeps its own
    load (its force is its weight plus it) and the inlet's carry none until set."""
    rows = [(-0.6 + 0.4 * k, 0.0, 0.0, 0.0, 0.0, 0.0) for k in range(4)]
    extra = """outlets:
  - {name: trap, region: {min: [-0.25, -0.1, -0.1], max: [-0.15, 0.1, 0.1]}}
inlets:
  - {name: tap, material: soft, region: {min: [0.5, 0.5, 0.5], max: [0.7, 0.7, 0.7]},
     rate: 20000, radius: {min: 0.005, max: 0.005}, velocity: [0, 0, 0], seed: 3}
"""
    sim = dempact.Simulation(write_case(tmp_path, "few", rows, gravity=0.0, extra=extra))
    F = {int(i): np.array([1e-3 * (i + 1), -2e-3 * (i + 1), 0.5e-3]) for i in sim.ids}
    sim.set_external_loads(np.array([F[int(i)] for i in sim.ids]))
    for _ in range(20):
        sim.step()
    ids = sim.ids
    assert 1 not in ids and ids.max() >= 4, ids   # one removed, some inserted
    for i, f in zip(ids, sim.forces):
        assert np.array_equal(f, F[int(i)] if int(i) in F else np.zeros(3)), (i, f)
    # set again for the particles there are now
    loads = np.array([F.get(int(i), np.array([0.0, 0.0, 7e-4])) for i in ids])
    sim.set_external_loads(loads)
    sim.step()
    for i, f in zip(sim.ids, sim.forces):
        if int(i) in ids:
            assert np.allclose(f, F.get(int(i), [0.0, 0.0, 7e-4]), rtol=1e-15, atol=0), (i, f)


BAD = [
    (lambda n: np.zeros((n, 2)), None, "force: must be (1, 3) float64"),
    (lambda n: np.zeros((n + 1, 3)), None, "not (2, 3)"),
    (lambda n: np.zeros(3), None, "not 1-dimensional"),
    (lambda n: np.array([[0.0, np.nan, 0.0]]), None, "force: row 0 (particle 0): (0, nan, 0) is not finite"),
    (lambda n: np.array([[np.inf, 0.0, 0.0]]), None, "is not finite"),
    (lambda n: np.array([[0.0, 0.0, 1e9]]), None, "force: row 0 (particle 0): 1e+09 N would change its velocity"),
    (lambda n: np.zeros((n, 3)), lambda n: np.zeros((n, 4)), "torque: must be (1, 3) float64"),
    (lambda n: np.zeros((n, 3)), lambda n: np.array([[0.0, -np.inf, 0.0]]), "torque: row 0 (particle 0)"),
    (lambda n: np.zeros((n, 3)), lambda n: np.array([[100.0, 0.0, 0.0]]), "turning it"),
]


@pytest.mark.parametrize("force, torque, says", BAD)
def test_bad_arrays_refused(tmp_path, force, torque, says):
    """Each refusal names set_external_loads, the argument and the problem, and changes
    nothing: the loads set before stay (the forces and the motion are theirs)."""
    sim = dempact.Simulation(write_case(tmp_path, "one", [(0, 0, 0.5, 0, 0, 0)]))
    n = len(sim.ids)
    good = np.array([[1e-3, 0.0, 0.0]])
    sim.set_external_loads(good)
    before = sim.forces.copy()
    with pytest.raises(dempact.Error) as e:
        sim.set_external_loads(force(n), None if torque is None else torque(n))
    assert str(e.value).startswith("set_external_loads: "), e.value
    assert says in str(e.value), e.value
    assert np.array_equal(sim.forces, before)
    sim.step()
    assert np.allclose(sim.forces[0], sim.masses[0] * np.array([0, 0, -G]) + good[0], rtol=1e-15)


@pytest.mark.parametrize("value", ["abc", [["a", "b", "c"]], np.zeros((1, 3), dtype=complex),
                                   np.zeros((1, 3), dtype=bool), None, {"x": 1}])
def test_wrong_types_refused(tmp_path, value):
    """Something that is no array of real numbers: a dempact.Error that is a TypeError."""
    sim = dempact.Simulation(write_case(tmp_path, "one", [(0, 0, 0.5, 0, 0, 0)]))
    with pytest.raises(dempact.Error) as e:
        sim.set_external_loads(value)
    assert isinstance(e.value, TypeError) and "set_external_loads: force" in str(e.value), e.value
    with pytest.raises(TypeError):
        sim.set_external_loads(np.zeros((1, 3)), value if value is not None else "x")


# ---- random call sequences with hostile arrays (hypothesis)
from hypothesis import HealthCheck, event, given, settings, strategies as st  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

TINY = __import__("pathlib").Path(__file__).resolve().parent / "tiny.yaml"  # 1 sphere, dt 1 us
EXAMPLES = 40  # sequences per run

numbers = st.one_of(st.floats(-1e7, 1e7), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, 1e-3, -5e6, 3.2e6, 1e300]))
good = st.tuples(*[st.floats(-0.1, 0.1)] * 3).map(lambda row: np.array([row]))  # (1, 3)
arrays = st.one_of(
    good, good,
    st.lists(st.tuples(numbers, numbers, numbers), max_size=3).map(
        lambda rows: np.array(rows, dtype=np.float64).reshape(-1, 3)),
    st.sampled_from(["x", None, np.zeros(3), np.zeros((1, 4)), [[1, 2, 3]],
                     np.zeros((1, 3), dtype=np.float32), np.zeros((1, 3), dtype=complex),
                     np.full((1, 3), np.nan), np.zeros((3, 1))]))
calls = st.one_of(st.tuples(st.just("set"), arrays, st.one_of(st.none(), arrays)),
                  st.tuples(st.just("clear")), st.tuples(st.just("step"), st.integers(0, 60)),
                  st.tuples(st.just("snapshot")))


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(calls, min_size=1, max_size=6))
def test_hostile_load_sequences(program, sequence):
    """Every call sets what it says (the forces become the weight plus the load) or raises
    dempact.Error and changes nothing; a step with a load too strong for the domain is
    stopped by the watchdog; every output written restarts with `dempact run --restart`
    (exit 0, or 4 where the watchdog had stopped the run: it stops it again)."""
    sim = dempact.Simulation(TINY)
    weight = sim.masses[0] * np.array([0.0, 0.0, -G])
    load = np.zeros(3)
    stopped = wrote = False
    with tempfile.TemporaryDirectory() as tmp:
        out = __import__("pathlib").Path(tmp) / "out"
        for op in sequence:
            before = sim.forces.copy()
            try:
                if op[0] == "set":
                    sim.set_external_loads(op[1], op[2])
                    event("set accepted")
                    load = np.asarray(op[1], dtype=np.float64)[0]
                elif op[0] == "clear":
                    sim.clear_external_loads()
                    load = np.zeros(3)
                elif op[0] == "step":
                    sim.step(op[1])
                elif op[0] == "snapshot":
                    sim.write_snapshot(out)
                    wrote = True
            except dempact.Error as e:
                event(f"{op[0]} refused")
                if op[0] == "set":
                    assert str(e).startswith("set_external_loads: "), e
                    assert np.array_equal(sim.forces, before, equal_nan=True)
                elif "watchdog" in str(e) or "stopped" in str(e):
                    stopped = True
                elif op[0] == "snapshot":  # the same step again, after a change
                    assert "take a step before writing again" in str(e), e
                else:
                    raise
            if not stopped and op[0] in ("set", "clear"):
                scale = 1e-12 * (np.abs(weight).sum() + np.abs(before).sum() + np.abs(load).sum())
                assert np.all(np.abs(sim.forces[0] - (weight + load)) <= scale), (sim.forces, load)
        sim.close()
        if wrote:
            path = out / "tiny.h5"
            last = dempact.read(path)
            done = subprocess.run([str(program), "run", str(TINY), "--restart", str(path),
                                   "--end-time", repr((last["step"] + 5) * 1e-6), "--output",
                                   str(out.parent / "restarted"), "--quiet"],
                                  capture_output=True, text=True, timeout=60)
            event("an output restarted")
            assert done.returncode in ((0, 4) if stopped else (0,)), done.stderr
