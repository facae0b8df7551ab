#!/usr/bin/env bash
# Usage: lees_edwards.sh DEMPACT CASE PYTHON (with h5py)
# The Lees-Edwards keys of CASE (cases/shear_cell.yaml) through the program:
#  - bad values are refused with exit status 2, a message naming the key, and nothing
#    written (expect_refusal.sh);
#  - a run restarted from its middle snapshot ends with the same last snapshot, bit for
#    bit, as the run that never stopped (the offset, the barostat's height and the shear's
#    books go through the snapshot);
#  - the energy books close: the last sample's residual is within 1e-3 of the shear's work.
set -u
dempact=$1 case_file=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
refuse() { # refuse NAME SED-SCRIPT PATTERN
  sed -e "$2" "$case_file" >"$out/$1.yaml"
  if ! grep -q . <(diff "$case_file" "$out/$1.yaml"); then echo "FAIL: $1: the edit changed nothing"; failed=1; return; fi
  "$here/expect_refusal.sh" "$dempact" "$out/$1.yaml" "$3" >"$out/log" 2>&1 ||
    { echo "FAIL: $1"; cat "$out/log"; failed=1; return; }
  echo "$1: refused ($(grep -o 'exit 2: .*' "$out/log" | head -c 160))"
}
refuse not_periodic 's/periodic: \[true, true, true\]/periodic: [false, true, true]/' 'domain.lees_edwards.*periodic'
refuse rate_text 's/shear_rate: 20.0/shear_rate: fast/' 'domain.lees_edwards.shear_rate'
refuse rate_nan 's/shear_rate: 20.0/shear_rate: .nan/' 'domain.lees_edwards.shear_rate'
refuse rate_too_fast 's/shear_rate: 20.0/shear_rate: 1e7/' 'domain.lees_edwards.shear_rate.*m/s'
refuse pressure_negative 's/pressure: 1000.0 /pressure: -5 /' 'domain.lees_edwards.pressure'
refuse no_pressure_time '/pressure_time:/d' 'pressure_time'
refuse time_without_pressure '/    pressure: /d' 'needs a pressure'
refuse strain_rate_zero 's/pressure_time: 0.01 /pressure_time: 0.01\n    max_strain_rate: 0/' 'max_strain_rate'
refuse profile_text 's/initial_profile: true/initial_profile: maybe/' 'initial_profile'
refuse unknown_key 's/initial_profile: true/initial_profil: true/' 'initial_profil'
refuse barostat_with_wall 's/^particles:/walls:\n  - {name: side, type: plane, material: glass, point: [0, 0, 0], normal: [0, 1, 0]}\nparticles:/' 'pressure.*walls'

# restart from the middle: the same last snapshot
sed -e 's/end: 0.5/end: 0.004/' -e 's/output_interval: 0.05/output_interval: 0.002/' \
    -e 's/timeseries_interval: 0.001/timeseries_interval: 0.0005/' "$case_file" >"$out/short.yaml"
"$dempact" run "$out/short.yaml" --output "$out/whole" --quiet || { echo "FAIL: the whole run"; exit 1; }
step=$("$python" -c "
import h5py; f = h5py.File('$out/whole/shear_cell.h5', 'r'); s = sorted(f['snapshots']); print(f['snapshots'][s[1]].attrs['step'])")
"$dempact" run "$out/short.yaml" --output "$out/restarted" --restart "$out/whole/shear_cell.h5" \
    --from-step "$step" --quiet || { echo "FAIL: the restart"; exit 1; }
last=$(cd "$out/whole/shear_cell.d" && ls | sort | tail -1)
if h5diff "$out/whole/shear_cell.d/$last" "$out/restarted/shear_cell.d/$last" >"$out/diff"; then
  echo "restart from step $step: the last snapshot ($last) is the same, bit for bit"
else
  echo "FAIL: the restarted run's last snapshot differs"; head -20 "$out/diff"; failed=1
fi
"$python" - "$out/whole/shear_cell.h5" <<'PY' || failed=1
import sys, h5py
ts = h5py.File(sys.argv[1], "r")["timeseries"]
w, r, h = ts["shear_work"][-1], ts["energy_residual"][-1], ts["box_height"][-1]
print(f"shear work {w:.6e} J, residual {r:.3e} J, box height {h:.5f} m")
if not (w > 0 and abs(r) < 1e-3 * w and h < 0.044):
    print("FAIL: the books do not close, or the barostat did not press the box")
    sys.exit(1)
PY
exit $failed
