#!/usr/bin/env bash
# Usage: malformed_corpus.sh DEMPACT CASES_DIR TEST_SOURCE
# Every malformed case file CASES_DIR/bad_*.yaml, through both `dempact check` and
# `dempact run`: the exit status must be 2 (not a crash, not 0), stderr must hold every
# fragment the bad_cases table of TEST_SOURCE (tests/test_case_reader.c) expects for it
# (the first names FILE:LINE:, the others the key and the problem), and run must leave
# no output behind. A bad file missing from the table fails the test, so each one is
# checked for what its message says.
set -u
dempact=$1 dir=$2 table=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# the table as lines "file<TAB>fragment<TAB>fragment..."
python3 - "$table" >"$out/expect" <<'PY' || { echo "FAIL: cannot read the table"; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
entry = re.compile(r'\{"(bad_[^"]+\.yaml)",\s*\{((?:\s*"(?:[^"\\]|\\.)*"\s*,?)+)\}\}')
for m in entry.finditer(text):
    frags = [bytes(f, "ascii").decode("unicode_escape")
             for f in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))]
    print("\t".join([m.group(1)] + frags))
PY
n=0 failed=0
for file in "$dir"/bad_*.yaml; do
  name=$(basename "$file")
  line=$(grep -P "^\Q$name\E\t" "$out/expect")
  if [ -z "$line" ]; then echo "FAIL: $name has no expected message in $table"; failed=$((failed + 1)); continue; fi
  IFS=$'\t' read -r -a frags <<<"$line"
  for cmd in check run; do
    if [ "$cmd" = run ]; then
      stderr=$("$dempact" run "$file" --output "$out/o" --quiet 2>&1 >/dev/null)
    else
      stderr=$("$dempact" check "$file" 2>&1 >/dev/null)
    fi
    status=$?
    problem=""
    [ "$status" -eq 2 ] || problem="exit status $status, expected 2"
    for frag in "${frags[@]:1}"; do
      [ -n "$problem" ] && break
      grep -qF -- "$frag" <<<"$stderr" || problem="message lacks \"$frag\""
    done
    if [ -z "$problem" ] && [ -e "$out/o" ]; then problem="output written"; rm -rf "$out/o"; fi
    if [ -n "$problem" ]; then
      echo "FAIL: dempact $cmd $name: $problem"
      echo "  stderr: $stderr"
      failed=$((failed + 1))
    fi
  done
  n=$((n + 1))
done
echo "$n malformed case files, each through check and run: $failed failures"
[ "$n" -ge 50 ] || { echo "FAIL: only $n malformed files (the issue asks for 50)"; exit 1; }
[ "$failed" -eq 0 ]
