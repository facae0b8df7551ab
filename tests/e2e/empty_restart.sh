#!/usr/bin/env bash
# Usage: empty_restart.sh DEMPACT E2E_DATA [RANKS]
# A snapshot without particles restarts, and every "continue with:" hint runs as printed.
# - late_inlet.yaml (an inlet that opens at t = 0.02 s): run to 0.015 s, restart from its
#   last snapshot (no particle yet) to the end;
# - drained.yaml (an outlet takes all nine beads by 0.07 s): run to 0.09 s, restart from
#   the empty snapshot to the end;
# each restarted run's last snapshot and time series must be bit-identical to an
# uninterrupted run's (h5diff). Then late_inlet with a step of 1e-8 s, in a folder whose
# name needs quoting, is stopped by SIGTERM while still empty; the hint it prints is run
# by the shell as printed and must go on to the same end as an uninterrupted run.
# With RANKS, the two restarts run under `mpirun -np RANKS` (the cases sum by id).
set -u
dempact=$(realpath "$1") data=$2
launch=()
[ $# -ge 3 ] && launch=(mpirun --oversubscribe --allow-run-as-root -np "$3")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
last() { printf '%s.d/%06d.h5' "${1%.h5}" $(( $(h5ls "$1/snapshots" | wc -l) - 1 )); }
same() { # REF RUN LABEL
  h5diff -q "$(last "$1")" "$(last "$2")" || fail "$3: the last snapshot differs from an uninterrupted run's"
  h5diff -q "$1" "$2" /timeseries /timeseries || fail "$3: the time series differs from an uninterrupted run's"
}
export OMP_WAIT_POLICY=passive

for spec in late_inlet:0.015 drained:0.09; do
  name=${spec%%:*} stop=${spec#*:}
  "$dempact" run "$data/$name.yaml" --output "$out/ref_$name" --quiet || fail "$name: reference run exit $?"
  "$dempact" run "$data/$name.yaml" --output "$out/$name" --end-time "$stop" --quiet || fail "$name: first part exit $?"
  n=$(h5dump -a "/snapshots/$(h5ls "$out/$name/$name.h5/snapshots" | tail -n 1 | awk '{print $1}')/n_particles" \
        "$out/$name/$name.h5" | grep -oP '\(0\): \K[0-9]+')
  [ "$n" = 0 ] || fail "$name: the snapshot at t = $stop s holds $n particles, not 0"
  "${launch[@]}" "$dempact" run "$data/$name.yaml" --output "$out/$name" --restart "$out/$name/$name.h5" \
    --quiet 2>"$out/log" ||
    { cat "$out/log"; fail "$name: the restart from an empty snapshot exit $?"; }
  same "$out/ref_$name/$name.h5" "$out/$name/$name.h5" "$name"
  echo "$name: restarted from its empty snapshot at t = $stop s, ends bit-identical to an uninterrupted run"
done

# (on ranks each of the slow case's two million steps agrees over the ranks: minutes)
[ ${#launch[@]} -gt 0 ] && exit 0
# stopped by SIGTERM before the inlet opens, in a folder named with a space and a quote
sed 's/output_interval: 0.005}/output_interval: 0.005, step: 1.0e-8}/' "$data/late_inlet.yaml" > "$out/slow.yaml"
odd="$out/it's here"
"$dempact" run "$out/slow.yaml" --output "$out/ref_slow" --end-time 0.0202 --quiet || fail "slow: reference exit $?"
"$dempact" run "$out/slow.yaml" --output "$odd" --end-time 0.0202 --quiet 2>"$out/log" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
status=$?
cat "$out/log"
[ "$status" -eq 143 ] || fail "slow: exit $status after SIGTERM, expected 143"
hint=$(grep -oP 'continue with: \K.*' "$out/log") || fail "slow: no 'continue with:' hint"
grep -q "^dempact run " <<<"$hint" || fail "slow: the hint '$hint' is no dempact run command"
# the hint, as the shell reads it, with this build's program for `dempact`
eval "\"\$dempact\" ${hint#dempact }" --quiet 2>"$out/log2" ||
  { cat "$out/log2"; fail "slow: the hint '$hint' failed"; }
same "$out/ref_slow/late_inlet.h5" "$odd/late_inlet.h5" "the hint after SIGTERM"
echo "stopped by SIGTERM while empty; the hint ran as printed ($hint) and ended bit-identical"
