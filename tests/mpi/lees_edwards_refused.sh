#!/usr/bin/env bash
# Usage: lees_edwards_refused.sh MPIEXEC DEMPACT CASE
# A Lees-Edwards case on 2 ranks (`mpirun -np 2 dempact run` and `check`) is refused at
# the start: exit status 2, the key named, nothing written.
set -u
mpiexec=$1 dempact=$2 case_file=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for command in run check; do
  args=("$command" "$case_file")
  [ "$command" = run ] && args+=(--output "$out/o" --quiet)
  stderr=$("$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$dempact" "${args[@]}" 2>&1 >/dev/null)
  status=$?
  echo "$command on 2 ranks: exit $status: $(grep -m1 'lees_edwards' <<<"$stderr")"
  [ "$status" -eq 2 ] || { echo "FAIL: expected exit status 2"; echo "$stderr" | head; failed=1; }
  grep -q 'domain.lees_edwards' <<<"$stderr" || { echo "FAIL: the message does not name domain.lees_edwards"; failed=1; }
done
[ -e "$out/o" ] && { echo "FAIL: output written"; ls -R "$out/o"; failed=1; }
exit $failed
