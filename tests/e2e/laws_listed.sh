#!/usr/bin/env bash
# Usage: laws_listed.sh DEMPACT
# `dempact laws` must list every law the project promises (the names users type, from
# the issue texts and physics.md), each with a source line and its parameters.
set -u
dempact=$1
out=$("$dempact" laws) || { echo "FAIL: dempact laws exited $?"; exit 1; }
for law in linear hertz hertz_critical_ratio hertz_tti hertz_kk hertz_lh hunt_crossley \
           lankarani_nikravesh flores gharib_hurmuzlu hu_guo safaeifar_farshidianfar \
           sheikhi_azqandi_safaeifar exact zhang kostek; do
  block=$(awk -v law="$law" '$0 == law {on = 1; next} /^$/ {on = 0} on' <<<"$out")
  [ -n "$block" ] || { echo "FAIL: $law is not listed"; exit 1; }
  grep -q "^  source: ." <<<"$block" || { echo "FAIL: $law has no source"; exit 1; }
  grep -q "calibrate: " <<<"$block" || { echo "FAIL: $law does not say whether it calibrates"; exit 1; }
done
grep -q "Kostek 2012" <<<"$out" && grep -q "Zhang et al., Mech. Syst. Signal Process." <<<"$out" || { echo "FAIL: sources"; exit 1; }
echo "all laws listed with their sources"
