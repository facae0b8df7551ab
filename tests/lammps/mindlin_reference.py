"""A third, independent integration of the oblique Mindlin collision of
compare_collide.py, with each of the three places where dempact and LAMMPS differ as a
switch, so that a difference between the two codes can be taken apart:

  reset    what the tangential spring holds after a sliding step:
           "dempact": the spring relaxes towards the Coulomb force through its dashpot,
                      xi = (F + (eta_t / dt) xi_in) / (k_t + eta_t / dt), xi_in the
                      spring before the step's increment          (models/tangential_spring.h)
           "lammps":  the Coulomb force minus the dashpot's share,
                      xi = (F - eta_t v_t) / k_t                   (pair_granular.cpp)
  arm      the lever arm of the spin in the contact point's velocity:
           "dempact": R - d/2 (the contact point; the torque uses it in both codes)
           "lammps":  R
  velocity the velocities the forces see:
           "dempact": the prediction v(n+1/2) + dt/2 a(n) for the dashpots, and for
                      the spring the mid-step displacement, v(n+1/2) dt with the arm
                      at mid-step (R - d/2 + dt d'/4), over the part of the step the
                      contact has existed at first touch             (engine/step/sim.c)
           "lammps":  the half-step velocity v(n+1/2) for both, the spring growing
                      by v_t dt from the first touch on              (fix nve/sphere)

and one that LAMMPS does not have, `closing_impulse`: at the step where a sticking
contact starts to slide, the tangential force has a kink (its slope changes from the
spring's to the Coulomb cap's), and velocity Verlet's trapezoid over the step misses part
of the impulse. With the trial force T and the cap C linear over the step, the kink falls
at theta = margin / (margin + excess) of it (margin = C - T at the step before, excess =
T - C now), and the missing impulse is (dt/2) theta excess along the force. Two ways to
deliver it: True adds it to the velocities and spins at the end of that step only (the
next step starts from the capped force); "force" adds theta excess / 2 to the force
stored at that step, which its two half-kicks deliver, half now and half at the next
step's start (dempact's engine: closing_bump, models/tangential_spring.h). It is what
makes the rebound spin converge at second order through a stick-to-slip transition
(tests/lammps/test_stick_slip_kink.py).

The law is the mapped one: Hertz + Tsuji-form damping, F_n = K d^(3/2) + alpha sqrt(m* K)
d^(1/4) d', clamped at 0 (limit_damping / cohesion removal), and the Mindlin spring k_t =
8 G* sqrt(R* d) with the dashpot eta_t = 2 sqrt(5/6) beta sqrt(k_t m*), Coulomb cap mu F_n.
The collision is planar (x: line of centres at impact, y: tangential, spins about z) and
is measured as engine/collide/collision.c measures. Pure Python: about a second per collision.
"""
import math


def collide(R, rho, E_eff, G_eff, v0, vt, spins, alpha, beta, mu, dt,
            reset="dempact", arm="dempact", velocity="dempact",
            closing_impulse=False):
    m = rho * 4.0 / 3.0 * math.pi * R ** 3
    inv_i = 1.0 / (0.4 * m * R * R)
    m_eff, r_eff = m / 2.0, R / 2.0
    K = 4.0 / 3.0 * E_eff * math.sqrt(r_eff)
    damp_n = alpha * math.sqrt(m_eff * K)
    gap = 0.01 * R
    y0 = 0.5 * vt * gap / v0
    x = [[-R - gap / 2, -y0], [R + gap / 2, y0]]
    v = [[v0 / 2, vt / 2], [-v0 / 2, -vt / 2]]
    w = [spins[0], spins[1]]
    f = [[0.0, 0.0], [0.0, 0.0]]
    tq = [0.0, 0.0]
    xi = [0.0, 0.0]
    touching = False
    h = 0.5 * dt

    kink = {"margin": 0.0}  # C - T at the last contact step (> 0: it stuck)

    def forces(vel, om, vel_s, om_s):
        nonlocal xi, touching
        dx, dy = x[1][0] - x[0][0], x[1][1] - x[0][1]
        dist = math.hypot(dx, dy)
        d = 2.0 * R - dist
        if d <= 0.0:
            xi = [0.0, 0.0]
            touching = False
            kink.update(margin=0.0, impulse=0.0)
            return [[0.0, 0.0], [0.0, 0.0]], [0.0, 0.0], d, 0.0, 0.0
        first = not touching
        touching = True
        nx, ny = dx / dist, dy / dist
        rate = -((vel[1][0] - vel[0][0]) * nx + (vel[1][1] - vel[0][1]) * ny)
        fn = K * d ** 1.5 + damp_n * d ** 0.25 * rate
        fn = max(fn, 0.0)
        a_v = R - 0.5 * d if arm == "dempact" else R
        # contact point velocities: v + w z x (a n) = v + a w (-ny, nx); j's arm is -n
        c0 = (vel[0][0] - a_v * om[0] * ny, vel[0][1] + a_v * om[0] * nx)
        c1 = (vel[1][0] + a_v * om[1] * ny, vel[1][1] - a_v * om[1] * nx)
        vr = (c1[0] - c0[0], c1[1] - c0[1])
        vn = vr[0] * nx + vr[1] * ny
        vtx, vty = vr[0] - vn * nx, vr[1] - vn * ny
        # turn the spring into the tangent plane, keeping its length
        l2 = xi[0] ** 2 + xi[1] ** 2
        if l2 > 0.0:
            s = xi[0] * nx + xi[1] * ny
            px, py = xi[0] - s * nx, xi[1] - s * ny
            p2 = px * px + py * py
            sc = math.sqrt(l2 / p2) if p2 > 0 else 0.0
            xi = [px * sc, py * sc]
        # the spring's increment: the contact points' relative displacement in the step
        a_s = R - 0.5 * d + 0.25 * dt * rate if arm == "dempact" else R
        s0 = (vel_s[0][0] - a_s * om_s[0] * ny, vel_s[0][1] + a_s * om_s[0] * nx)
        s1 = (vel_s[1][0] + a_s * om_s[1] * ny, vel_s[1][1] - a_s * om_s[1] * nx)
        sr = ((s1[0] - s0[0]) * dt, (s1[1] - s0[1]) * dt)
        sn = sr[0] * nx + sr[1] * ny
        part = 1.0
        if velocity == "dempact" and first and -sn > d:
            part = d / -sn    # the part of the step since first touch
        xi_in = list(xi)
        xi = [xi[0] + (sr[0] - sn * nx) * part, xi[1] + (sr[1] - sn * ny) * part]
        kt = 8.0 * G_eff * math.sqrt(r_eff * d)
        eta = 2.0 * math.sqrt(5.0 / 6.0) * beta * math.sqrt(kt * m_eff)
        ftx, fty = kt * xi[0] + eta * vtx, kt * xi[1] + eta * vty
        ft = math.hypot(ftx, fty)
        cap = mu * fn
        margin = kink["margin"]
        kink["impulse"] = (0.5 * dt * (ft - cap) * margin / (margin + ft - cap)
                           if margin > 0.0 and ft > cap else 0.0)
        kink["dir"] = (ftx / ft, fty / ft) if ft > 0.0 else (0.0, 0.0)
        kink["margin"] = cap - ft
        bump = kink["impulse"] / dt if closing_impulse == "force" else 0.0
        if ft > cap:
            sc = cap / ft
            ftx, fty = ftx * sc, fty * sc
            if reset == "dempact":
                r = eta / dt
                xi = ([(ftx + r * xi_in[0]) / (kt + r), (fty + r * xi_in[1]) / (kt + r)]
                      if kt + r > 0 else [0.0, 0.0])
            else:
                xi = [(ftx - eta * vtx) / kt, (fty - eta * vty) / kt] if kt > 0 else [0.0, 0.0]
        ftx += bump * kink["dir"][0]    # the integrator's, not the spring's
        fty += bump * kink["dir"][1]
        f0 = (-fn * nx + ftx, -fn * ny + fty)
        a_t = R - 0.5 * d
        t = a_t * (nx * fty - ny * ftx)      # z of (R - d/2) n x F_t, on both spheres
        return [[f0[0], f0[1]], [-f0[0], -f0[1]]], [t, t], d, abs(fn), math.hypot(ftx, fty)

    _, _, d_prev, _, _ = forces(v, w, v, w)
    xi = [0.0, 0.0]
    touching = False
    t_prev, t_start, t_end = 0.0, None, None
    res = {"fn": 0.0, "ft": 0.0, "Jn": 0.0, "Jt": 0.0}   # Jn, Jt: impulses |F_n| dt, |F_t| dt
    separated = 0
    t_c_guess = 3.0e-4
    n_max = int((gap / v0 + 50 * t_c_guess) / dt)
    for step in range(1, n_max):
        for i in range(2):
            for a in range(2):
                v[i][a] += h * f[i][a] / m
            w[i] += h * tq[i] * inv_i
            for a in range(2):
                x[i][a] += dt * v[i][a]
        if velocity == "dempact":
            vel = [[v[i][a] + h * f[i][a] / m for a in range(2)] for i in range(2)]
            om = [w[i] + h * tq[i] * inv_i for i in range(2)]
        else:
            vel = [list(v[0]), list(v[1])]
            om = list(w)
        # the spring's velocities: v(n+1/2), the ones that moved the centres
        f_new, tq_new, d, fn, ft = forces(vel, om, [list(v[0]), list(v[1])], list(w))
        if velocity == "dempact":
            for i in range(2):
                for a in range(2):
                    v[i][a] = vel[i][a] + h * (f_new[i][a] - f[i][a]) / m
                w[i] = om[i] + h * (tq_new[i] - tq[i]) * inv_i
        else:
            for i in range(2):
                for a in range(2):
                    v[i][a] += h * f_new[i][a] / m
                w[i] += h * tq_new[i] * inv_i
        if closing_impulse is True and kink.get("impulse", 0.0) > 0.0:
            jx, jy = kink["impulse"] * kink["dir"][0], kink["impulse"] * kink["dir"][1]
            dx, dy = x[1][0] - x[0][0], x[1][1] - x[0][1]
            dist = math.hypot(dx, dy)
            nx, ny = dx / dist, dy / dist
            v[0][0] += jx / m
            v[0][1] += jy / m
            v[1][0] -= jx / m
            v[1][1] -= jy / m
            dw = (R - 0.5 * d) * (nx * jy - ny * jx) * inv_i  # as the torque: on both
            w[0] += dw
            w[1] += dw
        f, tq = f_new, tq_new
        t = step * dt
        if d > 0.0:
            if t_start is None:
                t_start = t_prev + (t - t_prev) * (-d_prev) / (d - d_prev)
            res["fn"] = max(res["fn"], fn)
            res["ft"] = max(res["ft"], ft)
            res["Jn"] += fn * dt
            res["Jt"] += ft * dt
        elif t_start is not None:
            if separated == 0:
                t_end = t_prev + (t - t_prev) * (-d_prev) / (d - d_prev)
            separated += 1
            if separated == 3:
                res.update({"e": (v[1][0] - v[0][0]) / v0, "tc": t_end - t_start,
                            "vy1": v[0][1], "vy2": v[1][1], "wz1": w[0], "wz2": w[1]})
                return res
        t_prev, d_prev = t, d
    raise RuntimeError("reference collision did not end")
