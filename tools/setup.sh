#!/usr/bin/env bash
# Installs what dempact needs from Debian's packages (as root, or through sudo), then
# configures and builds it in build/ (Release). Safe to run again: it only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

# python3 runs tools/*.py (tests use them without plots); python3-matplotlib draws plots;
# python3-h5py and python3-numpy read snapshots (tests/chung_ooi/run_benchmark.py,
# tools/dempact_h5.py); python3-yaml reads case files (tools/compare.py); python3-paraview's
# pvpython opens the .xmf files in tests/e2e and tools/render_snapshot.py, which renders
# through X: xvfb's Xvfb gives it a display where there is none.
# lammps (its lmp, with mpirun through openmpi) is what tests/lammps/ compares the laws to.
packages=(build-essential cmake pkg-config libhdf5-dev hdf5-tools libcyaml-dev libyaml-dev
          libcmocka-dev valgrind python3 python3-matplotlib python3-h5py python3-numpy
          python3-yaml python3-paraview xvfb lammps)
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

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)"
