#!/usr/bin/env bash
# Usage: output_guard.sh DEMPACT CASE
# Never lose a file. With an output of CASE in a folder, each of these must exit 2 with a
# message naming the file in the way (or the bad input) and leave the folder byte for
# byte as it was (a listing of every name, size and SHA-256 compared before and after):
# a restart from a copy whose time series was deleted, into that folder and in place;
# a bad case; another case of the same name; a run over a plain text file named like the
# output (then --overwrite replaces it); a second run while one is writing. A run of the
# same case with a longer time.end replaces the output.
set -u
dempact=$1 case_file=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp -d)
trap 'kill $bg 2>/dev/null; rm -rf "$out"' EXIT
bg=
name=$(sed -n 's/^name: *\([A-Za-z0-9_.-]*\).*/\1/p' "$case_file" | head -n 1)
export OMP_WAIT_POLICY=passive
listing() { (cd "$1" && find . -mindepth 1 -printf '%p %y %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }
# Runs dempact with ARGS, which must exit 2 with PATTERN in its message and leave DIR as it was.
refused() { # DIR PATTERN ARGS...
  local dir=$1 pattern=$2
  shift 2
  local before after log status
  before=$(listing "$dir")
  log=$("$dempact" run "$@" --quiet 2>&1 >/dev/null)
  status=$?
  after=$(listing "$dir")
  [ "$status" -eq 2 ] || { echo "$log"; fail "dempact run $*: exit $status, expected 2"; }
  grep -Eq -- "$pattern" <<<"$log" || { echo "$log"; fail "dempact run $*: message lacks /$pattern/"; }
  [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "dempact run $* changed $dir"; }
  echo "refused, $dir unchanged: $(head -n 1 <<<"$log" | cut -c1-160)"
}

"$dempact" run "$case_file" --output "$out/a" --quiet --end-time 0.01 || fail "first run"
# a restart file whose time series was deleted
cp -r "$out/a" "$out/broken"
"${DEMPACT_PYTHON:-/usr/bin/python3}" -c "import h5py; f = h5py.File('$out/broken/$name.h5', 'r+'); del f['timeseries']" || fail "h5py"
refused "$out/a" "'$out/broken/$name.h5': group /timeseries is missing" "$case_file" --restart "$out/broken/$name.h5" --output "$out/a"
refused "$out/broken" "group /timeseries is missing" "$case_file" --restart "$out/broken/$name.h5" --output "$out/broken"
# a bad case
sed 's/^  - {source: random, material: glass/  - {source: random, materal: glass/' "$case_file" > "$out/typo.yaml"
grep -q materal "$out/typo.yaml" || fail "could not make the bad case"
refused "$out/a" "typo.yaml:[0-9]+:.*materal" "$out/typo.yaml" --output "$out/a"
# another case of the same name
sed 's/restitution: 0.5/restitution: 0.45/' "$case_file" > "$out/other.yaml"
refused "$out/a" "'$out/a/$name.h5' holds the output of another case \(contacts\[0\].params.restitution is 0.5 in the file's case and 0.45 in this one; it is kept\).*--overwrite" \
  "$out/other.yaml" --output "$out/a"
# a plain text file named like the output
mkdir "$out/notes" && echo "my notes" > "$out/notes/$name.h5"
refused "$out/notes" "'$out/notes/$name.h5' exists and is not a dempact output \(it is kept\).*--overwrite" "$case_file" --output "$out/notes"
"$dempact" run "$case_file" --output "$out/notes" --quiet --end-time 0.005 --overwrite || fail "--overwrite"
"$dempact" info "$out/notes/$name.h5" > /dev/null || fail "the replaced output does not read"
echo "--overwrite replaced the text file"
# the same case, a longer run: replaced
"$dempact" run "$case_file" --output "$out/a" --quiet --end-time 0.02 || fail "the same case did not replace its output"
n=$("$dempact" info "$out/a/$name.h5" | sed -n 's/^snapshots: *//p')
[ "$n" -gt 2 ] || fail "the replaced output has $n snapshots"
echo "the same case replaced its output ($n snapshots)"
# a second run while one writes
"$dempact" run "$case_file" --output "$out/busy" --quiet --end-time 1000 2>/dev/null &
bg=$!
for _ in $(seq 1 100); do [ -e "$out/busy/$name.h5" ] && break; sleep 0.1; done
log=$("$dempact" run "$case_file" --output "$out/busy" --quiet 2>&1 >/dev/null)
status=$?
kill $bg 2>/dev/null; wait $bg 2>/dev/null
[ "$status" -eq 2 ] && grep -q "another dempact run is writing it" <<<"$log" || { echo "$log"; fail "a second writer: exit $status"; }
echo "a second run into a folder being written: exit 2, $log"
