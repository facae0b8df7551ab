"""dempact.collide() with the tangential and rolling laws by name (friction_model,
friction_params, rolling, rolling_model, rolling_params), checked by the same code as
`dempact collide --friction-model ...` (engine/collide/collision_request.c).

- The viscous tangential law against its closed form: two identical spheres (I = 2/5 m
  R^2, m* = m/2) under F_t = gamma_t m* v_t (mu large enough never to cap it) leave with
  the contact points' tangential relative speed v_t exp(-3.5 gamma_t t_c); a property
  test over gamma_t and the tangential speed (8 generated impacts per run).
- The dict is the program's JSON for the same impact, number for number.
- Mindlin by name is the default, bit for bit.
- Bad names and keys raise dempact.Error with the program's message, each argument named
  as the function names it.
"""
import json
import math
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

import dempact

R = 0.01
SLOW = dict(velocity=0.01, friction=1000.0)


def tangential_ratio(r):
    v, w = r["velocity_out"], r["spin_out"]
    return ((v[1][1] - w[1][2] * R) - (v[0][1] + w[0][2] * R)) / -r["tangential_velocity"]


@settings(max_examples=8, deadline=None)
@given(gamma=st.floats(300.0, 8000.0), vt=st.floats(0.001, 0.01))
def test_viscous_closed_form(gamma, vt):
    r = dempact.collide("hertz", tangential_velocity=vt, friction_model="viscous",
                        friction_params={"damping": gamma}, **SLOW)
    assert r["friction_model"] == "viscous"
    exponent = 3.5 * gamma * r["contact_time"]
    got = -math.log(tangential_ratio(r))
    assert abs(got / exponent - 1) < 0.005, (got, exponent)


def test_same_as_program(program):
    r = dempact.collide("hertz", tangential_velocity=0.005, friction_model="viscous",
                        friction_params={"damping": 2000}, rolling_model="spring", rolling=0.1,
                        rolling_params={"damping": 0.5}, spin1=(0, 0, 1), **SLOW)
    out = subprocess.run([str(program), "collide", "--law", "hertz", "--velocity", "0.01",
                          "--friction", "1000", "--tangential-velocity", "0.005",
                          "--friction-model", "viscous", "--friction-param", "damping=2000",
                          "--rolling-model", "spring", "--rolling", "0.1", "--rolling-param",
                          "damping=0.5", "--spin1", "0,0,1"],
                         capture_output=True, text=True, check=True, timeout=120)
    assert r == json.loads(out.stdout)
    # Mindlin's rebound is not the viscous law's
    m = dempact.collide("hertz", tangential_velocity=0.005, **SLOW)
    assert abs(tangential_ratio(m) - math.exp(-3.5 * 2000 * m["contact_time"])) > 0.2


def test_mindlin_by_name_is_the_default():
    kw = dict(velocity=1.0, angle=30.0, friction=0.3, tangential_restitution=0.5)
    plain = dempact.collide("hertz_tti", restitution=0.6, **kw)
    named = dempact.collide("hertz_tti", restitution=0.6, friction_model="mindlin", **kw)
    assert named.pop("friction_model") == "mindlin"
    assert named == plain


@pytest.mark.parametrize("kw, option_args, says", [
    (dict(friction=0.3, friction_model="viscus"), ["--friction", "0.3", "--friction-model", "viscus"],
     "unknown tangential law 'viscus'; the tangential laws are: mindlin, linear, "
     "mindlin_deresiewicz, viscous"),
    (dict(friction=0.3, friction_model="viscous", friction_params={"dampin": 3}),
     ["--friction", "0.3", "--friction-model", "viscous", "--friction-param", "dampin=3"],
     "model viscous takes no key 'dampin'; its keys are: damping"),
    (dict(friction=0.3, friction_model="linear"), ["--friction", "0.3", "--friction-model", "linear"],
     "needs"),
    (dict(rolling_model="rolling", rolling=0.1), ["--rolling-model", "rolling", "--rolling", "0.1"],
     "unknown rolling law 'rolling'; the rolling laws are: constant, spring, viscous, liggghts_cdt"),
    (dict(rolling=0.1), ["--rolling", "0.1"], "needs"),
    (dict(friction_model="viscous", friction_params={"damping": 1}),
     ["--friction-model", "viscous", "--friction-param", "damping=1"], "needs"),
])
def test_refused_as_the_program_refuses(program, kw, option_args, says):
    with pytest.raises(dempact.Error) as caught:
        dempact.collide("hertz", **kw)
    out = subprocess.run([str(program), "collide", "--law", "hertz", *option_args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    said = out.stderr.strip().removeprefix("dempact collide: ").replace("laws --friction", "\0")
    for option, argument in [("--friction-model", "friction_model"),
                             ("--friction-param", "friction_params"),
                             ("--rolling-model", "rolling_model"),
                             ("--rolling-param", "rolling_params"), ("--rolling", "rolling"),
                             ("--friction", "friction")]:
        said = said.replace(option, argument)
    assert str(caught.value) == said.replace("\0", "laws --friction")
    assert says in said


def test_model_types():
    with pytest.raises(TypeError):
        dempact.collide("hertz", friction=0.3, friction_model=1)
    with pytest.raises(dempact.Error, match="friction_params: damping"):
        dempact.collide("hertz", friction=0.3, friction_model="viscous",
                        friction_params={"damping": "x"})


@pytest.mark.parametrize("kw", [
    dict(rolling_model="constant", rolling=math.nan),
    dict(rolling_model="constant", rolling=math.inf),
    dict(rolling_model="constant", rolling=-0.1),
    dict(rolling_model="spring", rolling=0.1, rolling_params={"damping": -1}),
    dict(rolling_model="spring", rolling=0.1, rolling_params={"damping": math.nan}),
    dict(friction_model="viscous", friction_params={"damping": math.nan}),
    dict(friction_model="viscous", friction_params={"damping": math.inf}),
    dict(friction_model="viscous", friction_params={"damping": 1e300}),
    dict(friction_model="linear", friction_params={"stiffness": 0.0, "static": math.nan}),
    dict(friction_model="", friction_params={}),
    dict(friction_params={"": 1.0}),
    dict(friction_params=[("damping", 1.0)]),
])
def test_hostile_values_refused(kw):
    """Every value a law's key or coefficient cannot take raises dempact.Error."""
    with pytest.raises(dempact.Error):
        dempact.collide("hertz", friction=0.3, **kw)
