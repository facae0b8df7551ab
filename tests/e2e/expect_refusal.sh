#!/usr/bin/env bash
# Usage: expect_refusal.sh DEMPACT CASE PATTERN...
# Runs `dempact run CASE` into a fresh output folder and requires exit status 2, every
# PATTERN (extended regex) in its stderr, and no output file left behind.
set -u
dempact=$1 case_file=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
stderr=$("$dempact" run "$case_file" --output "$out/o" --quiet 2>&1 >/dev/null)
status=$?
echo "exit $status: $stderr"
[ "$status" -eq 2 ] || { echo "FAIL: expected exit status 2"; exit 1; }
for pattern in "$@"; do
  grep -Eq -- "$pattern" <<<"$stderr" || { echo "FAIL: message lacks /$pattern/"; exit 1; }
done
if [ -e "$out/o" ]; then echo "FAIL: output written for a refused case"; ls -R "$out/o"; exit 1; fi
echo "refused as expected"
