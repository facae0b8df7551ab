#!/usr/bin/env bash
# Usage: layout.sh DEMPACT SOURCE_DIR CASE...
# Runs each case and checks its output: h5dump reads every dataset (through NAME.h5's
# links, and each snapshot file alone); the layout documented in docs/output.md is the
# output's, both ways, units included (layout.py, with h5py), and
# tools/dempact_h5.py loads the same values; `dempact info` lists the snapshots with
# their steps and particle counts, and `dempact info --case` gives back the case file.
set -u
dempact=$1 src=$2
shift 2
py=${DEMPACT_PYTHON:-/usr/bin/python3}
fail() { echo "FAIL: $*"; exit 1; }
"$py" -c "import h5py, numpy" 2>/dev/null || fail "$py cannot import h5py and numpy (tools/setup.sh installs python3-h5py)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
files=()
for case_file in "$@"; do
  name=$(basename "$case_file" .yaml)
  OMP_WAIT_POLICY=passive "$dempact" run "$case_file" --output "$out" --quiet || fail "$name: run exit $?"
  f=$out/$name.h5
  h5dump "$f" > /dev/null || fail "h5dump cannot read $f"
  for s in "$out/$name.d"/*.h5; do h5dump "$s" > /dev/null || fail "h5dump cannot read $s"; done
  "$dempact" info "$f" > "$out/info" || fail "dempact info $f"
  n=$(h5ls "$f/snapshots" | wc -l)
  rows=$(grep -Ec '^ +[0-9]+ +[0-9]+ +[-0-9.e+]+ +[0-9]+ +[0-9]+$' "$out/info")
  [ "$rows" -eq "$n" ] || { cat "$out/info"; fail "dempact info lists $rows snapshots, the file has $n"; }
  grep -q "^snapshots:   $n$" "$out/info" || fail "dempact info: snapshot count"
  grep -q "^time series: [0-9]* samples" "$out/info" || fail "dempact info: time series"
  "$dempact" info --case "$f" | cmp -s - "$case_file" || fail "dempact info --case differs from $case_file"
  files+=("$f")
  echo "$name: h5dump and dempact info read it ($n snapshots)"
done
"$py" "$(dirname "$0")/layout.py" "$src/docs/output.md" "${files[@]}"
