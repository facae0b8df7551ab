"""Builds dempact._core against the static libraries CMake built: build/libdempact.a
(engine, models) and build/libdempact_io.a (case reader, snapshots), found in ../build
next to this folder or in DEMPACT_BUILD_DIR."""
import os
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)  # the dempact source tree: engine/, io/, models/
BUILD = os.path.abspath(os.environ.get("DEMPACT_BUILD_DIR", os.path.join(SOURCE, "build")))

for lib in ("libdempact_io.a", "libdempact.a"):
    if not os.path.exists(os.path.join(BUILD, lib)):
        raise SystemExit(f"dempact: {os.path.join(BUILD, lib)} is missing: build dempact first "
                         "(cmake -S . -B build && cmake --build build), or set DEMPACT_BUILD_DIR")


def pkg_config(*args):
    try:
        return subprocess.run(["pkg-config", *args], check=True, capture_output=True,
                              text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return []


# Debian's serial HDF5 by name: hdf5.pc may point at the MPI flavour (CMakeLists.txt)
hdf5 = pkg_config("--cflags", "--libs", "hdf5-serial") or pkg_config("--cflags", "--libs", "hdf5")
if not hdf5:  # Debian's serial HDF5 without its .pc file
    hdf5 = ["-I/usr/include/hdf5/serial", "-L/usr/lib/x86_64-linux-gnu/hdf5/serial", "-lhdf5"]
flags = hdf5 + pkg_config("--cflags", "--libs", "libcyaml", "yaml-0.1")

core = Extension(
    "dempact._core",
    sources=[os.path.relpath(os.path.join(HERE, "dempact", name), HERE)
             for name in ("_core.c", "_laws.c", "_collide.c", "_forces.c")],
    include_dirs=[SOURCE] + [f[2:] for f in flags if f.startswith("-I")],
    # io before the engine: the static libraries are searched in this order
    extra_objects=[os.path.join(BUILD, "libdempact_io.a"), os.path.join(BUILD, "libdempact.a")],
    # relink when the libraries change (setuptools only looks at sources and depends)
    depends=[os.path.join(BUILD, "libdempact_io.a"), os.path.join(BUILD, "libdempact.a"),
             os.path.join(SOURCE, "io", "session", "dempact_api.h"), os.path.join(SOURCE, "io", "session.h"),
             os.path.join(HERE, "dempact", "_core.h"), os.path.join(HERE, "dempact", "_forces.h")],
    library_dirs=[f[2:] for f in flags if f.startswith("-L")],
    libraries=[f[2:] for f in flags if f.startswith("-l")] + ["cyaml", "yaml", "gomp", "m"],
    extra_compile_args=["-std=c11", "-D_DEFAULT_SOURCE", "-fopenmp", "-Wno-unused-parameter"],
    extra_link_args=["-fopenmp"],
)

setup(ext_modules=[core])
