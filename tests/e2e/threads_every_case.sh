#!/usr/bin/env bash
# Usage: threads_every_case.sh DEMPACT CASES_DIR
# Every case in CASES_DIR, cut short with --end-time, run with 1, 2 and 3 threads: the
# snapshots must be bit-identical (same_output.sh: h5diff on the time series and on every
# snapshot file compares every dataset and attribute; the
# /case_text and the root attributes are the same file's). Run it with
# DEMPACT_PARALLEL_MIN=0 so that even small cases split their loops among the threads,
# DEMPACT_BLOCK=32 so that their force loops have many blocks and cross pairs, and
# DEMPACT_REORDER_MIN=1 so that their particles are sorted along the curve at rebuilds.
# Each case must also pass `dempact check`. The end time of each case: long enough for
# its particles to touch something.
set -u
dempact=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
end_time() {
  case "$1" in
    bounce) echo 0.005 ;;    # one falling ball: threads have little to split
    collision) echo 0.0005 ;; # the spheres meet at 0.2 ms
    pour) echo 0.03 ;;       # the first beads reach the floor at about 0.02 s
    chute) echo 1.2 ;;       # the grains reach the fixed base at about 0.95 (units of sqrt(d/g))
    dem8_drum) echo 0.0006 ;; # 38,000 particles: 400 steps (its lattice has not yet landed;
                              # drum.yaml covers a drum's contacts)
    *) echo 0.01 ;;
  esac
}
n=0 failed=0
for case_file in "$dir"/*.yaml; do
  name=$(basename "$case_file" .yaml)
  # the output is named after the case's name:, which may differ from the file's
  end=$(end_time "$name")
  "$dempact" check "$case_file" >/dev/null || { echo "FAIL: dempact check $name"; failed=$((failed + 1)); continue; }
  for t in 1 2 3; do
    if ! "$dempact" run "$case_file" --output "$out/$name/t$t" --threads "$t" --end-time "$end" \
         --quiet 2>"$out/log"; then
      echo "FAIL: $name with $t threads:"; cat "$out/log"; failed=$((failed + 1)); continue 2
    fi
  done
  h5=$(cd "$out/$name/t1" && ls *.h5)
  for t in 2 3; do
    if "$here/same_output.sh" "$out/$name/t1" "$out/$name/t$t" >"$out/diff"; then
      echo "$name (end $end s, $(h5ls "$out/$name/t1/$h5/snapshots" | wc -l) snapshots): 1 and $t threads identical"
    else
      echo "FAIL: $name: 1 and $t threads differ"; head -20 "$out/diff"; failed=$((failed + 1))
    fi
  done
  n=$((n + 1))
done
echo "$n cases compared, $failed failures"
[ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
