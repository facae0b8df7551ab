"""dempact.collide() with an adhesion law (adhesion, adhesion_params), checked by the same
code as `dempact collide --adhesion ... --adhesion-param ...`
(engine/collide/collision_request.c, and the law's own setup).

- The dict is the program's JSON for the same impact, number for number, with the law,
  its keys and `stuck`; below the sticking velocity (about 4 mm/s for these spheres,
  tests/e2e/collide_sticking.py) the spheres stick: restitution_out 0, stuck True.
- Without adhesion the dict has no `stuck`.
- Bad names and keys raise dempact.Error with the program's message, each argument named
  as the function names it.
"""
import json
import subprocess

import pytest

import dempact

SPHERES = dict(radius=1e-3, density=2500.0, young=1e8)
JKR = dict(adhesion="jkr", adhesion_params={"work": 0.1})
OPTIONS = ["--radius", "1e-3", "--density", "2500", "--young", "1e8"]


@pytest.mark.parametrize("velocity, stuck", [(0.003, True), (0.006, False)])
def test_the_programs_json(program, velocity, stuck):
    r = dempact.collide("hertz", velocity=velocity, **SPHERES, **JKR)
    out = subprocess.run([str(program), "collide", "--law", "hertz", *OPTIONS, "--velocity",
                          repr(velocity), "--adhesion", "jkr", "--adhesion-param", "work=0.1"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == r
    assert r["stuck"] is stuck and r["adhesion"] == "jkr" and r["adhesion_params"] == {"work": 0.1}
    assert (r["restitution_out"] == 0.0) is stuck


def test_no_stuck_without_adhesion():
    assert "stuck" not in dempact.collide("hertz", velocity=0.01, **SPHERES)


@pytest.mark.parametrize("kw, option_args, says", [
    (dict(adhesion="glue"), ["--adhesion", "glue"],
     "unknown adhesion law 'glue'; the adhesion laws are: jkr, dmt, sjkr, sjkr2"),
    (dict(adhesion_params={"work": 1}), ["--adhesion-param", "work=1"], "needs"),
    (dict(adhesion="jkr"), ["--adhesion", "jkr"], "needs"),
    (dict(adhesion="jkr", adhesion_params={"wrk": 1}),
     ["--adhesion", "jkr", "--adhesion-param", "wrk=1"], "model jkr takes no key 'wrk'"),
    (dict(adhesion="dmt", adhesion_params={"work": 0}),
     ["--adhesion", "dmt", "--adhesion-param", "work=0"], "work = 0: must be in (0, 1000]"),
    (dict(adhesion="jkr", adhesion_params={"work": 1}, law="linear"),
     ["--adhesion", "jkr", "--adhesion-param", "work=1", "--law", "linear"],
     "law linear's elastic part is linear"),
])
def test_refused_as_the_program_refuses(program, kw, option_args, says):
    kw = dict(kw)
    law = kw.pop("law", "hertz")
    with pytest.raises(dempact.Error) as caught:
        dempact.collide(law, **kw)
    out = subprocess.run([str(program), "collide", "--law", "hertz", *option_args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    said = out.stderr.strip().removeprefix("dempact collide: ").replace("laws --adhesion", "\0")
    for option, argument in [("--adhesion-param", "adhesion_params"),
                             ("--adhesion", "adhesion")]:
        said = said.replace(option, argument)
    assert str(caught.value) == said.replace("\0", "laws --adhesion")
    assert says in said


def test_model_types():
    with pytest.raises(TypeError):
        dempact.collide("hertz", adhesion=1)
    with pytest.raises(dempact.Error, match="adhesion_params: work"):
        dempact.collide("hertz", adhesion="jkr", adhesion_params={"work": "x"})
