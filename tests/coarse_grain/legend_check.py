#!/usr/bin/env python3
"""tools/render_snapshot.py draws a colour legend wherever it colours: the particles' bar
in the lower right corner, the contacts' in the lower left.

    .venv/bin/python tests/coarse_grain/legend_check.py

Runs tests/coarse_grain/settled_bed.yaml for 60 ms (the first beads on the floor: contacts
to colour), renders its last snapshot with pvpython (coloured by velocity, and by
kinetic_energy), and requires each corner strip, which the tall domain's picture leaves
empty, to hold a colour bar: at least 32 distinct colours (a gradient: Viridis on the
right, Inferno on the left; the white background alone is one colour). The same strips
of the velocity picture rendered without legends (the legend function replaced by one
that draws nothing) hold fewer, so the check can fail. Three renders, about 40 s."""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PVPYTHON = "/usr/bin/pvpython"

RENDER = r"""
import sys
sys.path.insert(0, {tools!r})
sys.argv = ["render_snapshot.py"] + {args!r}
import render_snapshot
if {bare!r}:
    render_snapshot.legend = lambda *a, **k: None
render_snapshot.main(sys.argv[1:])
"""


def colours(png, x0, x1, y0, y1):
    import matplotlib.image
    rgb = (np.asarray(matplotlib.image.imread(png))[..., :3] * 255).round().astype(np.uint8)
    h, w = rgb.shape[:2]
    strip = rgb[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]
    return len(np.unique(strip.reshape(-1, 3), axis=0))


def render(work, xmf, color, png, bare):
    script = os.path.join(work, f"render_{color}_{int(bare)}.py")
    with open(script, "w") as f:
        f.write(RENDER.format(tools=os.path.join(ROOT, "tools"), bare=bare,
                              args=[xmf, "--time", "last", "--out", png, "--color", color, "--size", "800x600"]))
    done = subprocess.run([PVPYTHON, script], capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or not os.path.isfile(png):
        sys.exit(f"FAIL: pvpython {script}: {done.stderr.strip()[-2000:]}")


def main():
    import dempact
    failures = 0
    with tempfile.TemporaryDirectory(prefix="legend_") as work:
        text = open(os.path.join(HERE, "settled_bed.yaml")).read().replace("end: 0.35", "end: 0.06")
        case = os.path.join(work, "settled_bed.yaml")
        with open(case, "w") as f:
            f.write(text)
        dempact.Simulation(case).run(output=work)
        xmf = os.path.join(work, "settled_bed.xmf")
        for color in ("velocity", "kinetic_energy"):
            counts = {}
            for bare in (False, True) if color == "velocity" else (False,):
                png = os.path.join(work, f"{color}_{int(bare)}.png")
                render(work, xmf, color, png, bare)
                counts[bare] = (colours(png, 0.86, 1.0, 0.5, 1.0), colours(png, 0.0, 0.14, 0.5, 1.0))
            ok = min(counts[False]) >= 32 and (True not in counts or max(counts[True]) < 32)
            print(f"{'ok  ' if ok else 'FAIL'} --color {color}: colours in the right and left corner strips "
                  f"{counts[False]} with legends" + (f", {counts[True]} without" if True in counts else ""))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
