#!/usr/bin/env bash
# Usage: tests/fuzz/run_fuzz.sh [case|restart|csv|lammps|stl] [SECONDS] [EXTRA libFuzzer OPTIONS...]
# Builds a fuzzer in build-fuzz/ (clang, libFuzzer, ASan + UBSan) and runs it for SECONDS
# (default 1200) of wall time, one process, at nice 10, on a working corpus in
# build-fuzz/corpus/NAME seeded from tests/fuzz/seeds/NAME:
#   case     the case-file reader and what `dempact check` does after it (fuzz_case.c),
#            with the dictionary case.dict;
#   restart  the HDF5 restart reader (fuzz_restart.c), on files of restart_case.yaml;
#   csv      the particle CSV reader and the overlap check after it (fuzz_csv.c);
#   lammps   the LAMMPS data reader and bench's packing check (fuzz_lammps.c);
#   stl      the STL reader, ASCII and binary (fuzz_stl.c).
# Crashing inputs land in build-fuzz/artifacts/; once fixed, copy each into
# tests/fuzz/regressions/NAME/, which ctest replays (fuzz_NAME_regressions) with every
# build, sanitized or not. To fold new corpus entries into the seeds:
#   build-fuzz/tests/fuzz/fuzz_case -merge=1 tests/fuzz/seeds/case build-fuzz/corpus/case
# Needs: apt-get install clang (with libclang-rt-dev and libomp-dev).
set -euo pipefail
cd "$(dirname "$0")/../.."
name=${1:-case}
seconds=${2:-1200}
shift 2 || shift $# || true
case "$name" in
  case) options=(-dict=tests/fuzz/case.dict -max_len=4096 -timeout=10) ;;
  # HDF5 itself allocates and leaks on some corrupted files (findings/README): its leaks
  # are suppressed, single allocations capped, and out-of-memory runs skipped
  restart) options=(-max_len=327680 -timeout=30 -fork=1 -ignore_ooms=1 -malloc_limit_mb=1024)
           export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan_hdf5.supp ;;
  csv|lammps|stl) options=(-max_len=8192 -timeout=10) ;;
  *) echo "run_fuzz.sh: case, restart, csv, lammps or stl, not '$name'" >&2; exit 2 ;;
esac
CC=clang cmake -S . -B build-fuzz -DDEMPACT_FUZZ=ON -DDEMPACT_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build build-fuzz --target "fuzz_$name" -j 2 2>&1 |
  grep -v 'unknown warning option\|warnings\? generated' || true
mkdir -p "build-fuzz/corpus/$name" build-fuzz/artifacts
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OMP_NUM_THREADS=1 \
nice -n 10 "build-fuzz/tests/fuzz/fuzz_$name" "build-fuzz/corpus/$name" "tests/fuzz/seeds/$name" \
  "${options[@]}" -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix=build-fuzz/artifacts/ "$@"
