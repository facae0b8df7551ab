"""dempact.laws() and friction_laws() against `dempact laws` (--friction), dempact.collide
against `dempact collide`."""
import json
import re
import subprocess

import pytest

import dempact


def parse_program_laws(text):
    """{law: {param: (default text, unit or None, range or choices)}} from the listing."""
    laws, law = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            law = laws.setdefault(line.strip(), {})
            continue
        m = re.match(r"  (\S+)\s+default (\S+) \[(.*)\]; range \[(\S+), (\S+)\]$", line)
        if m:
            law[m[1]] = (m[2], m[3], (m[4], m[5]))
            continue
        m = re.match(r"  (\S+)\s+default (\S+); one of (.*)$", line)
        if m:
            law[m[1]] = (m[2], None, tuple(m[3].split()))
    return laws


def g(x):
    return "%g" % x


def test_laws_agree_with_the_program(program):
    text = subprocess.run([str(program), "laws"], check=True, capture_output=True,
                          text=True).stdout
    listed = parse_program_laws(text)
    mine = dempact.laws()
    assert [law["name"] for law in mine] == list(listed)
    for law in mine:
        params = listed[law["name"]]
        assert [p["name"] for p in law["parameters"]] == list(params)
        for p in law["parameters"]:
            default, unit, rng = params[p["name"]]
            assert default == ("required" if p["default"] is None else
                               p["default"] if p["choices"] else g(p["default"]))
            if p["choices"]:
                assert tuple(p["choices"]) == rng
            else:
                assert unit == p["unit"]
                assert rng == (g(p["min"]), g(p["max"]))
        calibrate = re.search(r"^%s\n(?:.*\n)*?  calibrate: (.*)$" % re.escape(law["name"]),
                              text, re.M)[1]
        if law["calibrates"]:
            assert calibrate == f"true solves {law['calibrates']} for the restitution"
        else:
            assert calibrate.startswith("not available")
        parts = re.search(r"^%s\n(?:.*\n)*?  parts: (.*)$" % re.escape(law["name"]), text,
                          re.M)[1]
        if law["elastic"]:
            assert parts.startswith(f"elastic {law['elastic']} + damping {law['damping']} ")
        else:
            assert parts.startswith("none") and law["damping"] is None


def test_friction_laws_agree_with_the_program(program):
    text = subprocess.run([str(program), "laws", "--friction"], check=True,
                          capture_output=True, text=True).stdout
    listed, keys = [], None
    for line in text.splitlines():
        m = re.match(r"^(friction|rolling)\.model (\w+)( \(the default\))?$", line)
        if m:
            keys = {}
            listed.append((m[1], m[2], bool(m[3]), keys))
            continue
        m = re.match(r"  (\S+)\s+default (\S+) \[(.*)\]; range \[(\S+), (\S+)\]$", line)
        if m and keys is not None:
            keys[m[1]] = (m[2], m[3], (m[4], m[5]))
    mine = dempact.friction_laws()
    assert [(law["kind"], law["name"], law["default"]) for law in mine] == \
        [(kind, name, default) for kind, name, default, _ in listed]
    assert {"mindlin", "viscous"} <= {law["name"] for law in mine if law["kind"] == "friction"}
    for law, (_, _, _, keys) in zip(mine, listed):
        assert [p["name"] for p in law["keys"]] == list(keys)
        for p in law["keys"]:
            default, unit, rng = keys[p["name"]]
            assert default == ("required" if p["default"] is None else g(p["default"]))
            assert unit == p["unit"] and rng == (g(p["min"]), g(p["max"]))


@pytest.mark.parametrize("law,options,kw", [
    ("hertz_tti", ["--restitution", "0.7"], {"restitution": 0.7}),
    ("linear", ["--restitution", "0.5", "--velocity", "2", "--friction", "0.3", "--angle", "30"],
     {"restitution": 0.5, "velocity": 2.0, "friction": 0.3, "angle": 30}),
])
def test_collide_agrees_with_the_program(program, law, options, kw):
    out = subprocess.run([str(program), "collide", "--law", law, *options], check=True,
                         capture_output=True, text=True).stdout
    expected = json.loads(out)
    got = dempact.collide(law=law, **kw)
    assert set(got) == set(expected)
    for key, value in expected.items():
        if isinstance(value, (int, float)):
            assert got[key] == pytest.approx(value, rel=1e-15, abs=1e-300), key
        else:
            assert got[key] == value, key


def test_collide_conserves_momentum_and_restitutes():
    r = dempact.collide(law="hertz_tti", restitution=0.6, velocity=0.5)
    (v0, v1) = r["velocity_out"]
    assert v0[0] + v1[0] == pytest.approx(0.0, abs=1e-15)
    assert (v1[0] - v0[0]) / 0.5 == pytest.approx(0.6, rel=1e-4)
