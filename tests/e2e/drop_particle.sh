#!/usr/bin/env bash
# Usage: drop_particle.sh DEMPACT CASE
# tests/data/e2e/drop_particle.yaml (watchdog: {on_error: drop_particle}): the bead shot
# out of the open box is dropped with the watchdog's message, the run ends normally
# (exit 0), and the snapshots after the drop hold the other 8 beads, without id 8.
set -u
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$dempact" run "$case_file" --output "$out" --quiet 2>"$out/log"
status=$?
cat "$out/log"
[ "$status" -eq 0 ] || { echo "FAIL: exit status $status, expected 0"; exit 1; }
grep -q "particle 8 left the domain" "$out/log" && grep -q "dropped particle 8" "$out/log" ||
  { echo "FAIL: no drop announced"; exit 1; }
h5=$out/drop_particle.h5
count() { h5dump -a "/snapshots/$1/n_particles" "$h5" | grep -oP '\(0\): \K[0-9]+'; }
first=$(h5ls "$h5/snapshots" | head -n 1 | awk '{print $1}')
last=$(h5ls "$h5/snapshots" | tail -n 1 | awk '{print $1}')
[ "$(count "$first")" -eq 9 ] && [ "$(count "$last")" -eq 8 ] ||
  { echo "FAIL: expected 9 then 8 particles, got $(count "$first") and $(count "$last")"; exit 1; }
h5dump -d "/snapshots/$last/id" "$h5" | grep -A2 DATA | grep -qE '(^|[ ,])8(,|$)' &&
  { echo "FAIL: id 8 is still in the last snapshot"; exit 1; }
echo "dropped the bead that left; the run went on with 8"
