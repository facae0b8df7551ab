#!/usr/bin/env bash
# Usage: threads_identical.sh DEMPACT CASE
# Runs the case with 1, 2 and 3 threads and requires bit-identical snapshots (h5diff
# compares every dataset and attribute exactly).
set -eu
dempact=$1 case_file=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=$(basename "$case_file" .yaml)
for t in 1 2 3; do
  "$dempact" run "$case_file" --output "$out/t$t" --threads "$t" --quiet
done
for t in 2 3; do
  h5diff "$out/t1/$name.h5" "$out/t$t/$name.h5"
  echo "1 and $t threads: identical"
done
n=$(h5ls "$out/t1/$name.h5/snapshots" | wc -l)
[ "$n" -ge 3 ] || { echo "FAIL: only $n snapshots"; exit 1; }
echo "$n snapshots compared"
