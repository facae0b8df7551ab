#!/usr/bin/env bash
# Usage: memcheck.sh DEMPACT CASE SUPPRESSIONS [RUN_OPTIONS...]
# Runs a case under valgrind memcheck on 2 threads (every loop split among them) and
# requires no errors and no leaks; the only suppression is libgomp's own pool threads.
set -eu
dempact=$1 case_file=$2 supp=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
OMP_NUM_THREADS=2 DEMPACT_PARALLEL_MIN=0 DEMPACT_BLOCK=32 DEMPACT_REORDER_MIN=1 DEMPACT_SEARCH_ROOM=0 valgrind --quiet --leak-check=full \
  --show-leak-kinds=definite,possible --errors-for-leak-kinds=definite,possible \
  --suppressions="$supp" --error-exitcode=9 \
  "$dempact" run "$case_file" --output "$out" --quiet "${@:4}"
echo "valgrind: no errors, no leaks"
