#!/usr/bin/env bash
# Usage: kill_restart.sh DEMPACT CASE [KILLS]
# Crash safety and exact restart. Runs CASE once without interruption (the reference),
# then runs it again and interrupts it over and over, each time continuing the same file
# with --restart: SIGKILL at a random moment, a SIGKILL in the middle of a commit
# (DEMPACT_TEST_CRASH_COMMIT), SIGTERM, SIGINT, then KILLS (default 10) more SIGKILLs at
# random moments, and finally runs on to the end. After every interruption: `dempact
# info` reads the file (completing a commit the crash interrupted), h5dump reads every
# dataset, h5py reads every dataset of every snapshot (check_h5.py), and the .xmf names
# no missing snapshot. At the end the final snapshot and the whole time series must be
# bit-identical to the reference's (h5diff exit 0).
set -u
dempact=$1 case_file=$2 kills=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
"$py" -c "import h5py, numpy" 2>/dev/null || fail "$py cannot import h5py and numpy (tools/setup.sh installs python3-h5py)"
command -v h5dump >/dev/null && command -v h5diff >/dev/null || fail "h5dump/h5diff missing (hdf5-tools)"
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

# Checks the file left by an interruption; prints "snapshots last_step".
check() {
  [ -e "$file" ] || { echo "0 -1"; return; }
  "$dempact" info "$file" > "$out/info" 2>&1 || { cat "$out/info"; fail "dempact info after $1"; }
  h5dump "$file" > /dev/null 2> "$out/dump" || { head "$out/dump"; fail "h5dump after $1"; }
  "$py" "$here/check_h5.py" "$file" || fail "check_h5.py after $1"
}

# Starts a run (a restart if the file exists) with extra environment $2, sends signal $1
# after $3 s (none if $3 is 0), waits; sets $status.
run_once() {
  local sig=$1 env=$2 after=$3 args=()
  [ -e "$file" ] && args=(--restart "$file")
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
  echo "$5 after ${3} s: exit $status, file holds $got (snapshots, last step)"
  case $1 in TERM | INT) n_signal=$((n_signal + 1)) ;; *) n_kill=$((n_kill + 1)) ;; esac
  return 0
}

interrupt KILL "" "$(delay 0.2 0.1)" 137 "SIGKILL of the first run" || true
interrupt NONE DEMPACT_TEST_CRASH_COMMIT=3 0 137 "crash in the middle of commit 3" || true
grep -q "killed in the middle of commit" "$out/log" || fail "the commit crash hook did not fire"
interrupt TERM "" "$(delay 0.3 0.12)" 143 "SIGTERM" || true
grep -q "stopped by SIGTERM" "$out/log" || fail "no message after SIGTERM"
interrupt INT "" "$(delay 0.3 0.12)" 130 "SIGINT" || true
for k in $(seq 1 "$kills"); do
  interrupt KILL "" "$(delay 0.1 0.1)" 137 "SIGKILL $k" || break
done
run_once NONE "" 0
[ "$status" -eq 0 ] || { cat "$out/log"; fail "the last restart exit $status"; }
[ "$n_kill" -ge 4 ] && [ "$n_signal" -ge 2 ] || fail "only $n_kill kills and $n_signal signals landed before the end"

last_ref=$(printf '/snapshots/%06d' $(( $(h5ls "$ref/snapshots" | wc -l) - 1 )))
last_run=$(printf '/snapshots/%06d' $(( $(h5ls "$file/snapshots" | wc -l) - 1 )))
h5diff -q "$ref" "$file" "$last_ref" "$last_run" || fail "final snapshot $last_run differs from the reference's $last_ref"
h5diff -q "$ref" "$file" /timeseries /timeseries || fail "the time series differs from the reference's"
echo "after $n_kill SIGKILLs (one inside a commit) and $n_signal SIGTERM/SIGINT: final snapshot ($last_run vs $last_ref) and time series bit-identical"
