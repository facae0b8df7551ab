#!/usr/bin/pvpython
"""Render a dempact run in ParaView: the particles as spheres of their true size, the
contact network as lines, the walls as a transparent surface, saved as a PNG.

    pvpython tools/render_snapshot.py output/pour.xmf --time last --out pour.png

RUN.xmf is the particles' .xmf of a run; RUN_contacts.xmf and RUN_walls.xmf beside it
are added when they are there. --time is `first`, `last` or a time in s (the nearest
snapshot); give --time and --out several times to save several pictures of one session.
--play first plays the run as a user does (every step forward, back to the first, to the
last, to the first again), rendering each frame. --color names the particles' point
array to colour by (default velocity, its magnitude). Without a display it starts a
virtual one (Xvfb, Debian package xvfb) for itself: ParaView's Debian build draws
through X.

The recipe is the documented one (docs/output.md, "ParaView"): Glyph of type Sphere,
scaled by `radius` with factor 2 (the sphere source has diameter 1), on every point;
contacts coloured by normal_force; walls at opacity 0.3. Each colouring gets its legend (a
colour bar with the array's name and unit, docs/output.md's units): the particles' on
the right, the contacts' on the left."""
import argparse
import atexit
import os
import shutil
import subprocess
import sys


def parse(argv):
    p = argparse.ArgumentParser(description="Render a dempact run with ParaView.")
    p.add_argument("xmf", help="the run's particles .xmf (DIR/NAME.xmf)")
    p.add_argument("--time", action="append", default=None,
                   help="first, last or a time in s (repeat for several pictures)")
    p.add_argument("--out", action="append", default=None, help="PNG to write (one per --time)")
    p.add_argument("--size", default="1200x900", help="picture size in pixels, WxH")
    p.add_argument("--color", default="velocity", help="particle array to colour by")
    p.add_argument("--play", action="store_true", help="play the run forward and back first")
    a = p.parse_args(argv)
    a.time = a.time or ["last"]
    a.out = a.out or [os.path.splitext(os.path.basename(a.xmf))[0] + ".png"]
    if len(a.time) != len(a.out):
        p.error("give one --out per --time")
    return a


def display_works(name):
    """XOpenDisplay succeeds on display `name` (what ParaView's render window needs)."""
    import ctypes
    import ctypes.util
    path = ctypes.util.find_library("X11")
    if not path:
        return True  # cannot tell: let ParaView try
    x11 = ctypes.cdll.LoadLibrary(path)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    d = x11.XOpenDisplay(name.encode())
    if not d:
        return False
    x11.XCloseDisplay(d)
    return True


def ensure_display():
    """ParaView's Debian build renders through X: without a display, start a virtual one
    (Xvfb), on a random display number well above those xvfb-run and desktops use, so
    that renders started at the same moment do not race for one; a number whose lock
    file exists, or a server that does not answer, is given up for another."""
    if os.environ.get("DISPLAY"):
        return
    xvfb = shutil.which("Xvfb")
    if not xvfb:
        sys.exit("render_snapshot.py: no display (DISPLAY is not set) and no Xvfb: install the Debian "
                 "package xvfb, or run it on a desktop")
    import random
    pick = random.Random(os.getpid() ^ int.from_bytes(os.urandom(4), "little"))
    for _ in range(20):
        display = pick.randrange(1000, 30000)
        if os.path.exists(f"/tmp/.X{display}-lock"):
            continue
        read, write = os.pipe()
        # -noreset: an X server resets when its last client disconnects, and ParaView's
        # first window (a probe of the OpenGL version) is closed before the next opens:
        # without it the next connection fails now and then ("bad X server connection")
        server = subprocess.Popen([xvfb, f":{display}", "-noreset", "-displayfd", str(write), "-screen", "0",
                                   "1600x1200x24", "-nolisten", "tcp"], pass_fds=(write,),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if number and server.poll() is None and display_works(":" + number):
            os.environ["DISPLAY"] = ":" + number
            atexit.register(server.terminate)
            return
        server.kill()
        server.wait()
    sys.exit("render_snapshot.py: could not start a virtual display (Xvfb)")


# The unit of each array the .xmf files offer (docs/output.md); a vector is coloured by
# its magnitude.
UNITS = {"id": "", "type": "", "radius": "m", "mass": "kg", "velocity": "m/s", "angular_velocity": "rad/s",
         "force": "N", "torque": "N m", "n_contacts": "", "kinetic_energy": "J", "rotational_energy": "J",
         "normal_force": "N", "overlap": "m", "wall": "", "normal": "", "normal_force_vector": "N",
         "tangential_force": "N"}
VECTORS = {"velocity", "angular_velocity", "force", "torque", "normal", "normal_force_vector", "tangential_force"}


def legend_title(name):
    """The colour bar's title: the array's name (a vector's: "NAME magnitude") and its unit."""
    title = f"{name} magnitude" if name in VECTORS else name
    unit = UNITS.get(name, "")
    return f"{title} ({unit})" if unit else title


def legend(pv, view, lut, name, where):
    """A colour bar for lut, titled with the array's name and unit, black on the white view."""
    bar = pv.GetScalarBar(lut, view)
    bar.Title = legend_title(name)
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.TitleFontSize = bar.LabelFontSize = 16
    bar.WindowLocation = where
    bar.ScalarBarLength = 0.4
    bar.Visibility = 1
    return bar


def main(argv):
    a = parse(argv)
    ensure_display()
    from paraview import simple as pv

    xmf = os.path.abspath(a.xmf)  # ParaView's XDMF 3 reader needs the folder in the path
    stem = xmf[:-len(".xmf")] if xmf.endswith(".xmf") else xmf
    if not os.path.isfile(xmf):
        sys.exit(f"render_snapshot.py: {a.xmf}: no such file")
    particles = pv.Xdmf3ReaderT(FileName=[xmf])
    contacts = walls = c = None
    if os.path.isfile(stem + "_contacts.xmf"):
        contacts = pv.Xdmf3ReaderT(FileName=[stem + "_contacts.xmf"])
    if os.path.isfile(stem + "_walls.xmf"):
        walls = pv.Xdmf3ReaderT(FileName=[stem + "_walls.xmf"])
    particles.UpdatePipelineInformation()
    times = list(particles.TimestepValues) or [0.0]
    if isinstance(particles.TimestepValues, float):
        times = [particles.TimestepValues]

    width, height = (int(x) for x in a.size.split("x"))
    view = pv.CreateView("RenderView")
    view.ViewSize = [width, height]
    view.OrientationAxesVisibility = 0
    view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]

    glyph = pv.Glyph(Input=particles, GlyphType="Sphere")
    glyph.ScaleArray = ["POINTS", "radius"]
    glyph.ScaleFactor = 2.0
    glyph.GlyphMode = "All Points"
    glyph.OrientationArray = ["POINTS", "No orientation array"]
    glyph.GlyphType.ThetaResolution = 16
    glyph.GlyphType.PhiResolution = 12
    shown = pv.Show(glyph, view)
    pv.ColorBy(shown, ("POINTS", a.color, "Magnitude"))
    shown.LookupTable = pv.GetColorTransferFunction(a.color)
    shown.LookupTable.ApplyPreset("Viridis (matplotlib)", True)
    shown.LookupTable.RescaleOnVisibilityChange = 1
    legend(pv, view, shown.LookupTable, a.color, "Lower Right Corner")
    if contacts is not None:
        c = pv.Show(contacts, view)
        c.SetRepresentationType("Surface")
        c.LineWidth = 2.0
        pv.ColorBy(c, ("CELLS", "normal_force"))
        c.LookupTable = pv.GetColorTransferFunction("normal_force")
        c.LookupTable.ApplyPreset("Inferno (matplotlib)", True)
        legend(pv, view, c.LookupTable, "normal_force", "Lower Left Corner")
    if walls is not None:
        w = pv.Show(walls, view)
        pv.ColorBy(w, None)
        w.AmbientColor = w.DiffuseColor = [0.55, 0.6, 0.68]
        w.Opacity = 0.3

    scene = pv.GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    keeper = pv.GetTimeKeeper()

    def frame():
        pv.Render(view)

    if a.play:  # as a user plays it: forward, back to the first, the last, the first again
        scene.GoToFirst()
        frame()
        for _ in range(len(times) - 1):
            scene.GoToNext()
            frame()
        for move in (scene.GoToFirst, scene.GoToLast, scene.GoToFirst):
            move()
            frame()

    camera_set = False
    for when, out in zip(a.time, a.out):
        if when == "first":
            t = times[0]
        elif when == "last":
            t = times[-1]
        else:
            t = min(times, key=lambda x: abs(x - float(when)))
        scene.AnimationTime = t
        keeper.Time = t
        for display in (shown, c):  # each legend's range: this snapshot's values
            if display is not None:
                display.RescaleTransferFunctionToDataRange(False, True)
        if not camera_set:  # one camera for every picture: the domain seen from the side, a bit above
            view.CameraPosition = [1.0, -2.2, 1.1]
            view.CameraFocalPoint = [0.0, 0.0, 0.0]
            view.CameraViewUp = [0.0, 0.0, 1.0]
            view.ResetCamera(False)
            camera_set = True
        frame()
        pv.SaveScreenshot(out, view, ImageResolution=[width, height])
        print(f"{out}: t = {t:.6g} s")


if __name__ == "__main__":
    main(sys.argv[1:])
