#!/usr/bin/env bash
# Usage: laws_listed.sh DEMPACT
# `dempact laws` must list every law the project promises (the names users type), each
# with its full citations (authors, year, title, journal or code, a DOI where the paper
# has one), whether it calibrates, and its parameters; and cite nothing that does not
# ship with dempact; `dempact laws --adhesion` the adhesion laws the same way. docs/laws.md
# is checked against the same output by tests/doc/check_laws.py.
set -u
dempact=$1
out=$("$dempact" laws) || { echo "FAIL: dempact laws exited $?"; exit 1; }
for law in linear hertz hertz_critical_ratio hertz_tti hertz_kk hertz_lh hunt_crossley \
           lankarani_nikravesh flores gharib_hurmuzlu hu_guo safaeifar_farshidianfar \
           sheikhi_azqandi_safaeifar exact zhang kostek; do
  block=$(awk -v law="$law" '$0 == law {on = 1; next} /^$/ {on = 0} on' <<<"$out")
  [ -n "$block" ] || { echo "FAIL: $law is not listed"; exit 1; }
  grep -q "^  source: ." <<<"$block" || { echo "FAIL: $law has no source"; exit 1; }
  # every citation line: authors, (year), a title and where it appeared
  sources=$(awk '/^  source: /{on = 1; sub(/^  source: /, ""); print; next}
                 on && /^          [^ ]/ {sub(/^ +/, ""); print; next} {on = 0}' <<<"$block")
  while IFS= read -r ref; do
    [[ "$ref" =~ ^[A-Z][^\(]*\ \((1[89]|20)[0-9][0-9]\),\ .+,\ .+ ]] || [[ "$ref" =~ ^R\.\ L\.\ Rangel,\ DEMLab ]] ||
      { echo "FAIL: $law: not a full citation: $ref"; exit 1; }
  done <<<"$sources"
  grep -q "calibrate: " <<<"$block" || { echo "FAIL: $law does not say whether it calibrates"; exit 1; }
done
# the sources are papers, never the project's working notes
if grep -Eqi "seed [0-9]{3}|physics\.md|family [0-9]|\.\./shared" <<<"$out"; then
  echo "FAIL: dempact laws points at a document that does not ship:"
  grep -Ei "seed [0-9]{3}|physics\.md|family [0-9]|\.\./shared" <<<"$out"
  exit 1
fi
for doi in 10.1115/1.3423596 10.1115/1.2912617 10.1007/s11044-010-9237-4 10.1115/1.4006494 \
           10.1007/s11044-015-9453-z 10.1016/j.ymssp.2021.107808 10.1143/JJAP.26.1230 \
           "10.1016/0032-5910(92)88030-L"; do
  grep -qF "doi:$doi" <<<"$out" || { echo "FAIL: no law cites doi:$doi"; exit 1; }
done
# the adhesion laws (`dempact laws --adhesion`): each with a summary, full citations and
# its one key with its unit
adh=$("$dempact" laws --adhesion) || { echo "FAIL: dempact laws --adhesion exited $?"; exit 1; }
for entry in jkr:work:J/m^2 dmt:work:J/m^2 sjkr:energy_density:J/m^3 sjkr2:energy_density:J/m^3 \
    capillary:volume:m^3 capillary:contact_angle:deg capillary:surface_tension:N/m; do
  IFS=: read -r law key unit <<<"$entry"
  block=$(awk -v h="adhesion.model $law" '$0 == h {on = 1; next} /^$/ {on = 0} on' <<<"$adh")
  [ -n "$block" ] || { echo "FAIL: adhesion law $law is not listed"; exit 1; }
  ref=$(sed -n 's/^  source: //p' <<<"$block")
  [[ "$ref" =~ ^[A-Z][^\(]*\ \((19|20)[0-9][0-9]\),\ .+,\ .+doi:10\. ]] ||
    { echo "FAIL: adhesion law $law: not a full citation with a DOI: $ref"; exit 1; }
  grep -qF "  $key " <<<"$block" && grep -qF "[$unit]" <<<"$block" ||
    { echo "FAIL: adhesion law $law does not list $key [$unit]"; exit 1; }
done
n=$(grep -c "^adhesion.model " <<<"$adh")
[ "$n" -eq 5 ] || { echo "FAIL: dempact laws --adhesion lists $n laws, not jkr, dmt, sjkr, sjkr2, capillary"; exit 1; }
for doi in 10.1098/rspa.1971.0141 "10.1016/0021-9797(75)90018-1" 10.1504/PCFD.2012.047457 \
    10.1021/la000657y 10.1006/jcis.1993.1452; do
  grep -qF "doi:$doi" <<<"$adh" || { echo "FAIL: no adhesion law cites doi:$doi"; exit 1; }
done
echo "all laws listed with full citations"
