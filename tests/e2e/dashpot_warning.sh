#!/usr/bin/env bash
# Usage: dashpot_warning.sh DEMPACT
# A glass ball born resting 20 um into a glass floor, under hunt_crossley: with
# v_floor = 1e-8 m/s its dashpot c = K chi d^(3/2) / v_floor is far past the step's limit
# (c dt / m* about 5e4, tests/test_dashpot_check.c): the contact rings and gains energy,
# the watchdog stops the run within steps, and `dempact run` must name that cause once,
# with the law and v_floor. With v_floor = 1 m/s (c dt / m* about 5e-4) it runs to the
# end without a word about dashpots.
set -u
dempact=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'x,y,z,radius\n0.05,0.05,0.00498,0.005\n' > "$work/ball.csv"
run() { # v_floor -> the run's stderr
  cat > "$work/case.yaml" <<CASE
name: dashpot_$1
domain: {min: [0, 0, 0], max: [0.1, 0.1, 0.1]}
gravity: [0, 0, -9.81]
time: {end: 0.01, output_interval: 0.005}
materials:
  - {name: glass, density: 2500, young: 1.0e7, poisson: 0.25}
contacts:
  - {materials: [glass, glass], law: hunt_crossley, params: {restitution: 0.5, v_floor: $1}}
walls:
  - {name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}
particles:
  - {source: file, material: glass, file: ball.csv}
CASE
  "$dempact" run "$work/case.yaml" --output "$work/o_$1" --quiet 2>&1 >/dev/null
}
stiff=$(run 1e-8) && { echo "FAIL: the run with v_floor 1e-8 went on: $stiff"; exit 1; }
echo "v_floor 1e-8: $stiff"
for pattern in 'watchdog: step [0-9]+ ' \
               'warning: at t = .* 1 contact has a normal dashpot stiffer than the step' \
               'law hunt_crossley' 'v_floor = 1e-08 m/s'; do
  grep -Eq -- "$pattern" <<<"$stiff" || { echo "FAIL: the warning lacks /$pattern/"; exit 1; }
done
[ "$(grep -c 'warning' <<<"$stiff")" -eq 1 ] || { echo "FAIL: warned more than once"; exit 1; }
soft=$(run 1) || { echo "FAIL: the run with v_floor 1 failed: $soft"; exit 1; }
echo "v_floor 1: $soft"
if grep -q 'dashpot' <<<"$soft"; then echo "FAIL: warned with v_floor 1 m/s"; exit 1; fi
echo "warned when the dashpot is past the limit, and only then"
