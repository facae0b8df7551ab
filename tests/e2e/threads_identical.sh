#!/usr/bin/env bash
# Usage: threads_identical.sh DEMPACT CASE
# Runs the case with 1, 2 and 3 threads and requires bit-identical output: the time
# series and every snapshot file (same_output.sh: h5diff on each, every dataset and
# attribute exactly).
set -eu
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=$(basename "$case_file" .yaml)
for t in 1 2 3; do
  "$dempact" run "$case_file" --output "$out/t$t" --threads "$t" --quiet
done
here=$(cd "$(dirname "$0")" && pwd)
for t in 2 3; do
  "$here/same_output.sh" "$out/t1" "$out/t$t"
  echo "1 and $t threads: identical"
done
n=$(h5ls "$out/t1/$name.h5/snapshots" | wc -l)
[ "$n" -ge 3 ] || { echo "FAIL: only $n snapshots"; exit 1; }
echo "$n snapshots compared"
