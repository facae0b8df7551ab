#!/usr/bin/env bash
# Usage: default_case.sh DEMPACT CASE
# The README's first command: the default case runs and leaves an .h5 and the .xmf
# files, one time step per snapshot, whose last snapshot is at the case's end time.
set -eu
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=$(basename "$case_file" .yaml)
"$dempact" run "$case_file" --output "$out" 2>"$out/log"
tail -n 2 "$out/log"
test -s "$out/$name.h5" && test -s "$out/$name.xmf" && test -s "$out/${name}_contacts.xmf" && test -s "$out/${name}_walls.xmf"
grep -q "particle-steps/s" "$out/log"   # progress was reported
last=$(h5ls "$out/$name.h5/snapshots" | tail -n 1 | awk '{print $1}')
h5dump -a "/snapshots/$last/time" "$out/$name.h5" | grep -A1 DATA
end=$(sed -n 's/^ *end: *\([0-9.e+-]*\).*/\1/p' "$case_file" | head -n 1)
h5dump -a "/snapshots/$last/time" "$out/$name.h5" | grep -q "(0): $end\$" || { echo "FAIL: the last snapshot is not at t = $end"; exit 1; }
snap_count=$(h5ls "$out/$name.h5/snapshots" | wc -l)
for x in "$name.xmf" "${name}_contacts.xmf" "${name}_walls.xmf"; do
  grid_count=$(grep -c '<Time Value=' "$out/$x")
  [ "$grid_count" -eq "$snap_count" ] || { echo "FAIL: $x has $grid_count time steps, h5 $snap_count"; exit 1; }
done
echo "ok: $snap_count snapshots"
