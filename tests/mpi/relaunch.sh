#!/usr/bin/env bash
# Usage: relaunch.sh DEMPACT DEMPACT_MPI
# `mpirun -np N dempact ...` runs on N ranks: dempact, built without MPI, replaces itself
# with the dempact-mpi beside it (io/commands/cli_relaunch.c). Checked on copies of the
# two programs in a folder of their own (as `cmake --install` puts them in bin), reached
# through a symbolic link from elsewhere (the sibling is found beside the program's file,
# not beside the link); then the copy of dempact alone: it still runs in one process,
# and under mpirun it stops with exit status 2 and a message naming the missing program.
set -u
dempact=$1
dempact_mpi=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mpirun=(mpirun --oversubscribe --allow-run-as-root)
bed=(bench --particles 500 --steps 5 --threads 1 --quiet --format json)
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
ranks() { python3 -c 'import json, sys; print(json.load(sys.stdin)["ranks"])'; }

mkdir "$work/bin" "$work/elsewhere"
cp "$dempact" "$work/bin/dempact"
cp "$dempact_mpi" "$work/bin/dempact-mpi"
ln -s "$work/bin/dempact" "$work/elsewhere/dempact"

n=$("${mpirun[@]}" -np 2 "$work/elsewhere/dempact" "${bed[@]}" | ranks) ||
  fail "mpirun -np 2 dempact bench did not run"
[ "$n" = 2 ] || fail "mpirun -np 2 dempact bench ran on $n ranks, not 2"
n=$("$work/elsewhere/dempact" "${bed[@]}" | ranks) || fail "dempact bench did not run"
[ "$n" = 1 ] || fail "dempact bench without mpirun ran on $n ranks, not 1"

rm "$work/bin/dempact-mpi"
n=$("$work/bin/dempact" "${bed[@]}" | ranks) || fail "dempact bench without dempact-mpi did not run"
[ "$n" = 1 ] || fail "dempact bench without dempact-mpi ran on $n ranks, not 1"
"${mpirun[@]}" -np 2 "$work/bin/dempact" "${bed[@]}" >"$work/out" 2>"$work/err"
status=$?
[ "$status" = 2 ] || fail "mpirun -np 2 dempact without dempact-mpi beside it: exit $status, not 2"
grep -q "the MPI build $work/bin/dempact-mpi did not start" "$work/err" ||
  fail "mpirun -np 2 dempact without dempact-mpi: no message naming it: $(head -3 "$work/err")"
[ ! -s "$work/out" ] || fail "mpirun -np 2 dempact without dempact-mpi wrote: $(head -3 "$work/out")"
echo "mpirun -np 2 dempact runs on 2 ranks through dempact-mpi beside it; without it, exit 2 and its name"
