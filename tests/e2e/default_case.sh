#!/usr/bin/env bash
# Usage: default_case.sh DEMPACT CASE
# The README's first command: the default case runs and leaves an .h5 and an .xmf whose
# last snapshot is at the case's end time and holds every particle.
set -eu
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=$(basename "$case_file" .yaml)
"$dempact" run "$case_file" --output "$out" 2>"$out/log"
tail -n 2 "$out/log"
test -s "$out/$name.h5" && test -s "$out/$name.xmf"
grep -q "particle-steps/s" "$out/log"   # progress was reported
last=$(h5ls "$out/$name.h5/snapshots" | tail -n 1 | awk '{print $1}')
h5dump -a "/snapshots/$last/time" "$out/$name.h5" | grep -A1 DATA
grid_count=$(grep -c '<Grid Name="snapshot_' "$out/$name.xmf")
snap_count=$(h5ls "$out/$name.h5/snapshots" | wc -l)
[ "$grid_count" -eq "$snap_count" ] || { echo "FAIL: xmf has $grid_count grids, h5 $snap_count"; exit 1; }
echo "ok: $snap_count snapshots"
