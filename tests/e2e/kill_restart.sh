#!/usr/bin/env bash
# Usage: kill_restart.sh DEMPACT CASE [KILLS]
# Crash safety and exact restart. Runs CASE once without interruption (the reference),
# then runs it again and interrupts it over and over, each time continuing the same
# output with --restart: a SIGKILL at a random moment; SIGKILLs at each stage of writing
# a snapshot (DEMPACT_TEST_KILL_AT: its file written under its temporary name, renamed
# into place, named by the .xmf files before NAME.h5); SIGTERM; SIGINT; then KILLS
# (default 10) more SIGKILLs at random moments; and finally runs on to the end. After
# every interruption the output is read as it is, with no repair step: `dempact info`,
# h5dump (every dataset, through the links), h5py (every dataset of every snapshot,
# check_h5.py), and after the staged kills ParaView's own Python (paraview_open.py) on
# the .xmf files. At the end the final snapshot and the whole time series must be
# bit-identical to the reference's (h5diff exit 0).
set -u
dempact=$1 case_file=$2 kills=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
py=${DEMPACT_PYTHON:-/usr/bin/python3}
fail() { echo "FAIL: $*"; exit 1; }
"$py" -c "import h5py, numpy" 2>/dev/null || fail "$py cannot import h5py and numpy (tools/setup.sh installs python3-h5py)"
command -v h5dump >/dev/null && command -v h5diff >/dev/null || fail "h5dump/h5diff missing (hdf5-tools)"
[ -x /usr/bin/pvpython ] || fail "/usr/bin/pvpython missing (python3-paraview)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
name=$(basename "$case_file" .yaml)
export OMP_WAIT_POLICY=passive

t0=$(date +%s%N)
"$dempact" run "$case_file" --output "$out/ref" --quiet || fail "reference run exit $?"
t_ref=$("$py" -c "print(($(date +%s%N) - $t0) / 1e9)")
ref=$out/ref/$name.h5
file=$out/run/$name.h5
echo "reference run: ${t_ref} s, $("$py" "$here/check_h5.py" "$ref") (snapshots, last step)"

# A random delay in [lo, hi] s (hi as a fraction of the reference run's duration).
delay() { "$py" -c "import random; print(round(random.uniform($1, max($1 + 0.05, $2 * $t_ref)), 3))"; }

# Checks the output left by an interruption, as it is; prints "snapshots last_step".
check() {
  [ -e "$file" ] || { echo "0 -1"; return; }
  "$dempact" info "$file" > "$out/info" 2>&1 || { cat "$out/info"; fail "dempact info after $1"; }
  h5dump "$file" > /dev/null 2> "$out/dump" || { head "$out/dump"; fail "h5dump after $1"; }
  "$py" "$here/check_h5.py" "$file" || fail "check_h5.py after $1"
}

# Starts a run (a restart if the output names a snapshot; a kill before the first one
# leaves nothing to restart from) with extra environment $2, sends signal $1 after $3 s
# (none if $3 is 0), waits; sets $status.
run_once() {
  local sig=$1 env=$2 after=$3 args=()
  [ "$(next_snapshot)" -gt 0 ] && args=(--restart "$file")
  env $env "$dempact" run "$case_file" --output "$out/run" --quiet "${args[@]}" 2> "$out/log" &
  local pid=$!
  if [ "$after" != 0 ]; then sleep "$after"; kill "-$sig" "$pid" 2>/dev/null; fi
  wait "$pid" 2>/dev/null
  status=$?
}

n_kill=0 n_signal=0
interrupt() { # SIGNAL ENV DELAY EXPECTED_STATUS LABEL
  run_once "$1" "$2" "$3"
  if [ "$status" -eq 0 ]; then echo "$5: the run had already finished"; return 1; fi
  [ "$status" -eq "$4" ] || { cat "$out/log"; fail "$5: exit status $status, expected $4"; }
  local got; got=$(check "$5") || { echo "$got"; exit 1; }
  echo "$5 after ${3} s: exit $status, the output holds $got (snapshots, last step)"
  case $1 in TERM | INT) n_signal=$((n_signal + 1)) ;; *) n_kill=$((n_kill + 1)) ;; esac
  return 0
}

# The index the next snapshot file gets: the snapshots NAME.h5 names now.
next_snapshot() { [ -e "$file" ] && "$py" "$here/check_h5.py" "$file" | cut -d' ' -f1 || echo 0; }

interrupt KILL "" "$(delay 0.2 0.1)" 137 "SIGKILL of the first run" || true
# The case's first snapshots (t < 0.012 s) catch no contact: its beads bounce off the
# floor one by one. ParaView must be shown the force network (paraview_open.py fails a
# file of more than two snapshots without one), so the staged kills leave at least five,
# however early the first kill fell (a slow build may not have written two by then).
for stage in written renamed listed; do
  k=$(( $(next_snapshot) + 1 ))
  [ "$k" -ge 5 ] || k=5
  interrupt NONE "DEMPACT_TEST_KILL_AT=$stage:$k" 0 137 "SIGKILL when snapshot $k is $stage" || true
  grep -q "killed at stage $stage of snapshot $k" "$out/log" || { cat "$out/log"; fail "the test hook did not fire at $stage:$k"; }
  env -u DISPLAY /usr/bin/pvpython --force-offscreen-rendering "$here/paraview_open.py" "$out/run/$name.xmf" \
    2> "$out/pv.err" || { grep -v -e "^$" "$out/pv.err" | head; fail "ParaView after the kill at $stage"; }
done
interrupt TERM "" "$(delay 0.3 0.12)" 143 "SIGTERM" || true
grep -q "stopped by SIGTERM" "$out/log" || fail "no message after SIGTERM"
interrupt INT "" "$(delay 0.3 0.12)" 130 "SIGINT" || true
for k in $(seq 1 "$kills"); do
  interrupt KILL "" "$(delay 0.1 0.1)" 137 "SIGKILL $k" || break
done
run_once NONE "" 0
[ "$status" -eq 0 ] || { cat "$out/log"; fail "the last restart exit $status"; }
[ "$n_kill" -ge 6 ] && [ "$n_signal" -ge 2 ] || fail "only $n_kill kills and $n_signal signals landed before the end"

last() { printf '%s.d/%06d.h5' "${1%.h5}" $(( $(h5ls "$1/snapshots" | wc -l) - 1 )); }
h5diff -q "$(last "$ref")" "$(last "$file")" || fail "final snapshot $(last "$file") differs from the reference's $(last "$ref")"
h5diff -q "$ref" "$file" /timeseries /timeseries || fail "the time series differs from the reference's"
echo "after $n_kill SIGKILLs (three of them between the steps of writing a snapshot) and $n_signal SIGTERM/SIGINT:" \
  "final snapshot ($(basename "$(last "$file")") vs $(basename "$(last "$ref")")) and time series bit-identical"
