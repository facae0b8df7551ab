#!/usr/bin/env bash
# Installs what dempact needs from Debian's packages (as root, or through sudo), then
# configures and builds it in build/ (Release). Safe to run again: it only rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

# python3 runs tools/*.py (tests use them without plots); python3-matplotlib draws plots.
packages=(build-essential cmake pkg-config libhdf5-dev hdf5-tools libcyaml-dev libyaml-dev
          libcmocka-dev valgrind python3 python3-matplotlib)
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
