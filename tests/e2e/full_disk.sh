#!/usr/bin/env bash
# Usage: full_disk.sh DEMPACT CASE
# An unwritable output folder and a full disk are reported clearly and corrupt nothing:
#  1. a read-only folder (a read-only tmpfs; chmod 555 when not root): exit 2 before
#     anything is written, the message names the folder and the reason;
#  2. an output "folder" below a regular file: exit 2, message names it;
#  3. a disk too small for the file's header (4 kB tmpfs): exit 2, "No space left on
#     device", no file left behind;
#  4. a disk that fills up during the run (1.5 MB tmpfs): exit 1, "No space left on
#     device", the message says how many complete snapshots the output keeps; every one
#     of them reads back as it is (dempact info, h5dump, h5py), no temporary file is
#     left; restarting from it into a roomier folder runs to the end and gives a final
#     snapshot bit-identical to an uninterrupted run's.
# As root it mounts small tmpfs file systems (removed on exit). Without root it uses
# chmod for 1 and a file-size limit (ulimit -f: "File too large") for 3 and 4.
set -u
dempact=$1 case_file=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${DEMPACT_PYTHON:-/usr/bin/python3}
fail() { echo "FAIL: $*"; exit 1; }
"$py" -c "import h5py, numpy" 2>/dev/null || fail "$py cannot import h5py and numpy (tools/setup.sh installs python3-h5py)"
out=$(mktemp -d)
mounts=()
cleanup() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; chmod -R u+w "$out" 2>/dev/null; rm -rf "$out"; }
trap cleanup EXIT
name=$(basename "$case_file" .yaml)
export OMP_WAIT_POLICY=passive

# A folder of at most SIZE (e.g. 1536k) in $1: a tmpfs as root, else a plain folder with
# a file-size limit applied by limited_run. Sets $limit_kb.
root=0
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$out/probe" && mount -t tmpfs -o size=8k tmpfs "$out/probe" 2>/dev/null && root=1 && umount "$out/probe"
fi
[ "$root" -eq 1 ] && echo "mounting tmpfs file systems" || echo "no mount: chmod and ulimit -f instead"
small_folder() { # DIR SIZE_KB [ro]
  mkdir -p "$1"
  limit_kb=
  if [ "$root" -eq 1 ]; then
    mount -t tmpfs -o "size=${2}k${3:+,ro}" tmpfs "$1" || fail "mount tmpfs on $1"
    mounts+=("$1")
  else
    [ -n "${3:-}" ] && chmod 555 "$1"
    limit_kb=$2
  fi
}
limited_run() { # ARGS...: dempact run with the file-size limit, if any; sets $status, $log
  if [ -n "$limit_kb" ]; then
    log=$( (trap '' XFSZ; ulimit -f "$limit_kb"; exec "$dempact" run "$@") 2>&1 >/dev/null)
  else
    log=$("$dempact" run "$@" 2>&1 >/dev/null)
  fi
  status=$?
}
expect() { # STATUS PATTERN... (extended regex on the log)
  [ "$status" -eq "$1" ] || { echo "$log"; fail "exit status $status, expected $1"; }
  shift
  for p in "$@"; do grep -Eq -- "$p" <<<"$log" || { echo "$log"; fail "message lacks /$p/"; }; done
}

# 1. read-only folder
small_folder "$out/ro" 64 ro
limited_run "$case_file" --output "$out/ro" --quiet
expect 2 "cannot write to the output folder '$out/ro': (Read-only file system|Permission denied)"
[ -z "$(ls -A "$out/ro")" ] || fail "files written to the read-only folder"
limited_run "$case_file" --output "$out/ro/sub" --quiet
expect 2 "cannot create output folder '$out/ro/sub': (Read-only file system|Permission denied)"
echo "1. read-only folder: exit 2, $(head -n 1 <<<"$log")"

# 2. below a regular file
touch "$out/plain"
limit_kb=
limited_run "$case_file" --output "$out/plain/sub" --quiet
expect 2 "'$out/plain' exists and is not a folder"
echo "2. folder below a file: exit 2, $log"

# 3. no room for the header
small_folder "$out/tiny" 4
limited_run "$case_file" --output "$out/tiny" --quiet
expect 2 "(No space left on device|File too large)"
[ -z "$(ls -A "$out/tiny")" ] || fail "files were left in the full folder: $(ls -A "$out/tiny")"
echo "3. disk full at the start: exit 2, $log"

# 4. the disk fills up during the run
"$dempact" run "$case_file" --output "$out/ref" --quiet || fail "reference run"
small_folder "$out/full" 1536
limited_run "$case_file" --output "$out/full" --quiet
expect 1 "cannot write .*(No space left on device|File too large)" \
  "keeps its [0-9]+ complete snapshots, up to step [0-9]+, each readable as it is; continue with: dempact run .* --restart"
kept=$(grep -Eo "keeps its [0-9]+" <<<"$log" | grep -Eo "[0-9]+")
[ "$kept" -ge 2 ] || fail "only $kept snapshots before the disk filled up"
"$dempact" info "$out/full/$name.h5" > /dev/null || fail "dempact info on the full disk's file"
h5dump "$out/full/$name.h5" > /dev/null || fail "h5dump on the full disk's output"
! ls -A "$out/full/$name.d" | grep -q tmp || fail "temporary files left: $(ls -A "$out/full/$name.d")"
got=$("$py" "$here/check_h5.py" "$out/full/$name.h5") || fail "check_h5.py: $got"
[ "${got%% *}" -eq "$kept" ] || fail "the file holds $got snapshots, the message said $kept"
echo "4. disk full during the run: exit 1, $(grep -m1 'cannot write' <<<"$log"); $kept snapshots read back"
# the folder stays full; continue elsewhere from the file
"$dempact" run "$case_file" --output "$out/more" --quiet --restart "$out/full/$name.h5" 2> "$out/log" ||
  { cat "$out/log"; fail "restart from the full disk's file"; }
last() { printf '%s.d/%06d.h5' "${1%.h5}" $(( $(h5ls "$1/snapshots" | wc -l) - 1 )); }
h5diff -q "$(last "$out/ref/$name.h5")" "$(last "$out/more/$name.h5")" ||
  fail "the restarted run's final snapshot differs from the uninterrupted run's"
h5diff -q "$out/ref/$name.h5" "$out/more/$name.h5" /timeseries /timeseries || fail "time series differs"
echo "   restarted from it elsewhere: final snapshot and time series bit-identical to an uninterrupted run"
