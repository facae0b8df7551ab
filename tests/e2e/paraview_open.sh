#!/usr/bin/env bash
# Usage: paraview_open.sh DEMPACT CASE
# Runs CASE and opens its .xmf files with ParaView's Python (paraview_open.py): plays them
# forward, back to the first step, to the last and to the first again, and checks time
# steps, particle counts, radius, contact-force and wall ranges against the HDF5 files.
set -u
dempact=$1 case_file=$2
pv=/usr/bin/pvpython
[ -x "$pv" ] || { echo "FAIL: $pv missing: install python3-paraview (tools/setup.sh does)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=$(basename "$case_file" .yaml)
OMP_WAIT_POLICY=passive "$dempact" run "$case_file" --output "$out" --quiet || { echo "FAIL: run exit $?"; exit 1; }
# pvpython wants a display for nothing here; keep it off any X server
env -u DISPLAY "$pv" --force-offscreen-rendering "$(dirname "$0")/paraview_open.py" "$out/$name.xmf" 2>"$out/pv.err"
status=$?
grep -v -e "^$" -e "Skipping unrecognized" "$out/pv.err" | head -20
exit $status
