#!/bin/bash
# Usage: bench_ab.sh [-n PAIRS] [-s STEPS] [-f MU] [-r MU_R] A B BED
# Compares two dempact builds A and B on the bed BED (a LAMMPS data file, as written by
# `dempact bench --particles N --steps 0 --write-data BED`): each pair of runs has A and B
# running at the same time, one per core, one thread each, on alternating cores, so that
# both see the same machine load; a shared virtual machine's speed moves by 15% from one
# minute to the next, which sequential runs mistake for a difference between builds.
# Prints each pair's particle-steps per second and B/A, then the median of B/A.
# PAIRS defaults to 12, STEPS to 150, MU (friction) to 0.5, MU_R (the `constant` rolling
# torque, bench's --rolling) to 0: none.
set -eu
pairs=12 steps=150 mu=0.5 mu_r=0
while getopts "n:s:f:r:" opt; do
    case $opt in
    n) pairs=$OPTARG ;;
    s) steps=$OPTARG ;;
    f) mu=$OPTARG ;;
    r) mu_r=$OPTARG ;;
    *) sed -n '2,10p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ]; then sed -n '2,10p' "$0" >&2; exit 2; fi
a=$1 b=$2 bed=$3
if [ "$(nproc)" -lt 2 ]; then echo "bench_ab.sh: needs two cores" >&2; exit 2; fi

speed() { # CORE BINARY OUT
    OMP_NUM_THREADS=1 taskset -c "$1" "$2" bench --load "$bed" --steps "$steps" --friction "$mu" \
        ${rolling[@]+"${rolling[@]}"} --threads 1 2>&1 | awk '/^particle_steps_per_second/ {print $2}' >"$3"
}

rolling=()
if [ "$mu_r" != 0 ]; then rolling=(--rolling "$mu_r"); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$pairs"); do
    core_a=$((r % 2)) core_b=$(((r + 1) % 2))
    speed "$core_a" "$a" "$tmp/a" &
    speed "$core_b" "$b" "$tmp/b" &
    wait
    sa=$(cat "$tmp/a") sb=$(cat "$tmp/b")
    if [ -z "$sa" ] || [ -z "$sb" ]; then echo "bench_ab.sh: a bench run failed" >&2; exit 1; fi
    awk -v a="$sa" -v b="$sb" 'BEGIN {printf "A %.4g  B %.4g  B/A %.3f\n", a, b, b / a}' | tee -a "$tmp/pairs"
done
sort -k6 -g "$tmp/pairs" | awk '{r[NR] = $6} END {
    m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
    printf "median B/A %.3f over %d pairs\n", m, NR }'
