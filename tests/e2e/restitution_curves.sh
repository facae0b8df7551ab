#!/usr/bin/env bash
# Usage: restitution_curves.sh DEMPACT SOURCE_DIR [EXTRA_ARGS...]
# Runs tools/restitution_curves.py (no plot, so no matplotlib needed) over the eight
# Hertzian damping laws on a 9-point sweep of e: the engine's restitution must match the closed form
# e_out (chi (1 + e_out) = ln((1 + chi)/(1 - e_out chi))) within 0.2 % at every point, and
# the tool's own root finder must pass its self-test. EXTRA_ARGS go to the tool (e.g.
# --calibrate). Then makes sure the check can fail: an impossible tolerance must give exit 1.
set -u
dempact=$1 src=$2
shift 2
tool=$src/tools/restitution_curves.py
laws=hunt_crossley,lankarani_nikravesh,flores,gharib_hurmuzlu,hu_guo,safaeifar_farshidianfar,sheikhi_azqandi_safaeifar,exact
command -v python3 >/dev/null || { echo "FAIL: python3 not found"; exit 1; }
[ -x "$dempact" ] || { echo "FAIL: $dempact is not an executable"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

python3 "$tool" --dempact "$dempact" --laws "$laws" --from 0.05 --to 0.99 --points 9 \
  --tolerance 0.002 --self-test --no-plot --csv "$out" "$@"
status=$?
cat "$out"
[ "$status" -eq 0 ] || { echo "FAIL: restitution_curves.py exit status $status"; exit 1; }

# Every law gave all 9 uncalibrated points, each with a closed form (nothing silently skipped).
for law in ${laws//,/ }; do
  n=$(awk -F, -v law="$law" '$1 == law && $4 != "" && $6 == 0' "$out" | wc -l)
  [ "$n" -eq 9 ] || { echo "FAIL: $law has $n of 9 rows with a closed form"; exit 1; }
done

# With --calibrate, every law also gave its 9 calibrated points (a build without it would skip).
case " $* " in *" --calibrate "*)
  for law in ${laws//,/ }; do
    n=$(awk -F, -v law="$law" '$1 == law && $6 == 1' "$out" | wc -l)
    [ "$n" -eq 9 ] || { echo "FAIL: $law has $n of 9 calibrated rows"; exit 1; }
  done ;;
esac

# The check is not vacuous: at a tolerance no time integration can meet, it must fail.
python3 "$tool" --dempact "$dempact" --laws hunt_crossley --from 0.5 --to 0.9 --points 3 \
  --tolerance 1e-13 --no-plot >/dev/null 2>&1
status=$?
[ "$status" -eq 1 ] || { echo "FAIL: tolerance 1e-13 gave exit status $status, expected 1"; exit 1; }
echo "restitution curves match the closed form"
