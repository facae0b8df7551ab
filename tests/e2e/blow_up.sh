#!/usr/bin/env bash
# Usage: blow_up.sh DEMPACT CASE
# tests/data/e2e/blow_up.yaml: a ball dropped with a step far above the stable limit.
# The run must stop with exit status 4 and the watchdog's message (naming the step, the
# particle, the wall, the law) at most 3 steps after the ball first touches the floor,
# and leave a last snapshot at that step that h5dump reads back.
set -u
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$dempact" run "$case_file" --output "$out" --quiet 2>"$out/log"
status=$?
cat "$out/log"
[ "$status" -eq 4 ] || { echo "FAIL: exit status $status, expected 4"; exit 1; }
# The case's numbers: centre 0.045 m above the floor, radius 0.005 m, g = 9.81, dt = 1e-4.
# Velocity Verlet is exact under constant gravity, so the first step in contact is the
# first n with g (n dt)^2 / 2 > 0.04 m.
touch_step=$(awk 'BEGIN { n = 0; while (9.81 * (n * 1e-4)^2 / 2 <= 0.04) n++; print n }')
step=$(grep -oP 'watchdog: step \K[0-9]+' "$out/log" | head -n 1)
[ -n "$step" ] || { echo "FAIL: no watchdog message"; exit 1; }
echo "first contact at step $touch_step, the watchdog stopped the run at step $step"
[ "$step" -ge "$touch_step" ] && [ "$step" -le $((touch_step + 3)) ] ||
  { echo "FAIL: not within 3 steps of the first contact"; exit 1; }
for word in "particle 0" "wall floor" "law hertz_tti" "stable limit" "last snapshot (step $step)"; do
  grep -qF "$word" "$out/log" || { echo "FAIL: the message does not name '$word'"; exit 1; }
done
h5=$out/blow_up.h5
last=$(h5ls "$h5/snapshots" | tail -n 1 | awk '{print $1}')
h5dump -a "/snapshots/$last/step" "$h5" | grep -q "(0): $step\$" ||
  { echo "FAIL: the last snapshot is not at step $step"; h5dump -a "/snapshots/$last/step" "$h5"; exit 1; }
h5dump -d "/snapshots/$last/position" -d "/snapshots/$last/velocity" "$h5" >"$out/dump" ||
  { echo "FAIL: h5dump cannot read the last snapshot"; exit 1; }
grep -A1 'velocity' "$out/dump" >/dev/null && grep -m2 '(0,0):' "$out/dump" | sed 's/^ */position, velocity: /'
grep -c '<Grid Name="snapshot_' "$out/blow_up.xmf" | xargs echo "xmf grids:"
echo "stopped within $((step - touch_step)) steps of going wrong; last snapshot readable"
