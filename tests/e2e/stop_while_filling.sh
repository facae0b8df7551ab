#!/usr/bin/env bash
# Usage: stop_while_filling.sh DEMPACT CASE
# SIGTERM sent to `dempact run` 0.3 s into a fill of two million random spheres
# (tests/data/e2e/long_fill.yaml): the fill polls the signal's flag, so the run stops
# with exit 143 and says so; stopped before the first step, it leaves no output folder.
# (Should the fill be over before the signal, the run stops at its next step instead,
# still with 143 and a last snapshot.)
set -u
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$dempact" run "$case_file" --output "$out/o" --quiet --threads 1 2>"$out/log" &
pid=$!
sleep 0.3
kill -TERM "$pid"
wait "$pid"
status=$?
cat "$out/log"
[ "$status" -eq 143 ] || { echo "FAIL: exit status $status, expected 143"; exit 1; }
if grep -q "stopped by SIGTERM before the first step; nothing was written" "$out/log"; then
  [ ! -e "$out/o" ] || { echo "FAIL: an output folder was left behind"; ls -R "$out/o"; exit 1; }
  echo "stopped while filling, nothing written"
else
  grep -q "stopped by SIGTERM at step" "$out/log" || { echo "FAIL: no message about the signal"; exit 1; }
  echo "the fill was over before the signal; stopped at a step"
fi
