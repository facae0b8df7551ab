#!/usr/bin/env bash
# Usage: bench_write_data.sh DEMPACT
# `dempact bench --write-data FILE` never replaces a file without --overwrite, and FILE
# is whole or absent (docs/guarantees.md, "Never overwritten, never lost"):
# - an existing FILE (the bench's own, a user's file, a symbolic link to one) is refused
#   with exit 2 and one line naming it and --overwrite, before the bed is built, and
#   stays byte for byte as it was (so does the link's target);
# - a FILE that is a folder, or in a folder that does not exist, is refused (exit 2),
#   even with --overwrite; --overwrite without --write-data is refused;
# - with --overwrite FILE is replaced by the bed, which `bench --load` reads back;
# - SIGINT and SIGTERM at twelve moments of a bench that builds and writes a bed leave
#   FILE absent or identical to the uninterrupted bench's (the same settings give the
#   same bed), and no temporary file beside it.
set -u
dempact=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
tiny=(--particles 120 --depth 4 --young 1e6 --seed 3 --steps 0 --quiet)
digest() { (cd "$work" && find . -printf '%p %y %s %l\n' | sort && find . -type f -exec sha256sum {} + | sort); }

# refused with exit 2, one line naming FILE (and PATTERN), nothing changed
refused() {
  local pattern=$1; shift
  local before after err status
  before=$(digest)
  err=$("$dempact" bench "${tiny[@]}" "$@" 2>&1 >/dev/null)
  status=$?
  after=$(digest)
  [ "$status" -eq 2 ] || fail "bench $*: exit $status, not 2 ($err)"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "bench $*: not one line: $err"
  grep -Eq -- "$pattern" <<<"$err" || fail "bench $*: message lacks /$pattern/: $err"
  [ "$before" = "$after" ] || fail "bench $*: a refused bench changed files"
  echo "refused: $err"
}

"$dempact" bench "${tiny[@]}" --write-data "$work/bed.data" > /dev/null || fail "first write: exit $?"
cp "$work/bed.data" "$work/reference.data"
refused "bed.data: the file exists; --overwrite replaces it" --write-data "$work/bed.data"
printf 'my own data, not a bed\n' > "$work/mine.data"
refused "mine.data.*--overwrite" --write-data "$work/mine.data"
ln -s "$work/mine.data" "$work/link.data"
refused "link.data.*--overwrite" --write-data "$work/link.data"
ln -s "$work/nowhere.data" "$work/dangling.data"
refused "dangling.data.*--overwrite" --write-data "$work/dangling.data"
mkdir "$work/folder.data"
refused "folder.data: is a folder" --write-data "$work/folder.data" --overwrite
refused "no folder .*/missing to write it in" --write-data "$work/missing/bed.data" --overwrite
refused "--overwrite goes with --write-data" --overwrite

# the refusal comes before the bed is built: a bed of 10^6 spheres would take minutes
start=$(date +%s)
refused "--overwrite replaces it" --write-data "$work/bed.data" --particles 1000080
[ $(( $(date +%s) - start )) -le 5 ] || fail "the refusal waited for the bed"

"$dempact" bench "${tiny[@]}" --write-data "$work/mine.data" --overwrite > /dev/null || fail "--overwrite: exit $?"
cmp -s "$work/mine.data" "$work/reference.data" || fail "--overwrite did not write the bed"
"$dempact" bench --load "$work/mine.data" --young 1e6 --steps 1 --threads 1 --quiet > /dev/null ||
  fail "the replaced file does not load"

# stopped at any moment: FILE absent or whole, no temporary file left (job control on:
# a background job of a script ignores SIGINT otherwise)
set -m
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
  rm -f "$work/stop.data"
  sig=INT; [ $((k % 2)) -eq 0 ] && sig=TERM
  "$dempact" bench "${tiny[@]}" --threads 1 --write-data "$work/stop.data" > /dev/null 2>&1 &
  pid=$!
  sleep "0.$(printf '%02d' $((k * 4)))"
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid"
  status=$?
  if [ -e "$work/stop.data" ]; then
    cmp -s "$work/stop.data" "$work/reference.data" || fail "SIG$sig after 0.$((k * 4)) s: a half file (exit $status)"
    echo "SIG$sig after 0.$(printf '%02d' $((k * 4))) s: exit $status, the whole file"
  else
    echo "SIG$sig after 0.$(printf '%02d' $((k * 4))) s: exit $status, no file"
  fi
  leftover=$(find "$work" -name 'stop.data?*')
  [ -z "$leftover" ] || fail "SIG$sig: a temporary file is left: $leftover"
done
echo "bench --write-data: refuses what exists, writes whole files"
