#!/usr/bin/env bash
# Usage: cohesive_heap.sh DEMPACT SOURCE_DIR
# The angle of repose of cases/cohesive_heap.yaml against the granular Bond number
# Bo = pull-off force / bead weight, at Bo = 0, 1, 3 and 10 (COHESIVE_HEAP_BO sets
# others; label validation: five pours, about a quarter of an hour on one core; run by
# hand). The case's JKR work of adhesion w is set per run in a copy of the case
# (Bo = 3/2 pi w R* / (4/3 pi R^3 rho g) for the mean bead, R = 1.5 mm, R* = R/2:
# w = 0.0981 J/m^2 per unit of Bo); Bo = 0 is the case without its adhesion line, the
# heap of cases/heap.yaml. The check is the trend: the angle rises with Bo, each step by
# more than the seed-to-seed spread measured at the middle Bond number (two pours, the
# inlet's seeds 11 and 12; of four Bond numbers the second). Figures: docs/validation.md#cohesive-heap.
set -eu
dempact=$1 src=$2
py=${DEMPACT_PYTHON:-/usr/bin/python3}
bos=${COHESIVE_HEAP_BO:-"0 1 3 10"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case_in="$src/cases/cohesive_heap.yaml"
line='    adhesion: {model: jkr, work: 0.3}   # Bo = 3.1 (header)'
[ "$(grep -cxF "$line" "$case_in")" = 1 ] || { echo "$case_in: its adhesion line changed"; exit 2; }
# one pour: Bo and seed -> its angle of repose on stdout
pour() {
  local bo=$1 seed=$2 dir="$work/bo$1_s$2" w
  mkdir -p "$dir"
  w=$(awk -v b="$bo" 'BEGIN { printf "%.6g", b * 0.0981 }')
  if [ "$bo" = 0 ]; then
    grep -vxF "$line" "$case_in"
  else
    sed "s|^$line\$|    adhesion: {model: jkr, work: $w}|" "$case_in"
  fi | sed "s/^    seed: 11$/    seed: $seed/" > "$dir/case.yaml"
  [ "$(grep -c "^    seed: $seed$" "$dir/case.yaml")" = 1 ]
  local t0=$SECONDS
  "$dempact" run "$dir/case.yaml" --output "$dir" --quiet --threads 1
  local out; out=$("$py" "$src/tools/angle_of_repose.py" "$dir/cohesive_heap.h5")
  echo "Bo $bo (w = $w J/m^2), seed $seed, $((SECONDS - t0)) s: $out" >&2
  sed -n 's/^angle of repose: \([-0-9.]*\) degrees.*/\1/p' <<<"$out"
}
set -- $bos
[ $# -ge 3 ] || { echo "COHESIVE_HEAP_BO: three Bond numbers or more"; exit 2; }
mid=$(eval echo "\${$(( ($# + 1) / 2 ))}")
angles="" spread=""
for bo in "$@"; do
  a=$(pour "$bo" 11)
  if [ "$bo" = "$mid" ]; then
    b=$(pour "$bo" 12)
    spread=$(awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; print (d < 0 ? -d : d) }')
    a=$(awk -v a="$a" -v b="$b" 'BEGIN { print (a + b) / 2 }')
  fi
  angles="$angles $a"
done
awk -v bos="$*" -v list="$angles" -v s="$spread" 'BEGIN {
  n = split(bos, bo, " "); split(list, a, " "); ok = 1
  printf "seed-to-seed spread at Bo %s: %.1f degrees\n", bo[int((n + 1) / 2)], s
  for (q = 1; q <= n; q++) printf "Bo %s: angle of repose %.1f degrees\n", bo[q], a[q]
  for (q = 2; q <= n; q++) if (a[q] - a[q - 1] <= s) {
    printf "FAIL: from Bo %s to %s the angle rises by %.1f degrees, not more than the spread %.1f\n",
           bo[q - 1], bo[q], a[q] - a[q - 1], s; ok = 0 }
  exit !ok }'
