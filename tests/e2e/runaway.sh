#!/usr/bin/env bash
# Usage: runaway.sh DEMPACT CASE
# tests/data/e2e/runaway.yaml: a bead leaves the domain at 20 m/s while the watchdog
# looks only every 100000 steps. The engine's runaway guard must stop the run (exit 4)
# once the bead is more than one domain length (0.1 m) beyond the face x = 0.1 m, that is
# at x > 0.2 m, and by no more than the neighbour skin (the bead is checked at every
# neighbour rebuild, a rebuild per half skin moved); the message names the bead (id 1),
# its x and the face; a last snapshot holds the step it names.
set -u
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$dempact" run "$case_file" --output "$out" --quiet --threads 1 2>"$out/log"
status=$?
cat "$out/log"
[ "$status" -eq 4 ] || { echo "FAIL: exit status $status, expected 4"; exit 1; }
grep -q "particle 1 is far outside the domain: x = " "$out/log" || { echo "FAIL: the bead is not named"; exit 1; }
x=$(grep -oP 'far outside the domain: x = \K[0-9.e+-]+' "$out/log")
# skin: 0.1 x the largest diameter = 0.001 m
awk -v x="$x" 'BEGIN { exit !(x > 0.2 && x <= 0.2 + 0.001) }' ||
  { echo "FAIL: stopped at x = $x m, not within the skin beyond 0.2 m"; exit 1; }
step=$(grep -oP 'watchdog: step \K[0-9]+' "$out/log")
# x(t) = 0.05 + 20 t, t = step x 2e-5: the step must put the bead where the message says
awk -v s="$step" -v x="$x" 'BEGIN { d = 0.05 + 20 * s * 2e-5 - x; exit !(d < 1e-9 && d > -1e-9) }' ||
  { echo "FAIL: step $step does not put the bead at x = $x"; exit 1; }
h5=$out/runaway.h5
last=$(h5ls "$h5/snapshots" | tail -n 1 | awk '{print $1}')
h5dump -a "/snapshots/$last/step" "$h5" | grep -q "(0): $step\$" ||
  { echo "FAIL: the last snapshot is not at step $step"; exit 1; }
echo "stopped at step $step with the bead at x = $x m; last snapshot $last"
