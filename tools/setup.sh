#!/usr/bin/env bash
# Installs what dempact needs from Debian's packages (as root, or through sudo), makes the
# Python environment .venv/ the tools and tests run in, then configures and builds dempact
# in build/ (Release). Safe to run again: it keeps .venv/ and only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

# python3 runs tools/*.py (tests use them without plots); python3-matplotlib draws plots;
# python3-h5py and python3-numpy read snapshots (tests/chung_ooi/run_benchmark.py,
# tools/dempact_h5.py); python3-yaml reads case files (tools/compare.py); python3-paraview's
# pvpython opens the .xmf files in tests/e2e and tools/render_snapshot.py, which renders
# through X: xvfb's Xvfb gives it a display where there is none; python3-venv makes .venv/.
# lammps (its lmp, with mpirun through openmpi) is what tests/lammps/ compares the laws to;
# liggghts is the peer of the hopper discharge, the heap and the drum (tools/liggghts_*.py).
packages=(build-essential cmake pkg-config libhdf5-dev hdf5-tools libcyaml-dev libyaml-dev
          libcmocka-dev valgrind python3 python3-matplotlib python3-h5py python3-numpy
          python3-yaml python3-paraview python3-venv xvfb lammps liggghts)
# python3-dev, python3-setuptools build the Python package python/ (import dempact);
# python3-pytest runs its tests (tests/python/), python3-hypothesis the property-based
# ones (random call sequences and hostile values against the package and the tools).
packages+=(python3-dev python3-setuptools python3-pytest python3-hypothesis)
# python3-scipy: the reference Student's t the flow validations' band is tested against
# (tests/validation/test_peer_band.py).
packages+=(python3-scipy)
# help2man writes the man page from the built program (tools/man_page.sh); groff renders
# it (tests/doc/install_tree.sh).
packages+=(help2man groff-base)
# OpenMPI, Zoltan and the MPI flavour of HDF5 build dempact for MPI runs (mpirun -np N
# dempact ...; CMake's DEMPACT_MPI): the ranks write each snapshot into one file through
# parallel HDF5 (the libraries keep the serial flavour: CMakeLists.txt).
packages+=(libopenmpi-dev openmpi-bin libtrilinos-zoltan-dev libhdf5-openmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# .venv/: a virtual environment over Debian's /usr/bin/python3 that sees Debian's numpy,
# h5py, matplotlib and yaml (--system-site-packages), so that the tools run the same
# wherever another python3 (pyenv, conda) comes first on the PATH:
# `.venv/bin/python tools/compare.py ...`. It is a full venv with pip, for packages
# installed into it later; an existing one is kept (and with it what was installed).
if [ -e .venv ] && ! .venv/bin/python -c 'import sys; sys.exit(sys.base_prefix != "/usr")' 2>/dev/null; then
  echo "setup: .venv/ exists but is not a virtual environment over Debian's /usr/bin/python3;" \
       "move it away (rm -rf .venv) and run tools/setup.sh again" >&2
  exit 1
fi
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
if ! .venv/bin/python -c 'import numpy, h5py, matplotlib, yaml, hypothesis' 2>/dev/null; then
  echo "setup: .venv/bin/python cannot import numpy, h5py, matplotlib, yaml and hypothesis;" \
       "check that Debian's python3-numpy python3-h5py python3-matplotlib python3-yaml python3-hypothesis are installed" >&2
  exit 1
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)"

# The Python package (python/: `import dempact`), built against the libraries just built
# and installed into .venv/ (again after every rebuild: it holds its own copy of them).
.venv/bin/pip install --quiet --no-build-isolation --no-deps --no-index ./python
